// Kernel family "block", tiles layout (tile_kernel.cuh, docs/gpu.md#tiles): one block runs
// `group` whole replicas of 8 to 64 beads for many steps, each pair computed once.
//
// Thread t serves tile t / group of the block's replica t mod group (tile-major: a warp's
// tiles have the same shape, the full tiles first, the diagonal ones last). Bead i of that
// replica is served by thread index i (the same threads as the tiles) or T + i (threads
// of their own after the T tiles': L.tile_beads_apart). A step: the bead threads draw the
// noise and sum their bonds and protocol forces (tethers, clamps, plane tethers; not
// indentation, which the engine keeps on the lanes kernels) — positions only, so before
// the barrier, beside the tiles when apart — while the tile threads store their partial
// sums; a barrier; the bead threads add their quad row's partials and move (fixed beads
// stay); a barrier. Positions are double-buffered in shared memory. The summation order
// depends on n alone: the trajectory does not depend on how replicas are grouped into
// blocks, on where a launch starts, or on where the bead threads are.
#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/kernels.cuh"
#include "ermak/backend/cuda/tile_kernel.cuh"

namespace ermak::cuda {
namespace {

template <int kProtocolCode>
__global__ void __launch_bounds__(tiles::kMaxThreads, 2) tile_steps_kernel(const __grid_constant__ BlockLaunch L) {
  constexpr bool kProtocol = kProtocolCode != kNoProtocol;
  extern __shared__ __align__(16) float4 tile_smem[];
  const ModelData& m = L.m;
  const long long start = (L.status_in ? L.status_in : L.status)[blockIdx.x].done;
  if (start >= L.end_step) {  // this block is already there (uniform)
    if (threadIdx.x == 0 && L.status_in) L.status[blockIdx.x] = L.status_in[blockIdx.x];
    return;
  }
  const int n = m.n, G = L.group, Q = pair_tile_quads(n), T = pair_tile_count(n);
  const int P = tiles::position_stride(n), S = tiles::partial_stride(n);
  const int first = blockIdx.x * G;
  const int here = min(G, m.replicas - first);
  const int local = int(threadIdx.x) / G, g = int(threadIdx.x) - local * G;
  const bool active = g < here;
  float4* cur = tile_smem;                   // [G][P]
  float4* next = tile_smem + G * P;          // [G][P]
  float4* partial = tile_smem + 2 * G * P;   // [G][S ⊇ Q·Q·4]
  float4* coefficients = partial + G * S;    // [T][16]
  for (int e = threadIdx.x; e < 16 * T; e += blockDim.x) coefficients[e] = L.tile_coefficients[e];
  for (int e = threadIdx.x; e < G * P; e += blockDim.x) {
    const int r = e / P, b = e - r * P;
    const float4 v = b < n && r < here ? L.in[std::size_t(first + r) * n + b] : tiles::padding_position(b);
    cur[e] = v;
    next[e] = v;  // the padding of both buffers
  }
  int I = 0, k = 0;
  const bool tile = active && local < T;
  if (local < T) pair_tile_of(local, Q, I, k);
  const int J = I + k < Q ? I + k : I + k - Q;
  const int i = L.tile_beads_apart ? local - T : local;  // this thread's bead
  const bool bead = active && i >= 0 && i < n;
  const bool moves = bead && !m.fixed[i];
  const int replica = first + g;
  __syncthreads();
  long long s = start;
  for (; s < L.end_step; ++s) {
    // The bead's noise, bonds and protocol forces need only this step's positions: before
    // the barrier (beside the tiles when the bead threads are apart).
    float4 noise = make_float4(0, 0, 0, 0);
    float3 own = make_float3(0, 0, 0);
    if (moves) {
      noise = bead_noise(m, replica, i, s);
      own = tiles::bond_force(cur + g * P, L.tile_bonds, i, m.fene);
      if constexpr (kProtocol) {
        Vec3d on_tip{};
        BeadEnergy unused;
        add_protocol_forces<false, false>(m, replica, i, cur[g * P + i], s, Vec3d{}, -1, own, on_tip, unused);
      }
    }
    if (tile) tiles::tile_pair_forces(cur + g * P, partial + g * S, coefficients + 16 * local, I, J, Q);
    __syncthreads();
    if (bead) {
      const float4 p = cur[g * P + i];
      next[g * P + i] = moves ? langevin_move_with(p, tiles::bead_force(partial + g * S, i, Q, own), noise, L.coeff) : p;
    }
    __syncthreads();
    float4* swap = cur;
    cur = next;
    next = swap;
  }
  for (int e = threadIdx.x; e < here * n; e += blockDim.x) {
    const int r = e / n;
    L.out[std::size_t(first) * n + e] = cur[r * P + e - r * n];
  }
  if (threadIdx.x == 0) {
    BlockStatus st;
    st.done = s;
    st.needed_slots = 0;
    st.rebuilds = 0;
    st.pairs = 0;  // the engine counts the pairs of the all-pairs mode itself
    L.status[blockIdx.x] = st;
  }
}

}  // namespace

TileKernel tile_kernel_for(const BlockLaunch& L) {
  if (!L.tiles || !L.tile_coefficients || !L.tile_bonds) throw Error("CUDA block family: the tiles layout needs its tables");
  if (L.m.n < tiles::kMinBeads || L.m.n > tiles::kMaxBeads)
    throw Error("CUDA block family: the tiles layout takes 8 to 64 beads per replica, not " + std::to_string(L.m.n));
  if (L.threads > tiles::kMaxThreads)
    throw Error("CUDA block family: the tiles layout runs blocks of at most " + std::to_string(tiles::kMaxThreads) +
                " threads");
  switch (protocol_code(L.m.protocol)) {
    case kNoProtocol: return tile_steps_kernel<kNoProtocol>;
    case kPerBeadItems: return tile_steps_kernel<kPerBeadItems>;
    default: throw Error("CUDA block family: the tiles layout does not run indentation");
  }
}

std::size_t tile_shared_bytes(const BlockLaunch& L) { return tiles::shared_bytes(L.group, L.m.n); }

int tile_threads_per_replica(int n, bool beads_apart) { return tiles::threads_per_replica(n, beads_apart); }

}  // namespace ermak::cuda
