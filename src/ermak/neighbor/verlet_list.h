#pragma once
// Half Verlet list of repulsive pairs within cutoff + skin, built from a cell list, in a
// cluster-pair layout for SIMD: each i-cluster (4 consecutive beads) lists j-clusters
// (8 consecutive beads) with a 32-bit mask, bit 8·a + b set when bead 4I+a and bead 8J+b
// are partners (i < j, within the list cutoff, not bonded or native). Each pair appears
// once; the force loop reads 8 contiguous positions once for 4 i beads and updates 8
// contiguous forces once per entry, no gathers or scatters (docs/benchmarks.md#cpu-backend).
// Beads stay in topology (chain) order: consecutive C-alpha beads are already close in
// space (a Morton order was measured to fill fewer lanes). Rebuilt when any bead has
// moved more than skin/2 since the build, so no pair within the cutoff is missed
// (docs/model.md#repulsion).
#include <cstdint>
#include <vector>

#include "ermak/model/topology.h"

namespace ermak {

inline constexpr std::int32_t kClusterWidth = 8;   // beads per j-cluster (SIMD lanes)
inline constexpr std::int32_t kIClusterWidth = 4;  // beads per i-cluster (list row)

// Beads rounded up to whole clusters: arrays the force loop reads are this long.
inline std::int32_t padded_bead_count(std::int32_t beads) {
  return (beads + kClusterWidth - 1) / kClusterWidth * kClusterWidth;
}

struct VerletList {
  std::vector<std::int32_t> row_offsets;  // size rows+1: entries of i-cluster I in [row_offsets[I], row_offsets[I+1])
  std::vector<std::int32_t> clusters;     // j-cluster c covers beads c·8 … c·8+7
  std::vector<std::uint32_t> masks;       // bit 8·a + b set: beads 4I+a and c·8+b are partners
  std::int64_t pairs = 0;                 // set bits in all masks
  std::int64_t pair_count() const { return pairs; }
  std::int32_t row_count() const { return std::int32_t(row_offsets.size()) - 1; }
};

// Calls visit(i, j) for every listed pair (i < j), row by row.
template <class Visit>
void for_each_listed_pair(const VerletList& list, Visit&& visit) {
  for (std::int32_t row = 0; row < list.row_count(); ++row)
    for (std::int32_t e = list.row_offsets[row]; e < list.row_offsets[row + 1]; ++e)
      for (std::int32_t bit = 0; bit < kIClusterWidth * kClusterWidth; ++bit)
        if ((list.masks[e] >> bit) & 1u)
          visit(row * kIClusterWidth + bit / kClusterWidth, list.clusters[e] * kClusterWidth + bit % kClusterWidth);
}

// Scratch of one worker building rows.
struct RowScratch {
  std::vector<std::uint8_t> exclusion_bits;  // bit a: excluded partner of bead a of the current row
  std::vector<std::uint32_t> cluster_mask;
  std::vector<std::int32_t> touched_clusters;
};

// Reusable scratch memory for builds (cell arrays), one per thread that builds.
struct CellListScratch {
  std::vector<std::int32_t> cell_of_bead;
  std::vector<std::int32_t> cell_start;   // CSR over cells
  std::vector<std::int32_t> sorted_beads; // bead indices ordered by cell, ascending within a cell
  std::vector<float> sorted_x, sorted_y, sorted_z;
  std::vector<RowScratch> rows;
  std::vector<VerletList> partial_lists;
};

// Builds the list for one replica's positions (SoA, N beads). Output is independent of
// thread count and of the order in which candidates are visited.
void build_verlet_list(const float* x, const float* y, const float* z, std::int32_t bead_count,
                       const ExclusionList& exclusions, float list_cutoff_A,
                       CellListScratch& scratch, VerletList& out);

// The same list built by `threads` OpenMP threads (bit-identical to build_verlet_list).
void build_verlet_list_parallel(const float* x, const float* y, const float* z, std::int32_t bead_count,
                                const ExclusionList& exclusions, float list_cutoff_A, int threads,
                                CellListScratch& scratch, VerletList& out);

}  // namespace ermak
