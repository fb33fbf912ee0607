#pragma once
// Kernel family "block" (DESIGN.md §4, docs/gpu.md): one thread block runs `group`
// whole replicas for many steps in one launch. Coordinates live in shared memory. A bead
// is served by a group of S consecutive threads (S = 1, 2, 4 or 8: more lanes per bead
// when there are few beads in the whole run, to shorten each step's critical path); with
// S = 1 a thread may own 1, 2 or 4 beads. The group sums its own bead's forces (full
// per-bead lists, no atomics), the group's first lane adds protocol forces, draws the
// noise and moves the bead; phases are separated by __syncthreads. The repulsive list of
// a bead is built by its first lane, scanning the replica's beads in ascending index, so
// a row is a function of the positions alone and in canonical order: pairs beyond the
// cutoff add exact zeros, hence the force sum — and the trajectory — does not depend on
// when the list was built, on how replicas are grouped into blocks, or on where a launch
// starts. (It does depend on S, which fixes the summation order: S is chosen from the
// run's size, so a given setup always gets the same S.)
//
// This header holds the kernel template; block_kernel*.cu instantiate and launch it.
#include <algorithm>
#include <type_traits>

#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/kernels.cuh"

namespace ermak::cuda {
namespace block_detail {

struct SharedPos {
  const float4* base;  // the replica's first bead
  __device__ float4 operator()(int j) const { return base[j]; }
  __device__ float4 at_byte(unsigned offset) const {
    return *reinterpret_cast<const float4*>(reinterpret_cast<const unsigned char*>(base) + offset);
  }
};

// Positions in shared memory are replica-major, replica g's bead i at [g·P + i] with an
// odd replica stride P: the same bead of 8 consecutive replicas — what a quarter warp
// reads in the bead-major thread order below — then lies in 8 different groups of 4
// banks (no bank conflicts), while a bead's partners stay at base[j] (no multiplication
// in the pair loop). P > n: slot n of each replica holds kFarSentinel in the all-pairs
// mode, the partner of the packed rows' padding entries.
__host__ __device__ inline int replica_stride(int n) { return (n + 1) | 1; }

// A position so far away that a pair with it lies beyond any cutoff: its term is an exact
// zero (the select), and r² = 3·10³⁶ stays finite.
constexpr float kFarSentinel = 1e18f;

// Shared memory layout (bytes, 16-aligned sections); positions are replica-major with
// the stride P = replica_stride(n), the other per-bead arrays use the thread order's
// bead-major slots, replica g's bead i at [i·group + g] (see block_steps_kernel):
//   float4 pos[group·P]                      (all-pairs mode: two buffers, [2][group·P])
//   the topology (all-pairs mode only): bonds as records {partner, r0, 0, 0} [bond
//     slots][n], count [n]; natives as records {partner, r0², 12 ε_h, ε_h} [native
//     slots][n], count [n] (BondedList::records); the fixed repulsive rows packed per lane
//     (LanePackedRow16), uint2 [quads per lane][n·S] (a lane's last quad padded with the
//     far sentinel), and the rows' uint8 counts [n]
//   double tip_contribution[3][group·n]      (indentation only)
//   double tip[3·group], molecule[3·group], pad[group], long long turnaround[group],
//   float tip_noise[3·group]                 (indentation only)
//   float4 noise[group·n]                    (noise_threads only)
//   float4 bonded[group·n]                   (all-pairs mode at 2 lanes per bead: the bonds'
//                                            and native contacts' force, summed by the
//                                            noise threads)
//   uint16 rows[slots][group·n]              (rows_in_shared only)
struct SharedLayout {
  std::size_t pos = 0, topology = 0, tip_buf = 0, tip_state = 0, noise = 0, bonded = 0, rows = 0, total = 0;
};

// Where each array of the topology copy starts, relative to SharedLayout::topology.
struct SharedTopologyLayout {
  std::size_t bond_records = 0, bond_count = 0, native_records = 0, native_count = 0;
  std::size_t repulsive_quads = 0, repulsive_count = 0, total = 0;
  int quads_per_lane = 0;  // of the packed rows: ⌈⌈repulsive slots / S⌉ / 4⌉
};

__host__ __device__ inline SharedTopologyLayout shared_topology_layout(const ModelData& m, int lanes) {
  SharedTopologyLayout t;
  const std::size_t n = std::size_t(m.n), bonds = std::size_t(m.bonds.slots) * n,
                    natives = std::size_t(m.natives.slots) * n;
  std::size_t at = 0;
  auto take = [&](std::size_t& field, std::size_t bytes) { field = at; at += (bytes + 15) / 16 * 16; };
  take(t.bond_records, bonds * sizeof(float4));
  take(t.native_records, natives * sizeof(float4));
  take(t.bond_count, n * sizeof(int));
  take(t.native_count, n * sizeof(int));
  t.quads_per_lane = ((m.repulsive_slots + lanes - 1) / lanes + 3) / 4;
  take(t.repulsive_quads, std::size_t(t.quads_per_lane) * n * lanes * sizeof(uint2));
  take(t.repulsive_count, n);
  t.total = at;
  return t;
}

__host__ __device__ inline std::size_t align16(std::size_t v) { return (v + 15) / 16 * 16; }

// At 2 lanes per bead (all-pairs mode) the noise threads, which finish their draw long
// before the force lanes finish their rows, also sum the bead's bonds and native contacts
// (docs/benchmarks.md#bonded-terms-on-the-noise-threads).
__host__ __device__ inline bool bonded_by_noise_threads(const BlockLaunch& L) {
  return L.all_pairs && L.lanes == 2 && L.noise_threads > 0;
}

__host__ __device__ inline SharedLayout shared_layout(const BlockLaunch& L) {
  SharedLayout s;
  const std::size_t beads = std::size_t(L.group) * L.m.n;
  std::size_t at = 0;
  s.pos = at;
  at += align16((L.all_pairs ? 2 : 1) * std::size_t(L.group) * replica_stride(L.m.n) * sizeof(float4));
  if (L.all_pairs) {
    s.topology = at;
    at += align16(shared_topology_layout(L.m, L.lanes).total);
  }
  if (L.m.protocol.indentation) {
    s.tip_buf = at;
    at += align16(beads * 3 * sizeof(double));
    s.tip_state = at;
    at += align16(std::size_t(L.group) * (7 * sizeof(double) + sizeof(long long) + 3 * sizeof(float)));
  }
  if (L.noise_threads > 0) {
    s.noise = at;
    at += align16(beads * sizeof(float4));
  }
  if (bonded_by_noise_threads(L)) {
    s.bonded = at;
    at += align16(beads * sizeof(float4));
  }
  if (L.rows_in_shared && !L.all_pairs) {
    s.rows = at;
    at += align16(std::size_t(L.slots) * beads * sizeof(std::uint16_t));
  }
  s.total = at;
  return s;
}

// S lanes per bead; BPT beads per lane group (BPT > 1 only with S = 1); at most
// kMaxThreads threads; kProtocolCode: tethers, clamp forces, plane tethers (kPerBeadItems)
// and indentation (kItemsAndTip) present (kept out of the plain kernel's registers, and
// the tip's out of a pulling run's; with S = 2 in all-pairs mode
// compiled for ≤ 64 registers, else the protocol code takes 128 and halves the resident
// blocks — at S = 1 the cap's spills cost more on an H100 than the blocks gain:
// docs/benchmarks.md#protocol-runs-pulling); kAllPairs: no list (small systems): fixed
// rows of every repelling bead and the bonded lists are copied to shared memory once per
// launch, and positions are double-buffered (step s reads buffer s−start mod 2 and writes
// the other), so that a step needs one barrier instead of two.
//
// Lane l of a bead's group handles the partners j ≡ l (mod S), ascending: its part of a
// row is canonical on its own, so with several lanes too the sum does not depend on when
// the row was built (entry k of lane l sits at slot k·S + l).
//
// Bead slots are bead-major: slot b holds bead m.slot_bead[b / group] of the block's
// replica b mod group. Consecutive threads thus serve the same bead of different
// replicas, whose loops have the same trip counts (the same bonds, native contacts and
// fixed repulsive row), and the next ones a bead with alike counts: a warp does not wait
// for the longest of 32/S unrelated rows (docs/benchmarks.md, block family). The order
// changes which threads share a warp, not any bead's summation order, so the bits do not
// depend on it.
template <int S, int BPT, int kMaxThreads, int kProtocolCode, bool kAllPairs>
__global__ void __launch_bounds__(kMaxThreads, kProtocolCode != kNoProtocol && kAllPairs && S == 2 ? 65536 / 64 / kMaxThreads : 0) block_steps_kernel(const __grid_constant__ BlockLaunch L) {
  constexpr bool kProtocol = kProtocolCode != kNoProtocol, kTip = kProtocolCode == kItemsAndTip;
  static_assert(S == 1 || BPT == 1, "several beads per thread only with one lane per bead");
  extern __shared__ __align__(16) unsigned char smem[];
  const ModelData& m = L.m;
  const int n = m.n;
  const int G = L.group;
  const int first_replica = blockIdx.x * G;
  const int replicas_here = min(G, m.replicas - first_replica);
  const int stride = G * n;  // bead slots of the block (some unused in the last block)
  const int P = replica_stride(n);
  const SharedLayout lay = shared_layout(L);
  float4* spos = reinterpret_cast<float4*>(smem + lay.pos);  // this step's positions
  float4* snext = kAllPairs ? spos + G * P : spos;            // the next step's
  double* tip_buf = reinterpret_cast<double*>(smem + lay.tip_buf);
  double* s_tip = reinterpret_cast<double*>(smem + lay.tip_state);          // [3·group]
  double* s_molecule = s_tip + 3 * L.group;                                 // [3·group]
  double* s_pad = s_molecule + 3 * L.group;                                 // [group]
  long long* s_turn = reinterpret_cast<long long*>(s_pad + L.group);        // [group]
  float* s_tip_noise = reinterpret_cast<float*>(s_turn + L.group);          // [3·group]
  float4* s_noise = reinterpret_cast<float4*>(smem + lay.noise);            // [group·n]
  float4* s_bonded = reinterpret_cast<float4*>(smem + lay.bonded);          // [group·n]
  constexpr bool kBondedByNoise = kAllPairs && S == 2;  // bonded_by_noise_threads(L)
  // Noise threads never come with one lane per bead (the engine's block_config): false at
  // compile time there, so that those kernels carry no noise-thread code (WW × 10⁴ +2.9 %,
  // × 3000 +4 %, same bits; docs/benchmarks.md#where-a-step-goes-at-1000-ww-replicas). (The
  // same for the kernels of several lanes, true at compile time, lost 9 % at WW × 10³.)
  const bool noise_split = S > 1 && L.noise_threads > 0;
  std::uint16_t* rows = L.rows_in_shared
                            ? reinterpret_cast<std::uint16_t*>(smem + lay.rows)
                            : L.global_rows + std::size_t(blockIdx.x) * std::size_t(L.slots) * stride;
  __shared__ int s_needed;
  __shared__ unsigned long long s_pairs;

  const BlockStatus& start_status = (L.status_in ? L.status_in : L.status)[blockIdx.x];
  const long long start = start_status.done;
  const long long rebuilds_before = start_status.rebuilds;
  if (start >= L.end_step) {  // this block is already there (uniform)
    if (threadIdx.x == 0 && L.status_in) L.status[blockIdx.x] = L.status_in[blockIdx.x];
    return;
  }
  const bool indentation = kTip && m.protocol.indentation;
  const int lane = threadIdx.x % S;                 // lane within the bead's group
  const int slot0 = threadIdx.x / S;                // first bead slot of this group
  const int groups = blockDim.x / S;                // bead slots per pass
  if (threadIdx.x == 0) { s_needed = 0; s_pairs = 0; }
  for (int e = threadIdx.x; e < replicas_here * n; e += blockDim.x) {
    const int g = e / n;
    spos[g * P + e - g * n] = L.in[std::size_t(first_replica) * n + e];
  }
  BondedList bonds_here{}, natives_here{};
  const uint2* repulsive_quads = nullptr;
  const std::uint8_t* repulsive_count = nullptr;
  if constexpr (kAllPairs) {
    // The topology into shared memory (the same for every replica of the block).
    const SharedTopologyLayout t = shared_topology_layout(m, S);
    unsigned char* base = smem + lay.topology;
    auto copy = [&](const auto* from, std::size_t offset, std::size_t count) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(from)>>;
      T* to = reinterpret_cast<T*>(base + offset);
      for (std::size_t k = threadIdx.x; k < count; k += blockDim.x) to[k] = from[k];
      return to;
    };
    const std::size_t bond_entries = std::size_t(m.bonds.slots) * n, native_entries = std::size_t(m.natives.slots) * n;
    // The entries as GlobalTopology reads them (`read`: its bond or native reader; contacts
    // with r0² and 12 ε_h).
    auto records = [&](const BondedList& from, auto read, std::size_t offset, std::size_t count) {
      float4* to = reinterpret_cast<float4*>(base + offset);
      for (std::size_t k = threadIdx.x; k < count; k += blockDim.x) {
        const TopologyEntry e = read(from, int(k));
        to[k] = make_float4(__int_as_float(e.partner), e.r0_or_squared, e.twelve_eh, e.eh);
      }
      return to;
    };
    const auto read_bond = [](const BondedList& l, int k) { return GlobalTopology::bond(l, k); };
    const auto read_native = [](const BondedList& l, int k) { return GlobalTopology::native(l, k); };
    bonds_here.records = records(m.bonds, read_bond, t.bond_records, bond_entries);
    bonds_here.count = copy(m.bonds.count, t.bond_count, n);
    bonds_here.slots = m.bonds.slots;
    natives_here.records = records(m.natives, read_native, t.native_records, native_entries);
    natives_here.count = copy(m.natives.count, t.native_count, n);
    natives_here.slots = m.natives.slots;
    repulsive_count = copy(m.repulsive_count, t.repulsive_count, n);
    // Lane l of bead i gets the row's entries l, l + S, … as byte offsets, four to a quad.
    uint2* quads = reinterpret_cast<uint2*>(base + t.repulsive_quads);
    const int lanes_n = n * S;
    for (int e = threadIdx.x; e < t.quads_per_lane * lanes_n; e += blockDim.x) {
      const int w = e / lanes_n, i = (e - w * lanes_n) / S, l = e % S;
      const int count = m.repulsive_count[i];
      std::uint32_t half[4] = {0, 0, 0, 0};
      for (int b = 0; b < 4; ++b) {
        const int k = (4 * w + b) * S + l;
        // Past the row's end: the far sentinel (slot n), so that every quad is whole.
        half[b] = std::uint32_t(k < count ? int(m.repulsive_partners[std::size_t(k) * n + i]) : n) * sizeof(float4);
      }
      quads[e] = make_uint2(half[0] | half[1] << 16, half[2] | half[3] << 16);
    }
    repulsive_quads = quads;
    for (int g = threadIdx.x; g < 2 * G; g += blockDim.x)
      spos[g * P + n] = make_float4(kFarSentinel, kFarSentinel, kFarSentinel, 0.0f);  // both buffers
  }
  if (indentation) {
    for (int g = threadIdx.x; g < replicas_here; g += blockDim.x) {
      const int r = first_replica + g;
      for (int c = 0; c < 3; ++c) {
        s_tip[3 * g + c] = L.tips.tip[3 * r + c];
        s_molecule[3 * g + c] = L.tips.molecule_force[3 * r + c];
      }
      s_turn[g] = L.tips.turnaround[r];
    }
  }
  __syncthreads();

  float4 ref[BPT];
  int count[BPT];
  // Replica and bead of each of the thread's bead slots, whether the slot holds a bead,
  // and whether the bead is fixed: once per launch, not per step (an integer division
  // costs ~20 instructions).
  int bead_replica[BPT], bead_index[BPT], bead_pos[BPT];
  bool bead_here[BPT], bead_fixed[BPT];
#pragma unroll
  for (int k = 0; k < BPT; ++k) {
    ref[k] = make_float4(0, 0, 0, 0);
    count[k] = 0;
    const int b = slot0 + k * groups;
    const int q = b / G;
    bead_replica[k] = b - q * G;
    bead_here[k] = b < stride && bead_replica[k] < replicas_here;
    bead_index[k] = bead_here[k] ? m.slot_bead[q] : 0;
    bead_pos[k] = bead_replica[k] * P + bead_index[k];
    bead_fixed[k] = bead_here[k] && m.fixed[bead_index[k]];
  }
  // The noise threads' bead slot (they are at least as many as the block's slots).
  const int noise_bead = int(threadIdx.x) - L.force_threads;
  const int noise_q = noise_bead >= 0 ? noise_bead / G : 0, noise_replica = noise_bead - noise_q * G;
  const bool noise_here = noise_split && noise_bead >= 0 && noise_bead < stride && noise_replica < replicas_here;
  const int noise_index = noise_here ? m.slot_bead[noise_q] : 0;
  const bool draws_noise = noise_here && !m.fixed[noise_index];
  bool rebuild = !kAllPairs;  // every launch starts with a fresh list (canonical rows: no effect on bits)
  int rebuilds = 0;
  long long s = start;
  for (; s < L.end_step; ++s) {
    if (rebuild) {
      int worst = 0;
#pragma unroll
      for (int k = 0; k < BPT; ++k) {
        const int b = slot0 + k * groups;
        int c = 0;
        if (bead_here[k]) {
          const int g = bead_replica[k], i = bead_index[k];
          const float4 pi = spos[bead_pos[k]];
          const float4* replica_pos = spos + g * P;
          for (int j = lane; j < n; j += S) {
            const float4 pj = replica_pos[j];
            const float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
            if (j != i && dx * dx + dy * dy + dz * dz < m.list_cutoff2 && !excluded_pair(m, i, j)) {
              const int slot = c * S + lane;
              if (slot < L.slots) rows[std::size_t(slot) * stride + b] = std::uint16_t(j);
              ++c;
            }
          }
          ref[k] = pi;
        }
        count[k] = c;
        worst = max(worst, c * S);
      }
      if (worst > L.slots) atomicMax(&s_needed, worst);
      if (__syncthreads_or(worst > L.slots)) break;  // the host grows the rows and resumes here
      ++rebuilds;
    }

    // Noise of step s, drawn by the noise threads while the others compute forces (the
    // first of them draw the indentation tips' noise too).
    if (draws_noise) {
      s_noise[noise_bead] = bead_noise(m, first_replica + noise_replica, noise_index, s);
      if constexpr (kBondedByNoise) {
        BeadEnergy unused;
        const float3 f = pair_forces_with<1, false, SharedTopology, SharedPos, LanePackedRow16, kPairBonds | kPairNatives>(
            m, bonds_here, natives_here, noise_index, 0, spos[noise_replica * P + noise_index],
            SharedPos{spos + noise_replica * P}, LanePackedRow16{nullptr, 0, 0}, unused);
        s_bonded[noise_bead] = make_float4(f.x, f.y, f.z, 0.0f);
      }
    }
    if (indentation && noise_split && noise_bead >= 0 && noise_bead < replicas_here) {
      const Vec3f g = tip_noise(m, first_replica + noise_bead, s);
      s_tip_noise[3 * noise_bead] = g.x; s_tip_noise[3 * noise_bead + 1] = g.y; s_tip_noise[3 * noise_bead + 2] = g.z;
    }

    // Forces at step s (positions are read-only in this phase).
    float3 force[BPT];
    Vec3d on_tip[BPT];
#pragma unroll
    for (int k = 0; k < BPT; ++k) {
      on_tip[k] = Vec3d{};
      const int b = slot0 + k * groups;
      float3 part = make_float3(0, 0, 0);
      const int g = bead_replica[k], i = bead_index[k];
      if (bead_here[k]) {
        BeadEnergy unused;
        if constexpr (kAllPairs)
          part = pair_forces_with<S, false, SharedTopology, SharedPos, LanePackedRow16,
                                  kBondedByNoise ? kPairRepulsive : kPairAll>(
              m, bonds_here, natives_here, i, lane, spos[bead_pos[k]], SharedPos{spos + g * P},
              LanePackedRow16{repulsive_quads + i * S + lane, n * S,
                             (int(repulsive_count[i]) - lane + S - 1) / S},
              unused);
        else
          part = pair_forces<S, false>(m, i, lane, spos[bead_pos[k]], SharedPos{spos + g * P},
                                       SlotMajorRow16{rows + b, stride, count[k] * S}, unused);
      }
      if constexpr (S > 1) {
        part.x = group_sum<S>(part.x); part.y = group_sum<S>(part.y); part.z = group_sum<S>(part.z);
      }
      force[k] = part;
      if constexpr (kProtocol) {
        if (bead_here[k] && lane == 0) {
          Vec3d tip{};
          long long turn = -1;
          if (indentation) { tip = {s_tip[3 * g], s_tip[3 * g + 1], s_tip[3 * g + 2]}; turn = s_turn[g]; }
          BeadEnergy unused;
          add_protocol_forces<false, kTip>(m, first_replica + g, i, spos[bead_pos[k]], s, tip, turn, force[k], on_tip[k], unused);
        }
      }
    }
    if (indentation) {
#pragma unroll
      for (int k = 0; k < BPT; ++k) {
        const int b = slot0 + k * groups;
        if (!bead_here[k] || lane != 0) continue;
        tip_buf[b] = on_tip[k].x; tip_buf[stride + b] = on_tip[k].y; tip_buf[2 * stride + b] = on_tip[k].z;
      }
    }
    // With one buffer the moves must wait until every force has read the positions;
    // with two, only the noise drawn by other threads (and the tip's reaction) needs
    // waiting for.
    if (!kAllPairs || noise_split || indentation) __syncthreads();

    if (indentation) {
      // The tip of each replica, while the other warps move the beads (the last warps,
      // which are noise warps where there are any): the beads' reaction summed in a fixed
      // order (lanes strided over the beads, then a butterfly), then the tip's own step.
      // Its position is next read by the forces of step s + 1, after the barrier below.
      const int warp = threadIdx.x / 32, wl = threadIdx.x % 32, warps = blockDim.x / 32;
      for (int g = warps - 1 - warp; g < replicas_here; g += warps) {
        double sum[3] = {0, 0, 0};
        for (int i = wl; i < n; i += 32)
          for (int c = 0; c < 3; ++c) sum[c] += tip_buf[c * stride + m.bead_slot[i] * G + g];
        for (int c = 0; c < 3; ++c) sum[c] = group_sum<32>(sum[c]);
        if (wl == 0) {
          const Vec3d molecule{sum[0], sum[1], sum[2]};
          Vec3d tip{s_tip[3 * g], s_tip[3 * g + 1], s_tip[3 * g + 2]};
          long long turn = s_turn[g];
          const Vec3f g_tip = noise_split ? Vec3f{s_tip_noise[3 * g], s_tip_noise[3 * g + 1], s_tip_noise[3 * g + 2]}
                                          : tip_noise(m, first_replica + g, s);
          step_tip(m, s, L.kT, molecule, g_tip, tip, turn);
          s_tip[3 * g] = tip.x; s_tip[3 * g + 1] = tip.y; s_tip[3 * g + 2] = tip.z;
          s_turn[g] = turn;
          s_molecule[3 * g] = molecule.x; s_molecule[3 * g + 1] = molecule.y; s_molecule[3 * g + 2] = molecule.z;
        }
      }
    }

    // Moves (the group's first lane).
    bool far = false;
#pragma unroll
    for (int k = 0; k < BPT; ++k) {
      const int b = slot0 + k * groups;
      if (!bead_here[k] || lane != 0) continue;
      const int g = bead_replica[k], i = bead_index[k];
      if (bead_fixed[k]) {
        if constexpr (kAllPairs) snext[bead_pos[k]] = spos[bead_pos[k]];
        continue;
      }
      if constexpr (kBondedByNoise) {
        const float4 bf = s_bonded[b];
        force[k].x += bf.x; force[k].y += bf.y; force[k].z += bf.z;
      }
      const float4 p = noise_split ? langevin_move_with(spos[bead_pos[k]], force[k], s_noise[b], L.coeff)
                                   : langevin_move(m, first_replica + g, i, spos[bead_pos[k]], force[k], s, L.coeff);
      snext[bead_pos[k]] = p;
      if constexpr (!kAllPairs) far = far || moved_far(p, ref[k], m.half_skin2);
    }
    if constexpr (kAllPairs) {
      __syncthreads();
      float4* t = spos; spos = snext; snext = t;
    } else {
      rebuild = __syncthreads_or(far);
    }
  }

  // Write back (s is the step the positions are at).
  unsigned long long pairs = 0;
#pragma unroll
  for (int k = 0; k < BPT; ++k)
    if (bead_here[k]) pairs += unsigned(count[k]);
  atomicAdd(&s_pairs, pairs);
  for (int e = threadIdx.x; e < replicas_here * n; e += blockDim.x) {
    const int g = e / n;
    L.out[std::size_t(first_replica) * n + e] = spos[g * P + e - g * n];
  }
  if (indentation) {
    for (int g = threadIdx.x; g < replicas_here; g += blockDim.x) {
      const int r = first_replica + g;
      for (int c = 0; c < 3; ++c) {
        L.tips.tip[3 * r + c] = s_tip[3 * g + c];
        L.tips.molecule_force[3 * r + c] = s_molecule[3 * g + c];
      }
      L.tips.turnaround[r] = s_turn[g];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    BlockStatus st;
    st.done = s;
    st.needed_slots = s_needed;
    st.rebuilds = rebuilds_before + rebuilds * replicas_here;
    st.pairs = (long long)(s_pairs / 2);
    L.status[blockIdx.x] = st;
  }
}

using BlockKernel = void (*)(BlockLaunch);

template <int S, int BPT, int kMaxThreads, int kProtocolCode, bool kAllPairs = false>
BlockKernel variant() {
  return block_steps_kernel<S, BPT, kMaxThreads, kProtocolCode, kAllPairs>;
}

// The variant of the launch's protocol code (device_model.cuh ProtocolCode).
template <int S, int BPT, int kMaxThreads, bool kAllPairs = false>
BlockKernel variant_for(ProtocolCode code) {
  switch (code) {
    case kNoProtocol: return variant<S, BPT, kMaxThreads, kNoProtocol, kAllPairs>();
    case kPerBeadItems: return variant<S, BPT, kMaxThreads, kPerBeadItems, kAllPairs>();
    default: return variant<S, BPT, kMaxThreads, kItemsAndTip, kAllPairs>();
  }
}

// Per translation unit: the variants with one lane per bead, and with several.
BlockKernel single_lane_kernel(const BlockLaunch& L, ProtocolCode code);
BlockKernel multi_lane_kernel(const BlockLaunch& L, ProtocolCode code);

}  // namespace block_detail
}  // namespace ermak::cuda
