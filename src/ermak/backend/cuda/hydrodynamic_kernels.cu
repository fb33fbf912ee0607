// One step with hydrodynamic interactions (docs/gpu.md#hydrodynamic-interactions): the
// moves of backend/hydrodynamic_step.h, the same ERMAK_HD code the CPU engine runs, from
// every bead's total force at the step (the evaluation kernels, eval_kernels.cu). After the
// evaluation, one to three kernels per step (docs/gpu.md#hydrodynamic-interactions: launches,
// not arithmetic, bound the small cases):
//   TEA        ε shares, a group of lanes per mobile bead or two (a warp; 8 or 16 lanes for
//              replicas of up to 48 or 96 mobile beads), its lanes over the other beads, each
//              partner loaded once for both, their partial sums added in a fixed tree
//              order, the group's beads' Gaussians drawn on the side (bead_noise: Philox, or
//              the ring of a stateful generator — the very triples the plain step kernels
//              draw); β per replica from its shares added in double in bead order (as the
//              CPU engine) — by a thread per replica for groups of 32 lanes, by each group
//              itself for groups of 8 or 16; the moves, likewise a group per mobile bead or
//              two over all M mobile beads, O(M²) per replica, each group writing its beads'
//              positions at step + 1 (and the per-bead family's list check)
//   Cholesky   a block per replica: its Gaussians, its 3M × 3M tensor, drift, factor (a
//              column at a time, the pivot's sum on a warp, its elements below the pivot
//              shared among the threads, the factor stored transposed so that they read
//              consecutive floats) and noise (a thread per row of L g), O(M³) per replica,
//              then its mobile beads at step + 1 as above; the tensor in the block's shared
//              memory where it fits (M ≤ 80 on an H100/H200), else in the replica's 9M²
//              floats of global memory
//   rest       where a run has fixed beads, an indentation tip or a list control (per-bead
//              family): a thread per replica copies its fixed beads to step + 1 and takes
//              the tip's and the control's steps
#include <algorithm>

#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/kernels.cuh"
#include "ermak/backend/hydrodynamic_step.h"

namespace ermak::cuda {
namespace {

constexpr int kBeadThreads = 128;
constexpr int kReplicaThreads = 64;
constexpr int kCholeskyThreads = 256;
constexpr int kLanes = 32;  // a warp per mobile bead in the TEA kernels
static_assert(kLanes == physics::kCholeskyPivotParts, "the pivot's parts are a warp's lanes");

// One replica's positions, forces and Gaussians as backend/hydrodynamic_step.h reads them
// (__host__ __device__ only so that its ERMAK_HD templates instantiate cleanly; only
// device code calls them).
struct ReplicaBeads {
  const float4 *positions, *forces, *gaussians;
  __host__ __device__ Vec3f position(std::int32_t j) const { const float4 p = positions[j]; return {p.x, p.y, p.z}; }
  __host__ __device__ Vec3f force(std::int32_t j) const { const float4 f = forces[j]; return {f.x, f.y, f.z}; }
  __host__ __device__ Vec3f gaussian(std::int32_t j) const { const float4 g = gaussians[j]; return {g.x, g.y, g.z}; }
};

__device__ __forceinline__ ReplicaBeads replica_beads(const HydrodynamicLaunch& L, int r) {
  const std::size_t o = std::size_t(r) * L.m.n;
  return {L.pos + o, L.force + o, L.gaussian + o};
}

// Threads over (replica, k < count) pairs: r = t / count.
__device__ __forceinline__ bool pair_of(long long t, int count, int replicas, int& r, int& k) {
  if (count <= 0 || t >= (long long)replicas * count) return false;
  r = int(t / count);
  k = int(t - (long long)r * count);
  return true;
}

// A group's G partial sums added in a fixed tree order (its first lane holds the total);
// G a power of two ≤ 32, groups aligned in the warp, every lane of the warp taking part.
template <int G = kLanes>
__device__ __forceinline__ float group_sum(float v) {
  for (int offset = G / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset, G);
  return v;
}
template <int G = kLanes>
__device__ __forceinline__ Vec3f group_sum(Vec3f v) { return {group_sum<G>(v.x), group_sum<G>(v.y), group_sum<G>(v.z)}; }

// The mobile beads of lane group `group` in the TEA kernels: Count consecutive ones of a
// replica (the last group of a replica repeats its last bead, whose result it does not
// store). False past the last group: its lanes still take part in the warp's shuffles,
// on bead 0 of replica 0, and store nothing.
template <int Count>
__device__ __forceinline__ bool group_beads(long long group, const HydrodynamicLaunch& L, int& r, int& k0,
                                            std::int32_t (&ks)[Count]) {
  const int groups = (L.mobile_count + Count - 1) / Count;
  int g;
  const bool active = pair_of(group, groups, L.m.replicas, r, g);
  if (!active) r = g = 0;
  k0 = g * Count;
  for (int t = 0; t < Count; ++t) ks[t] = min(k0 + t, L.mobile_count - 1);
  return active;
}

// A warp whose first lane group is past the last leaves at once (whole warps: the
// shuffles need every lane).
template <int G>
__device__ __forceinline__ bool warp_past_the_end(long long thread, int count_per_group, const HydrodynamicLaunch& L) {
  const long long first_group = (thread - thread % kLanes) / G;
  const long long groups = (long long)L.m.replicas * ((L.mobile_count + count_per_group - 1) / count_per_group);
  return first_group >= groups;
}

// TEA with groups of G lanes per Count mobile beads (G = 32: a warp): each lane takes the
// partners from its place in the group in steps of G (tea_lanes_per_group).
template <int Count, int G>
__global__ void __launch_bounds__(kBeadThreads) tea_epsilon_share_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (warp_past_the_end<G>(thread, Count, L)) return;
  const int lane = int(thread % G);
  int r, k0;
  std::int32_t ks[Count];
  const bool active = group_beads<Count>(thread / G, L, r, k0, ks);
  if (active && lane < Count && k0 + lane < L.mobile_count) {  // the group's beads' Gaussians, for the moves
    const int i = L.mobile[k0 + lane];
    L.gaussian[std::size_t(r) * L.m.n + i] = bead_noise(L.m, r, i, L.step);
  }
  float shares[Count];
  tea_epsilon_shares_of_beads<Count>(replica_beads(L, r), L.mobile, L.mobile_count, ks, L.radius_A, lane, G, shares);
  for (int t = 0; t < Count; ++t) {
    const float share = group_sum<G>(shares[t]);
    if (active && lane == 0 && k0 + t < L.mobile_count) L.epsilon_share[std::size_t(r) * L.mobile_count + k0 + t] = share;
  }
}

// ε and β' of replica r: its shares added in double in bead order (the CPU engine's sum).
__device__ float replica_beta(const HydrodynamicLaunch& L, int r) {
  const float* share = L.epsilon_share + std::size_t(r) * L.mobile_count;
  double sum = 0.0;
  for (int k = 0; k < L.mobile_count; ++k) sum += share[k];
  return float(physics::tea_beta(physics::tea_epsilon(sum, L.mobile_count), L.mobile_count));
}

// β' of each replica, a thread each, for the moves in warps (G = 32: replicas of more than
// 96 mobile beads, whose groups are many); groups of fewer lanes take it themselves
// (replica_beta: the same bits, and a launch less per step for small replicas).
__global__ void __launch_bounds__(kReplicaThreads) tea_beta_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const int r = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (r >= L.m.replicas) return;
  L.beta[r] = replica_beta(L, r);
}

// The indentation tip's step after the beads' (CpuEngine::step_tip), from the molecule's
// force on it at the step's positions (the evaluation's reduction).
__device__ void step_tip_of_replica(const HydrodynamicLaunch& L, int r) {
  const Vec3d molecule{L.tips.molecule_force[3 * r], L.tips.molecule_force[3 * r + 1], L.tips.molecule_force[3 * r + 2]};
  Vec3d tip{L.tips.tip[3 * r], L.tips.tip[3 * r + 1], L.tips.tip[3 * r + 2]};
  long long turn = L.tips.turnaround[r];
  step_tip(L.m, L.step, L.kT, molecule, tip_noise(L.m, r, L.step), tip, turn);
  L.tips.tip[3 * r] = tip.x; L.tips.tip[3 * r + 1] = tip.y; L.tips.tip[3 * r + 2] = tip.z;
  L.tips.turnaround[r] = turn;
}

// Mobile bead i of replica r at step + 1: its position plus displacement d, with the list
// check of the per-bead family (a bead farther than skin/2 from its reference marks the
// list stale at step + 1).
__device__ __forceinline__ void move_bead(const HydrodynamicLaunch& L, int r, int i, Vec3f d) {
  const std::size_t flat = std::size_t(r) * L.m.n + i;
  float4 p = L.pos[flat];
  p.x += d.x; p.y += d.y; p.z += d.z;
  if (L.ctrl && moved_far(p, L.ref[flat], L.m.half_skin2)) atomicMin(&L.ctrl->stale_since, L.step + 1);
  L.next[flat] = p;
}

// The rest of replica r's step, on one thread: its fixed beads copied to step + 1, the
// indentation tip's step, and (replica 0) the control's step — a kernel of its own after the
// moves, only where a run has any of them (replica_step_rest): the tip's step in double takes
// ~95 registers, which inside the moves' kernels cost them occupancy (the exact factor of WW ×
// 1000 −22 %, TEA on PF8 × 1 −21 %).
__device__ void finish_replica(const HydrodynamicLaunch& L, int r) {
  for (int f = 0; f < L.fixed_count; ++f) {
    const std::size_t flat = std::size_t(r) * L.m.n + L.fixed[f];
    L.next[flat] = L.pos[flat];
  }
  if (L.m.protocol.indentation) step_tip_of_replica(L, r);
  if (r == 0 && L.ctrl) L.ctrl->step = L.step + 1;
}

template <int Count, int G>
__global__ void __launch_bounds__(kBeadThreads) tea_move_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (warp_past_the_end<G>(thread, Count, L)) return;
  const int lane = int(thread % G);
  int r, k0;
  std::int32_t ks[Count];
  const bool active = group_beads<Count>(thread / G, L, r, k0, ks);
  const ReplicaBeads beads = replica_beads(L, r);
  physics::HydrodynamicSums sums[Count];
  hydrodynamic_sums_of_beads<Count>(beads, L.mobile, L.mobile_count, ks, L.radius_A, lane, G, sums);
  for (int t = 0; t < Count; ++t) {
    sums[t].mobility_force = group_sum<G>(sums[t].mobility_force);
    sums[t].coupled_noise = group_sum<G>(sums[t].coupled_noise);
    sums[t].row_squares = group_sum<G>(sums[t].row_squares);
  }
  if (!active || lane != 0) return;
  const float beta = G < kLanes ? replica_beta(L, r) : L.beta[r];
  for (int t = 0; t < Count && k0 + t < L.mobile_count; ++t) {
    const int i = L.mobile[k0 + t];
    move_bead(L, r, i, physics::tea_displacement(beads.force(i), beads.gaussian(i), sums[t], beta,
                                                 L.coeff.mobility_step, L.coeff.noise_amplitude));
  }
}

// The exact square root, a block per replica: the phases of exact_hydrodynamic_displacements
// with their items shared among the threads — block pairs, beads, then the factor a column at
// a time (the pivot's 32 parts on the first warp, the elements below it on all), then the rows
// of L g — each item computed by the same operations as on the CPU. The tensor lives in the
// block's shared memory where its 9M² floats fit (kTensorInShared: up to 80 mobile beads on
// an H100/H200, cholesky_tensor_fits_in_shared), else in the replica's 9M² floats of global
// memory; the same operations either way, so the same bits (and int indices in shared
// memory, whose address arithmetic is cheaper). The replica's Gaussians are staged in shared memory for the
// rows of L g. A factor that fails (non-finite positions) moves the replica's beads to NaN,
// which the run's checks stop (as the CPU engine).
template <class Index>
__device__ __forceinline__ void factor_columns(float* matrix, Index n, int& failed) {
  for (Index j = 0; j < n; ++j) {
    if (threadIdx.x < kLanes) {  // the first warp: the pivot's parts, added as the CPU adds them
      const float sum = group_sum(physics::cholesky_pivot_part(matrix, n, j, int(threadIdx.x)));
      if (threadIdx.x == 0 && !physics::cholesky_pivot_from(matrix, n, j, sum)) failed = 1;
    }
    __syncthreads();
    if (failed) break;  // the same value on every thread
    for (Index i = j + 1 + Index(threadIdx.x); i < n; i += Index(blockDim.x)) physics::cholesky_below(matrix, n, i, j);
    __syncthreads();
  }
}

struct StagedGaussians {
  const float* g;
  template <class Index>
  __device__ float operator()(Index c) const { return g[c]; }
};

template <bool kTensorInShared>
__global__ void __launch_bounds__(kCholeskyThreads) cholesky_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  extern __shared__ float shared_floats[];  // [9M² if kTensorInShared] tensor, then [3M] Gaussians
  const int r = blockIdx.x;
  const int m_count = L.mobile_count;
  const std::size_t m = std::size_t(m_count), n = 3 * m;
  const ReplicaBeads beads = replica_beads(L, r);
  float* matrix = kTensorInShared ? shared_floats : L.tensor + std::size_t(r) * n * n;
  float* gaussians = kTensorInShared ? shared_floats + n * n : shared_floats;
  Vec3f* displacement = L.displacement + std::size_t(r) * m;
  const long long pairs = (long long)m * (m + 1) / 2;
  for (long long p = threadIdx.x; p < pairs; p += blockDim.x) {
    // p = k(k + 1)/2 + j with j ≤ k.
    int k = int((sqrt(8.0 * double(p) + 1.0) - 1.0) / 2.0);
    while ((long long)k * (k + 1) / 2 > p) --k;
    while ((long long)(k + 1) * (k + 2) / 2 <= p) ++k;
    fill_mobility_blocks(beads, L.mobile, k, int(p - (long long)k * (k + 1) / 2), L.radius_A, matrix, n);
  }
  for (int k = threadIdx.x; k < m_count; k += blockDim.x) {
    const float4 g = bead_noise(L.m, r, L.mobile[k], L.step);
    gaussians[3 * k] = g.x; gaussians[3 * k + 1] = g.y; gaussians[3 * k + 2] = g.z;
  }
  __syncthreads();
  for (int k = threadIdx.x; k < m_count; k += blockDim.x)
    displacement[k] = L.coeff.mobility_step * exact_drift_of(beads, L.mobile, m_count, k, matrix, n);
  __shared__ int failed;
  if (threadIdx.x == 0) failed = 0;
  __syncthreads();
  if constexpr (kTensorInShared) factor_columns(matrix, int(n), failed);
  else factor_columns(matrix, n, failed);
  float* flat = reinterpret_cast<float*>(displacement);  // Vec3f: three floats, row 3k + a of bead k
  static_assert(sizeof(Vec3f) == 3 * sizeof(float));
  const StagedGaussians staged{gaussians};
  for (int row = threadIdx.x; row < int(n); row += blockDim.x) {
    if (failed) {
      flat[row] = NAN;
      continue;
    }
    const float noise = kTensorInShared ? exact_noise_row(matrix, int(n), row, staged)
                                        : exact_noise_row(matrix, n, std::size_t(row), staged);
    flat[row] += L.coeff.noise_amplitude * noise;
  }
  __syncthreads();
  for (int k = threadIdx.x; k < m_count; k += blockDim.x) move_bead(L, r, L.mobile[k], displacement[k]);
}

__global__ void __launch_bounds__(kReplicaThreads) replica_step_rest_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const int r = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (r < L.m.replicas) finish_replica(L, r);
}

int blocks_for(long long threads, int per_block) {
  return int(std::max<long long>(1, (threads + per_block - 1) / per_block));
}

// Mobile beads per lane group of the TEA kernels: each lane loads a partner once for all
// of them. ERMAK_TEA_BEADS_PER_WARP (1, 2, 4 or 8; HydrodynamicLaunch::tea_beads_per_group)
// overrides, for A/B measurements.
int tea_beads_per_group(const HydrodynamicLaunch& L) {
  if (L.tea_beads_per_group) return L.tea_beads_per_group;
  // Measured on an H200 (docs/benchmarks.md#hydrodynamic-interactions): two beads per warp
  // +11 % at PF8 × 1 and +9 % at WW × 1000, four or eight slower (fewer warps, more
  // registers); below a few thousand mobile beads in all, one (the warps are too few).
  return (long long)L.m.replicas * L.mobile_count >= 4096 ? 2 : 1;
}

// Lanes per group: a warp's 32 for large replicas; for small ones fewer, so that each lane
// still takes several partners rather than the group's sums costing more than its terms
// (M = 34: a warp's lanes took one partner or two). A function of M alone, so that a
// replica's moves are the same bits whatever the run's size (the sums' order follows G).
// ERMAK_TEA_LANES (8, 16 or 32; HydrodynamicLaunch::tea_lanes) overrides, for A/B
// measurements.
int tea_lanes_per_group(const HydrodynamicLaunch& L) {
  if (L.tea_lanes) return L.tea_lanes;
  if (L.mobile_count <= 48) return 8;
  if (L.mobile_count <= 96) return 16;
  return kLanes;
}

template <int Count, int G>
void launch_tea_of(const HydrodynamicLaunch& L, cudaStream_t stream) {
  const long long groups = (long long)L.m.replicas * ((L.mobile_count + Count - 1) / Count);
  const long long threads = (groups * G + kLanes - 1) / kLanes * kLanes;
  tea_epsilon_share_kernel<Count, G><<<blocks_for(threads, kBeadThreads), kBeadThreads, 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("tea_epsilon_share_kernel", stream);
  if (G == kLanes) {
    tea_beta_kernel<<<blocks_for(L.m.replicas, kReplicaThreads), kReplicaThreads, 0, stream>>>(L);
    ERMAK_CUDA_LAUNCHED("tea_beta_kernel", stream);
  }
  tea_move_kernel<Count, G><<<blocks_for(threads, kBeadThreads), kBeadThreads, 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("tea_move_kernel", stream);
}

template <int G>
void launch_tea_in_groups_of(const HydrodynamicLaunch& L, int beads_per_group, cudaStream_t stream) {
  switch (beads_per_group) {
    case 1: launch_tea_of<1, G>(L, stream); break;
    case 2: launch_tea_of<2, G>(L, stream); break;
    case 4: launch_tea_of<4, G>(L, stream); break;
    default: launch_tea_of<8, G>(L, stream); break;
  }
}

void launch_tea(const HydrodynamicLaunch& L, cudaStream_t stream) {
  const int beads = tea_beads_per_group(L);
  switch (tea_lanes_per_group(L)) {
    case 8: launch_tea_in_groups_of<8>(L, beads, stream); break;
    case 16: launch_tea_in_groups_of<16>(L, beads, stream); break;
    default: launch_tea_in_groups_of<kLanes>(L, beads, stream); break;
  }
}

}  // namespace

std::size_t cholesky_shared_bytes(int mobile_count, bool tensor_in_shared) {
  const std::size_t n = 3 * std::size_t(std::max(mobile_count, 0));
  return (tensor_in_shared ? n * n + n : n) * sizeof(float);
}

bool cholesky_tensor_fits_in_shared(int mobile_count, const cudaDeviceProp& prop) {
  // The kernel's own static shared memory (a flag) and the driver's reserve come on top.
  constexpr std::size_t kMargin = 1024;
  return mobile_count > 0 && cholesky_shared_bytes(mobile_count, true) + kMargin <= prop.sharedMemPerBlockOptin;
}

void allow_cholesky_shared_bytes(int mobile_count, bool tensor_in_shared) {
  const int bytes = int(cholesky_shared_bytes(mobile_count, tensor_in_shared));
  if (tensor_in_shared)
    ERMAK_CUDA(cudaFuncSetAttribute(cholesky_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  else
    ERMAK_CUDA(cudaFuncSetAttribute(cholesky_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

void launch_hydrodynamic_step(const HydrodynamicLaunch& L, cudaStream_t stream) {
  if (L.mobile_count > 0 && L.cholesky && L.tensor_in_shared) {
    cholesky_kernel<true><<<L.m.replicas, kCholeskyThreads, cholesky_shared_bytes(L.mobile_count, true), stream>>>(L);
    ERMAK_CUDA_LAUNCHED("cholesky_kernel<shared>", stream);
  } else if (L.mobile_count > 0 && L.cholesky) {
    cholesky_kernel<false><<<L.m.replicas, kCholeskyThreads, cholesky_shared_bytes(L.mobile_count, false), stream>>>(L);
    ERMAK_CUDA_LAUNCHED("cholesky_kernel<global>", stream);
  } else if (L.mobile_count > 0) {
    launch_tea(L, stream);
  }
  if (L.fixed_count > 0 || L.m.protocol.indentation || L.ctrl) {
    replica_step_rest_kernel<<<blocks_for(L.m.replicas, kReplicaThreads), kReplicaThreads, 0, stream>>>(L);
    ERMAK_CUDA_LAUNCHED("replica_step_rest_kernel", stream);
  }
}

}  // namespace ermak::cuda
