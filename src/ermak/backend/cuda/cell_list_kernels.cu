// The per-bead family's cell sort (docs/gpu.md#kernel-families, "Per-bead family"): every replica's beads
// sorted by cell, ascending bead index within a cell, from which the row builds
// (perbead_kernels.cu) collect each row in a fixed cell order. Two implementations with
// the same result, bit for bit:
//  - rebuild_cells_kernel: one block per replica (small runs: one launch, no grid-wide
//    barriers);
//  - rebuild_cells_grid_kernel: one cooperative grid over all replicas, its phases
//    separated by grid-wide barriers, so that a single large replica (a capsid) is sorted
//    by every SM instead of one (docs/benchmarks.md#cell-sort).
#include <cooperative_groups.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "ermak/backend/cuda/cell_list.cuh"
#include "ermak/backend/cuda/cuda_util.cuh"

namespace ermak::cuda {
namespace {

namespace cg = cooperative_groups;

constexpr int kCellThreads = 512;

// The beads of one cell, [b, e) of `unsorted`, into ascending order in `sorted` by one
// warp: bead indices are distinct, so a bead's rank in its cell is its place.
__device__ __forceinline__ void rank_sort_cell(const int* unsorted, int* sorted, int b, int e, int lane) {
  for (int k = b + lane; k < e; k += 32) {
    const int v = unsorted[k];
    int rank = 0;
    for (int q = b; q < e; ++q) rank += unsorted[q] < v ? 1 : 0;
    sorted[b + rank] = v;
  }
}

// One block per replica: bounding box, grid, counting sort of beads into cells, and a
// rank sort within each cell so that cells list their beads in ascending index.
__global__ void __launch_bounds__(kCellThreads)
    rebuild_cells_kernel(const __grid_constant__ PerBeadLaunch L, const float4* from) {
  if (!list_stale(L.ctrl)) return;
  const int n = L.m.n;
  const int r = blockIdx.x;
  const float4* pos = (from ? from : L.pos[L.ctrl->step & 1]) + std::size_t(r) * n;
  float4* ref = L.ref + std::size_t(r) * n;
  __shared__ float s_lo[3][32], s_hi[3][32];
  __shared__ CellGrid s_grid;
  __shared__ int s_chunk_sum[kCellThreads];

  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float4 p = pos[i];
    ref[i] = p;
    lo[0] = fminf(lo[0], p.x); hi[0] = fmaxf(hi[0], p.x);
    lo[1] = fminf(lo[1], p.y); hi[1] = fmaxf(hi[1], p.y);
    lo[2] = fminf(lo[2], p.z); hi[2] = fmaxf(hi[2], p.z);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (int d = 0; d < 3; ++d) {
    for (int o = 16; o > 0; o /= 2) {
      lo[d] = fminf(lo[d], __shfl_xor_sync(kFullMask, lo[d], o));
      hi[d] = fmaxf(hi[d], __shfl_xor_sync(kFullMask, hi[d], o));
    }
    if (lane == 0) { s_lo[d][warp] = lo[d]; s_hi[d][warp] = hi[d]; }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float blo[3], bhi[3];
    for (int d = 0; d < 3; ++d) {
      blo[d] = s_lo[d][0]; bhi[d] = s_hi[d][0];
      for (int w = 1; w < warps; ++w) { blo[d] = fminf(blo[d], s_lo[d][w]); bhi[d] = fmaxf(bhi[d], s_hi[d][w]); }
    }
    const CellGrid g = make_cell_grid(blo, bhi, sqrtf(L.m.list_cutoff2) / float(L.cell_divisions), n);
    s_grid = g;
    L.grids[r] = g;
  }
  __syncthreads();
  const CellGrid g = s_grid;
  int* start = L.cell_start + std::size_t(r) * (L.cell_capacity + 1);
  int* fill = L.cell_fill + std::size_t(r) * L.cell_capacity;
  int* bead_cell = L.bead_cell + std::size_t(r) * n;
  int* unsorted = L.cell_beads_unsorted + std::size_t(r) * n;
  int* sorted = L.cell_beads + std::size_t(r) * n;
  for (int c = threadIdx.x; c < g.cells; c += blockDim.x) fill[c] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int c = cell_index(g, cell_of(g, pos[i]));
    bead_cell[i] = c;
    atomicAdd(&fill[c], 1);
  }
  __syncthreads();
  // Exclusive scan of the counts: contiguous chunks per thread, then the chunk sums.
  const int chunk = (g.cells + blockDim.x - 1) / blockDim.x;
  const int c0 = min(g.cells, int(threadIdx.x) * chunk), c1 = min(g.cells, c0 + chunk);
  int local = 0;
  for (int c = c0; c < c1; ++c) local += fill[c];
  s_chunk_sum[threadIdx.x] = local;
  __syncthreads();
  if (threadIdx.x == 0) {
    int running = 0;
    for (int t = 0; t < int(blockDim.x); ++t) {
      const int v = s_chunk_sum[t];
      s_chunk_sum[t] = running;
      running += v;
    }
    start[g.cells] = running;
  }
  __syncthreads();
  {
    int running = s_chunk_sum[threadIdx.x];
    for (int c = c0; c < c1; ++c) {
      const int v = fill[c];
      start[c] = running;
      fill[c] = running;
      running += v;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) unsorted[atomicAdd(&fill[bead_cell[i]], 1)] = i;
  __syncthreads();
  for (int c = warp; c < g.cells; c += warps) rank_sort_cell(unsorted, sorted, start[c], start[c + 1], lane);
}

// --- one cooperative grid over all replicas ---------------------------------------------

constexpr int kGridCellThreads = 512;
constexpr int kGridCellWarps = kGridCellThreads / 32;
constexpr int kCellScanItems = 4;                                  // counts per thread
constexpr int kCellScanTile = kGridCellThreads * kCellScanItems;  // cells per block-wide scan

// Floats as ints whose signed order is the floats' order, for atomicMin/atomicMax.
__device__ __forceinline__ int ordered_key(float v) {
  const int b = __float_as_int(v);
  return b >= 0 ? b : b ^ 0x7fffffff;
}
__device__ __forceinline__ float from_ordered_key(int k) { return __int_as_float(k >= 0 ? k : k ^ 0x7fffffff); }

// Exclusive prefix of v over the block (thread order) and the block's total.
__device__ __forceinline__ int block_exclusive_scan(int v, int* s_warp, int& total) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int inclusive = warp_inclusive_scan(v, lane);
  if (lane == 31) s_warp[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const int w = lane < kGridCellWarps ? s_warp[lane] : 0;
    const int wi = warp_inclusive_scan(w, lane);
    if (lane < kGridCellWarps) s_warp[lane] = wi - w;
    if (lane == kGridCellWarps - 1) s_warp[kGridCellWarps] = wi;
  }
  __syncthreads();
  const int result = s_warp[warp] + inclusive - v;
  total = s_warp[kGridCellWarps];
  __syncthreads();  // s_warp is reused by the caller's next scan
  return result;
}

// The same result as rebuild_cells_kernel for every replica, in phases separated by
// grid-wide barriers: (1) reference positions, bounding boxes by atomics on ordered keys
// (each block takes a share of one replica), counts zeroed; (2) each replica's grid;
// (3) each bead's cell and the counts; (4) the exclusive scan of the counts in tiles of
// kCellScanTile cells (tile sums, their scan per replica, the tiles' own scans); (5) the
// scatter into cells; (6) the rank sort within each cell, a warp per cell. Launched
// cooperatively (all blocks resident); every block returns at once unless the list is
// stale (uniform: ctrl is not written while it runs).
__global__ void __launch_bounds__(kGridCellThreads)
    rebuild_cells_grid_kernel(const __grid_constant__ PerBeadLaunch L, const float4* from) {
  if (!list_stale(L.ctrl)) return;
  cg::grid_group grid = cg::this_grid();
  const int n = L.m.n, replicas = L.m.replicas, cap = L.cell_capacity, tiles = L.cell_tiles;
  const float4* pos = from ? from : L.pos[L.ctrl->step & 1];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const long long beads = (long long)replicas * n;
  const long long threads = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + t;
  const long long warps = threads / 32, first_warp = first / 32;
  __shared__ float s_bound[6][kGridCellWarps];
  __shared__ int s_scan[kGridCellWarps + 1];

  // (1)
  for (long long k = first; k < (long long)replicas * cap; k += threads) L.cell_fill[k] = 0;
  const int parts = max(1, int(gridDim.x) / replicas);  // blocks per replica
  for (int u = blockIdx.x; u < replicas * parts; u += gridDim.x) {
    const int r = u / parts, part = u - r * parts;
    float b[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (int i = part * blockDim.x + t; i < n; i += parts * blockDim.x) {
      const std::size_t e = std::size_t(r) * n + i;
      const float4 p = pos[e];
      L.ref[e] = p;
      b[0] = fminf(b[0], p.x); b[1] = fminf(b[1], p.y); b[2] = fminf(b[2], p.z);
      b[3] = fmaxf(b[3], p.x); b[4] = fmaxf(b[4], p.y); b[5] = fmaxf(b[5], p.z);
    }
    for (int o = 16; o > 0; o /= 2)
      for (int d = 0; d < 6; ++d) {
        const float other = __shfl_xor_sync(kFullMask, b[d], o);
        b[d] = d < 3 ? fminf(b[d], other) : fmaxf(b[d], other);
      }
    if (lane == 0) for (int d = 0; d < 6; ++d) s_bound[d][warp] = b[d];
    __syncthreads();
    if (t < 6) {
      float v = s_bound[t][0];
      for (int w = 1; w < kGridCellWarps; ++w) v = t < 3 ? fminf(v, s_bound[t][w]) : fmaxf(v, s_bound[t][w]);
      int* key = L.cell_bounds + 6 * r + t;
      if (t < 3) atomicMin(key, ordered_key(v));
      else atomicMax(key, ordered_key(v));
    }
    __syncthreads();
  }
  grid.sync();

  // (2) The keys go back to their empty values for the next build.
  for (long long r = first; r < replicas; r += threads) {
    int* key = L.cell_bounds + 6 * r;
    float lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      lo[d] = from_ordered_key(key[d]);
      hi[d] = from_ordered_key(key[3 + d]);
      key[d] = ordered_key(INFINITY);
      key[3 + d] = ordered_key(-INFINITY);
    }
    const CellGrid g = make_cell_grid(lo, hi, sqrtf(L.m.list_cutoff2) / float(L.cell_divisions), n);
    L.grids[r] = g;
    L.cell_start[r * (cap + 1) + g.cells] = n;
  }
  grid.sync();

  // (3) (grids are read with plain loads: written in this launch)
  for (long long e = first; e < beads; e += threads) {
    const int r = int(e / n);
    const CellGrid g = L.grids[r];
    const int c = cell_index(g, cell_of(g, pos[e]));
    L.bead_cell[e] = c;
    atomicAdd(&L.cell_fill[(long long)r * cap + c], 1);
  }
  grid.sync();

  // (4) Tile sums; their exclusive scan per replica (a warp each); the tiles' scans.
  for (int u = blockIdx.x; u < replicas * tiles; u += gridDim.x) {
    const int r = u / tiles, tile = u - r * tiles;
    const int cells = L.grids[r].cells;
    const int c0 = tile * kCellScanTile + t * kCellScanItems;
    const int* fill = L.cell_fill + (long long)r * cap;
    int sum = 0;
    for (int k = 0; k < kCellScanItems; ++k) if (c0 + k < cells) sum += fill[c0 + k];
    int total = 0;
    block_exclusive_scan(sum, s_scan, total);
    if (t == 0) L.cell_tile_sum[u] = total;
  }
  grid.sync();
  for (long long r = first_warp; r < replicas; r += warps) {
    int* sums = L.cell_tile_sum + r * tiles;
    int running = 0;
    for (int base = 0; base < tiles; base += 32) {
      const int k = base + lane;
      const int v = k < tiles ? sums[k] : 0;
      const int inclusive = warp_inclusive_scan(v, lane);
      if (k < tiles) sums[k] = running + inclusive - v;
      running += __shfl_sync(kFullMask, inclusive, 31);
    }
  }
  grid.sync();
  for (int u = blockIdx.x; u < replicas * tiles; u += gridDim.x) {
    const int r = u / tiles, tile = u - r * tiles;
    const int cells = L.grids[r].cells;
    const int c0 = tile * kCellScanTile + t * kCellScanItems;
    int* fill = L.cell_fill + (long long)r * cap;
    int* start = L.cell_start + (long long)r * (cap + 1);
    int v[kCellScanItems];
    int sum = 0;
    for (int k = 0; k < kCellScanItems; ++k) {
      v[k] = c0 + k < cells ? fill[c0 + k] : 0;
      sum += v[k];
    }
    int total = 0;
    int running = L.cell_tile_sum[u] + block_exclusive_scan(sum, s_scan, total);
    for (int k = 0; k < kCellScanItems; ++k)
      if (c0 + k < cells) {
        start[c0 + k] = running;
        fill[c0 + k] = running;
        running += v[k];
      }
  }
  grid.sync();

  // (5)
  for (long long e = first; e < beads; e += threads) {
    const int r = int(e / n);
    const int i = int(e - (long long)r * n);
    L.cell_beads_unsorted[(long long)r * n + atomicAdd(&L.cell_fill[(long long)r * cap + L.bead_cell[e]], 1)] = i;
  }
  grid.sync();

  // (6)
  for (long long w = first_warp; w < (long long)replicas * cap; w += warps) {
    const int r = int(w / cap), c = int(w - (long long)r * cap);
    if (c >= L.grids[r].cells) continue;  // uniform over the warp
    const int* start = L.cell_start + (long long)r * (cap + 1);
    const int* unsorted = L.cell_beads_unsorted + (long long)r * n;
    int* sorted = L.cell_beads + (long long)r * n;
    rank_sort_cell(unsorted, sorted, start[c], start[c + 1], lane);
  }
}

}  // namespace

int cell_grid_sort_blocks(int device, int n, int replicas) {
  int cooperative = 0, sms = 0, resident = 0;
  ERMAK_CUDA(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (!cooperative) return 0;
  ERMAK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ERMAK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, rebuild_cells_grid_kernel, kGridCellThreads, 0));
  // Enough blocks for a warp per cell of the largest grid, at most all that are resident.
  const long long wanted = ((long long)replicas * (2LL * n + 28) + kGridCellWarps - 1) / kGridCellWarps;
  return int(std::clamp<long long>(wanted, 1, (long long)sms * std::max(resident, 1)));
}

int cell_scan_tiles(int cell_capacity) { return (cell_capacity + kCellScanTile - 1) / kCellScanTile; }

std::vector<int> empty_cell_bounds(int replicas) {
  std::vector<int> keys(std::size_t(replicas) * 6);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    // ordered_key(+inf) for the minima, ordered_key(-inf) for the maxima (host side).
    const float v = k % 6 < 3 ? INFINITY : -INFINITY;
    int b;
    std::memcpy(&b, &v, sizeof b);
    keys[k] = b >= 0 ? b : b ^ 0x7fffffff;
  }
  return keys;
}

void launch_rebuild_cells(const PerBeadLaunch& L, cudaStream_t stream, const float4* from) {
  if (L.cell_sort_blocks > 0) {
    void* args[] = {const_cast<PerBeadLaunch*>(&L), &from};
    ERMAK_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(rebuild_cells_grid_kernel),
                                           dim3(L.cell_sort_blocks), dim3(kGridCellThreads), args, 0, stream));
    ERMAK_CUDA_LAUNCHED("rebuild_cells_grid_kernel", stream);
  } else {
    rebuild_cells_kernel<<<L.m.replicas, kCellThreads, 0, stream>>>(L, from);
    ERMAK_CUDA_LAUNCHED("rebuild_cells_kernel", stream);
  }
}

}  // namespace ermak::cuda
