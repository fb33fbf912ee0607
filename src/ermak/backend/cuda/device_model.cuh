#pragma once
// What every CUDA kernel of ermak sees of the model, and the per-bead work they share:
// the pair-force loop, protocol forces, the Langevin move and the indentation tip's step.
// Formulas come only from physics/ (DESIGN.md §3); this file walks lists and owns the
// summation order. Both kernel families (block_kernel.cu, perbead_kernels.cu) and the
// evaluation kernels (eval_kernels.cu) call these functions, which sum one bead's force as
// the CPU engine does: bonds, native contacts, repulsive pairs (in list order), then
// protocol terms (tethers, clamp forces, plane tethers, tip, surface). Some block-family
// layouts sum in another order — bonded-by-noise adds the bonds and contacts last, the
// tiles sum the pair terms tile by tile (tile_kernel.cuh) —, which changes float rounding
// only (docs/gpu.md#numerics).
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ermak/core/vec3.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/harmonic.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/physics/native_contact.h"
#include "ermak/physics/plane_tether.h"
#include "ermak/physics/repulsion.h"
#include "ermak/protocol/external_force.h"
#include "ermak/protocol/harmonic_tether.h"
#include "ermak/protocol/indentation.h"
#include "ermak/protocol/plane_tether.h"
#include "ermak/rng/philox_gaussian.h"

namespace ermak::cuda {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr long long kNever = 0x7fffffffffffffffLL;
// Cluster rows (per-bead family): 8 consecutive beads per cluster; an entry is the
// partner (24 bits) and the cluster's beads it repels (8 bits).
constexpr int kClusterBeads = 8;
constexpr int kClusterPartnerBits = 24;
constexpr int kClusterPartnerMask = (1 << kClusterPartnerBits) - 1;

// Per-bead (ELL) list of topology partners, slot-major: entry s of bead i at [s·n + i], so
// that consecutive beads read consecutive words. Each bond/contact appears in both of its
// beads' rows: a bead sums its own force, no atomics (deterministic).
struct BondedList {
  const int* partner = nullptr;
  const float* r0 = nullptr;
  const float* eh = nullptr;  // native contacts only
  const int* count = nullptr;
  int slots = 0;
  // The block family's shared-memory copy only: entry k as one record, one 16-byte load
  // instead of two or three — bonds {partner (int bits), r0, 0, 0}, native contacts
  // {partner, r0², 12 ε_h, ε_h} (physics::native_contact_from_products).
  const float4* records = nullptr;
};

// Per-(replica, bead) index (CSR over slots r·n + i) into one protocol's item array,
// items in input order (cuda_engine_memory.cu make_bead_index).
struct BeadIndex {
  const int* offsets = nullptr;  // n + 1
  const int* items = nullptr;
};

struct ProtocolData {
  const HarmonicTether* tethers = nullptr;
  BeadIndex tether_index;
  const ExternalForce* forces = nullptr;
  BeadIndex force_index;
  const ForceSchedulePoint* schedule = nullptr;
  int schedule_points = 0;
  const PlaneTether* planes = nullptr;
  BeadIndex plane_index;
  bool any_per_bead = false;  // tethers, clamp forces or plane tethers exist
  bool indentation = false;
  Indentation ind;
};

struct ModelData {
  int n = 0;         // beads per replica
  int replicas = 0;
  BondedList bonds, natives;
  physics::FeneParameters fene{};
  physics::RepulsionParameters repulsion{};
  const std::uint8_t* fixed = nullptr;  // per bead
  // Small systems (up to 192 beads), the block family's all-pairs mode: per bead
  // the beads that repel it (neither itself nor a bonded or native partner), ascending,
  // slot-major ([slot][bead]); a list that never needs rebuilding
  // (docs/gpu.md#kernel-families).
  const std::uint8_t* repulsive_partners = nullptr;  // [repulsive_slots][n]
  const std::uint8_t* repulsive_count = nullptr;     // [n]
  int repulsive_slots = 0;
  // Up to kBlockMaxBeads (every block-family run): bit j % 32 of word
  // [i·excluded_words + j / 32] is set when j is i itself or a bonded or native partner of
  // i — the brute-force evaluation's test of a pair in one load instead of a scan of i's
  // lists (BruteForceRow). nullptr for larger models.
  const std::uint32_t* excluded_bits = nullptr;
  int excluded_words = 0;
  // Block family: the bead of each bead-major slot index (slot_bead[q]: slots q·group …
  // q·group + group − 1 hold that bead of the block's replicas) and its inverse. Beads with
  // alike numbers of bonds and native contacts sit side by side, so that the beads sharing
  // a warp run loops of alike length (docs/gpu.md#kernel-families).
  const int* slot_bead = nullptr;  // [n]
  const int* bead_slot = nullptr;  // [n]
  rng::PhiloxKeys philox_keys{};  // of the run's seed (Philox's round keys, precomputed)
  // Replica r draws the Philox noise of replica replica_offset + r of the whole run
  // (EngineSetup::replica_offset: an engine on one of several GPUs).
  int replica_offset = 0;
  // Non-Philox generators (run.rng): the noise of step s, bead i of replica r is read from
  // noise[(s mod noise_ring)·replicas·n + r·n + i], written beforehand by DeviceNoise
  // (device_noise.cuh); nullptr: Philox, drawn in the step.
  const float4* noise = nullptr;
  int noise_ring = 0;
  float half_skin2 = 0.0f;    // (skin/2)²: rebuild when a bead moved farther
  float list_cutoff2 = 0.0f;  // (cutoff + skin)²
  double timestep_tau = 0.0;
  ProtocolData protocol;
};

// Indentation state per replica in device memory.
struct TipArrays {
  double* tip = nullptr;             // [3R]
  long long* turnaround = nullptr;   // [R], −1: not yet
  double* molecule_force = nullptr;  // [3R], the beads' force on the tip at the last evaluation
};

struct BeadEnergy {
  double fene = 0.0, native = 0.0, repulsive = 0.0, protocol = 0.0;
};

__device__ __forceinline__ Vec3d to_vec3d(float4 p) { return {double(p.x), double(p.y), double(p.z)}; }

// --- pair forces ---------------------------------------------------------------------

// One bond or native contact as the pair loop needs it: r0 (bonds) or r0² (contacts),
// and for contacts 12 ε_h and ε_h (physics::native_contact_from_products).
struct TopologyEntry {
  int partner;
  float r0_or_squared, twelve_eh, eh;
};

// How a kernel reads the bonded lists: through the read-only cache (global memory, one
// array per field), or as records (copies in shared memory, block family's all-pairs
// mode: BondedList::records).
struct GlobalTopology {
  __device__ static int count(const BondedList& l, int i) { return __ldg(l.count + i); }
  __device__ static TopologyEntry bond(const BondedList& l, int k) {
    return {__ldg(l.partner + k), __ldg(l.r0 + k), 0.0f, 0.0f};
  }
  __device__ static TopologyEntry native(const BondedList& l, int k) {
    const float eh = __ldg(l.eh + k);
    const auto c = physics::native_contact_products(__ldg(l.r0 + k), eh);
    return {__ldg(l.partner + k), c.r0_squared, c.twelve_eh, eh};
  }
};
struct SharedTopology {
  __device__ static int count(const BondedList& l, int i) { return l.count[i]; }
  __device__ static TopologyEntry bond(const BondedList& l, int k) { return native(l, k); }
  __device__ static TopologyEntry native(const BondedList& l, int k) {
    const float4 r = l.records[k];
    return {__float_as_int(r.x), r.y, r.z, r.w};
  }
};

// Contributions of bead i's bonds, native contacts and repulsive partners that lane
// `lane` of a group of S lanes handles (entries lane, lane+S, ...). `pos(j)` gives bead j's
// position (of the same replica); `row` is bead i's repulsive list: row.count() entries
// row.entry(s) (row.partner_of gives the partner, row.accept whether it counts), or for
// a brute-force row every bead (row.accept filters); a LanePackedRow16 holds only the
// lane's own entries, four per load. Energies count each pair once (from
// its lower-index bead). `bonds`/`natives` are m's lists or copies of them that `Topo`
// can read.
// kTerms selects the terms (kPairBonds | kPairNatives | kPairRepulsive): the block
// family's noise threads take the bonds and native contacts off the force lanes at S = 2.
constexpr int kPairBonds = 1, kPairNatives = 2, kPairRepulsive = 4, kPairAll = 7;

struct LanePackedRow16;  // below, with the other rows

// Bead i's bonds and native contacts on lane `lane` of S, from the global lists: the terms of
// pair_forces_with<S, false, GlobalTopology, …, kPairBonds | kPairNatives> in its order (the
// same bits), with the lane's first bond and first two native contacts and their partners'
// positions loaded before any term, so that its dependent loads (the entry, then the
// partner's position) are in flight together — the per-bead family's step is latency-bound
// there (docs/benchmarks.md#free-pair-terms-measured-forty-fifth-session). It decodes the
// entries itself (r0² and 12 ε_h at the term, not at the load as GlobalTopology::native does):
// carried from the early loads, they cost registers — CCMV × 1 −4 % when written through
// GlobalTopology (docs/benchmarks.md#bonded-loads-ahead-forty-fifth-session).
template <int S>
__device__ __forceinline__ float3 bonded_forces_loaded_ahead(const ModelData& m, int i, int lane, float4 pi,
                                                             const float4* pos) {
  const int n = m.n;
  const int nb = __ldg(m.bonds.count + i), nn = __ldg(m.natives.count + i);
  const bool has_b = lane < nb, has_c0 = lane < nn, has_c1 = lane + S < nn;
  const int jb = has_b ? __ldg(m.bonds.partner + lane * n + i) : i;
  const float rb = has_b ? __ldg(m.bonds.r0 + lane * n + i) : 0.0f;
  const int jc0 = has_c0 ? __ldg(m.natives.partner + lane * n + i) : i;
  const float r0c0 = has_c0 ? __ldg(m.natives.r0 + lane * n + i) : 0.0f;
  const float ehc0 = has_c0 ? __ldg(m.natives.eh + lane * n + i) : 0.0f;
  const int jc1 = has_c1 ? __ldg(m.natives.partner + (lane + S) * n + i) : i;
  const float r0c1 = has_c1 ? __ldg(m.natives.r0 + (lane + S) * n + i) : 0.0f;
  const float ehc1 = has_c1 ? __ldg(m.natives.eh + (lane + S) * n + i) : 0.0f;
  const float4 pb = __ldg(pos + jb), pc0 = __ldg(pos + jc0), pc1 = __ldg(pos + jc1);
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  auto bond = [&](float4 pj, float r0) {
    const float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
    const auto pf = physics::fene<false>(dx * dx + dy * dy + dz * dz, r0, m.fene);
    fx += pf.force_over_r * dx; fy += pf.force_over_r * dy; fz += pf.force_over_r * dz;
  };
  auto contact = [&](float4 pj, float r0, float eh) {
    const float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
    const auto pf = physics::native_contact<false>(dx * dx + dy * dy + dz * dz, r0, eh);
    fx += pf.force_over_r * dx; fy += pf.force_over_r * dy; fz += pf.force_over_r * dz;
  };
  if (has_b) bond(pb, rb);
  for (int s = lane + S; s < nb; s += S) bond(__ldg(pos + __ldg(m.bonds.partner + s * n + i)), __ldg(m.bonds.r0 + s * n + i));
  if (has_c0) contact(pc0, r0c0, ehc0);
  if (has_c1) contact(pc1, r0c1, ehc1);
  for (int s = lane + 2 * S; s < nn; s += S)
    contact(__ldg(pos + __ldg(m.natives.partner + s * n + i)), __ldg(m.natives.r0 + s * n + i),
            __ldg(m.natives.eh + s * n + i));
  return make_float3(fx, fy, fz);
}

template <int S, bool kEnergy, class Topo, class Pos, class Row, int kTerms = kPairAll>
__device__ __forceinline__ float3 pair_forces_with(const ModelData& m, const BondedList& bonds,
                                                   const BondedList& natives, int i, int lane, float4 pi,
                                                   const Pos& pos, const Row& row, BeadEnergy& e) {
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  const int nb = (kTerms & kPairBonds) ? Topo::count(bonds, i) : 0;
  for (int s = lane; s < nb; s += S) {
    const TopologyEntry b = Topo::bond(bonds, s * m.n + i);
    const int j = b.partner;
    const float4 pj = pos(j);
    const float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
    const auto pf = physics::fene<kEnergy>(dx * dx + dy * dy + dz * dz, b.r0_or_squared, m.fene);
    fx += pf.force_over_r * dx; fy += pf.force_over_r * dy; fz += pf.force_over_r * dz;
    if constexpr (kEnergy) if (j > i) e.fene += pf.energy;
  }
  const int nn = (kTerms & kPairNatives) ? Topo::count(natives, i) : 0;
  for (int s = lane; s < nn; s += S) {
    const TopologyEntry c = Topo::native(natives, s * m.n + i);
    const int j = c.partner;
    const float4 pj = pos(j);
    const float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
    const auto pf = physics::native_contact_from_products<kEnergy>(dx * dx + dy * dy + dz * dz, c.r0_or_squared,
                                                                   c.twelve_eh, c.eh);
    fx += pf.force_over_r * dx; fy += pf.force_over_r * dy; fz += pf.force_over_r * dz;
    if constexpr (kEnergy) if (j > i) e.native += pf.energy;
  }
  const float cutoff2 = m.repulsion.cutoff2;
  auto repel = [&](float4 pj, int j, bool accepted) {
    const float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
    const float r2 = dx * dx + dy * dy + dz * dz;
    const bool inside = r2 < cutoff2 && accepted;
    // Outside the cutoff the contribution is exactly zero: a list that holds more
    // candidates sums to the same bits as one that holds fewer. (The select after the
    // term is enough: beyond the cutoff 1/r² stays finite, and a NaN r² is not inside.)
    const auto pf = physics::repulsion<kEnergy>(r2, m.repulsion);
    const float sc = inside ? pf.force_over_r : 0.0f;
    fx += sc * dx; fy += sc * dy; fz += sc * dz;
    if constexpr (kEnergy) if (inside && j > i) e.repulsive += pf.energy;
  };
  if constexpr ((kTerms & kPairRepulsive) == 0) {
    // no repulsive terms (the block family's noise threads)
  } else if constexpr (std::is_same_v<Row, LanePackedRow16>) {
    // Four entries per load, their four positions loaded before the four terms: the
    // same pairs in the same order as the plain row. With several lanes per bead (short,
    // latency-bound rows) the last quad is taken whole: its padding entries name a far
    // sentinel whose terms are exact zeros (block_kernel.cuh, kFarSentinel), which saves
    // the tail's serial single pairs (WW × 1, 8 lanes: +22 %); at one lane per bead (runs
    // bound by instruction issue) the tail's 1–3 pairs cost fewer instructions than a
    // whole quad (WW × 10⁴ −1.9 % padded; docs/benchmarks.md#whole-quads-at-several-lanes-per-bead).
    constexpr bool kWholeQuads = S > 1;
    const int entries = row.count();
    const int quads = kWholeQuads ? (entries + 3) >> 2 : entries >> 2;
    for (int w = 0; w < quads; ++w) {
      const uint2 q = row.quad(w);
      const unsigned o0 = q.x & 0xffffu, o1 = q.x >> 16, o2 = q.y & 0xffffu, o3 = q.y >> 16;
      const float4 pj[4] = {pos.at_byte(o0), pos.at_byte(o1), pos.at_byte(o2), pos.at_byte(o3)};
      const int j[4] = {int(o0 / sizeof(float4)), int(o1 / sizeof(float4)), int(o2 / sizeof(float4)),
                        int(o3 / sizeof(float4))};
      // Stage by stage over the four pairs, so that the four loads are in flight together;
      // the sums take the terms in the same order as one pair after the other.
      float dx[4], dy[4], dz[4], sc[4], en[4];
      bool inside[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        dx[k] = pi.x - pj[k].x; dy[k] = pi.y - pj[k].y; dz[k] = pi.z - pj[k].z;
        const float r2 = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
        inside[k] = r2 < cutoff2;
        const auto pf = physics::repulsion<kEnergy>(r2, m.repulsion);
        sc[k] = inside[k] ? pf.force_over_r : 0.0f;
        en[k] = pf.energy;
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        fx += sc[k] * dx[k]; fy += sc[k] * dy[k]; fz += sc[k] * dz[k];
        if constexpr (kEnergy) if (inside[k] && j[k] > i) e.repulsive += en[k];
      }
    }
    const int rest = kWholeQuads ? 0 : entries & 3;
    if (rest > 0) {
      const uint2 q = row.quad(quads);
      const unsigned o0 = q.x & 0xffffu, o1 = q.x >> 16, o2 = q.y & 0xffffu;
      repel(pos.at_byte(o0), int(o0 / sizeof(float4)), true);
      if (rest > 1) repel(pos.at_byte(o1), int(o1 / sizeof(float4)), true);
      if (rest > 2) repel(pos.at_byte(o2), int(o2 / sizeof(float4)), true);
    }
  } else {
    const int nr = row.count();
    for (int s = lane; s < nr; s += S) {
      const int entry = row.entry(s);
      const int j = row.partner_of(entry);
      repel(pos(j), j, row.accept(entry));
    }
  }
  return make_float3(fx, fy, fz);
}

template <int S, bool kEnergy, class Pos, class Row>
__device__ __forceinline__ float3 pair_forces(const ModelData& m, int i, int lane, float4 pi, const Pos& pos,
                                              const Row& row, BeadEnergy& e) {
  return pair_forces_with<S, kEnergy, GlobalTopology>(m, m.bonds, m.natives, i, lane, pi, pos, row, e);
}

// Is j a bonded or native partner of i (excluded from repulsion)?
__device__ __forceinline__ bool excluded_pair(const ModelData& m, int i, int j) {
  const int nb = __ldg(m.bonds.count + i);
  for (int s = 0; s < nb; ++s)
    if (__ldg(m.bonds.partner + s * m.n + i) == j) return true;
  const int nn = __ldg(m.natives.count + i);
  for (int s = 0; s < nn; ++s)
    if (__ldg(m.natives.partner + s * m.n + i) == j) return true;
  return false;
}

// Sum over the S lanes of a group (S a power of two ≤ 32, groups aligned in the warp);
// every lane of the group ends with the same bits (butterfly).
template <int S>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int offset = S / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}
template <int S>
__device__ __forceinline__ double group_sum(double v) {
#pragma unroll
  for (int offset = S / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

// --- protocol forces -----------------------------------------------------------------

// Which protocol code a step kernel variant carries: none; the per-bead items only
// (tethers, clamp forces, plane tethers: pulling runs); or those and the indentation tip
// with its surface. A pulling run's kernel without the tip's double-precision code needs
// fewer registers (docs/benchmarks.md#protocol-runs-pulling).
// kTipForcesGiven (per-bead family only, chosen at launch for large runs): the tip's forces
// on the beads, its reaction and its step come from perbead_tip_kernel, run before the
// step kernel, which only adds the forces. kTipForcesOnly: the same for runs without
// per-bead items (the usual indentation run), whose step kernel then carries no
// protocol code but that addition and needs the plain kernel's registers.
enum ProtocolCode : int { kNoProtocol = 0, kPerBeadItems = 1, kItemsAndTip = 2, kTipForcesGiven = 3, kTipForcesOnly = 4 };

__host__ __device__ inline ProtocolCode protocol_code(const ProtocolData& p) {
  if (p.indentation) return kItemsAndTip;
  return p.any_per_bead ? kPerBeadItems : kNoProtocol;
}

// The indentation tip's and the surface's force on bead i (double precision, as the CPU
// engine computes them), each rounded to float as the CPU engine adds them; the tip's
// reaction is subtracted into on_tip. Apart from add_protocol_forces so that a step
// kernel can compute them before its pair loop: their doubles are then dead while the
// pair loop runs, and adding the two floats afterwards, in the same order, gives the same
// bits (docs/benchmarks.md#protocol-runs-pulling).
struct IndentationForces {
  float3 tip = make_float3(0, 0, 0), surface = make_float3(0, 0, 0);
  bool has_surface = false;
};

template <bool kEnergy>
__device__ __forceinline__ IndentationForces indentation_forces(const ModelData& m, int i, float4 pi, long long step,
                                                                Vec3d tip, long long turnaround, Vec3d& on_tip,
                                                                BeadEnergy& e) {
  const ProtocolData& p = m.protocol;
  IndentationForces out;
  {
    double energy = 0;
    const Vec3d force = tip_force_on_bead<kEnergy>(p.ind, to_vec3d(pi), tip, energy);
    out.tip = make_float3(float(force.x), float(force.y), float(force.z));
    on_tip -= force;
    if constexpr (kEnergy) {
      e.protocol += energy;
      // The cantilever spring's energy, counted once per replica (CpuEngine::add_protocol_forces).
      if (i == 0) e.protocol += cantilever_energy(p.ind, tip, step, turnaround, m.timestep_tau);
    }
  }
  if (p.ind.surface.enabled) {
    const double h = m.timestep_tau;
    const IndentationSurface surface = surface_at(p.ind, step, turnaround, h);
    double energy = 0;
    const Vec3d force = surface_force_on<kEnergy>(surface, to_vec3d(pi), 0.0, energy);
    out.surface = make_float3(float(force.x), float(force.y), float(force.z));
    out.has_surface = true;
    if constexpr (kEnergy) {
      e.protocol += energy;
      // The tip–surface energy, counted once per replica (CpuEngine::add_surface_forces).
      if (i == 0) {
        double tip_energy = 0;
        tip_surface_force<true>(p.ind, tip, step, turnaround, h, tip_energy);
        e.protocol += tip_energy;
      }
    }
  }
  return out;
}

// The CPU engine's order: the tip's force, then the surface's.
__device__ __forceinline__ void add_indentation_forces(const IndentationForces& ind, float3& f) {
  f.x += ind.tip.x; f.y += ind.tip.y; f.z += ind.tip.z;
  if (ind.has_surface) { f.x += ind.surface.x; f.y += ind.surface.y; f.z += ind.surface.z; }
}

// Protocol forces on bead i of replica r, added to f in the CPU engine's order; the
// tip's reaction (the bead's force on the tip) is subtracted into on_tip. kTip = false
// leaves the indentation terms out (the caller knows there is no tip).
template <bool kEnergy, bool kTip = true>
__device__ void add_protocol_forces(const ModelData& m, int r, int i, float4 pi, long long step, Vec3d tip,
                                    long long turnaround, float3& f, Vec3d& on_tip, BeadEnergy& e) {
  const ProtocolData& p = m.protocol;
  const double h = m.timestep_tau;
  if (p.any_per_bead) {
    const long long slot = (long long)r * m.n + i;
    // An index without items is empty (offsets == nullptr).
    const int tethers_end = p.tether_index.offsets ? p.tether_index.offsets[slot + 1] : 0;
    for (int k = tethers_end ? p.tether_index.offsets[slot] : 0; k < tethers_end; ++k) {
      const auto tf = tether_force_on_bead<kEnergy>(p.tethers[p.tether_index.items[k]], Vec3f{pi.x, pi.y, pi.z}, step, h);
      f.x += tf.force.x; f.y += tf.force.y; f.z += tf.force.z;
      if constexpr (kEnergy) e.protocol += tf.energy;
    }
    if (p.force_index.offsets && p.force_index.offsets[slot] < p.force_index.offsets[slot + 1]) {
      const double magnitude = force_schedule_at(p.schedule, p.schedule_points, step);
      for (int k = p.force_index.offsets[slot]; k < p.force_index.offsets[slot + 1]; ++k) {
        const Vec3f clamp = clamp_force_kcal_per_mol_A(magnitude, p.forces[p.force_index.items[k]].direction);
        f.x += clamp.x; f.y += clamp.y; f.z += clamp.z;
      }
    }
    const int planes_end = p.plane_index.offsets ? p.plane_index.offsets[slot + 1] : 0;
    for (int k = planes_end ? p.plane_index.offsets[slot] : 0; k < planes_end; ++k) {
      double energy = 0;
      const Vec3f along = plane_tether_force_on_bead<kEnergy>(p.planes[p.plane_index.items[k]], to_vec3d(pi), step, h, energy);
      f.x += along.x; f.y += along.y; f.z += along.z;
      if constexpr (kEnergy) e.protocol += energy;
    }
  }
  if (!kTip || !p.indentation) return;
  const IndentationForces ind = indentation_forces<kEnergy>(m, i, pi, step, tip, turnaround, on_tip, e);
  add_indentation_forces(ind, f);
}

// --- moves ---------------------------------------------------------------------------

// One Langevin move of bead i of replica r (not fixed); returns the new position.
__device__ __forceinline__ float4 stored_noise(const ModelData& m, int r, int i, long long step) {
  return m.noise[std::size_t(step % m.noise_ring) * std::size_t(m.replicas) * m.n + std::size_t(r) * m.n + i];
}

__device__ __forceinline__ float4 langevin_move(const ModelData& m, int r, int i, float4 p, float3 f, long long step,
                                                physics::LangevinCoefficients coeff) {
  Vec3f g;
  if (m.noise) {  // uniform over the grid: the Philox path is unchanged
    const float4 stored = stored_noise(m, r, i, step);
    g = {stored.x, stored.y, stored.z};
  } else {
    g = rng::gaussian3(m.philox_keys, rng::Stream::kBeadLangevin, std::uint32_t(m.replica_offset + r), std::uint32_t(i),
                       std::uint64_t(step));
  }
  const Vec3f d = physics::langevin_displacement({f.x, f.y, f.z}, g, coeff);
  p.x += d.x; p.y += d.y; p.z += d.z;
  return p;
}

// The same move with the noise drawn elsewhere (rng::gaussian3 of the same counters).
__device__ __forceinline__ float4 langevin_move_with(float4 p, float3 f, float4 g, physics::LangevinCoefficients coeff) {
  const Vec3f d = physics::langevin_displacement({f.x, f.y, f.z}, {g.x, g.y, g.z}, coeff);
  p.x += d.x; p.y += d.y; p.z += d.z;
  return p;
}

__device__ __forceinline__ float4 bead_noise(const ModelData& m, int r, int i, long long step) {
  if (m.noise) return stored_noise(m, r, i, step);
  const Vec3f g = rng::gaussian3(m.philox_keys, rng::Stream::kBeadLangevin, std::uint32_t(m.replica_offset + r), std::uint32_t(i),
                                 std::uint64_t(step));
  return make_float4(g.x, g.y, g.z, 0.0f);
}

// Has the bead moved more than skin/2 from where the list was built? NaN counts as moved,
// so a broken run keeps rebuilding and the host's finiteness check stops it.
__device__ __forceinline__ bool moved_far(float4 p, float4 ref, float half_skin2) {
  const float dx = p.x - ref.x, dy = p.y - ref.y, dz = p.z - ref.z;
  const float d2 = dx * dx + dy * dy + dz * dz;
  return !(d2 <= half_skin2);
}

// The indentation tip's noise at `step` (drawn apart from step_tip where another thread
// can draw it while the reaction is summed).
__device__ __forceinline__ Vec3f tip_noise(const ModelData& m, int r, long long step) {
  return rng::gaussian3(m.philox_keys, rng::Stream::kTipLangevin, std::uint32_t(m.replica_offset + r), 0u,
                        std::uint64_t(step));
}

// The indentation tip's overdamped step after the beads' (CpuEngine::step_tip), with its
// noise g = tip_noise(m, r, step).
__device__ inline void step_tip(const ModelData& m, long long step, double kT, Vec3d molecule_force, Vec3f g,
                                Vec3d& tip, long long& turnaround) {
  std::int64_t turn = turnaround;
  indentation_tip_step(m.protocol.ind, step, m.timestep_tau, kT, molecule_force, g, tip, turn);
  turnaround = turn;
}

// --- list rows -----------------------------------------------------------------------

// A row in a slot-major array (block family: [slot][local bead], 16-bit partners).
struct SlotMajorRow16 {
  const std::uint16_t* base;  // &rows[0·stride + local]
  int stride;
  int n;
  __device__ int count() const { return n; }
  __device__ int entry(int s) const { return base[s * stride]; }
  __device__ int partner_of(int entry) const { return entry; }
  __device__ bool accept(int) const { return true; }
};

// A row in a row-major array (per-bead family: [bead][slot], 16- or 32-bit partners).
template <class Index>
struct RowMajorRow {
  const Index* base;
  int n;
  __device__ int count() const { return n; }
  // Rows are read once per step and do not fit the L2 for many replicas (PF8 × 16: 37 MB):
  // loaded evict-first, so that they do not push the positions out of the caches
  // (same-machine A/B: PF8 × 16 +1.7 %, 4 × CCMV +2.3 %).
  __device__ int entry(int s) const { return __ldcs(base + s); }
  __device__ int partner_of(int entry) const { return entry; }
  __device__ bool accept(int) const { return true; }
};

// A bead's fixed repulsive row (block family, all-pairs mode; built from
// ModelData::repulsive_partners in shared memory): every bead that repels it, ascending —
// the pairs of a canonical list row (pairs beyond the cutoff add exact zeros) without ever
// building one. Each lane of S holds its own entries (lane, lane + S, …) as 16-bit byte
// offsets of the partner's position from the replica's first, four to a uint2 (lowest
// half first), uint2 [w][i·S + lane]: one shared load per four pairs, and the partner's
// address one addition away (docs/benchmarks.md#packed-repulsive-rows).
struct LanePackedRow16 {
  const uint2* quads;  // &packed[0·stride + i·S + lane]
  int stride;          // n·S
  int entries;         // this lane's entries
  __device__ int count() const { return entries; }
  __device__ uint2 quad(int w) const { return quads[w * stride]; }
};

// Every bead of the replica, ascending; bonded/native partners and i itself rejected
// (ModelData::excluded_bits: the block family's, whose evaluation reads this row).
struct BruteForceRow {
  const ModelData* m;
  int i;
  __device__ int count() const { return m->n; }
  __device__ int entry(int s) const { return s; }
  __device__ int partner_of(int entry) const { return entry; }
  __device__ bool accept(int j) const {
    return !((__ldg(m->excluded_bits + std::size_t(i) * m->excluded_words + (j >> 5)) >> (j & 31)) & 1u);
  }
};

// A cluster row (per-bead family, docs/gpu.md#cluster-rows): the partners of the 8
// consecutive beads i = 8c … 8c + 7 of cluster c together, [cluster][slot], each entry the
// partner's index (low 24 bits) and a mask of the cluster's beads it repels (bit 24 + a:
// bead 8c + a; set when within the list cutoff at the build and neither bonded nor
// native nor the bead itself). The row holds ~0.19 as many entries as the 8 beads' own
// rows (PF8). The step kernel reads it as one warp-wide tile (cluster_tile.cuh); this
// reader serves one bead (evaluation kernels, and step kernels in lane layouts other than
// 4 lanes per bead in one round): the bead reads the whole row and skips entries without
// its bit — exact zeros, as beyond the cutoff.
struct ClusterRow {
  const std::uint32_t* base;  // &cluster_rows[cluster · slots]
  int n;                      // entries
  int shift;                  // 24 + the bead's place in its cluster
  __device__ int count() const { return n; }
  __device__ int entry(int s) const { return int(__ldg(base + s)); }
  __device__ int partner_of(int entry) const { return entry & kClusterPartnerMask; }
  __device__ bool accept(int entry) const { return (unsigned(entry) >> shift) & 1u; }
};

}  // namespace ermak::cuda
