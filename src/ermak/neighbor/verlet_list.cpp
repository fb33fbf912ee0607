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

void build_verlet_list(const float* x, const float* y, const float* z, std::int32_t n,
                       const ExclusionList& exclusions, float list_cutoff_A,
                       CellListScratch& s, VerletList& out) {
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
  {
    std::vector<std::int32_t> fill(s.cell_start.begin(), s.cell_start.end() - 1);
    for (std::int32_t i = 0; i < n; ++i) {
      const std::int32_t slot = fill[s.cell_of_bead[i]]++;
      s.sorted_beads[slot] = i;
      s.sorted_x[slot] = x[i]; s.sorted_y[slot] = y[i]; s.sorted_z[slot] = z[i];
    }
  }
  s.exclusion_stamp.assign(n, -1);
  s.cluster_mask.assign(padded_bead_count(n) / kClusterWidth, 0);
  s.touched_clusters.clear();

  const float cutoff2 = list_cutoff_A * list_cutoff_A;
  out.row_offsets.assign(std::size_t(n) + 1, 0);
  out.clusters.clear();
  out.masks.clear();
  out.pairs = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t k = exclusions.offsets[i]; k < exclusions.offsets[i + 1]; ++k)
      s.exclusion_stamp[exclusions.partners[k]] = i;
    const std::int32_t c = s.cell_of_bead[i];
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
        const std::int32_t begin = s.cell_start[row + x_lo], end = s.cell_start[row + x_hi + 1];
        for (std::int32_t slot = begin; slot < end; ++slot) {
          const std::int32_t j = s.sorted_beads[slot];
          if (j <= i) continue;
          const float dxj = s.sorted_x[slot] - xi, dyj = s.sorted_y[slot] - yi,
                      dzj = s.sorted_z[slot] - zi;
          if (dxj * dxj + dyj * dyj + dzj * dzj < cutoff2 && s.exclusion_stamp[j] != i) {
            const std::int32_t cluster = j / kClusterWidth;
            if (s.cluster_mask[cluster] == 0) s.touched_clusters.push_back(cluster);
            s.cluster_mask[cluster] |= std::uint8_t(1u << (j % kClusterWidth));
          }
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
    out.row_offsets[i + 1] = static_cast<std::int32_t>(out.clusters.size());
  }
}

}  // namespace ermak
