#pragma once
// The per-bead family's cell list (docs/gpu.md#neighbour-lists): the grid of a replica
// from its bounding box, and the cell of a position. Shared by the cell sort
// (cell_list_kernels.cu) and the row builds (perbead_kernels.cu).
#include <cmath>

#include "ermak/backend/cuda/kernels.cuh"

namespace ermak::cuda {

__device__ __forceinline__ bool list_stale(const Control* c) { return c->stale_since <= c->step; }

// As the CPU's make_grid: cells at least the list cutoff, at most ~2 per bead. A
// non-finite extent (a blown-up run, stopped by the host) gives one cell along it.
__device__ inline CellGrid make_cell_grid(const float lo[3], const float hi[3], float list_cutoff, int n) {
  CellGrid g{};
  float cell = list_cutoff;
  for (;;) {
    long long total = 1;
    for (int d = 0; d < 3; ++d) {
      const float extent = isfinite(hi[d] - lo[d]) ? hi[d] - lo[d] : 0.0f;
      const float q = extent / cell;  // capped so that a blown-up run cannot overflow
      g.dims[d] = q >= float(2 * n + 27) ? 2 * n + 28 : max(1, int(q) + 1);
      total *= g.dims[d];
    }
    if (total <= 2LL * n + 27) break;
    cell *= 1.26f;
  }
  for (int d = 0; d < 3; ++d) g.origin[d] = isfinite(lo[d]) ? lo[d] : 0.0f;
  g.inverse_cell = 1.0f / cell;
  g.cells = g.dims[0] * g.dims[1] * g.dims[2];
  return g;
}

__device__ __forceinline__ int clamp_cell(float v, float origin, float inverse_cell, int dim) {
  const float c = (v - origin) * inverse_cell;
  if (!(c >= 0.0f)) return 0;  // also NaN: such a run is stopped by the host
  if (c >= float(dim)) return dim - 1;
  return min(dim - 1, int(c));
}

__device__ __forceinline__ int3 cell_of(const CellGrid& g, float4 p) {
  return make_int3(clamp_cell(p.x, g.origin[0], g.inverse_cell, g.dims[0]),
                   clamp_cell(p.y, g.origin[1], g.inverse_cell, g.dims[1]),
                   clamp_cell(p.z, g.origin[2], g.inverse_cell, g.dims[2]));
}

__device__ __forceinline__ int cell_index(const CellGrid& g, int3 c) { return (c.z * g.dims[1] + c.y) * g.dims[0] + c.x; }

}  // namespace ermak::cuda
