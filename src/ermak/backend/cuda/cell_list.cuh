#pragma once
// The per-bead family's cell list (docs/gpu.md#kernel-families, "Per-bead family"): the grid of a replica
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

__device__ __forceinline__ int warp_inclusive_scan(int v, int lane) {
  for (int o = 1; o < 32; o *= 2) {
    const int u = __shfl_up_sync(kFullMask, v, o);
    if (lane >= o) v += u;
  }
  return v;
}

// Every bead that can lie within `reach` of the box [lo, hi] (a bead: lo = hi), for a
// whole warp: visit(valid, j) is called by all 32 lanes together (so that it may use warp
// votes), each lane with one candidate j (valid false: none). The candidates are the
// beads of x-runs of cells: for each (z, y) row of cells within reach of the box in z
// and y, the cells along x that can reach it (cells smaller than the reach are then
// scanned in a tighter shape than 3 × 3 × 3 whole cells). Runs go z outer, y inner, x
// ascending, and the warp's lanes take the runs' beads in that order, 32 at a time
// across run boundaries: a fixed order, so a row built from it is a function of the
// positions. The run bounds are widened by 1 % of a cell, so that rounding in the cell
// assignment cannot drop a bead within reach.
template <class Visit>
__device__ __forceinline__ void scan_cells_near(const CellGrid& g, const int* start, const int* sorted, float3 lo,
                                                float3 hi, float reach, Visit&& visit) {
  const int lane = threadIdx.x % 32;
  const float cell = 1.0f / g.inverse_cell, margin = 0.01f * cell, wide = reach + margin;
  const int z0 = clamp_cell(lo.z - wide, g.origin[2], g.inverse_cell, g.dims[2]);
  const int z1 = clamp_cell(hi.z + wide, g.origin[2], g.inverse_cell, g.dims[2]);
  const int y0 = clamp_cell(lo.y - wide, g.origin[1], g.inverse_cell, g.dims[1]);
  const int y1 = clamp_cell(hi.y + wide, g.origin[1], g.inverse_cell, g.dims[1]);
  const int rows_y = y1 - y0 + 1, runs = (z1 - z0 + 1) * rows_y;
  for (int first_run = 0; first_run < runs; first_run += 32) {
    // This lane's run: its first slot in `sorted` and its length (0: out of reach).
    int begin = 0, length = 0;
    if (const int q = first_run + lane; q < runs) {
      const int z = z0 + q / rows_y, y = y0 + q % rows_y;
      const float cy = g.origin[1] + float(y) * cell, cz = g.origin[2] + float(z) * cell;
      const float dy = fmaxf(0.0f, fmaxf(cy - hi.y, lo.y - (cy + cell)) - margin);
      const float dz = fmaxf(0.0f, fmaxf(cz - hi.z, lo.z - (cz + cell)) - margin);
      const float rest = reach * reach - dy * dy - dz * dz;
      if (rest > 0.0f) {
        const float half = sqrtf(rest) + margin;
        const int x0 = clamp_cell(lo.x - half, g.origin[0], g.inverse_cell, g.dims[0]);
        const int x1 = clamp_cell(hi.x + half, g.origin[0], g.inverse_cell, g.dims[0]);
        const int row_cell = (z * g.dims[1] + y) * g.dims[0];
        begin = start[row_cell + x0];
        length = start[row_cell + x1 + 1] - begin;
      }
    }
    const int inclusive = warp_inclusive_scan(length, lane);
    const int before = inclusive - length;  // candidates of the earlier runs of this batch
    const int total = __shfl_sync(kFullMask, inclusive, 31);
    for (int at = 0; at < total; at += 32) {
      const int v = at + lane;
      // The run holding candidate v: the last one with before ≤ v (befores ascend).
      int k = 0;
      for (int step = 16; step > 0; step /= 2)
        if (__shfl_sync(kFullMask, before, k + step) <= v) k += step;
      const int run_begin = __shfl_sync(kFullMask, begin, k), run_before = __shfl_sync(kFullMask, before, k);
      const bool valid = v < total;
      visit(valid, valid ? sorted[run_begin + v - run_before] : -1);
    }
  }
}

}  // namespace ermak::cuda
