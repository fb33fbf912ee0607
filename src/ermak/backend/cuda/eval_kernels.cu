// Evaluation at report time: forces and energies of every bead (for energies(), forces(),
// minimize() and the indentation status), their deterministic per-replica sums, the
// minimisation moves, and layout conversions. The per-bead work is the same device code
// as the step kernels' (device_model.cuh); the repulsive partners come from the per-bead
// family's list (per-bead or cluster rows), or — for the block family, whose lists live on
// chip — from a scan of all beads of the replica (BruteForceRow), which visits them in the
// same ascending order as the block family's own rows.
#include <algorithm>

#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/kernels.cuh"

namespace ermak::cuda {
namespace {

constexpr int kEvalBlock = 256;

struct GlobalPos {
  const float4* base;
  __device__ float4 operator()(int j) const { return __ldg(base + j); }
};

// A warp serves kPerRound = 32/S beads at a time, S lanes each, in kRounds rounds: S rounds
// (32 beads per warp, each lane then owning one bead's protocol terms and stores) where the
// run has beads enough to fill the GPU, one round (4 beads per warp, the first lane of each
// group owning its bead) where it has not, so that a small run's evaluation is not S rounds
// of latency one after the other (WW × 1: 55 µs, docs/benchmarks.md#hydrodynamic-interactions).
// A bead's sums are the same operations in either layout.
template <bool kEnergy, bool kBrute, int kRounds>
__global__ void __launch_bounds__(kEvalBlock) eval_kernel(const __grid_constant__ EvalLaunch L) {
  constexpr int S = kEvalLanes, kPerRound = 32 / S;
  static_assert(kRounds == S || kRounds == 1, "S rounds (a bead per lane) or one");
  constexpr int kBeadsPerWarp = kPerRound * kRounds;
  const ModelData& m = L.m;
  const int n = m.n;
  // Replicas along x with the blocks of each (grid.y stops at 65535 replicas).
  const int beads_per_block = int(blockDim.x / 32) * kBeadsPerWarp;
  const int blocks_per_replica = (n + beads_per_block - 1) / beads_per_block;
  const int r = int(blockIdx.x / unsigned(blocks_per_replica));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_base = int(blockIdx.x % unsigned(blocks_per_replica)) * beads_per_block + warp * kBeadsPerWarp;
  const float4* pos = L.pos + std::size_t(r) * n;

  float3 mine = make_float3(0, 0, 0);
  BeadEnergy mine_e;
#pragma unroll
  for (int round = 0; round < kRounds; ++round) {
    const int i = warp_base + round * kPerRound + lane / S;
    float3 part = make_float3(0, 0, 0);
    BeadEnergy e;
    if (i < n) {
      const float4 pi = pos[i];
      if constexpr (kBrute) {
        part = pair_forces<S, kEnergy>(m, i, lane % S, pi, GlobalPos{pos}, BruteForceRow{&m, i}, e);
      } else {
        const std::size_t flat = std::size_t(r) * n + i;
        if (L.cluster_rows) {  // uniform over the grid
          const std::size_t cluster = cluster_row_index(r, n, i);
          part = pair_forces<S, kEnergy>(m, i, lane % S, pi, GlobalPos{pos},
                                         ClusterRow{L.cluster_rows + cluster * L.slots, L.row_count[cluster],
                                                    kClusterPartnerBits + i % kClusterBeads},
                                         e);
        } else if (L.rows16)
          part = pair_forces<S, kEnergy>(m, i, lane % S, pi, GlobalPos{pos},
                                         RowMajorRow<std::uint16_t>{L.rows16 + flat * L.slots, L.row_count[flat]}, e);
        else
          part = pair_forces<S, kEnergy>(m, i, lane % S, pi, GlobalPos{pos},
                                         RowMajorRow<int>{L.rows + flat * L.slots, L.row_count[flat]}, e);
      }
    }
    part.x = group_sum<S>(part.x); part.y = group_sum<S>(part.y); part.z = group_sum<S>(part.z);
    if constexpr (kEnergy) {
      e.fene = group_sum<S>(e.fene); e.native = group_sum<S>(e.native);
      e.repulsive = group_sum<S>(e.repulsive);
    }
    if constexpr (kRounds == 1) {  // every lane of the group holds its bead's sums
      mine = part;
      mine_e = e;
      continue;
    }
    const int src = ((lane - round * kPerRound) * S) & 31;
    const float vx = __shfl_sync(kFullMask, part.x, src), vy = __shfl_sync(kFullMask, part.y, src),
                vz = __shfl_sync(kFullMask, part.z, src);
    BeadEnergy ve;
    if constexpr (kEnergy) {
      ve.fene = __shfl_sync(kFullMask, e.fene, src);
      ve.native = __shfl_sync(kFullMask, e.native, src);
      ve.repulsive = __shfl_sync(kFullMask, e.repulsive, src);
    }
    if (lane / kPerRound == round) { mine = make_float3(vx, vy, vz); mine_e = ve; }
  }

  if (kRounds == 1 && lane % S != 0) return;
  const int i = kRounds == 1 ? warp_base + lane / S : warp_base + lane;
  if (i >= n) return;
  const std::size_t flat = std::size_t(r) * n + i;
  Vec3d on_tip{};
  if (m.protocol.any_per_bead || m.protocol.indentation) {
    Vec3d tip{};
    long long turn = -1;
    if (m.protocol.indentation) {
      tip = {L.tips.tip[3 * r], L.tips.tip[3 * r + 1], L.tips.tip[3 * r + 2]};
      turn = L.tips.turnaround[r];
    }
    add_protocol_forces<kEnergy>(m, r, i, pos[i], L.step, tip, turn, mine, on_tip, mine_e);
  }
  L.force[flat] = make_float4(mine.x, mine.y, mine.z, 0.0f);
  if constexpr (kEnergy) {
    double* e = L.bead_energy + flat * 4;
    e[0] = mine_e.fene; e[1] = mine_e.native; e[2] = mine_e.repulsive; e[3] = mine_e.protocol;
  }
  if (m.protocol.indentation) {
    double* t = L.bead_tip + flat * 3;
    t[0] = on_tip.x; t[1] = on_tip.y; t[2] = on_tip.z;
  }
}

constexpr int kReduceBlock = 256;

// One block per replica; every sum in a fixed order (strided per thread, then a tree).
__global__ void __launch_bounds__(kReduceBlock) reduce_kernel(const __grid_constant__ EvalLaunch L, bool energy) {
  const ModelData& m = L.m;
  const int n = m.n;
  const int r = blockIdx.x;
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // 4 energies, max f², 3 tip
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const std::size_t flat = std::size_t(r) * n + i;
    if (energy)
      for (int k = 0; k < 4; ++k) acc[k] += L.bead_energy[flat * 4 + k];
    if (!m.fixed[i]) {
      const float4 f = L.force[flat];
      const double f2 = double(f.x) * f.x + double(f.y) * f.y + double(f.z) * f.z;
      acc[4] = (f2 > acc[4] || f2 != f2) ? f2 : acc[4];
    }
    if (m.protocol.indentation)
      for (int k = 0; k < 3; ++k) acc[5 + k] += L.bead_tip[flat * 3 + k];
  }
  __shared__ double s[8][kReduceBlock];
  for (int k = 0; k < 8; ++k) s[k][threadIdx.x] = acc[k];
  __syncthreads();
  for (int width = blockDim.x / 2; width > 0; width /= 2) {
    if (int(threadIdx.x) < width) {
      for (int k = 0; k < 8; ++k) {
        const double a = s[k][threadIdx.x], b = s[k][threadIdx.x + width];
        s[k][threadIdx.x] = k == 4 ? ((b > a || b != b) ? b : a) : a + b;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    double* out = L.replica_out + std::size_t(r) * kReplicaOut;
    for (int k = 0; k < kReplicaOut; ++k) out[k] = s[k][0];
    if (m.protocol.indentation)
      for (int k = 0; k < 3; ++k) L.tips.molecule_force[3 * r + k] = s[5 + k][0];
  }
}

__global__ void minimize_move_kernel(const __grid_constant__ ModelData m, float4* pos, float4* save,
                                     const float4* force, const int* mode, const float* scale) {
  const long long total = (long long)m.replicas * m.n;
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total; k += (long long)gridDim.x * blockDim.x) {
    const int r = int(k / m.n), i = int(k - (long long)r * m.n);
    if (mode[r] == 1) {
      const float4 p = pos[k];
      save[k] = p;
      if (!m.fixed[i]) {
        const float4 f = force[k];
        const float sc = scale[r];
        pos[k] = make_float4(p.x + sc * f.x, p.y + sc * f.y, p.z + sc * f.z, p.w);
      }
    } else if (mode[r] == 2) {
      pos[k] = save[k];
    }
  }
}

int grid_for(long long count) { return int(std::clamp<long long>((count + 255) / 256, 1, 65535)); }

template <int kRounds>
void launch_eval_in(const EvalLaunch& L, bool energy, bool brute, cudaStream_t stream) {
  // A replica of few beads gets a block of just its warps: with 256 threads and the energy
  // kernel's 114 registers, two blocks fit an SM, so at WW × 9000 (34 beads, 2 of 8 warps
  // busy) the evaluation took 1.5 ms of a report stop's 2 ms. Each bead's work and sums
  // are the same in any block shape.
  constexpr int kBeadsPerWarp = 32 / kEvalLanes * kRounds;
  const int warps_per_replica = (L.m.n + kBeadsPerWarp - 1) / kBeadsPerWarp;
  const int block = std::min(kEvalBlock, warps_per_replica * 32);
  const int beads_per_block = block / 32 * kBeadsPerWarp;
  const dim3 grid(unsigned((L.m.n + beads_per_block - 1) / beads_per_block) * unsigned(L.m.replicas));
  if (energy) {
    if (brute) eval_kernel<true, true, kRounds><<<grid, block, 0, stream>>>(L);
    else eval_kernel<true, false, kRounds><<<grid, block, 0, stream>>>(L);
  } else {
    if (brute) eval_kernel<false, true, kRounds><<<grid, block, 0, stream>>>(L);
    else eval_kernel<false, false, kRounds><<<grid, block, 0, stream>>>(L);
  }
  ERMAK_CUDA_LAUNCHED("eval_kernel", stream);
}

}  // namespace

void launch_eval(const EvalLaunch& L, bool energy, cudaStream_t stream) {
  const bool brute = L.rows == nullptr && L.rows16 == nullptr && L.cluster_rows == nullptr;
  if (L.rounds == 1) launch_eval_in<1>(L, energy, brute, stream);
  else launch_eval_in<kEvalLanes>(L, energy, brute, stream);
}

void launch_reduce_replicas(const EvalLaunch& L, bool energy, cudaStream_t stream) {
  reduce_kernel<<<L.m.replicas, tree_block_for(L.m.n), 0, stream>>>(L, energy);
  ERMAK_CUDA_LAUNCHED("reduce_kernel", stream);
}

void launch_minimize_move(const ModelData& m, float4* pos, float4* save, const float4* force, const int* mode,
                          const float* scale, cudaStream_t stream) {
  minimize_move_kernel<<<grid_for((long long)m.replicas * m.n), 256, 0, stream>>>(m, pos, save, force, mode, scale);
  ERMAK_CUDA_LAUNCHED("minimize_move_kernel", stream);
}

}  // namespace ermak::cuda
