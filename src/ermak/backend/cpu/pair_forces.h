#pragma once
// The CPU backend's force loops over one replica. Every formula comes from physics/;
// this file only walks the lists. The repulsion loop evaluates the physics on 8 lanes at
// once (Float8): SoA inputs, contiguous j clusters, no gathers or scatters.
#include <cstdint>

#include "ermak/core/float8.h"
#include "ermak/backend/engine.h"
#include "ermak/neighbor/verlet_list.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/native_contact.h"
#include "ermak/physics/repulsion.h"

namespace ermak::cpu {

struct ConstPositions {
  const float* x;
  const float* y;
  const float* z;
};
struct ForceArrays {
  float* x;
  float* y;
  float* z;
};

template <bool kEnergy>
void add_bond_forces(const Bond* bonds, std::int64_t count, physics::FeneParameters p,
                     ConstPositions r, ForceArrays f, EnergyTerms& energy) {
  double u = 0.0;
  for (std::int64_t b = 0; b < count; ++b) {
    const std::int32_t i = bonds[b].i, j = bonds[b].j;
    const float dx = r.x[i] - r.x[j], dy = r.y[i] - r.y[j], dz = r.z[i] - r.z[j];
    const auto pf = physics::fene<kEnergy>(dx * dx + dy * dy + dz * dz, bonds[b].r0_A, p);
    f.x[i] += pf.force_over_r * dx; f.y[i] += pf.force_over_r * dy; f.z[i] += pf.force_over_r * dz;
    f.x[j] -= pf.force_over_r * dx; f.y[j] -= pf.force_over_r * dy; f.z[j] -= pf.force_over_r * dz;
    if constexpr (kEnergy) u += pf.energy;
  }
  if constexpr (kEnergy) energy.fene += u;
}

template <bool kEnergy>
void add_native_forces(const NativeContact* contacts, std::int64_t count, ConstPositions r,
                       ForceArrays f, EnergyTerms& energy) {
  double u = 0.0;
  for (std::int64_t c = 0; c < count; ++c) {
    const std::int32_t i = contacts[c].i, j = contacts[c].j;
    const float dx = r.x[i] - r.x[j], dy = r.y[i] - r.y[j], dz = r.z[i] - r.z[j];
    const auto pf = physics::native_contact<kEnergy>(dx * dx + dy * dy + dz * dz, contacts[c].r0_A,
                                                     contacts[c].eh_kcal_per_mol);
    f.x[i] += pf.force_over_r * dx; f.y[i] += pf.force_over_r * dy; f.z[i] += pf.force_over_r * dz;
    f.x[j] -= pf.force_over_r * dx; f.y[j] -= pf.force_over_r * dy; f.z[j] -= pf.force_over_r * dz;
    if constexpr (kEnergy) u += pf.energy;
  }
  if constexpr (kEnergy) energy.native += u;
}

// Rows (i-clusters) [row_begin, row_end) of the cluster-pair half list. Positions and
// forces are padded to whole clusters (padded_bead_count). Per entry the 8 j positions
// are loaded once and the 8 j forces updated once for all 4 i beads; each i bead's force
// stays in registers for the whole row. Masked lanes and pairs beyond the cutoff (inside
// the skin) contribute exactly zero.
template <bool kEnergy>
void add_repulsion_forces(const VerletList& list, std::int32_t row_begin, std::int32_t row_end,
                          physics::RepulsionParameters p, ConstPositions r, ForceArrays f,
                          EnergyTerms& energy) {
  constexpr std::int32_t W = kClusterWidth, A = kIClusterWidth;
  const physics::RepulsionParametersT<Float8> pv{p.eps, p.sigma2, p.cutoff2};
  const Float8 cutoff2 = p.cutoff2;
  const U8 lane_bit = {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u};
  double u_total = 0.0;
  for (std::int32_t row = row_begin; row < row_end; ++row) {
    const std::int32_t i0 = row * A;
    Float8 xi[A], yi[A], zi[A], fxi[A], fyi[A], fzi[A], ui[A];
#pragma GCC unroll 4
    for (std::int32_t a = 0; a < A; ++a) {
      xi[a] = r.x[i0 + a]; yi[a] = r.y[i0 + a]; zi[a] = r.z[i0 + a];
      fxi[a] = 0.0f; fyi[a] = 0.0f; fzi[a] = 0.0f; ui[a] = 0.0f;
    }
    const std::int32_t begin = list.row_offsets[row], end = list.row_offsets[row + 1];
    for (std::int32_t e = begin; e < end; ++e) {
      const std::int32_t base = list.clusters[e] * W;
      const U8 mask = U8{} + list.masks[e];
      const Float8 xj = Float8::load(r.x + base), yj = Float8::load(r.y + base), zj = Float8::load(r.z + base);
      Float8 fxj = 0.0f, fyj = 0.0f, fzj = 0.0f;
#pragma GCC unroll 4
      for (std::int32_t a = 0; a < A; ++a) {
        const Float8 dx = xi[a] - xj, dy = yi[a] - yj, dz = zi[a] - zj;
        const Float8 r2 = dx * dx + dy * dy + dz * dz;
        const Lanes8 inside = lanes_less(lanes_with_bits(mask, lane_bit << std::uint32_t(a * W)), r2, cutoff2);
        // All lanes are evaluated (r2 = 0 for a bead with itself gives inf); only the
        // inside lanes are accumulated, so no inf or NaN reaches a sum.
        const auto pf = physics::repulsion<kEnergy>(r2, pv);
        const Masked8 s = masked(inside, pf.force_over_r);
        fxi[a] = add_product(fxi[a], s, dx); fyi[a] = add_product(fyi[a], s, dy); fzi[a] = add_product(fzi[a], s, dz);
        fxj = sub_product(fxj, s, dx); fyj = sub_product(fyj, s, dy); fzj = sub_product(fzj, s, dz);
        if constexpr (kEnergy) ui[a] = add(ui[a], masked(inside, pf.energy));
      }
      (Float8::load(f.x + base) + fxj).store(f.x + base);
      (Float8::load(f.y + base) + fyj).store(f.y + base);
      (Float8::load(f.z + base) + fzj).store(f.z + base);
    }
#pragma GCC unroll 4
    for (std::int32_t a = 0; a < A; ++a) {
      f.x[i0 + a] += horizontal_sum(fxi[a]);
      f.y[i0 + a] += horizontal_sum(fyi[a]);
      f.z[i0 + a] += horizontal_sum(fzi[a]);
      if constexpr (kEnergy) u_total += horizontal_sum(ui[a]);
    }
  }
  if constexpr (kEnergy) energy.repulsive += u_total;
}

}  // namespace ermak::cpu
