// The idealised step kernels of `ermak bench --ceiling` (cuda_ceiling.h,
// docs/benchmarks.md#the-instruction-ceiling): what is left of a block-family step when
// everything but the pair terms, the noise and the move is taken away. One thread per
// bead, a block of whole replicas, positions double-buffered in shared memory (one barrier
// per step), many steps per launch — the block family's shape at one lane per bead, so
// that the gap between these rates and `ermak bench`'s is what the real kernel's
// bonds, native contacts, packed rows and bookkeeping cost.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/tile_kernel.cuh"
#include "ermak/backend/pair_tiles.h"
#include "ermak/backend/cuda_ceiling.h"
#include "ermak/core/error.h"
#include "ermak/model/topology.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/physics/native_contact.h"
#include "ermak/physics/nonbonded_pair.h"
#include "ermak/physics/repulsion.h"
#include "ermak/rng/philox_gaussian.h"

namespace ermak {
namespace cuda {
namespace {

struct CeilingLaunch {
  const float4* in = nullptr;  // [replicas·n]
  float4* out = nullptr;
  int n = 0, replicas = 0, group = 1;
  long long first_step = 0;
  int steps = 0;
  physics::RepulsionParameters repulsion{};
  physics::LangevinCoefficients coeff{};
  rng::PhiloxKeys keys{};
  // The model's bonded terms by tile (tiles kernel with the topology): which of a tile's
  // 16 pairs repel (bit 4c + d), and its bonds and native contacts [begin[t], begin[t+1]):
  // {c | d << 2 | native << 4 as int bits, r0 or r0², 12 ε_h, ε_h}.
  const std::uint16_t* tile_repels = nullptr;
  const int* tile_special_begin = nullptr;
  const float4* tile_specials = nullptr;
  physics::FeneParameters fene{};
  // tiles-unified: each tile's 16 pairs {c², f12, f6, cutoff²} of physics::nonbonded_pair
  // [T][16] (repulsion within the cutoff, native contact without one, neither: zeros), and
  // each bead's bonds {partner as int bits (−1: none), r₀} [n][4].
  const float4* tile_params = nullptr;
  const float2* bead_bonds = nullptr;
};

// The block's replicas back to global memory: bead b of replica r at cur[r·stride + b].
__device__ void store_replicas(const CeilingLaunch& L, const float4* cur, int first, int here, int stride) {
  for (int e = threadIdx.x; e < here * L.n; e += blockDim.x) {
    const int r = e / L.n, b = e - r * L.n;
    L.out[std::size_t(first) * L.n + e] = cur[r * stride + b];
  }
}

// kPairs: 2 every partner (each pair from both ends), 1 half of them (each pair once, its
// reaction dropped), 3 half of them with the reaction added to the partner's sum by a
// shared-memory float atomic (the whole force, in an order that varies from run to run),
// 4 half of them with the reaction stored in a slot of its own (one per partner offset k)
// and each bead's slots summed in a fixed order after a barrier (the whole force,
// deterministic), 0 none.
template <int kPairs, bool kNoise>
__global__ void __launch_bounds__(512) ceiling_steps_kernel(const __grid_constant__ CeilingLaunch L) {
  // [2][group][2n]: each replica's beads twice in a row, so that partner i + k needs no
  // wrap-around (an immediate offset in the unrolled loop).
  extern __shared__ __align__(16) float4 spos[];
  const int n = L.n, G = L.group;
  const int first = blockIdx.x * G;
  const int here = min(G, L.replicas - first);
  const int g = int(threadIdx.x) / n, i = int(threadIdx.x) - g * n;  // replica-major
  const bool active = g < here;
  float4* cur = spos;
  float4* next = spos + 2 * G * n;
  // kPairs == 3: the reactions, [2 (step parity)][3][group·n] floats after the positions.
  float* reaction = reinterpret_cast<float*>(spos + 4 * G * n);
  if constexpr (kPairs == 3)
    for (int e = threadIdx.x; e < 6 * G * n; e += blockDim.x) reaction[e] = 0.0f;
  // kPairs == 4: [h + 1][group·n] float4 slots after the positions: slot k − 1 of bead j
  // holds the reaction of the pair (j − k, j), slot h the opposite bead's.
  float4* slots = spos + 4 * G * n;
  for (int e = threadIdx.x; e < here * n; e += blockDim.x) {
    const int r = e / n, b = e - r * n;
    cur[2 * r * n + b] = cur[2 * r * n + n + b] = L.in[std::size_t(first) * n + e];
  }
  __syncthreads();
  // Pairs once: bead i takes i+1 … i+h (mod n), h = ⌊(n−1)/2⌋, and with n even the
  // opposite bead i + n/2 for i < n/2 — every pair of the replica exactly once.
  const int half = (n - 1) / 2;
  const bool opposite = (n % 2 == 0) && i < n / 2;
  const float cutoff2 = L.repulsion.cutoff2;
  for (int t = 0; t < L.steps; ++t) {
    const float4* replica = cur + 2 * g * n;
    const float4 p = active ? replica[i] : make_float4(0, 0, 0, 0);
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    float* react = reaction + (t & 1) * 3 * G * n + g * n;  // this step's, this replica's
    auto repel = [&](int j, int slot) {
      const float4 q = replica[j];
      const float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
      const float r2 = dx * dx + dy * dy + dz * dz;
      const auto pf = physics::repulsion<false>(r2, L.repulsion);
      const float sc = r2 < cutoff2 ? pf.force_over_r : 0.0f;
      if constexpr (kPairs == 3) {
        const float ex = sc * dx, ey = sc * dy, ez = sc * dz;
        fx += ex; fy += ey; fz += ez;
        const int partner = j >= n ? j - n : j;
        atomicAdd(react + partner, -ex);
        atomicAdd(react + G * n + partner, -ey);
        atomicAdd(react + 2 * G * n + partner, -ez);
      } else if constexpr (kPairs == 4) {
        const float ex = sc * dx, ey = sc * dy, ez = sc * dz;
        fx += ex; fy += ey; fz += ez;
        const int partner = j >= n ? j - n : j;
        slots[(slot * G + g) * n + partner] = make_float4(-ex, -ey, -ez, 0.0f);
      } else {
        fx += sc * dx; fy += sc * dy; fz += sc * dz;
      }
    };
    if constexpr (kPairs > 0) {
      if (active) {
        const int partners = kPairs == 2 ? n - 1 : half;
#pragma unroll 4
        for (int k = 1; k <= partners; ++k) repel(i + k, k - 1);
        if (kPairs != 2 && opposite) repel(i + n / 2, half);
      }
    }
    if constexpr (kPairs == 3) {
      // Every reaction of the step is in before it is read; the other parity's buffer is
      // zeroed for the next step (nobody adds to it before the barrier below).
      __syncthreads();
      if (active) {
        fx += react[i]; fy += react[G * n + i]; fz += react[2 * G * n + i];
        float* other = reaction + ((t + 1) & 1) * 3 * G * n + g * n;
        other[i] = 0.0f; other[G * n + i] = 0.0f; other[2 * G * n + i] = 0.0f;
      }
    }
    if constexpr (kPairs == 4) {
      __syncthreads();
      if (active) {
#pragma unroll 4
        for (int k = 0; k < half; ++k) {
          const float4 r = slots[(k * G + g) * n + i];
          fx += r.x; fy += r.y; fz += r.z;
        }
        if (n % 2 == 0 && i >= n / 2) {
          const float4 r = slots[(half * G + g) * n + i];
          fx += r.x; fy += r.y; fz += r.z;
        }
      }
    }
    if (active) {
      Vec3f noise{0.0f, 0.0f, 0.0f};
      if constexpr (kNoise)
        noise = rng::gaussian3(L.keys, rng::Stream::kBeadLangevin, std::uint32_t(first + g), std::uint32_t(i),
                               std::uint64_t(L.first_step + t));
      const Vec3f d = physics::langevin_displacement({fx, fy, fz}, noise, L.coeff);
      const float4 moved = make_float4(p.x + d.x, p.y + d.y, p.z + d.z, p.w);
      next[2 * g * n + i] = moved;
      next[2 * g * n + n + i] = moved;
    }
    __syncthreads();
    float4* swap = cur;
    cur = next;
    next = swap;
  }
  store_replicas(L, cur, first, here, 2 * n);
}

// Each pair once in tiles of 4 × 4 beads, the reactions kept in registers: a tile thread
// holds quad I's and quad J's positions, sums the 16 terms into both quads' forces and
// stores the two sets of partial sums in the slots [I][J] and [J][I]; after a barrier each
// bead adds its quad's Q partials in a fixed order (deterministic; 0.5 stores and 0.5 loads
// per pair instead of the slots kernel's 1 and 1). The tiles and their order: pair_tiles.h.
// Beads are padded to 4Q with far sentinels (each at its own distance, so that no pair of
// them is at r = 0). The noise is drawn before the tile's terms, which it overlaps.
// Threads are tile-major. kModel 2 is the production tiles layout's arithmetic
// (tile_kernel.cuh) without the engine's bookkeeping.
__host__ __device__ inline int tile_threads_per_replica(int n) { return tiles::threads_per_replica(n, false); }

// kModel: 0 the repulsion for every pair; 1 the model's bonded terms too as per-tile lists
// (L.tile_*): the repulsion only for the pairs that repel, the bonds and native contacts
// added to the tile's partial sums; 2 the native contacts inside the 16 terms by one
// formula for both kinds of pair (L.tile_params), the bonds on the bead threads.
template <int kModel>
__global__ void __launch_bounds__(512) ceiling_tiles_kernel(const __grid_constant__ CeilingLaunch L) {
  extern __shared__ __align__(16) float4 tile_smem[];
  // Odd strides per replica (positions P, partials S, in float4): the same slot of
  // consecutive replicas — what tile-major threads touch together — in different banks.
  const int n = L.n, G = L.group, Q = pair_tile_quads(n), T = pair_tile_count(n);
  const int P = tiles::position_stride(n), S = tiles::partial_stride(n);
  const int per_replica = tile_threads_per_replica(n);
  const int first = blockIdx.x * G;
  const int here = min(G, L.replicas - first);
  // Tile-major: consecutive threads take the same tile of consecutive replicas, so that a
  // warp's tiles have the same shape (the full tiles first, the diagonal ones last).
  const int local = int(threadIdx.x) / G, g = int(threadIdx.x) - local * G;
  const bool active = g < here;
  float4* cur = tile_smem;                  // [G][P]
  float4* next = tile_smem + G * P;         // [G][P]
  float4* partial = tile_smem + 2 * G * P;  // [G][S ⊇ Q·Q·4]
  float4* params = partial + G * S;         // kModel 2: [T][16]
  if constexpr (kModel == 2)
    for (int e = threadIdx.x; e < 16 * T; e += blockDim.x) params[e] = L.tile_params[e];
  for (int e = threadIdx.x; e < G * P; e += blockDim.x) {
    const int r = e / P, b = e - r * P;
    float4 v;
    if (b < n && r < here) {
      v = L.in[std::size_t(first + r) * n + b];
    } else {
      v = tiles::padding_position(b);
    }
    cur[e] = v;
    next[e] = v;
  }
  // This thread's tile (I, J = I + k mod Q): k = 1 … h for local < Q·h, then the opposite
  // quads (k = Q/2, Q even), then the diagonal tiles (k = 0).
  int I = 0, k = 0;
  const bool has_tile = local < T;
  if (has_tile) pair_tile_of(local, Q, I, k);  // slots in the order of pair_tiles.h
  const unsigned repels = kModel == 1 && has_tile ? L.tile_repels[local] : 0xffffu;
  const int J = I + k < Q ? I + k : I + k - Q;
  __syncthreads();
  const float cutoff2 = L.repulsion.cutoff2;
  for (int t = 0; t < L.steps; ++t) {
    Vec3f noise{0.0f, 0.0f, 0.0f};
    if (active && local < n)
      noise = rng::gaussian3(L.keys, rng::Stream::kBeadLangevin, std::uint32_t(first + g), std::uint32_t(local),
                             std::uint64_t(L.first_step + t));
    if (active && has_tile && kModel == 2) {
      tiles::tile_pair_forces(cur + g * P, partial + g * S, params + 16 * local, I, J, Q);
    } else if (active && has_tile) {
      const float4* replica = cur + g * P;
      tiles::tile_pair_forces_with(replica, partial + g * S, I, J, Q, [&](float r2, int place) {
        const auto pf = physics::repulsion<false>(r2, L.repulsion);
        const bool repel = kModel == 0 || ((repels >> place) & 1u);
        return r2 < cutoff2 && repel ? pf.force_over_r : 0.0f;
      });
      if constexpr (kModel == 1) {
        // The tile's bonds and native contacts, added to its own partial sums (no other
        // thread writes them).
        float4* mine = partial + g * S + (I * Q + J) * 4;
        float4* theirs = k != 0 ? partial + g * S + (J * Q + I) * 4 : mine;
        for (int e = L.tile_special_begin[local]; e < L.tile_special_begin[local + 1]; ++e) {
          const float4 sp = L.tile_specials[e];
          const int code = __float_as_int(sp.x), c = code & 3, d = (code >> 2) & 3;
          const float4 p = replica[4 * I + c], q = replica[4 * J + d];
          const float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
          const float r2 = dx * dx + dy * dy + dz * dz;
          const float f = (code >> 4) ? physics::native_contact_from_products<false>(r2, sp.y, sp.z, sp.w).force_over_r
                                      : physics::fene<false>(r2, sp.y, L.fene).force_over_r;
          float4& u = mine[c];
          u.x += f * dx; u.y += f * dy; u.z += f * dz;
          float4& v = theirs[d];
          v.x -= f * dx; v.y -= f * dy; v.z -= f * dz;
        }
      }
    }
    __syncthreads();
    if (active && local < n) {
      float fx = 0.0f, fy = 0.0f, fz = 0.0f;
      const float4 p = cur[g * P + local];
      if constexpr (kModel == 2) {
        const float3 f =
            tiles::bead_force(partial + g * S, local, Q, tiles::bond_force(cur + g * P, L.bead_bonds, local, L.fene));
        fx = f.x; fy = f.y; fz = f.z;
      } else {
        const int X = local / 4, c = local - 4 * X;
        const float4* row = partial + g * S + X * Q * 4 + c;
        for (int Y = 0; Y < Q; ++Y) {
          const float4 v = row[4 * Y];
          fx += v.x; fy += v.y; fz += v.z;
        }
      }
      const Vec3f d = physics::langevin_displacement({fx, fy, fz}, noise, L.coeff);
      next[g * P + local] = make_float4(p.x + d.x, p.y + d.y, p.z + d.z, p.w);
    }
    __syncthreads();
    float4* swap = cur;
    cur = next;
    next = swap;
  }
  store_replicas(L, cur, first, here, P);
}

using CeilingKernelFn = void (*)(CeilingLaunch);

CeilingKernelFn kernel_of(CeilingKernel kernel) {
  switch (kernel) {
    case CeilingKernel::kPairsTwice: return ceiling_steps_kernel<2, true>;
    case CeilingKernel::kPairsOnce: return ceiling_steps_kernel<1, true>;
    case CeilingKernel::kNoiseAndMove: return ceiling_steps_kernel<0, true>;
    case CeilingKernel::kPairsOnceAtomics: return ceiling_steps_kernel<3, true>;
    case CeilingKernel::kPairsOnceSlots: return ceiling_steps_kernel<4, true>;
    case CeilingKernel::kPairsOnceTiles: return ceiling_tiles_kernel<0>;
    case CeilingKernel::kTilesWithModel: return ceiling_tiles_kernel<1>;
    case CeilingKernel::kTilesUnified: return ceiling_tiles_kernel<2>;
    default: return ceiling_steps_kernel<1, false>;
  }
}

// Threads per replica, and whether the kernel is built for n beads (tiles: 8 to 64).
bool is_tiles(CeilingKernel kernel) {
  return kernel == CeilingKernel::kPairsOnceTiles || kernel == CeilingKernel::kTilesWithModel ||
         kernel == CeilingKernel::kTilesUnified;
}
int threads_per_replica(CeilingKernel kernel, int n) { return is_tiles(kernel) ? tile_threads_per_replica(n) : n; }
bool supports(CeilingKernel kernel, int n) { return !is_tiles(kernel) || (n >= 8 && n <= 64); }

// Shared memory of a block of `group` replicas of n beads (the kernel's layout).
std::size_t shared_bytes(CeilingKernel kernel, int group, int n) {
  if (is_tiles(kernel)) {
    // The production layout's (tile_kernel.cuh); only tiles-unified reads the coefficients.
    const std::size_t coefficients = 16 * std::size_t(pair_tile_count(n)) * sizeof(float4);
    return tiles::shared_bytes(group, n) - (kernel == CeilingKernel::kTilesUnified ? 0 : coefficients);
  }
  const std::size_t beads = std::size_t(group) * n;
  std::size_t bytes = 4 * beads * sizeof(float4);  // two buffers of each replica twice
  if (kernel == CeilingKernel::kPairsOnceAtomics) bytes += 6 * beads * sizeof(float);
  if (kernel == CeilingKernel::kPairsOnceSlots) bytes += std::size_t((n - 1) / 2 + 1) * beads * sizeof(float4);
  return bytes;
}

// A launch's steps (L.in to L.out); the kernel's shared-memory limit is set by advance().
void launch(CeilingKernel kernel, CeilingLaunch L, cudaStream_t stream) {
  const int blocks = (L.replicas + L.group - 1) / L.group;
  kernel_of(kernel)<<<blocks, L.group * threads_per_replica(kernel, L.n), shared_bytes(kernel, L.group, L.n),
                      stream>>>(L);
  ERMAK_CUDA_LAUNCHED("ceiling_steps_kernel", stream);
}

struct CeilingRun {
  CeilingLaunch base;
  DeviceBuffer<float4> a, b;
  DeviceBuffer<std::uint16_t> tile_repels;
  DeviceBuffer<int> tile_special_begin;
  DeviceBuffer<float4> tile_specials;
  DeviceBuffer<float4> tile_params;
  DeviceBuffer<float2> bead_bonds;
};

// The model's tables (pair_tiles.h) for kTilesWithModel and kTilesUnified
// (CeilingLaunch::tile_*, tile_params, bead_bonds).
void upload_tile_model(CeilingRun& run, const Topology& topology) {
  const PairTileTables t = build_pair_tile_tables(topology, run.base.repulsion);
  std::vector<float4> terms;
  for (const PairTileTerm& e : t.terms) {
    const int code = e.c | e.d << 2 | int(e.native) << 4;
    float bits;
    std::memcpy(&bits, &code, sizeof bits);
    const auto c = physics::native_contact_products(e.r0_A, e.eh_kcal_per_mol);
    terms.push_back(e.native ? make_float4(bits, c.r0_squared, c.twelve_eh, e.eh_kcal_per_mol)
                             : make_float4(bits, e.r0_A, 0.0f, 0.0f));
  }
  if (terms.empty()) terms.push_back(make_float4(0, 0, 0, 0));  // a valid pointer
  run.tile_repels.upload(t.repels);
  run.tile_special_begin.upload(t.term_begin);
  run.tile_specials.upload(terms);
  run.tile_params.upload(tiles::coefficient_records(t));
  run.bead_bonds.upload(tiles::bond_records(t));
  run.base.tile_repels = run.tile_repels.get();
  run.base.tile_special_begin = run.tile_special_begin.get();
  run.base.tile_specials = run.tile_specials.get();
  run.base.tile_params = run.tile_params.get();
  run.base.bead_bonds = run.bead_bonds.get();
}

CeilingRun prepare(const EngineSetup& setup, const std::vector<Vec3f>& positions_A) {
  const int n = int(positions_A.size());
  if (n < 2 || n > 512) throw Error("ceiling kernels: need 2 to 512 beads per replica, got " + std::to_string(n));
  if (setup.replicas < 1) throw Error("ceiling kernels: need at least one replica");
  int device = setup.device;
  if (device < 0) device = 0;
  ERMAK_CUDA(cudaSetDevice(device));
  CeilingRun run;
  std::vector<float4> start(std::size_t(setup.replicas) * n);
  for (std::size_t e = 0; e < start.size(); ++e) {
    const Vec3f& p = positions_A[e % n];
    start[e] = make_float4(p.x, p.y, p.z, 0.0f);
  }
  run.a.upload(start);
  run.b.resize(start.size());
  CeilingLaunch& L = run.base;
  L.n = n;
  L.replicas = setup.replicas;
  const SopParameters& sop = setup.sop;
  L.repulsion = repulsion_parameters(sop);
  L.coeff = physics::langevin_coefficients(setup.langevin.timestep_tau, setup.langevin.zeta,
                                           setup.temperature.at_step(0));
  L.keys = rng::philox_keys(setup.seed);
  L.fene = fene_parameters(sop);
  if (setup.topology && setup.topology->bead_count() == n && supports(CeilingKernel::kTilesWithModel, n))
    upload_tile_model(run, *setup.topology);
  return run;
}

// `steps` steps in launches of up to `per_launch`, alternating the two buffers; returns
// the buffer holding the result.
const DeviceBuffer<float4>& advance(CeilingRun& run, CeilingKernel kernel, int group, long long first_step,
                                    long long steps, int per_launch, cudaStream_t stream) {
  DeviceBuffer<float4>* from = &run.a;
  DeviceBuffer<float4>* to = &run.b;
  const std::size_t shared = shared_bytes(kernel, group, run.base.n);
  if (shared > 48 * 1024)  // once per call, not per launch
    ERMAK_CUDA(cudaFuncSetAttribute(kernel_of(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  for (long long done = 0; done < steps;) {
    CeilingLaunch L = run.base;
    L.group = group;
    L.in = from->get();
    L.out = to->get();
    L.first_step = first_step + done;
    L.steps = int(std::min<long long>(per_launch, steps - done));
    launch(kernel, L, stream);
    done += L.steps;
    std::swap(from, to);
  }
  if (from != &run.a) run.a.swap(run.b);  // the result always in run.a
  return run.a;
}

}  // namespace
}  // namespace cuda

std::string ceiling_kernel_name(CeilingKernel kernel) {
  switch (kernel) {
    case CeilingKernel::kPairsTwice: return "pairs-twice";
    case CeilingKernel::kPairsOnce: return "pairs-once";
    case CeilingKernel::kNoiseAndMove: return "noise-move";
    case CeilingKernel::kPairsOnceAtomics: return "pairs-once-atomics";
    case CeilingKernel::kPairsOnceSlots: return "pairs-once-slots";
    case CeilingKernel::kPairsOnceTiles: return "pairs-once-tiles";
    case CeilingKernel::kTilesWithModel: return "tiles-model";
    case CeilingKernel::kTilesUnified: return "tiles-unified";
    default: return "pairs-once-no-noise";
  }
}

std::vector<Vec3f> cuda_ceiling_run(const EngineSetup& setup, const std::vector<Vec3f>& positions_A,
                                    CeilingKernel kernel, int steps, int replicas_per_block) {
  cuda::CeilingRun run = cuda::prepare(setup, positions_A);
  const int n = run.base.n;
  if (!cuda::supports(kernel, n))
    throw Error("ceiling kernels: " + ceiling_kernel_name(kernel) + " is not built for " + std::to_string(n) + " beads");
  if ((kernel == CeilingKernel::kTilesWithModel || kernel == CeilingKernel::kTilesUnified) && !run.base.tile_repels)
    throw Error("ceiling kernels: " + ceiling_kernel_name(kernel) + " needs the topology of the " + std::to_string(n) +
                " beads");
  if (replicas_per_block < 1 || replicas_per_block * cuda::threads_per_replica(kernel, n) > 512)
    throw Error("ceiling kernels: " + std::to_string(replicas_per_block) + " replicas of " + std::to_string(n) +
                " beads do not fit a block of 512 threads");
  const auto& result = cuda::advance(run, kernel, replicas_per_block, 0, steps, 100, nullptr);
  std::vector<float4> host(result.size());
  result.download(host.data(), host.size());
  ERMAK_CUDA(cudaDeviceSynchronize());
  std::vector<Vec3f> out(host.size());
  for (std::size_t e = 0; e < host.size(); ++e) out[e] = {host[e].x, host[e].y, host[e].z};
  return out;
}

std::vector<CeilingTiming> cuda_ceiling_timings(const EngineSetup& setup, const std::vector<Vec3f>& positions_A,
                                                double seconds) {
  using Clock = std::chrono::steady_clock;
  constexpr int kStepsPerLaunch = 100;
  std::vector<CeilingTiming> out;
  for (CeilingKernel kernel : {CeilingKernel::kPairsTwice, CeilingKernel::kPairsOnce,
                               CeilingKernel::kPairsOnceAtomics, CeilingKernel::kPairsOnceSlots,
                               CeilingKernel::kPairsOnceTiles, CeilingKernel::kTilesWithModel,
                               CeilingKernel::kTilesUnified, CeilingKernel::kNoiseAndMove,
                               CeilingKernel::kPairsOnceNoNoise}) {
    cuda::CeilingRun run = cuda::prepare(setup, positions_A);
    const int n = run.base.n;
    CeilingTiming best;
    best.kernel = kernel;
    cudaFuncAttributes attributes{};
    ERMAK_CUDA(cudaFuncGetAttributes(&attributes, cuda::kernel_of(kernel)));
    best.registers = attributes.numRegs;
    // Blocks of ≤ 128, 256, 384 or 512 threads of whole replicas (fewer where the shared
    // memory runs out); the fastest counts.
    std::vector<int> groups;
    int device = 0, max_shared = 0;
    ERMAK_CUDA(cudaGetDevice(&device));
    ERMAK_CUDA(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const int per_replica = cuda::threads_per_replica(kernel, n);
    for (int threads : {128, 256, 384, 512}) {
      int g = std::max(1, std::min(setup.replicas, threads / per_replica));
      while (g > 1 && cuda::shared_bytes(kernel, g, n) > std::size_t(max_shared)) --g;
      const bool model_ready =
          (kernel != CeilingKernel::kTilesWithModel && kernel != CeilingKernel::kTilesUnified) || run.base.tile_repels;
      if (cuda::supports(kernel, n) && model_ready && g * per_replica <= 512 &&
          cuda::shared_bytes(kernel, g, n) <= std::size_t(max_shared) &&
          std::find(groups.begin(), groups.end(), g) == groups.end())
        groups.push_back(g);
    }
    if (groups.empty()) {  // not built for n, or one replica's slots exceed a block's shared
                           // memory (> 166 beads on an H100)
      out.push_back(best);
      continue;
    }
    long long step = 0;
    for (int group : groups) {
      cuda::advance(run, kernel, group, step, kStepsPerLaunch, kStepsPerLaunch, nullptr);  // warm-up
      step += kStepsPerLaunch;
      ERMAK_CUDA(cudaDeviceSynchronize());
      // Size the timed run from a probe.
      long long probe = kStepsPerLaunch;
      double probe_seconds = 0.0;
      for (;;) {
        const auto t0 = Clock::now();
        cuda::advance(run, kernel, group, step, probe, kStepsPerLaunch, nullptr);
        ERMAK_CUDA(cudaDeviceSynchronize());
        probe_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        step += probe;
        if (probe_seconds > 0.05) break;
        probe *= 4;
      }
      const long long steps = std::max<long long>(
          kStepsPerLaunch, (long long)(seconds / double(groups.size()) * double(probe) / probe_seconds));
      const auto t0 = Clock::now();
      cuda::advance(run, kernel, group, step, steps, kStepsPerLaunch, nullptr);
      ERMAK_CUDA(cudaDeviceSynchronize());
      const double t = std::chrono::duration<double>(Clock::now() - t0).count();
      step += steps;
      if (best.steps == 0 || double(steps) / t > double(best.steps) / best.seconds) {
        best.steps = steps;
        best.seconds = t;
        best.replicas_per_block = group;
      }
    }
    out.push_back(best);
  }
  return out;
}

}  // namespace ermak
