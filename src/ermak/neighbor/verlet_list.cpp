#include "ermak/neighbor/verlet_list.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ermak/core/float8.h"

namespace ermak {
namespace {

struct Grid {
  float origin[3];
  float inverse_cell;
  std::int32_t dims[3];
  std::int64_t cell_count() const { return std::int64_t(dims[0]) * dims[1] * dims[2]; }
};

// Cells of about half the list cutoff (a row scans the cells within the cutoff of its
// beads' bounding box, so smaller cells scan less empty space); the number of cells is
// capped at ~2 per bead so sparse systems do not waste memory.
Grid make_grid(const float* x, const float* y, const float* z, std::int32_t n, float cutoff) {
  float lo[3] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
                 std::numeric_limits<float>::max()};
  float hi[3] = {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::lowest(),
                 std::numeric_limits<float>::lowest()};
  for (std::int32_t i = 0; i < n; ++i) {
    lo[0] = std::min(lo[0], x[i]); hi[0] = std::max(hi[0], x[i]);
    lo[1] = std::min(lo[1], y[i]); hi[1] = std::max(hi[1], y[i]);
    lo[2] = std::min(lo[2], z[i]); hi[2] = std::max(hi[2], z[i]);
  }
  Grid g{};
  float cell = cutoff;
  // At most ~2 cells per bead. A blown-up run (beads 10³⁰ Å apart) must still get a
  // valid grid, and its engine the chance to report the instability: the cells per
  // axis are capped before the conversion to int (which would overflow), and counted
  // in double.
  const double max_cells = 2.0 * double(n) + 27.0;
  for (;;) {
    double total = 1.0;
    for (int d = 0; d < 3; ++d) {
      const float extent = std::isfinite(hi[d] - lo[d]) ? hi[d] - lo[d] : 0.0f;
      const double per_axis = std::min(double(extent) / double(cell), max_cells);
      g.dims[d] = std::max<std::int32_t>(1, std::int32_t(per_axis) + 1);
      total *= double(g.dims[d]);
    }
    if (total <= max_cells) break;
    cell *= 1.26f;
  }
  for (int d = 0; d < 3; ++d) g.origin[d] = lo[d];
  g.inverse_cell = 1.0f / cell;
  return g;
}

std::int32_t clamp_cell(float v, float origin, float inverse_cell, std::int32_t dim) {
  const float c = (v - origin) * inverse_cell;
  if (!(c >= 0.0f)) return 0;  // also catches NaN: such a run is stopped by the engine
  if (!(c < float(dim))) return dim - 1;  // +inf too; before the conversion, which would overflow
  return std::int32_t(c);
}

}  // namespace

namespace {

// Bits 8·a for the set bits a of a 4-bit set of i-cluster beads: shifted by b, the mask
// bits of those beads against lane b of a j-cluster.
constexpr std::uint32_t kSpreadRows[16] = {
    0x00000000u, 0x00000001u, 0x00000100u, 0x00000101u, 0x00010000u, 0x00010001u, 0x00010100u, 0x00010101u,
    0x01000000u, 0x01000001u, 0x01000100u, 0x01000101u, 0x01010000u, 0x01010001u, 0x01010100u, 0x01010101u};

// Rows (i-clusters) [row_begin, row_end) of the list into `out` (row_offsets relative to
// out's start). Per row, the cells within the list cutoff of the 4 beads' bounding box
// are scanned once, 8 candidates at a time against all 4 beads, and the hits are merged
// into the cluster masks without branches.
void append_rows(const Grid& g, const float* x, const float* y, const float* z, std::int32_t n,
                 const ExclusionList& exclusions, float list_cutoff_A, const CellListScratch& cells,
                 std::int32_t row_begin, std::int32_t row_end, RowScratch& s, VerletList& out) {
  constexpr std::int32_t A = kIClusterWidth;
  s.exclusion_bits.assign(n, 0);
  s.cluster_mask.assign(padded_bead_count(n) / kClusterWidth, 0);
  s.touched_clusters.assign(padded_bead_count(n) / kClusterWidth + 1, 0);
  const float cutoff2 = list_cutoff_A * list_cutoff_A;
  const Float8 cutoff2v = cutoff2;
  const U8 lane_index = {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u};
  out.row_offsets.assign(std::size_t(row_end - row_begin) + 1, 0);
  out.clusters.clear();
  out.masks.clear();
  out.pairs = 0;
  for (std::int32_t row = row_begin; row < row_end; ++row) {
    const std::int32_t i0 = row * A, beads = std::min(A, n - i0);
    float lo[3] = {x[i0], y[i0], z[i0]}, hi[3] = {x[i0], y[i0], z[i0]};
    Float8 xi[A], yi[A], zi[A];
    U8 first_partner[A];  // lanes hold j; j must reach i + 1 (unsigned: padding −1 is huge but far)
    for (std::int32_t a = 0; a < A; ++a) {
      // Missing beads of the last row repeat its first bead and take no partners.
      const std::int32_t i = a < beads ? i0 + a : i0;
      xi[a] = x[i]; yi[a] = y[i]; zi[a] = z[i];
      first_partner[a] = U8{} + std::uint32_t(a < beads ? i + 1 : 0x7fffffff);
      lo[0] = std::min(lo[0], x[i]); hi[0] = std::max(hi[0], x[i]);
      lo[1] = std::min(lo[1], y[i]); hi[1] = std::max(hi[1], y[i]);
      lo[2] = std::min(lo[2], z[i]); hi[2] = std::max(hi[2], z[i]);
      if (a < beads)
        for (std::int32_t k = exclusions.offsets[i]; k < exclusions.offsets[i + 1]; ++k)
          s.exclusion_bits[exclusions.partners[k]] |= std::uint8_t(1u << a);
    }
    std::int32_t c_lo[3], c_hi[3];
    for (int d = 0; d < 3; ++d) {
      c_lo[d] = clamp_cell(lo[d] - list_cutoff_A, g.origin[d], g.inverse_cell, g.dims[d]);
      c_hi[d] = clamp_cell(hi[d] + list_cutoff_A, g.origin[d], g.inverse_cell, g.dims[d]);
    }
    std::int32_t touched = 0;
    for (std::int32_t cz = c_lo[2]; cz <= c_hi[2]; ++cz)
      for (std::int32_t cy = c_lo[1]; cy <= c_hi[1]; ++cy) {
        // Cells adjacent along x are contiguous in the sorted arrays: one scan.
        const std::int32_t cell_row = (cz * g.dims[1] + cy) * g.dims[0];
        const std::int32_t begin = cells.cell_start[cell_row + c_lo[0]];
        const std::int32_t end = cells.cell_start[cell_row + c_hi[0] + 1];
        const U8 end_v = U8{} + std::uint32_t(end);
        for (std::int32_t slot = begin; slot < end; slot += kClusterWidth) {
          const Float8 xj = Float8::load(&cells.sorted_x[slot]), yj = Float8::load(&cells.sorted_y[slot]),
                       zj = Float8::load(&cells.sorted_z[slot]);
          const U8 j = load_u8(&cells.sorted_beads[slot]);
          const U8 valid = U8((lane_index + std::uint32_t(slot)) < end_v);
          U8 hits = U8{};
#pragma GCC unroll 4
          for (std::int32_t a = 0; a < A; ++a) {
            const Float8 dx = xj - xi[a], dy = yj - yi[a], dz = zj - zi[a];
            const U8 near = less(dx * dx + dy * dy + dz * dz, cutoff2v) & U8(j >= first_partner[a]);
            hits |= near & (1u << a);
          }
          hits &= valid;
          std::uint32_t lane_hits[kClusterWidth], lane_j[kClusterWidth];
          std::memcpy(lane_hits, &hits, sizeof hits);
          std::memcpy(lane_j, &j, sizeof j);
          for (std::int32_t k = 0; k < kClusterWidth; ++k) {
            // Padding slots (j = −1) never hit; clamp their index for the loads below.
            const std::uint32_t bead = lane_hits[k] ? lane_j[k] : 0u;
            const std::uint32_t h = lane_hits[k] & ~std::uint32_t(s.exclusion_bits[bead]);
            const std::uint32_t cluster = bead / kClusterWidth;
            const std::uint32_t before = s.cluster_mask[cluster];
            s.cluster_mask[cluster] = before | (kSpreadRows[h] << (bead % kClusterWidth));
            s.touched_clusters[touched] = std::int32_t(cluster);
            touched += (before == 0) & (h != 0);
          }
        }
      }
    for (std::int32_t a = 0; a < beads; ++a) {
      const std::int32_t i = i0 + a;
      for (std::int32_t k = exclusions.offsets[i]; k < exclusions.offsets[i + 1]; ++k)
        s.exclusion_bits[exclusions.partners[k]] = 0;
    }
    // Entries in ascending cluster order: memory order for the force loop, and a list
    // that does not depend on the cell traversal.
    std::sort(s.touched_clusters.begin(), s.touched_clusters.begin() + touched);
    for (std::int32_t t = 0; t < touched; ++t) {
      const std::int32_t cluster = s.touched_clusters[t];
      out.clusters.push_back(cluster);
      out.masks.push_back(s.cluster_mask[cluster]);
      out.pairs += __builtin_popcount(s.cluster_mask[cluster]);
      s.cluster_mask[cluster] = 0;
    }
    out.row_offsets[row - row_begin + 1] = static_cast<std::int32_t>(out.clusters.size());
  }
}

Grid sort_into_cells(const float* x, const float* y, const float* z, std::int32_t n,
                     float list_cutoff_A, CellListScratch& s) {
  const Grid g = make_grid(x, y, z, n, 0.5f * list_cutoff_A);
  const std::int64_t cells = g.cell_count();
  s.cell_of_bead.resize(n);
  s.cell_start.assign(cells + 1, 0);
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t cx = clamp_cell(x[i], g.origin[0], g.inverse_cell, g.dims[0]);
    const std::int32_t cy = clamp_cell(y[i], g.origin[1], g.inverse_cell, g.dims[1]);
    const std::int32_t cz = clamp_cell(z[i], g.origin[2], g.inverse_cell, g.dims[2]);
    const std::int32_t c = (cz * g.dims[1] + cy) * g.dims[0] + cx;
    s.cell_of_bead[i] = c;
    ++s.cell_start[c + 1];
  }
  for (std::int64_t c = 0; c < cells; ++c) s.cell_start[c + 1] += s.cell_start[c];
  // Counting sort, stable: beads ascend within each cell. One cluster width of padding
  // (far away, bead −1) lets the scan load 8 slots at any position.
  constexpr float kFar = 1e18f;
  s.sorted_beads.assign(std::size_t(n) + kClusterWidth, -1);
  s.sorted_x.assign(std::size_t(n) + kClusterWidth, kFar);
  s.sorted_y.assign(std::size_t(n) + kClusterWidth, kFar);
  s.sorted_z.assign(std::size_t(n) + kClusterWidth, kFar);
  std::vector<std::int32_t> fill(s.cell_start.begin(), s.cell_start.end() - 1);
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t slot = fill[s.cell_of_bead[i]]++;
    s.sorted_beads[slot] = i;
    s.sorted_x[slot] = x[i]; s.sorted_y[slot] = y[i]; s.sorted_z[slot] = z[i];
  }
  return g;
}

}  // namespace

void build_verlet_list(const float* x, const float* y, const float* z, std::int32_t n,
                       const ExclusionList& exclusions, float list_cutoff_A,
                       CellListScratch& s, VerletList& out) {
  const Grid g = sort_into_cells(x, y, z, n, list_cutoff_A, s);
  if (s.rows.empty()) s.rows.resize(1);
  append_rows(g, x, y, z, n, exclusions, list_cutoff_A, s, 0, (n + kIClusterWidth - 1) / kIClusterWidth, s.rows[0],
              out);
}

void build_verlet_list_parallel(const float* x, const float* y, const float* z, std::int32_t n,
                                const ExclusionList& exclusions, float list_cutoff_A, int threads,
                                CellListScratch& s, VerletList& out) {
  // Fixed blocks of rows, concatenated in order: the list is the same for any thread count.
  constexpr std::int32_t kBlocks = 16;
  const Grid g = sort_into_cells(x, y, z, n, list_cutoff_A, s);
  const std::int32_t rows = (n + kIClusterWidth - 1) / kIClusterWidth;
  s.rows.resize(kBlocks);
  s.partial_lists.resize(kBlocks);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int32_t b = 0; b < kBlocks; ++b)
    append_rows(g, x, y, z, n, exclusions, list_cutoff_A, s, std::int32_t(std::int64_t(rows) * b / kBlocks),
                std::int32_t(std::int64_t(rows) * (b + 1) / kBlocks), s.rows[b], s.partial_lists[b]);
  out.row_offsets.assign(std::size_t(rows) + 1, 0);
  out.clusters.clear();
  out.masks.clear();
  out.pairs = 0;
  std::int32_t row = 0;
  for (const VerletList& part : s.partial_lists) {
    const std::int32_t base = std::int32_t(out.clusters.size());
    for (std::size_t k = 1; k < part.row_offsets.size(); ++k) out.row_offsets[++row] = base + part.row_offsets[k];
    out.clusters.insert(out.clusters.end(), part.clusters.begin(), part.clusters.end());
    out.masks.insert(out.masks.end(), part.masks.begin(), part.masks.end());
    out.pairs += part.pairs;
  }
}

}  // namespace ermak
