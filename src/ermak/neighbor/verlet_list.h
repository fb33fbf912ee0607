#pragma once
// Half Verlet list of repulsive pairs within cutoff + skin, built from a cell list, in a
// cluster layout for SIMD: bead i lists j-clusters (8 consecutive beads) with an 8-bit
// mask of the lanes that are partners (j > i, within the list cutoff, not bonded or
// native). Each pair appears once; the force loop reads 8 contiguous positions and
// updates 8 contiguous forces per entry, no gathers or scatters. Rebuilt when any bead
// has moved more than skin/2 since the build, so no pair within the cutoff is missed
// (docs/model.md#neighbour-list).
#include <cstdint>
#include <vector>

#include "ermak/model/topology.h"

namespace ermak {

inline constexpr std::int32_t kClusterWidth = 8;

// Beads rounded up to whole clusters: arrays the force loop reads are this long.
inline std::int32_t padded_bead_count(std::int32_t beads) {
  return (beads + kClusterWidth - 1) / kClusterWidth * kClusterWidth;
}

struct VerletList {
  std::vector<std::int32_t> row_offsets;  // size N+1: entries of i in [row_offsets[i], row_offsets[i+1])
  std::vector<std::int32_t> clusters;     // j-cluster c covers beads c·8 … c·8+7
  std::vector<std::uint8_t> masks;        // bit k set: bead c·8+k is a partner of i
  std::int64_t pairs = 0;                 // set bits in all masks
  std::int64_t pair_count() const { return pairs; }
};

// Scratch of one worker building rows.
struct RowScratch {
  std::vector<std::int32_t> exclusion_stamp;
  std::vector<std::uint8_t> cluster_mask;
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
