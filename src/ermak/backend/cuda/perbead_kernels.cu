// Kernel family "perbead" (DESIGN.md §4, docs/gpu.md): large systems. One fused kernel
// per step computes every bead's force (a group of `lanes` threads per bead splits its
// lists; full per-bead lists, no atomics), moves it, and flags the list stale when a bead
// has moved more than skin/2. Positions are double-buffered (step s reads pos[s&1],
// writes pos[(s+1)&1]). The engine captures chunks of steps in a CUDA graph:
//   [rebuild: cells, rows, finish]  [step]×chunk  [chunk end]
// The rebuild kernels return at once unless the list is stale; step kernels after the
// list went stale return at once, and the next chunk rebuilds first. The Verlet list is
// built on the GPU from a cell list (cell_list_kernels.cu): beads sorted by cell
// (ascending bead index within a cell), and each bead's row collected by a warp scanning
// the cells within the list cutoff in a fixed order (scan_cells_near in cell_list.cuh),
// so a row is a deterministic function of the build positions. Runs of ≥ 4096 beads in
// all take cluster rows instead (a row per 8 consecutive beads with a bead mask per entry,
// built by a warp per cluster: docs/gpu.md#cluster-rows), and the step kernel then
// computes a cluster's repulsion as one warp-wide tile (cluster_tile.cuh), split over 2
// or 4 warps where the run has few clusters.
#include <algorithm>
#include <climits>
#include <type_traits>

#include "ermak/backend/cuda/cell_list.cuh"
#include "ermak/backend/cuda/cluster_tile.cuh"
#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/kernels.cuh"

namespace ermak::cuda {
namespace {

// Programmatic dependent launches (docs/gpu.md#kernel-families): wait on chip for the
// grid before this one (its completion and its writes), then let the next grid be
// scheduled. The instructions exist from compute capability 9.0; code built for an
// earlier architecture has neither, and the host then launches these kernels plainly
// (perbead_waits_on_chip), where the stream alone orders them.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

struct GlobalPos {
  const float4* base;
  __device__ float4 operator()(int j) const { return __ldg(base + j); }
};

// One warp per bead (grid-stride over all replicas' beads, so that the launch is cheap
// when the list is not stale): its row of partners within the list cutoff that are
// neither bonded nor native, in the order of the cell scan (fixed), into [bead][slot].
constexpr int kRowBlocks = 1024;

__global__ void __launch_bounds__(256) rebuild_rows_kernel(const __grid_constant__ PerBeadLaunch L, const float4* from) {
  if (!list_stale(L.ctrl)) return;
  const int n = L.m.n;
  const int lane = threadIdx.x % 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  const long long total = (long long)L.m.replicas * n;
  const long long warps = (long long)gridDim.x * (blockDim.x / 32);
  const float list_cutoff = sqrtf(L.m.list_cutoff2);
  for (long long w = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; w < total; w += warps) {
    const int r = int(w / n), i = int(w - (long long)r * n);
    const float4* pos = (from ? from : L.pos[L.ctrl->step & 1]) + std::size_t(r) * n;
    const CellGrid g = L.grids[r];
    const int* start = L.cell_start + std::size_t(r) * (L.cell_capacity + 1);
    const int* sorted = L.cell_beads + std::size_t(r) * n;
    int* row = L.rows + std::size_t(w) * L.slots;
    std::uint16_t* row16 = L.rows16 + std::size_t(w) * L.slots;
    const float4 pi = pos[i];
    // Bead i's bonded and native partners, one per lane while they fit: the exclusion test
    // of a candidate is then a few shuffles instead of a chain of global loads per
    // candidate (excluded_pair): PF8's row build 57 → 44 µs (docs/benchmarks.md).
    const int nb = __ldg(L.m.bonds.count + i), ne = nb + __ldg(L.m.natives.count + i);
    const bool excluded_in_lanes = ne <= 32;
    int my_excluded = -1;
    if (lane < nb) my_excluded = __ldg(L.m.bonds.partner + lane * n + i);
    else if (lane < ne) my_excluded = __ldg(L.m.natives.partner + (lane - nb) * n + i);
    int count = 0;
    const float3 at_i = make_float3(pi.x, pi.y, pi.z);
    scan_cells_near(g, start, sorted, at_i, at_i, list_cutoff, [&](bool valid, int j) {
      bool take = false;
      if (valid && j != i) {
        const float4 pj = pos[j];
        const float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
        take = dx * dx + dy * dy + dz * dz < L.m.list_cutoff2 && (excluded_in_lanes || !excluded_pair(L.m, i, j));
      }
      if (excluded_in_lanes) {  // uniform over the warp
        bool excluded = false;
        for (int q = 0; q < ne; ++q) excluded |= __shfl_sync(kFullMask, my_excluded, q) == j;
        take = take && !excluded;
      }
      const unsigned ballot = __ballot_sync(kFullMask, take);
      if (take) {
        const int at_row = count + __popc(ballot & lanes_below);
        if (at_row < L.slots) {
          if (L.rows16) row16[at_row] = std::uint16_t(j);
          else row[at_row] = j;
        }
      }
      count += __popc(ballot);
    });
    if (lane == 0) {
      L.row_count[w] = count;
      if (count > L.slots) atomicMax(&L.ctrl->needed_slots, count);
    }
  }
}

// Cluster rows (docs/gpu.md#cluster-rows): one warp per cluster of 8 consecutive beads
// (grid-stride over all replicas' clusters). The warp scans the cells that can hold a
// bead within the list cutoff of the cluster's bounding box (scan_cells_near, z then y
// outer), 32 candidates at a time, each lane testing its candidate against the 8 beads
// (positions in registers): bit a is set when the candidate is within the list cutoff of
// bead 8c + a, not the bead itself and not its bonded or native partner. The beads' exclusions sit in a small hash
// table in shared memory per warp (partner → beads that exclude it). Entries keep the
// order of the scan, so a row is a deterministic function of the build positions.
constexpr int kExclusionSlots = 256;  // per warp; used up to half

// Multiplicative hash: the top 8 bits of j·2654435761 index the 256 slots.
static_assert(kExclusionSlots == 256, "exclusion_hash keeps 8 bits");
__device__ __forceinline__ unsigned exclusion_hash(int j) { return (unsigned(j) * 2654435761u) >> 24; }

// A candidate is tested against 8 beads at once: the build costs a fifth of the warp per
// bead over 27 cells of rebuild_rows_kernel (PF8 × 16: 116 against 564 µs).
__global__ void __launch_bounds__(256) rebuild_cluster_rows_kernel(const __grid_constant__ PerBeadLaunch L,
                                                                   const float4* from) {
  if (!list_stale(L.ctrl)) return;
  const ModelData& m = L.m;
  const int n = m.n;
  const int clusters = cluster_count(n);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  __shared__ int s_key[256 / 32][kExclusionSlots];
  __shared__ unsigned s_bits[256 / 32][kExclusionSlots];
  int* key = s_key[warp];
  unsigned* bits = s_bits[warp];
  const long long total = (long long)m.replicas * clusters;
  const long long warps = (long long)gridDim.x * (blockDim.x / 32);
  const float list_cutoff = sqrtf(m.list_cutoff2);
  for (long long w = (long long)blockIdx.x * (blockDim.x / 32) + warp; w < total; w += warps) {
    const int r = int(w / clusters), c = int(w - (long long)r * clusters);
    const float4* pos = (from ? from : L.pos[L.ctrl->step & 1]) + std::size_t(r) * n;
    const CellGrid g = L.grids[r];
    const int* start = L.cell_start + std::size_t(r) * (L.cell_capacity + 1);
    const int* sorted = L.cell_beads + std::size_t(r) * n;
    std::uint32_t* row = L.cluster_rows + std::size_t(w) * L.slots;
    const int first = c * kClusterBeads;
    const int beads = min(kClusterBeads, n - first);

    // The cluster's beads in every lane's registers (NaN for missing ones: never within),
    // and their bounding box.
    const float4 p = lane < beads ? pos[first + lane] : make_float4(NAN, NAN, NAN, 0.0f);
    float bx[kClusterBeads], by[kClusterBeads], bz[kClusterBeads];
#pragma unroll
    for (int a = 0; a < kClusterBeads; ++a) {
      bx[a] = __shfl_sync(kFullMask, p.x, a);
      by[a] = __shfl_sync(kFullMask, p.y, a);
      bz[a] = __shfl_sync(kFullMask, p.z, a);
    }
    float3 lo = make_float3(p.x, p.y, p.z), hi = lo;  // NaN lanes drop out of fminf/fmaxf
    for (int o = 16; o > 0; o /= 2) {
      lo.x = fminf(lo.x, __shfl_xor_sync(kFullMask, lo.x, o)); hi.x = fmaxf(hi.x, __shfl_xor_sync(kFullMask, hi.x, o));
      lo.y = fminf(lo.y, __shfl_xor_sync(kFullMask, lo.y, o)); hi.y = fmaxf(hi.y, __shfl_xor_sync(kFullMask, hi.y, o));
      lo.z = fminf(lo.z, __shfl_xor_sync(kFullMask, lo.z, o)); hi.z = fmaxf(hi.z, __shfl_xor_sync(kFullMask, hi.z, o));
    }

    // The beads' bonded and native partners into the table (or, past half its size, the
    // slow test per candidate and bead).
    int excluded_total = 0;
    for (int a = 0; a < beads; ++a)
      excluded_total += __ldg(m.bonds.count + first + a) + __ldg(m.natives.count + first + a);
    const bool table = excluded_total <= kExclusionSlots / 2;
    __syncwarp();
    for (int k = lane; k < kExclusionSlots; k += 32) { key[k] = -1; bits[k] = 0u; }
    __syncwarp();
    if (table) {
      for (int a = 0; a < beads; ++a) {
        const int i = first + a;
        const int nb = __ldg(m.bonds.count + i), ne = nb + __ldg(m.natives.count + i);
        for (int q = lane; q < ne; q += 32) {
          const int j = q < nb ? __ldg(m.bonds.partner + q * n + i) : __ldg(m.natives.partner + (q - nb) * n + i);
          for (unsigned h = exclusion_hash(j);; h = (h + 1) & (kExclusionSlots - 1)) {
            const int was = atomicCAS(&key[h], -1, j);
            if (was == -1 || was == j) { atomicOr(&bits[h], 1u << a); break; }
          }
        }
      }
    }
    __syncwarp();

    int count = 0;
    scan_cells_near(g, start, sorted, lo, hi, list_cutoff, [&](bool valid, int j) {
      unsigned mask = 0u;
      if (valid) {
        const float4 pj = pos[j];
#pragma unroll
        for (int a = 0; a < kClusterBeads; ++a) {
          const float dx = bx[a] - pj.x, dy = by[a] - pj.y, dz = bz[a] - pj.z;
          if (dx * dx + dy * dy + dz * dz < m.list_cutoff2 && j != first + a) mask |= 1u << a;
        }
        if (mask) {
          if (table) {
            for (unsigned h = exclusion_hash(j);; h = (h + 1) & (kExclusionSlots - 1)) {
              const int k = key[h];
              if (k == j) { mask &= ~bits[h]; break; }
              if (k == -1) break;
            }
          } else {
            for (int a = 0; a < beads; ++a)
              if (((mask >> a) & 1u) && excluded_pair(m, first + a, j)) mask &= ~(1u << a);
          }
        }
      }
      const unsigned ballot = __ballot_sync(kFullMask, mask != 0u);
      if (mask) {
        const int at_row = count + __popc(ballot & lanes_below);
        if (at_row < L.slots) row[at_row] = std::uint32_t(j) | (mask << kClusterPartnerBits);
      }
      count += __popc(ballot);
    });
    if (lane == 0) {
      L.row_count[w] = count;
      if (count > L.slots) atomicMax(&L.ctrl->needed_slots, count);
    }
  }
}

template <class Index>
__device__ __forceinline__ const Index* row_base(const PerBeadLaunch& L) {
  if constexpr (sizeof(Index) == 2) return L.rows16;
  else return L.rows;
}

// The cluster order of the step kernel's blocks (docs/gpu.md#cluster-order), after a
// build of cluster rows: one block per replica. Each window of `window` places holds its
// clusters ranked by row length, longest first, ties in chain order — a fixed order for
// given rows. Places past the replica's clusters (the grid's last window filled up) keep
// their own index, which the step kernel reads as empty.
__global__ void __launch_bounds__(256) order_clusters_kernel(const __grid_constant__ PerBeadLaunch L, int places,
                                                             int window) {
  if (!list_stale(L.ctrl)) return;
  const int clusters = cluster_count(L.m.n);
  const int* count = L.row_count + std::size_t(blockIdx.x) * clusters;
  int* order = L.cluster_order + std::size_t(blockIdx.x) * places;
  for (int c = threadIdx.x; c < places; c += blockDim.x) {
    const int begin = c / window * window, end = min(begin + window, places);
    const int key = c < clusters ? count[c] : -1;
    int rank = 0;
    for (int d = begin; d < end; ++d) {
      const int other = d < clusters ? count[d] : -1;
      rank += other > key || (other == key && d < c);
    }
    order[begin + rank] = c;
  }
}

__global__ void rebuild_finish_kernel(Control* c, int slots) {
  if (c->stale_since > c->step) return;
  if (c->needed_slots > slots) return;  // stays stale: the host grows the rows
  c->stale_since = kNever;
  c->rebuilds += 1;
}

// The indentation tip's step by one block (all its threads): the replica's last step-kernel
// block to finish (tip in the step kernel), or perbead_tip_move_kernel (tip kernel). The
// sum: thread t takes the partials of blocks t, t + 256, … in order, then warp butterflies and
// the warps in order: a fixed order for a given grid, and a few loads per thread where
// one thread loading every block's partial in turn was a serial chain of L2 round trips
// (448 for a capsid: ~100 µs per step; docs/benchmarks.md). Warp 1 draws the tip's noise
// meanwhile; thread 0 moves the tip and resets the replica's block counter.
__device__ __forceinline__ void last_block_moves_tip(const PerBeadLaunch& L, int r, long long s, int blocks,
                                                     double (*s_warp)[3], float* s_noise) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __threadfence();
  double sum[3] = {0, 0, 0};
  for (int k = threadIdx.x; k < blocks; k += blockDim.x) {
    const double* partial = L.tip_partial + (std::size_t(r) * blocks + k) * 3;
    for (int d = 0; d < 3; ++d) sum[d] += __ldcg(partial + d);
  }
  for (int d = 0; d < 3; ++d) sum[d] = group_sum<32>(sum[d]);
  if (warp == 1 && lane == 0) {
    const Vec3f g = tip_noise(L.m, r, s);
    s_noise[0] = g.x; s_noise[1] = g.y; s_noise[2] = g.z;
  }
  if (lane == 0) for (int d = 0; d < 3; ++d) s_warp[warp][d] = sum[d];
  __syncthreads();
  if (threadIdx.x == 0) {
    Vec3d molecule{};
    for (int w = 0; w < kPerBeadBlock / 32; ++w) {
      molecule.x += s_warp[w][0]; molecule.y += s_warp[w][1]; molecule.z += s_warp[w][2];
    }
    Vec3d tip{L.tips.tip[3 * r], L.tips.tip[3 * r + 1], L.tips.tip[3 * r + 2]};
    long long turn = L.tips.turnaround[r];
    step_tip(L.m, s, L.ctrl->kT, molecule, Vec3f{s_noise[0], s_noise[1], s_noise[2]}, tip, turn);
    L.tips.tip[3 * r] = tip.x; L.tips.tip[3 * r + 1] = tip.y; L.tips.tip[3 * r + 2] = tip.z;
    L.tips.turnaround[r] = turn;
    L.tips.molecule_force[3 * r] = molecule.x; L.tips.molecule_force[3 * r + 1] = molecule.y;
    L.tips.molecule_force[3 * r + 2] = molecule.z;
    L.tip_counter[r] = 0;
  }
}

// Indentation, before each step kernel: the tip's and the surface's force on every bead
// at step s (double precision, rounded to float as the CPU engine adds them;
// perbead_step_kernel adds them after its pair loop) and the partial sums of the beads'
// reaction on the tip. Out of the step kernel, whose registers it doubled
// (docs/benchmarks.md#protocol-runs-pulling). One thread per bead, 256 beads per block;
// the reaction is summed in the order the step kernel used to sum it: K consecutive beads
// (one warp of its layout: K = 32/S, or 32 with several rounds) by the xor butterfly over
// K lanes, its 8 warps in order into one partial per step-kernel block; the partials'
// sum and the tip's step to s + 1 follow in perbead_tip_move_kernel.
template <int K>
__global__ void __launch_bounds__(kPerBeadBlock) perbead_tip_kernel(const __grid_constant__ PerBeadLaunch L, int node,
                                                                    int step_blocks) {
  // Launched programmatically, as the step kernels (launch_per_step): wait for the kernels
  // before it (the last step, the tip's last move) first.
  wait_for_previous_grid();
  Control* c = L.ctrl;
  const long long s = c->step + node;
  if (s >= c->target || c->stale_since <= s) return;  // as the step kernel after it
  const ModelData& m = L.m;
  const int n = m.n;
  const int r = blockIdx.y;
  const int t = threadIdx.x;
  const int i = blockIdx.x * kPerBeadBlock + t;
  constexpr int kWarpsPerBlock = kPerBeadBlock / 32;      // warps of a step-kernel block
  constexpr int kStepWarps = kPerBeadBlock / K;           // step-kernel warps covered here
  constexpr int kStepBlocks = kStepWarps / kWarpsPerBlock; // step-kernel blocks covered here
  __shared__ double s_step_warp[kStepWarps][3];
  Vec3d reaction{};
  if (i < n) {
    const Vec3d tip{L.tips.tip[3 * r], L.tips.tip[3 * r + 1], L.tips.tip[3 * r + 2]};
    BeadEnergy unused;
    const IndentationForces f =
        indentation_forces<false>(m, i, L.pos[s & 1][std::size_t(r) * n + i], s, tip, L.tips.turnaround[r], reaction, unused);
    float* out = L.tip_force + (std::size_t(r) * n + i) * 6;
    out[0] = f.tip.x; out[1] = f.tip.y; out[2] = f.tip.z;
    out[3] = f.surface.x; out[4] = f.surface.y; out[5] = f.surface.z;
  }
  double v[3] = {reaction.x, reaction.y, reaction.z};
  for (int d = 0; d < 3; ++d) v[d] = group_sum<K>(v[d]);
  if (t % K == 0) for (int d = 0; d < 3; ++d) s_step_warp[t / K][d] = v[d];
  __syncthreads();
  if (t < kStepBlocks) {
    const int block = blockIdx.x * kStepBlocks + t;
    if (block < step_blocks) {
      double sum[3] = {0, 0, 0};
      for (int w = 0; w < kWarpsPerBlock; ++w)
        for (int d = 0; d < 3; ++d) sum[d] += s_step_warp[kWarpsPerBlock * t + w][d];
      double* partial = L.tip_partial + (std::size_t(r) * step_blocks + block) * 3;
      for (int d = 0; d < 3; ++d) partial[d] = sum[d];
    }
  }
}

// The tip's step after perbead_tip_kernel, one block per replica, on a branch of the
// graph beside the step kernel (which reads only the forces): the partials' sum and the
// tip's move to s + 1 leave the step's critical path (they made a serial tail of ~7 µs
// on one multiprocessor: docs/benchmarks.md#protocol-runs-pulling).
__global__ void __launch_bounds__(kPerBeadBlock) perbead_tip_move_kernel(const __grid_constant__ PerBeadLaunch L,
                                                                         int node, int step_blocks) {
  Control* c = L.ctrl;
  const long long s = c->step + node;
  // As the tip kernel: the step kernel beside it may lower stale_since, but only to s + 1.
  if (s >= c->target || c->stale_since <= s) return;
  __shared__ double s_warp[kPerBeadBlock / 32][3];
  __shared__ float s_noise[3];
  last_block_moves_tip(L, blockIdx.x, s, step_blocks, s_warp, s_noise);
}

// S lanes per bead. kMultiRound: a warp serves 32 beads in S rounds of 32/S (each bead's
// force lands on its own lane, which then draws the noise and moves it: every lane busy,
// for large runs); otherwise a warp serves 32/S beads in one round and each group's first
// lane moves its bead (more warps and a shorter critical path, for small runs).
// The variant with the indentation tip is compiled for ≤ 64 registers: unbounded, the
// protocol code took 118 (plain: 40) and left a third of the blocks resident (pulled
// PF8 × 16 +39 %, docs/benchmarks.md#protocol-runs-pulling). The pulling variant
// (kPerBeadItems) takes 64 unbounded, and is 1–1.5 % faster without the bound — except
// with the cluster tile, where the bound gives pulled PF8 × 16 +7.7 % (the plain tile
// is faster unbounded: docs/benchmarks.md#cluster-tiles).
// Cluster rows at 4 lanes per bead in one round: a warp's 8 beads are one cluster, whose
// repulsion the warp computes as one tile (cluster_tile.cuh). (In rounds, a warp of 4
// clusters, 32 owners: PF8 × 16 −21 %, PF8 × 2 −60 %: a quarter as many warps, ~1.1
// waves; docs/benchmarks.md#cluster-tiles.)
template <int S, bool kMultiRound, class Index>
constexpr bool uses_cluster_tile() {
  return std::is_same_v<Index, std::uint32_t> && S == 4 && !kMultiRound;
}

template <int S, bool kMultiRound, int kProtocolCode, class Index>
constexpr int step_kernel_min_blocks() {
  constexpr bool bounded = kProtocolCode == kItemsAndTip ||
                           (kProtocolCode == kPerBeadItems && uses_cluster_tile<S, kMultiRound, Index>());
  return bounded ? 65536 / 64 / kPerBeadBlock : 0;  // 0: no bound (blocks of kPerBeadBlock threads)
}

// kSplit warps per cluster (tiles only): warp w of a cluster's kSplit takes every
// kSplit-th round of its row's entries; the shares meet in shared memory, added in warp
// order (a fixed order), and the cluster's first warp goes on alone with the bonded
// terms (and, without kWideMoves, the noise and the move).
//
// kWideMoves (cluster tiles, no tip in this kernel): the cluster warps leave their
// beads' forces in shared memory, and after a barrier the block's first threads move its
// 64 / kSplit beads a bead per lane — the noise, protocol forces and move on every lane
// instead of one in 4 of each cluster's first warp (docs/gpu.md#cluster-tiles). Same
// functions, same order of the force's terms: the same bits.
//
// kBlockWarps (wide moves only): warps per block, 8 (kPerBeadBlock threads) or fewer for
// runs of many clusters (PerBeadLaunch::block_warps), the register bound scaled to match.
template <int S, bool kMultiRound, int kProtocolCode, class Index, int kSplit = 1, bool kWideMoves = false,
          int kBlockWarps = kPerBeadBlockWarps>
__global__ void __launch_bounds__(kBlockWarps * 32, step_kernel_min_blocks<S, kMultiRound, kProtocolCode, Index>() *
                                                        kPerBeadBlockWarps / kBlockWarps)
    perbead_step_kernel(const __grid_constant__ PerBeadLaunch L, int node) {
  // kItemsAndTip: the tip's forces, its reaction and its step in this kernel;
  // kTipForcesGiven: computed by perbead_tip_kernel before it (large runs).
  constexpr bool kProtocol = kProtocolCode != kNoProtocol,
                 kTipGiven = kProtocolCode == kTipForcesGiven || kProtocolCode == kTipForcesOnly,
                 kTipHere = kProtocolCode == kItemsAndTip, kTip = kTipHere || kTipGiven;
  constexpr bool kClusterTile = uses_cluster_tile<S, kMultiRound, Index>();
  static_assert(kSplit == 1 || kClusterTile, "a cluster split over warps only with cluster tiles");
  static_assert(!kWideMoves || (kClusterTile && kProtocolCode != kItemsAndTip),
                "wide moves only with cluster tiles and no tip in the step kernel");
  static_assert(kBlockWarps == kPerBeadBlockWarps || kWideMoves, "smaller blocks only with wide moves");
  // Launched programmatically (launch_per_step), this grid may start while the kernels
  // before it still run: wait for their completion and their writes before reading
  // anything, then let the next kernel's grid be scheduled as this one's blocks finish.
  // (Without the launch attribute both are no-ops.)
  wait_for_previous_grid();
  Control* c = L.ctrl;
  const long long s = c->step + node;
  if (s >= c->target || c->stale_since <= s) return;  // the same for every thread of the grid
  const ModelData& m = L.m;
  const int n = m.n;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  constexpr int kPerRound = 32 / S;
  constexpr int kRounds = kMultiRound ? S : 1;
  constexpr int kBeadsPerWarp = kRounds * kPerRound;
  constexpr int kBlockClusters = kBlockWarps / kSplit;  // with cluster tiles
  const int share = warp % kSplit;  // which share of its cluster row this warp takes
  // The block's replica and place in it; with a cluster order (docs/gpu.md#cluster-order)
  // the grid runs, in the order blocks are scheduled, rank 0 of every window of every
  // replica, then rank 1, …, and the block's clusters come from the order.
  int r = blockIdx.y, block = blockIdx.x;
  const int* order = nullptr;
  if constexpr (kWideMoves) {
    if (L.cluster_order_window > 0) {
      const int linear = blockIdx.y * gridDim.x + blockIdx.x, windows = gridDim.x / L.cluster_order_window;
      r = linear % m.replicas;
      const int rank = linear / m.replicas;
      block = (rank % windows) * L.cluster_order_window + rank / windows;
      order = L.cluster_order + std::size_t(r) * gridDim.x * kBlockClusters + std::size_t(block) * kBlockClusters;
    }
  }
  // The warp's beads: its cluster's with cluster tiles (kSplit warps per cluster).
  const int warp_group = order ? __ldg(order + warp / kSplit) : (block * kBlockWarps + warp) / kSplit;
  const int warp_base = warp_group * kBeadsPerWarp;
  const float4* pos_in = L.pos[s & 1] + std::size_t(r) * n;
  float4* pos_out = L.pos[(s + 1) & 1] + std::size_t(r) * n;
  const physics::LangevinCoefficients coeff = c->coeff;
  const int i = kMultiRound ? warp_base + lane : warp_base + lane / S;  // the bead this lane moves
  const bool owner = (kMultiRound || lane % S == 0) && share == 0;
  const bool indentation = kTip && m.protocol.indentation;

  // Indentation: the tip's and the surface's force on the lane's bead, and the warp's
  // share of the tip's reaction, before the pair loop, so that their doubles are dead
  // while it runs (added after it, in the CPU engine's order: same bits).
  IndentationForces tip_forces;
  __shared__ double s_warp[kTipHere ? kPerBeadBlock / 32 : 1][3];
  auto given_tip_forces = [&](int bead) {
    IndentationForces given;
    const float* f = L.tip_force + (std::size_t(r) * n + bead) * 6;
    given.tip = make_float3(f[0], f[1], f[2]);
    given.surface = make_float3(f[3], f[4], f[5]);
    given.has_surface = m.protocol.ind.surface.enabled;
    return given;
  };
  if (kTipGiven && !kWideMoves && indentation && owner && i < n) tip_forces = given_tip_forces(i);
  if (kTipHere && indentation) {
    Vec3d on_tip{};
    const Vec3d tip{L.tips.tip[3 * r], L.tips.tip[3 * r + 1], L.tips.tip[3 * r + 2]};
    if constexpr (kMultiRound) {
      if (i < n) {
        BeadEnergy unused;
        tip_forces = indentation_forces<false>(m, i, pos_in[i], s, tip, L.tips.turnaround[r], on_tip, unused);
      }
    } else {
      // With one round, a warp holds only 32/S owners; the block's threads compute one
      // bead each (a warp instead of 8 per 8·32/S beads: these double-precision terms
      // cost ~400 instructions per bead) and hand them to the owners through shared memory.
      constexpr int kBlockBeads = kTipHere && !kMultiRound ? (kPerBeadBlock / 32 / kSplit) * kBeadsPerWarp : 1;
      __shared__ float s_tip_force[kBlockBeads][6];
      __shared__ double s_reaction[kBlockBeads][3];
      const int block_first = blockIdx.x * kBlockBeads;
      const int b = threadIdx.x;
      if (b < kBlockBeads && block_first + b < n) {
        Vec3d reaction{};
        BeadEnergy unused;
        const IndentationForces f =
            indentation_forces<false>(m, block_first + b, pos_in[block_first + b], s, tip, L.tips.turnaround[r],
                                      reaction, unused);
        s_tip_force[b][0] = f.tip.x; s_tip_force[b][1] = f.tip.y; s_tip_force[b][2] = f.tip.z;
        s_tip_force[b][3] = f.surface.x; s_tip_force[b][4] = f.surface.y; s_tip_force[b][5] = f.surface.z;
        s_reaction[b][0] = reaction.x; s_reaction[b][1] = reaction.y; s_reaction[b][2] = reaction.z;
      }
      __syncthreads();
      if (owner && i < n) {
        const int k = i - block_first;
        tip_forces.tip = make_float3(s_tip_force[k][0], s_tip_force[k][1], s_tip_force[k][2]);
        tip_forces.surface = make_float3(s_tip_force[k][3], s_tip_force[k][4], s_tip_force[k][5]);
        tip_forces.has_surface = m.protocol.ind.surface.enabled;
        on_tip = {s_reaction[k][0], s_reaction[k][1], s_reaction[k][2]};
      }
    }
    double v[3] = {on_tip.x, on_tip.y, on_tip.z};
    for (int k = 0; k < 3; ++k) v[k] = group_sum<32>(v[k]);
    if (lane == 0) for (int k = 0; k < 3; ++k) s_warp[warp][k] = v[k];
  }

  // Forces: kRounds rounds, each a group of S lanes per bead.
  float3 mine = make_float3(0, 0, 0);
#pragma unroll 1
  for (int round = 0; round < kRounds; ++round) {
    const int first = warp_base + round * kPerRound;  // the round's first bead
    const int i = first + lane / S;
    float3 part = make_float3(0, 0, 0);
    if constexpr (kClusterTile) {
      // The warp's 8 beads are one cluster: bonds and native contacts by 4 lanes per
      // bead, the repulsion by the whole warp over the cluster row (cluster_tile.cuh).
      // A warp past the last cluster: the same for the whole warp. With several warps per
      // cluster it still meets the block's barrier below, with no entries.
      if (kSplit == 1 && first >= n) break;
      const bool cluster_here = first < n;
      const std::size_t cluster = cluster_row_index(r, n, cluster_here ? first : 0);
      const int entries = cluster_here ? __ldg(L.row_count + cluster) : 0;
      const std::uint32_t* row = L.cluster_rows + cluster * L.slots;
      const float4 own = __ldg(pos_in + min(i, n - 1));  // bead i's position where i < n
      if (share == 0 && i < n) part = bonded_forces_loaded_ahead<S>(m, i, lane % S, own, pos_in);
      __shared__ float4 s_cluster_pos[kClusterTile ? kBlockWarps : 1][kClusterBeads];
      float3 repulsive =
          cluster_tile_repulsion<kSplit>(m.repulsion, pos_in, row, entries, own, lane, s_cluster_pos[warp], share);
      if constexpr (kSplit > 1) {
        __shared__ float3 s_share[kBlockWarps][32];
        if (share != 0) s_share[warp][lane] = repulsive;
        __syncthreads();
        if (share == 0) {
          for (int k = 1; k < kSplit; ++k) {
            const float3 o = s_share[warp + k][lane];
            repulsive.x += o.x; repulsive.y += o.y; repulsive.z += o.z;
          }
        }
      }
      part.x += repulsive.x; part.y += repulsive.y; part.z += repulsive.z;
    } else if (i < n) {
      BeadEnergy unused;
      const std::size_t flat = std::size_t(r) * n + i;
      if constexpr (std::is_same_v<Index, std::uint32_t>) {  // cluster rows, read per bead
        const std::size_t cluster = cluster_row_index(r, n, i);
        part = pair_forces<S, false>(
            m, i, lane % S, __ldg(pos_in + i), GlobalPos{pos_in},
            ClusterRow{L.cluster_rows + cluster * L.slots, __ldg(L.row_count + cluster),
                       kClusterPartnerBits + i % kClusterBeads},
            unused);
      } else {
        part = pair_forces<S, false>(m, i, lane % S, __ldg(pos_in + i), GlobalPos{pos_in},
                                     RowMajorRow<Index>{row_base<Index>(L) + flat * L.slots, __ldg(L.row_count + flat)},
                                     unused);
      }
    }
    part.x = group_sum<S>(part.x); part.y = group_sum<S>(part.y); part.z = group_sum<S>(part.z);
    if constexpr (kMultiRound) {
      const int src = ((lane - round * kPerRound) * S) & 31;
      const float vx = __shfl_sync(kFullMask, part.x, src), vy = __shfl_sync(kFullMask, part.y, src),
                  vz = __shfl_sync(kFullMask, part.z, src);
      if (lane / kPerRound == round) mine = make_float3(vx, vy, vz);
    } else {
      mine = part;
    }
  }

  // Bead b's protocol forces, noise and move, from its force of the terms above.
  auto move_bead = [&](int b, float3 force, const IndentationForces& tip_on_b) {
    const std::size_t flat = std::size_t(r) * n + b;
    const float4 pb = pos_in[b];
    if constexpr (kProtocolCode == kTipForcesOnly) {
      if (indentation) add_indentation_forces(tip_on_b, force);
    } else if constexpr (kProtocol) {
      // Tethers, clamp forces and plane tethers, then the tip's and the surface's forces.
      Vec3d unused_tip{};
      BeadEnergy unused;
      add_protocol_forces<false, false>(m, r, b, pb, s, Vec3d{}, -1, force, unused_tip, unused);
      if (indentation) add_indentation_forces(tip_on_b, force);
    }
    float4 p = pb;
    if (!m.fixed[b]) {
      p = langevin_move(m, r, b, pb, force, s, coeff);
      if (moved_far(p, L.ref[flat], m.half_skin2)) atomicMin(&c->stale_since, s + 1);
    }
    pos_out[b] = p;
  };
  if constexpr (kWideMoves) {
    constexpr int kBlockBeads = kBlockClusters * kBeadsPerWarp;
    __shared__ float3 s_force[kBlockBeads];
    // The block's beads in its clusters' order: cluster warp / kSplit's beads at 8 ·
    // (warp / kSplit) on (chain order: bead i − block · kBlockBeads).
    if (owner && i < n) s_force[(warp / kSplit) * kBeadsPerWarp + lane / S] = mine;
    __syncthreads();
    const int t = int(threadIdx.x), local_cluster = t / kBeadsPerWarp;
    const int b = t < kBlockBeads ? (order ? __ldg(order + local_cluster) : block * kBlockClusters + local_cluster) *
                                            kBeadsPerWarp + t % kBeadsPerWarp
                                  : n;
    if (b < n)
      move_bead(b, s_force[t], kTipGiven && indentation ? given_tip_forces(b) : IndentationForces{});
  } else if (owner && i < n) {
    move_bead(i, mine, tip_forces);
  }

  if (kTipHere && indentation) {
    // Deterministic reaction sum: warp butterflies (above), warps in order, then the last
    // block of the replica sums the blocks' partials and moves the tip.
    __shared__ float s_noise[3];
    __shared__ bool s_last;
    __syncthreads();
    if (threadIdx.x == 0) {
      double sum[3] = {0, 0, 0};
      for (int w = 0; w < kPerBeadBlock / 32; ++w) for (int k = 0; k < 3; ++k) sum[k] += s_warp[w][k];
      double* partial = L.tip_partial + (std::size_t(r) * gridDim.x + blockIdx.x) * 3;
      for (int k = 0; k < 3; ++k) partial[k] = sum[k];
      __threadfence();
      s_last = atomicAdd(&L.tip_counter[r], 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (s_last) last_block_moves_tip(L, r, s, gridDim.x, s_warp, s_noise);  // uniform over the block
  }
}

__global__ void chunk_end_kernel(Control* c, int chunk) {
  long long next = c->step + chunk;
  if (c->target < next) next = c->target;
  if (c->stale_since < next) next = c->stale_since;
  if (next > c->step) c->step = next;
}

__global__ void set_segment_kernel(Control* c, long long target, physics::LangevinCoefficients coeff, double kT) {
  c->target = target;
  c->coeff = coeff;
  c->kT = kT;
}

__global__ void mark_stale_kernel(Control* c) {
  c->stale_since = c->step;
  c->needed_slots = 0;
}

__global__ void count_cluster_pairs_kernel(const __grid_constant__ PerBeadLaunch L, unsigned long long* out) {
  const long long total = (long long)L.m.replicas * cluster_count(L.m.n);
  unsigned long long local = 0;
  for (long long w = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32; w < total;
       w += (long long)gridDim.x * (blockDim.x / 32)) {
    const std::uint32_t* row = L.cluster_rows + std::size_t(w) * L.slots;
    const int count = min(L.row_count[w], L.slots);
    for (int k = threadIdx.x % 32; k < count; k += 32) local += unsigned(__popc(row[k] >> kClusterPartnerBits));
  }
  for (int o = 16; o > 0; o /= 2) local += __shfl_xor_sync(kFullMask, local, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out, local);
}

__global__ void count_pairs_kernel(const int* row_count, long long total, unsigned long long* out) {
  unsigned long long local = 0;
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total; k += (long long)gridDim.x * blockDim.x)
    local += unsigned(row_count[k]);
  for (int o = 16; o > 0; o /= 2) local += __shfl_xor_sync(kFullMask, local, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out, local);
}

}  // namespace

int perbead_beads_per_block(int lanes, bool multi_round) {
  return (kPerBeadBlock / 32) * (multi_round ? 32 : 32 / lanes);
}

int perbead_blocks_per_replica(const PerBeadLaunch& L) {
  const int per_block =
      perbead_beads_per_block(L.lanes, L.multi_round) / L.cluster_split * L.block_warps / kPerBeadBlockWarps;
  const int blocks = (L.m.n + per_block - 1) / per_block;
  // With a cluster order, whole windows (the last one's extra blocks have no clusters).
  const int window = std::max(1, L.cluster_order_window);
  return (blocks + window - 1) / window * window;
}

int perbead_cluster_order_slots(const PerBeadLaunch& L) {
  return perbead_blocks_per_replica(L) * (L.block_warps / L.cluster_split);
}

void launch_rebuild(const PerBeadLaunch& L, cudaStream_t stream, const float4* from) {
  launch_rebuild_cells(L, stream, from);
  // A warp per cluster or per bead, 8 warps per block, grid-stride beyond kRowBlocks.
  const long long warps = (long long)(L.cluster_rows ? cluster_count(L.m.n) : L.m.n) * L.m.replicas;
  const int blocks = int(std::min<long long>(kRowBlocks, (warps + 7) / 8));
  if (L.cluster_rows) {
    rebuild_cluster_rows_kernel<<<blocks, 256, 0, stream>>>(L, from);
    ERMAK_CUDA_LAUNCHED("rebuild_cluster_rows_kernel", stream);
    if (L.cluster_order_window > 0) {
      order_clusters_kernel<<<L.m.replicas, 256, 0, stream>>>(
          L, perbead_cluster_order_slots(L), L.cluster_order_window * (L.block_warps / L.cluster_split));
      ERMAK_CUDA_LAUNCHED("order_clusters_kernel", stream);
    }
  } else {
    rebuild_rows_kernel<<<blocks, 256, 0, stream>>>(L, from);
    ERMAK_CUDA_LAUNCHED("rebuild_rows_kernel", stream);
  }
  rebuild_finish_kernel<<<1, 1, 0, stream>>>(L.ctrl, L.slots);
  ERMAK_CUDA_LAUNCHED("rebuild_finish_kernel", stream);
}

// A per-step kernel's launch (step and tip kernels, kPerBeadBlock threads); programmatic
// where L asks for it: it may overlap the drain of the kernels before it, and starts with
// griddepcontrol.wait (see perbead_step_kernel's first lines).
template <class... Params, class... Args>
void launch_per_step(void (*kernel)(Params...), const PerBeadLaunch& L, dim3 grid, int threads, cudaStream_t stream,
                     Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = L.programmatic_steps ? 1 : 0;
  ERMAK_CUDA(cudaLaunchKernelEx(&config, kernel, args...));
}

template <bool kMultiRound, int kProtocol, class Index>
void launch_step_variant(const PerBeadLaunch& L, int node, cudaStream_t stream, const SideBranch& side) {
  const dim3 grid(perbead_blocks_per_replica(L), L.m.replicas);
  if constexpr (kProtocol == kTipForcesGiven || kProtocol == kTipForcesOnly) {
    const dim3 tip_grid((L.m.n + kPerBeadBlock - 1) / kPerBeadBlock, L.m.replicas);
    // The tip kernel's partial sums of the reaction go by the step kernel's blocks of
    // 8 warps of one cluster each, also where clusters are split over several warps (the
    // same sum then, whatever the split).
    const int per_block = perbead_beads_per_block(L.lanes, kMultiRound);
    const int step_blocks = (L.m.n + per_block - 1) / per_block;
    auto launch_tip = [&](auto kernel) { launch_per_step(kernel, L, tip_grid, kPerBeadBlock, stream, L, node, step_blocks); };
    switch (kMultiRound ? 1 : L.lanes) {
      case 1: launch_tip(perbead_tip_kernel<32>); break;
      case 2: launch_tip(perbead_tip_kernel<16>); break;
      case 4: launch_tip(perbead_tip_kernel<8>); break;
      case 8: launch_tip(perbead_tip_kernel<4>); break;
      case 16: launch_tip(perbead_tip_kernel<2>); break;
      default: throw Error("CUDA per-bead family: unsupported lanes per bead " + std::to_string(L.lanes));
    }
    ERMAK_CUDA_LAUNCHED("perbead_tip_kernel", stream);
    // Fork: the tip's step on the side stream, joined before the next kernel.
    ERMAK_CUDA(cudaEventRecord(side.fork, stream));
    ERMAK_CUDA(cudaStreamWaitEvent(side.stream, side.fork, 0));
    perbead_tip_move_kernel<<<L.m.replicas, kPerBeadBlock, 0, side.stream>>>(L, node, step_blocks);
    ERMAK_CUDA_LAUNCHED("perbead_tip_move_kernel", side.stream);
    ERMAK_CUDA(cudaEventRecord(side.join, side.stream));
  }
  auto launch = [&](auto kernel, int warps = kPerBeadBlockWarps) {
    launch_per_step(kernel, L, grid, warps * 32, stream, L, node);
  };
  switch (L.lanes) {
    case 2: launch(perbead_step_kernel<2, kMultiRound, kProtocol, Index>); break;
    case 4:
      if constexpr (uses_cluster_tile<4, kMultiRound, Index>()) {
        if constexpr (kProtocol != kItemsAndTip) {
          if (L.wide_moves) {
            if (L.cluster_split == 2 && L.block_warps == 2)
              launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index, 2, true, 2>, 2);
            else if (L.cluster_split == 2 && L.block_warps == 4)
              launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index, 2, true, 4>, 4);
            else if (L.cluster_split == 2) launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index, 2, true>);
            else if (L.cluster_split == 4) launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index, 4, true>);
            else if (L.block_warps == 4) launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index, 1, true, 4>, 4);
            else launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index, 1, true>);
            break;
          }
        }
        if (L.cluster_split == 2) { launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index, 2>); break; }
        if (L.cluster_split == 4) { launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index, 4>); break; }
      }
      launch(perbead_step_kernel<4, kMultiRound, kProtocol, Index>);
      break;
    case 8: launch(perbead_step_kernel<8, kMultiRound, kProtocol, Index>); break;
    case 16: launch(perbead_step_kernel<16, kMultiRound, kProtocol, Index>); break;
    default: throw Error("CUDA per-bead family: unsupported lanes per bead " + std::to_string(L.lanes));
  }
  if constexpr (kProtocol == kTipForcesGiven || kProtocol == kTipForcesOnly)
    ERMAK_CUDA(cudaStreamWaitEvent(stream, side.join, 0));
}

template <bool kMultiRound, int kProtocol>
void launch_step_rows(const PerBeadLaunch& L, int node, cudaStream_t stream, const SideBranch& side) {
  if (L.cluster_rows) launch_step_variant<kMultiRound, kProtocol, std::uint32_t>(L, node, stream, side);
  else if (L.rows16) launch_step_variant<kMultiRound, kProtocol, std::uint16_t>(L, node, stream, side);
  else launch_step_variant<kMultiRound, kProtocol, int>(L, node, stream, side);
}

template <bool kMultiRound>
void launch_step_protocol(const PerBeadLaunch& L, int node, cudaStream_t stream, const SideBranch& side) {
  switch (protocol_code(L.m.protocol)) {
    case kNoProtocol: launch_step_rows<kMultiRound, kNoProtocol>(L, node, stream, side); break;
    case kPerBeadItems: launch_step_rows<kMultiRound, kPerBeadItems>(L, node, stream, side); break;
    default:
      // The tip's work in a kernel of its own only where the run is large enough to pay
      // for the kernel boundary (docs/benchmarks.md#protocol-runs-pulling).
      if (L.tip_force && !L.m.protocol.any_per_bead)
        launch_step_rows<kMultiRound, kTipForcesOnly>(L, node, stream, side);
      else if (L.tip_force) launch_step_rows<kMultiRound, kTipForcesGiven>(L, node, stream, side);
      else launch_step_rows<kMultiRound, kItemsAndTip>(L, node, stream, side);
      break;
  }
}

bool perbead_waits_on_chip() {
  // The PTX architecture the device's code of the step kernel came from: 90 for sm_90
  // machine code, 80 for compute_80 PTX that the driver compiled for this GPU.
  cudaFuncAttributes attributes{};
  ERMAK_CUDA(cudaFuncGetAttributes(&attributes, perbead_step_kernel<4, false, kNoProtocol, std::uint32_t>));
  return attributes.ptxVersion >= 90;
}

void launch_perbead_step(const PerBeadLaunch& L, int node, cudaStream_t stream, const SideBranch& side) {
  if (L.multi_round) launch_step_protocol<true>(L, node, stream, side);
  else launch_step_protocol<false>(L, node, stream, side);
  ERMAK_CUDA_LAUNCHED("perbead_step_kernel", stream);
}

void launch_count_cluster_pairs(const PerBeadLaunch& L, unsigned long long* out, cudaStream_t stream) {
  ERMAK_CUDA(cudaMemsetAsync(out, 0, sizeof(unsigned long long), stream));
  const long long warps = (long long)cluster_count(L.m.n) * L.m.replicas;
  count_cluster_pairs_kernel<<<int(std::clamp<long long>((warps + 7) / 8, 1, 1024)), 256, 0, stream>>>(L, out);
  ERMAK_CUDA_LAUNCHED("count_cluster_pairs_kernel", stream);
}

void launch_chunk_end(const PerBeadLaunch& L, int chunk, cudaStream_t stream) {
  chunk_end_kernel<<<1, 1, 0, stream>>>(L.ctrl, chunk);
  ERMAK_CUDA_LAUNCHED("chunk_end_kernel", stream);
}

void launch_set_segment(Control* ctrl, long long target, physics::LangevinCoefficients coeff, double kT,
                        cudaStream_t stream) {
  set_segment_kernel<<<1, 1, 0, stream>>>(ctrl, target, coeff, kT);
  ERMAK_CUDA_LAUNCHED("set_segment_kernel", stream);
}

void launch_mark_stale(Control* ctrl, cudaStream_t stream) {
  mark_stale_kernel<<<1, 1, 0, stream>>>(ctrl);
  ERMAK_CUDA_LAUNCHED("mark_stale_kernel", stream);
}

void launch_count_pairs(const int* row_count, long long total, unsigned long long* out, cudaStream_t stream) {
  ERMAK_CUDA(cudaMemsetAsync(out, 0, sizeof(unsigned long long), stream));
  const int blocks = int(std::min<long long>(1024, (total + 255) / 256));
  count_pairs_kernel<<<std::max(blocks, 1), 256, 0, stream>>>(row_count, total, out);
  ERMAK_CUDA_LAUNCHED("count_pairs_kernel", stream);
}

}  // namespace ermak::cuda
