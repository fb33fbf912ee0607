#pragma once
// The repulsion of one cluster of 8 beads over its cluster row, by a whole warp at once
// (per-bead family with cluster rows, docs/gpu.md#cluster-tiles). The warp's 32 lanes
// take 32 entries of the row at a time, lane l entries l, l + 32, …: each lane loads its
// entry and its partner's position once and evaluates that partner against all 8 beads
// of the cluster (their positions in shared memory, broadcast), keeping 8 force
// accumulators. A partner's position then serves 8 pair terms per load, and the entry
// loads are coalesced; with 4 lanes per bead over the same row (ClusterRow in
// device_model.cuh), each load served one entry and the warp read a quarter as many
// entries per instruction. At the end one reduce-scatter of the 24 sums leaves bead
// (l / 4)'s force, in four partial sums, on lanes 4(l / 4) … 4(l / 4) + 3 — the place
// where the 4-lanes-per-bead step kernel holds it — in a fixed order (deterministic).
#include "ermak/backend/cuda/device_model.cuh"

namespace ermak::cuda {

// A shared-memory load that the compiler keeps where it is written: a plain load of a
// loop-invariant address would be hoisted out of the loop into registers, the very
// registers this load is meant to save.
__device__ __forceinline__ float4 shared_load_in_loop(unsigned shared_address) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(shared_address));
  return v;
}

// Halves the `kValues` sums held by each lane: lanes with `bit` set keep the upper half of
// their values, the others the lower half, each adding its partner's (lane ^ bit) copy of
// the half it keeps. kValues/2 shuffles and additions.
template <int kValues>
__device__ __forceinline__ void reduce_scatter_step(float (&v)[kValues], int lane, int bit) {
  const bool upper = (lane & bit) != 0;
#pragma unroll
  for (int k = 0; k < kValues / 2; ++k) {
    const float keep = upper ? v[kValues / 2 + k] : v[k];
    const float give = upper ? v[k] : v[kValues / 2 + k];
    v[k] = keep + __shfl_xor_sync(kFullMask, give, bit);
  }
}

// The repulsive force of the cluster's beads, lane l holding a partial sum for bead
// 8c + l/4 (the four partials of a bead add up to its force: group_sum<4>). With kSplit
// warps per cluster (a cluster row split over 2 or 4 warps, so that small runs have
// enough warps: docs/gpu.md#cluster-tiles), warp `part` of them takes the rounds
// part, part + kSplit, … of 32 entries and returns its share, which the caller adds up in
// a fixed order. `row` holds
// `entries` cluster-row entries (partner in the low 24 bits, bit 24 + a set when the
// partner repels bead 8c + a); `own` is the position of bead 8c + l/4 on lane l (a finite
// stand-in for beads past the end of the replica: their bits are never set);
// `cluster_pos` is 8 float4 of shared memory for this warp alone. Pairs
// outside the cutoff, and entries without the bead's bit, add exact zeros, as in
// pair_forces_with. Must be called by all 32 lanes of the warp.
template <int kSplit = 1>
__device__ __forceinline__ float3 cluster_tile_repulsion(const physics::RepulsionParameters repulsion,
                                                         const float4* __restrict__ pos,
                                                         const std::uint32_t* __restrict__ row, int entries,
                                                         float4 own, int lane, float4* cluster_pos, int part = 0) {
  // The cluster's positions in the warp's shared slots, read back per term (one broadcast
  // load): held in registers instead they took 24 of them, and the kernel's 80 registers
  // left 3 blocks per SM (PF8 × 16 +9.5 %, PF8 × 4 +19 %, CCMV × 2 +10 % this way;
  // docs/benchmarks.md#cluster-tiles).
  if (lane % 4 == 0) cluster_pos[lane / 4] = own;
  __syncwarp();
  const unsigned cluster_pos_address = unsigned(__cvta_generic_to_shared(cluster_pos));
  // Bead-major accumulators: the reduce-scatter below halves them bead-wise.
  float f[3 * kClusterBeads];
#pragma unroll
  for (int k = 0; k < 3 * kClusterBeads; ++k) f[k] = 0.0f;
  const float cutoff2 = repulsion.cutoff2;
  // Software pipeline: the entry two rounds ahead and the partner one round ahead are
  // in flight while a round's 8 pair terms are computed (few warps per scheduler at
  // this kernel's registers: the loads' latency is otherwise exposed).
  constexpr std::uint32_t kPartner = kClusterPartnerMask;
  constexpr int kStride = 32 * kSplit;
  const int first = lane + 32 * part;
  std::uint32_t next_entry = first + kStride < entries ? __ldg(row + first + kStride) : 0u;
  std::uint32_t entry = first < entries ? __ldg(row + first) : 0u;
  float4 pj = first < entries ? __ldg(pos + (entry & kPartner)) : make_float4(0, 0, 0, 0);
  for (int s = first; s < entries; s += kStride) {
    const std::uint32_t this_entry = entry;
    const float4 this_pj = pj;
    entry = next_entry;
    if (s + kStride < entries) pj = __ldg(pos + (entry & kPartner));
    if (s + 2 * kStride < entries) next_entry = __ldg(row + s + 2 * kStride);
#pragma unroll
    for (int a = 0; a < kClusterBeads; ++a) {
      const float4 b = shared_load_in_loop(cluster_pos_address + unsigned(sizeof(float4)) * a);
      const float dx = b.x - this_pj.x, dy = b.y - this_pj.y, dz = b.z - this_pj.z;
      const float r2 = dx * dx + dy * dy + dz * dz;
      const bool inside = r2 < cutoff2 && ((this_entry >> (kClusterPartnerBits + a)) & 1u);
      const auto pf = physics::repulsion<false>(r2, repulsion);
      const float sc = inside ? pf.force_over_r : 0.0f;
      f[3 * a] += sc * dx; f[3 * a + 1] += sc * dy; f[3 * a + 2] += sc * dz;
    }
  }
  // 24 → 12 → 6 → 3 sums per lane: lane bits 4, 3, 2 pick beads 4–7, then pairs, then one
  // bead, so that lane l ends with bead l/4's three components.
  reduce_scatter_step<24>(f, lane, 16);
  float g[12];
#pragma unroll
  for (int k = 0; k < 12; ++k) g[k] = f[k];
  reduce_scatter_step<12>(g, lane, 8);
  float h[6];
#pragma unroll
  for (int k = 0; k < 6; ++k) h[k] = g[k];
  reduce_scatter_step<6>(h, lane, 4);
  return make_float3(h[0], h[1], h[2]);
}

}  // namespace ermak::cuda
