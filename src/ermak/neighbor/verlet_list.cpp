#include "ermak/neighbor/verlet_list.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ermak {
namespace {

struct Grid {
  float origin[3];
  float inverse_cell;
  std::int32_t dims[3];
  std::int64_t cell_count() const { return std::int64_t(dims[0]) * dims[1] * dims[2]; }
};

// Cells at least as large as the list cutoff, so the 27-cell stencil sees every pair;
// the number of cells is capped at ~2 per bead so sparse systems do not waste memory.
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
  for (;;) {
    std::int64_t total = 1;
    for (int d = 0; d < 3; ++d) {
      const float extent = std::isfinite(hi[d] - lo[d]) ? hi[d] - lo[d] : 0.0f;
      g.dims[d] = std::max<std::int32_t>(1, std::int32_t(extent / cell) + 1);
      total *= g.dims[d];
    }
    if (total <= 2 * std::int64_t(n) + 27) break;
    cell *= 1.26f;
  }
  for (int d = 0; d < 3; ++d) g.origin[d] = lo[d];
  g.inverse_cell = 1.0f / cell;
  return g;
}

std::int32_t clamp_cell(float v, float origin, float inverse_cell, std::int32_t dim) {
  const float c = (v - origin) * inverse_cell;
  if (!(c >= 0.0f)) return 0;  // also catches NaN: such a run is stopped by the engine
  return std::min<std::int32_t>(dim - 1, std::int32_t(c));
}

}  // namespace

namespace {

// Rows [row_begin, row_end) of the list into `out` (row_offsets relative to out's start).
void append_rows(const Grid& g, const float* x, const float* y, const float* z, std::int32_t n,
                 const ExclusionList& exclusions, float list_cutoff_A, const CellListScratch& cells,
                 std::int32_t row_begin, std::int32_t row_end, RowScratch& s, VerletList& out) {
  s.exclusion_stamp.assign(n, -1);
  s.cluster_mask.assign(padded_bead_count(n) / kClusterWidth, 0);
  s.touched_clusters.clear();
  const float cutoff2 = list_cutoff_A * list_cutoff_A;
  out.row_offsets.assign(std::size_t(row_end - row_begin) + 1, 0);
  out.clusters.clear();
  out.masks.clear();
  out.pairs = 0;
  for (std::int32_t i = row_begin; i < row_end; ++i) {
    for (std::int32_t k = exclusions.offsets[i]; k < exclusions.offsets[i + 1]; ++k)
      s.exclusion_stamp[exclusions.partners[k]] = i;
    const std::int32_t c = cells.cell_of_bead[i];
    const std::int32_t cx = c % g.dims[0];
    const std::int32_t cy = (c / g.dims[0]) % g.dims[1];
    const std::int32_t cz = c / (g.dims[0] * g.dims[1]);
    const float xi = x[i], yi = y[i], zi = z[i];
    for (std::int32_t dz = -1; dz <= 1; ++dz) {
      const std::int32_t nz = cz + dz;
      if (nz < 0 || nz >= g.dims[2]) continue;
      for (std::int32_t dy = -1; dy <= 1; ++dy) {
        const std::int32_t ny = cy + dy;
        if (ny < 0 || ny >= g.dims[1]) continue;
        // Cells adjacent along x are contiguous in the sorted arrays: one scan.
        const std::int32_t x_lo = std::max(cx - 1, 0), x_hi = std::min(cx + 1, g.dims[0] - 1);
        const std::int32_t row = (nz * g.dims[1] + ny) * g.dims[0];
        const std::int32_t begin = cells.cell_start[row + x_lo], end = cells.cell_start[row + x_hi + 1];
        for (std::int32_t slot = begin; slot < end; ++slot) {
          const float dxj = cells.sorted_x[slot] - xi, dyj = cells.sorted_y[slot] - yi,
                      dzj = cells.sorted_z[slot] - zi;
          if (dxj * dxj + dyj * dyj + dzj * dzj >= cutoff2) continue;
          const std::int32_t j = cells.sorted_beads[slot];
          if (j <= i || s.exclusion_stamp[j] == i) continue;
          const std::int32_t cluster = j / kClusterWidth;
          if (s.cluster_mask[cluster] == 0) s.touched_clusters.push_back(cluster);
          s.cluster_mask[cluster] |= std::uint8_t(1u << (j % kClusterWidth));
        }
      }
    }
    // Entries in ascending cluster order: memory order for the force loop, and a list
    // that does not depend on the cell traversal.
    std::sort(s.touched_clusters.begin(), s.touched_clusters.end());
    for (std::int32_t cluster : s.touched_clusters) {
      out.clusters.push_back(cluster);
      out.masks.push_back(s.cluster_mask[cluster]);
      out.pairs += __builtin_popcount(s.cluster_mask[cluster]);
      s.cluster_mask[cluster] = 0;
    }
    s.touched_clusters.clear();
    out.row_offsets[i - row_begin + 1] = static_cast<std::int32_t>(out.clusters.size());
  }
}

Grid sort_into_cells(const float* x, const float* y, const float* z, std::int32_t n,
                     float list_cutoff_A, CellListScratch& s) {
  const Grid g = make_grid(x, y, z, n, list_cutoff_A);
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
  // Counting sort, stable: beads ascend within each cell.
  s.sorted_beads.resize(n);
  s.sorted_x.resize(n); s.sorted_y.resize(n); s.sorted_z.resize(n);
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
  append_rows(g, x, y, z, n, exclusions, list_cutoff_A, s, 0, n, s.rows[0], out);
}

void build_verlet_list_parallel(const float* x, const float* y, const float* z, std::int32_t n,
                                const ExclusionList& exclusions, float list_cutoff_A, int threads,
                                CellListScratch& s, VerletList& out) {
  // Fixed blocks of rows, concatenated in order: the list is the same for any thread count.
  constexpr std::int32_t kBlocks = 16;
  const Grid g = sort_into_cells(x, y, z, n, list_cutoff_A, s);
  s.rows.resize(kBlocks);
  s.partial_lists.resize(kBlocks);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int32_t b = 0; b < kBlocks; ++b)
    append_rows(g, x, y, z, n, exclusions, list_cutoff_A, s, std::int32_t(std::int64_t(n) * b / kBlocks),
                std::int32_t(std::int64_t(n) * (b + 1) / kBlocks), s.rows[b], s.partial_lists[b]);
  out.row_offsets.assign(std::size_t(n) + 1, 0);
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
