// One step with hydrodynamic interactions (docs/gpu.md#hydrodynamic-interactions): the
// moves of backend/hydrodynamic_step.h, the same ERMAK_HD code the CPU engine runs, from
// every bead's total force at the step (the evaluation kernels, eval_kernels.cu). Kernels
// in stream order:
//   noise      a thread per bead: the step's Gaussians (bead_noise: Philox, or the ring of
//              a stateful generator), the very triples the plain step kernels draw
//   TEA        ε shares, a warp per mobile bead or two (its lanes over the other beads, each
//              partner loaded once for both, their partial sums added in a fixed tree
//              order); ε and β per replica, a thread per replica adding its shares in double
//              in bead order (as the CPU engine); the moves, likewise a warp per mobile bead
//              or two over all M mobile beads: O(M²) per replica
//   Cholesky   a block per replica: its 3M × 3M tensor, drift, factor (a column at a time,
//              the pivot's sum on a warp, its elements below the pivot shared among the
//              threads, the factor stored transposed so that they read consecutive floats)
//              and noise in its own 9M² floats of global memory, O(M³) per replica
//   apply      a thread per bead: position at step + 1 (fixed beads copied), the list
//              check of the per-bead family
//   finish     a thread per replica: the indentation tip's step; the control's step
#include <algorithm>
#include <cstdlib>

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

__global__ void __launch_bounds__(kBeadThreads) hydrodynamic_noise_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  int r, i;
  if (!pair_of(blockIdx.x * (long long)blockDim.x + threadIdx.x, L.m.n, L.m.replicas, r, i)) return;
  L.gaussian[std::size_t(r) * L.m.n + i] = bead_noise(L.m, r, i, L.step);
}

// A warp's 32 partial sums added in a fixed tree order (lane 0 holds the total).
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = kLanes / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
__device__ __forceinline__ Vec3f warp_sum(Vec3f v) { return {warp_sum(v.x), warp_sum(v.y), warp_sum(v.z)}; }

// The mobile beads of warp `warp` in the TEA kernels: Count consecutive ones of a replica
// (the last group of a replica repeats its last bead, whose result it does not store).
template <int Count>
__device__ __forceinline__ bool warp_beads(long long warp, const HydrodynamicLaunch& L, int& r, int& k0,
                                           std::int32_t (&ks)[Count]) {
  const int groups = (L.mobile_count + Count - 1) / Count;
  int g;
  if (!pair_of(warp, groups, L.m.replicas, r, g)) return false;
  k0 = g * Count;
  for (int t = 0; t < Count; ++t) ks[t] = min(k0 + t, L.mobile_count - 1);
  return true;
}

template <int Count>
__global__ void __launch_bounds__(kBeadThreads) tea_epsilon_share_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const int lane = int(thread % kLanes);
  int r, k0;
  std::int32_t ks[Count];
  // Whole warps leave together (the shuffles need every lane).
  if (!warp_beads<Count>(thread / kLanes, L, r, k0, ks)) return;
  float shares[Count];
  tea_epsilon_shares_of_beads<Count>(replica_beads(L, r), L.mobile, L.mobile_count, ks, L.radius_A, lane, kLanes,
                                     shares);
  for (int t = 0; t < Count; ++t) {
    const float share = warp_sum(shares[t]);
    if (lane == 0 && k0 + t < L.mobile_count) L.epsilon_share[std::size_t(r) * L.mobile_count + k0 + t] = share;
  }
}

// ε and β' of each replica: its shares added in double in bead order (the CPU engine's sum).
__global__ void __launch_bounds__(kReplicaThreads) tea_beta_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const int r = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (r >= L.m.replicas) return;
  const float* share = L.epsilon_share + std::size_t(r) * L.mobile_count;
  double sum = 0.0;
  for (int k = 0; k < L.mobile_count; ++k) sum += share[k];
  L.beta[r] = float(physics::tea_beta(physics::tea_epsilon(sum, L.mobile_count), L.mobile_count));
}

template <int Count>
__global__ void __launch_bounds__(kBeadThreads) tea_move_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const int lane = int(thread % kLanes);
  int r, k0;
  std::int32_t ks[Count];
  if (!warp_beads<Count>(thread / kLanes, L, r, k0, ks)) return;
  const ReplicaBeads beads = replica_beads(L, r);
  physics::HydrodynamicSums sums[Count];
  hydrodynamic_sums_of_beads<Count>(beads, L.mobile, L.mobile_count, ks, L.radius_A, lane, kLanes, sums);
  for (int t = 0; t < Count; ++t) {
    sums[t].mobility_force = warp_sum(sums[t].mobility_force);
    sums[t].coupled_noise = warp_sum(sums[t].coupled_noise);
    sums[t].row_squares = warp_sum(sums[t].row_squares);
    if (lane == 0 && k0 + t < L.mobile_count) {
      const int i = L.mobile[k0 + t];
      L.displacement[std::size_t(r) * L.mobile_count + k0 + t] = physics::tea_displacement(
          beads.force(i), beads.gaussian(i), sums[t], L.beta[r], L.coeff.mobility_step, L.coeff.noise_amplitude);
    }
  }
}

// The exact square root, a block per replica (its tensor is 9M² floats of global memory):
// the phases of exact_hydrodynamic_displacements with their items shared among the threads
// — block pairs, beads, then the factor a column at a time (the pivot's 32 parts on the first
// warp, the elements below it on all) — each item computed by the same operations as on the
// CPU. A factor that fails (non-finite positions) moves the replica's beads to NaN, which the
// run's checks stop (as the CPU engine).
__global__ void __launch_bounds__(kCholeskyThreads) cholesky_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const int r = blockIdx.x;
  const int m_count = L.mobile_count;
  const std::size_t m = std::size_t(m_count), n = 3 * m;
  const ReplicaBeads beads = replica_beads(L, r);
  float* matrix = L.tensor + std::size_t(r) * n * n;
  Vec3f* displacement = L.displacement + std::size_t(r) * m;
  const long long pairs = (long long)m * (m + 1) / 2;
  for (long long p = threadIdx.x; p < pairs; p += blockDim.x) {
    // p = k(k + 1)/2 + j with j ≤ k.
    int k = int((sqrt(8.0 * double(p) + 1.0) - 1.0) / 2.0);
    while ((long long)k * (k + 1) / 2 > p) --k;
    while ((long long)(k + 1) * (k + 2) / 2 <= p) ++k;
    fill_mobility_blocks(beads, L.mobile, k, int(p - (long long)k * (k + 1) / 2), L.radius_A, matrix, n);
  }
  __syncthreads();
  for (int k = threadIdx.x; k < m_count; k += blockDim.x)
    displacement[k] = L.coeff.mobility_step * exact_drift_of(beads, L.mobile, m_count, k, matrix, n);
  __shared__ int failed;
  if (threadIdx.x == 0) failed = 0;
  __syncthreads();
  for (std::size_t j = 0; j < n; ++j) {
    if (threadIdx.x < kLanes) {  // the first warp: the pivot's parts, added as the CPU adds them
      const float sum = warp_sum(physics::cholesky_pivot_part(matrix, n, j, int(threadIdx.x)));
      if (threadIdx.x == 0 && !physics::cholesky_pivot_from(matrix, n, j, sum)) failed = 1;
    }
    __syncthreads();
    if (failed) break;  // the same value on every thread
    for (std::size_t i = j + 1 + threadIdx.x; i < n; i += blockDim.x) physics::cholesky_below(matrix, n, i, j);
    __syncthreads();
  }
  if (failed) {
    for (int k = threadIdx.x; k < m_count; k += blockDim.x) displacement[k] = {NAN, NAN, NAN};
    return;
  }
  for (int k = threadIdx.x; k < m_count; k += blockDim.x)
    displacement[k] += L.coeff.noise_amplitude * exact_noise_of(beads, L.mobile, k, matrix, n);
}

__global__ void __launch_bounds__(kBeadThreads) hydrodynamic_apply_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  int r, i;
  if (!pair_of(blockIdx.x * (long long)blockDim.x + threadIdx.x, L.m.n, L.m.replicas, r, i)) return;
  const std::size_t flat = std::size_t(r) * L.m.n + i;
  float4 p = L.pos[flat];
  const int k = L.mobile_index[i];
  if (k >= 0) {
    const Vec3f d = L.displacement[std::size_t(r) * L.mobile_count + k];
    p.x += d.x; p.y += d.y; p.z += d.z;
    if (L.ctrl && moved_far(p, L.ref[flat], L.m.half_skin2)) atomicMin(&L.ctrl->stale_since, L.step + 1);
  }
  L.next[flat] = p;
}

// The indentation tip's step after the beads' (CpuEngine::step_tip), from the molecule's
// force on it at the step's positions (the evaluation's reduction); the control's step.
__global__ void __launch_bounds__(kReplicaThreads) hydrodynamic_finish_kernel(const __grid_constant__ HydrodynamicLaunch L) {
  const int r = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (r == 0 && L.ctrl) L.ctrl->step = L.step + 1;
  if (r >= L.m.replicas || !L.m.protocol.indentation) return;
  const Vec3d molecule{L.tips.molecule_force[3 * r], L.tips.molecule_force[3 * r + 1], L.tips.molecule_force[3 * r + 2]};
  Vec3d tip{L.tips.tip[3 * r], L.tips.tip[3 * r + 1], L.tips.tip[3 * r + 2]};
  long long turn = L.tips.turnaround[r];
  step_tip(L.m, L.step, L.kT, molecule, tip_noise(L.m, r, L.step), tip, turn);
  L.tips.tip[3 * r] = tip.x; L.tips.tip[3 * r + 1] = tip.y; L.tips.tip[3 * r + 2] = tip.z;
  L.tips.turnaround[r] = turn;
}

int blocks_for(long long threads, int per_block) {
  return int(std::max<long long>(1, (threads + per_block - 1) / per_block));
}

// Mobile beads per warp of the TEA kernels: each lane loads a partner once for all of them.
// ERMAK_TEA_BEADS_PER_WARP (1, 2, 4 or 8) overrides, for A/B measurements.
int tea_beads_per_warp(const HydrodynamicLaunch& L) {
  static const int forced = [] {
    const char* v = std::getenv("ERMAK_TEA_BEADS_PER_WARP");
    const int b = v ? std::atoi(v) : 0;
    return b == 1 || b == 2 || b == 4 || b == 8 ? b : 0;
  }();
  if (forced) return forced;
  // Measured on an H200 (docs/benchmarks.md#hydrodynamic-interactions): two beads per warp
  // +11 % at PF8 × 1 and +9 % at WW × 1000, four or eight slower (fewer warps, more
  // registers); below a few thousand mobile beads in all, one (the warps are too few).
  return (long long)L.m.replicas * L.mobile_count >= 4096 ? 2 : 1;
}

template <int Count>
void launch_tea_of(const HydrodynamicLaunch& L, cudaStream_t stream) {
  const long long warps = (long long)L.m.replicas * ((L.mobile_count + Count - 1) / Count);
  tea_epsilon_share_kernel<Count><<<blocks_for(warps * kLanes, kBeadThreads), kBeadThreads, 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("tea_epsilon_share_kernel", stream);
  tea_beta_kernel<<<blocks_for(L.m.replicas, kReplicaThreads), kReplicaThreads, 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("tea_beta_kernel", stream);
  tea_move_kernel<Count><<<blocks_for(warps * kLanes, kBeadThreads), kBeadThreads, 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("tea_move_kernel", stream);
}

void launch_tea(const HydrodynamicLaunch& L, int beads_per_warp, cudaStream_t stream) {
  switch (beads_per_warp) {
    case 1: launch_tea_of<1>(L, stream); break;
    case 2: launch_tea_of<2>(L, stream); break;
    case 4: launch_tea_of<4>(L, stream); break;
    default: launch_tea_of<8>(L, stream); break;
  }
}

}  // namespace

void launch_hydrodynamic_step(const HydrodynamicLaunch& L, cudaStream_t stream) {
  const long long beads = (long long)L.m.replicas * L.m.n;
  const int replica_blocks = blocks_for(L.m.replicas, kReplicaThreads);
  hydrodynamic_noise_kernel<<<blocks_for(beads, kBeadThreads), kBeadThreads, 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("hydrodynamic_noise_kernel", stream);
  if (L.mobile_count > 0) {
    if (L.cholesky) {
      cholesky_kernel<<<L.m.replicas, kCholeskyThreads, 0, stream>>>(L);
      ERMAK_CUDA_LAUNCHED("cholesky_kernel", stream);
    } else {
      launch_tea(L, tea_beads_per_warp(L), stream);
    }
  }
  hydrodynamic_apply_kernel<<<blocks_for(beads, kBeadThreads), kBeadThreads, 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("hydrodynamic_apply_kernel", stream);
  hydrodynamic_finish_kernel<<<replica_blocks, kReplicaThreads, 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("hydrodynamic_finish_kernel", stream);
}

}  // namespace ermak::cuda
