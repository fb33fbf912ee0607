#pragma once
// Kernel family "block", tiles layout (docs/gpu.md#tiles): each pair of a replica computed
// once, in tiles of 4 × 4 beads (backend/pair_tiles.h). A thread per tile holds quad I's
// and quad J's positions, evaluates the 16 pairs (6 on a diagonal tile) with one
// expression for the repulsion and the native contact (physics::nonbonded_pair, the
// coefficients per pair from pair_tiles' tables), sums them into both quads' forces in
// registers and stores the two sets of partial sums (slots [I][J] and [J][I]); after a
// barrier a thread per bead adds its quad's Q partials in a fixed order, then its own
// FENE bonds — deterministic, and 0.5 shared stores and loads per pair instead of the
// reaction exchanges measured in docs/benchmarks.md#the-instruction-ceiling.
//
// These device functions are the whole pair arithmetic of a step; the production kernel
// (tile_kernel.cu) calls them, and so do the ceiling's three tile kernels
// (ceiling_kernels.cu: `tiles-unified` with the model's expression, the other two through
// tile_pair_forces_with), so that the ceiling measures the engine's own tile loop.
#include <cstddef>
#include <cstring>
#include <vector>

#include "ermak/backend/pair_tiles.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/nonbonded_pair.h"

namespace ermak::cuda::tiles {

// Shared-memory strides of one replica, in float4 (odd: the same slot of consecutive
// replicas — what tile-major threads touch together — lies in different banks): positions
// P = 4Q + 1 (beads padded to 4Q with far sentinels), partial sums S = 4Q² + 1.
__host__ __device__ inline int position_stride(int n) { return 4 * pair_tile_quads(n) + 1; }
__host__ __device__ inline int partial_stride(int n) {
  const int q = pair_tile_quads(n);
  return 4 * q * q + 1;
}
// A thread per tile, and one per bead for the noise, the bonds, the sums and the move:
// the same threads (beads_apart false: bead i on tile thread i), or threads of their own
// after the tiles' (true: bead i on thread T + i), whose noise and bonds then run beside
// the tiles instead of before them.
__host__ __device__ inline int threads_per_replica(int n, bool beads_apart) {
  return beads_apart ? pair_tile_count(n) + n : max(pair_tile_count(n), n);
}

// The tiles take 8 to 64 beads per replica (pair_tiles.h, the bench's measured range).
constexpr int kMinBeads = 8, kMaxBeads = 64;
// The production kernel's blocks: at most 384 threads, compiled for two blocks per
// multiprocessor (≤ 80 registers; without the bound the compiler took 99–101 and one
// block of 12 warps filled a multiprocessor: docs/benchmarks.md#the-tiles-layout).
constexpr int kMaxThreads = 384;

// Bytes of shared memory of a block of `group` replicas: two position buffers and the
// partial sums per replica, and the coefficients {c², 12 e12, 6 e6, cutoff²} of each
// tile's 16 pairs (the same for every replica).
__host__ __device__ inline std::size_t shared_bytes(int group, int n) {
  return (std::size_t(group) * (2 * position_stride(n) + partial_stride(n)) + 16 * std::size_t(pair_tile_count(n))) *
         16;
}

// A far sentinel for padding slot b: each at its own distance, so that no two are at r = 0
// (their terms have zero coefficients, and r² stays finite).
__device__ __forceinline__ float4 padding_position(int b) {
  const float far = 1e17f * float(1 + b);
  return make_float4(far, far, far, 0.0f);
}

// The terms of tile (I, J) of one replica (`replica`: its positions; `partial`: its
// partial sums [Q][Q][4]), stored as the partial sums of quad I against J and of J against
// I (a diagonal tile, J = I: the 6 pairs within the quad, one set). `force_over_r(r2,
// place)` gives pair `place` = 4c + d's F/r (0 where it has no term).
template <class ForceOverR>
__device__ __forceinline__ void tile_pair_forces_with(const float4* replica, float4* partial, int I, int J, int quads,
                                                      ForceOverR force_over_r) {
  float4 a[4], b[4];
  float3 fa[4], fb[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    a[c] = replica[4 * I + c];
    b[c] = replica[4 * J + c];
    fa[c] = make_float3(0, 0, 0);
    fb[c] = make_float3(0, 0, 0);
  }
  auto term = [&](const float4& p, const float4& q, float3& fp, float3& fq, int place) {
    const float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
    const float sc = force_over_r(dx * dx + dy * dy + dz * dz, place);
    fp.x += sc * dx; fp.y += sc * dy; fp.z += sc * dz;
    fq.x -= sc * dx; fq.y -= sc * dy; fq.z -= sc * dz;
  };
  float4* mine = partial + (I * quads + J) * 4;
  if (I == J) {
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
      for (int d = c + 1; d < 4; ++d) term(a[c], a[d], fa[c], fa[d], 4 * c + d);
  } else {
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
      for (int d = 0; d < 4; ++d) term(a[c], b[d], fa[c], fb[d], 4 * c + d);
  }
#pragma unroll
  for (int c = 0; c < 4; ++c) mine[c] = make_float4(fa[c].x, fa[c].y, fa[c].z, 0.0f);
  if (I != J) {
    float4* theirs = partial + (J * quads + I) * 4;
#pragma unroll
    for (int d = 0; d < 4; ++d) theirs[d] = make_float4(fb[d].x, fb[d].y, fb[d].z, 0.0f);
  }
}

// The model's tile (`coefficients`: the tile's 16 {c², f12, f6, cutoff²}): repulsion within
// the cutoff, native contact everywhere, neither: zero coefficients.
__device__ __forceinline__ void tile_pair_forces(const float4* replica, float4* partial, const float4* coefficients,
                                                 int I, int J, int quads) {
  tile_pair_forces_with(replica, partial, I, J, quads, [&](float r2, int place) {
    const float4 k = coefficients[place];
    const auto pf = physics::nonbonded_pair<false>(r2, physics::NonbondedCoefficients{k.x, k.y, k.z});
    return r2 < k.w ? pf.force_over_r : 0.0f;
  });
}

// Bead i's own bonds (FENE, `bonds`: {partner as int bits, r0} [n][4], partner −1 after
// the last), from its own end: positions only, so a bead thread sums them before the
// barrier, while the tiles run.
__device__ __forceinline__ float3 bond_force(const float4* replica, const float2* bonds, int i,
                                             physics::FeneParameters fene) {
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  const float4 p = replica[i];
#pragma unroll
  for (int e = 0; e < PairTileTables::kBondsPerBead; ++e) {
    const float2 bond = bonds[PairTileTables::kBondsPerBead * i + e];
    const int j = __float_as_int(bond.x);
    if (j < 0) break;
    const float4 q = replica[j];
    const float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
    const float f = physics::fene<false>(dx * dx + dy * dy + dz * dz, bond.y, fene).force_over_r;
    fx += f * dx; fy += f * dy; fz += f * dz;
  }
  return make_float3(fx, fy, fz);
}

// Bead i's force once every tile has stored its partial sums: its quad row's Q partials in
// ascending J, then `own` (its bonds, and in the engine its protocol forces) added last.
__device__ __forceinline__ float3 bead_force(const float4* partial, int i, int quads, float3 own) {
  const int X = i / 4, c = i - 4 * X;
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  const float4* row = partial + X * quads * 4 + c;
  for (int Y = 0; Y < quads; ++Y) {
    const float4 v = row[4 * Y];
    fx += v.x; fy += v.y; fz += v.z;
  }
  return make_float3(fx + own.x, fy + own.y, fz + own.z);
}

// The tables of pair_tiles.h as the kernels read them: each tile's 16 coefficients as
// float4 {c², f12, f6, cutoff²}, each bead's bonds as float2 {partner as int bits, r0}.
inline std::vector<float4> coefficient_records(const PairTileTables& t) {
  std::vector<float4> out;
  out.reserve(t.coefficients.size());
  for (const PairTileCoefficients& k : t.coefficients) out.push_back(make_float4(k.c2, k.f12, k.f6, k.cutoff2));
  return out;
}

inline std::vector<float2> bond_records(const PairTileTables& t) {
  std::vector<float2> out(t.bond_partner.size());
  for (std::size_t e = 0; e < out.size(); ++e) {
    std::memcpy(&out[e].x, &t.bond_partner[e], sizeof(int));
    out[e].y = t.bond_r0_A[e];
  }
  return out;
}

}  // namespace ermak::cuda::tiles
