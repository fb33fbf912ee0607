#pragma once
// The CPU backend's force loops over one replica. Every formula comes from physics/;
// this file only walks the lists. Loops are written for the compiler's vectoriser:
// SoA inputs, the inner repulsion loop is `omp simd` with the j-scatter declared
// conflict-free (each j appears once per row of a half list).
#include <cstdint>

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

// Rows [row_begin, row_end) of the cluster half list. Positions and forces are padded
// to whole clusters (padded_bead_count). Masked lanes and pairs beyond the cutoff
// (inside the skin) contribute exactly zero.
template <bool kEnergy>
void add_repulsion_forces(const VerletList& list, std::int32_t row_begin, std::int32_t row_end,
                          physics::RepulsionParameters p, ConstPositions r, ForceArrays f,
                          EnergyTerms& energy) {
  constexpr std::int32_t W = kClusterWidth;
  double u_total = 0.0;
  for (std::int32_t i = row_begin; i < row_end; ++i) {
    const float xi = r.x[i], yi = r.y[i], zi = r.z[i];
    float fxi[W] = {}, fyi[W] = {}, fzi[W] = {}, ui[W] = {};
    const std::int32_t begin = list.row_offsets[i], end = list.row_offsets[i + 1];
    for (std::int32_t e = begin; e < end; ++e) {
      const std::int32_t base = list.clusters[e] * W;
      const unsigned mask = list.masks[e];
      const float* xj = r.x + base; const float* yj = r.y + base; const float* zj = r.z + base;
      float* fxj = f.x + base; float* fyj = f.y + base; float* fzj = f.z + base;
#pragma omp simd
      for (std::int32_t k = 0; k < W; ++k) {
        const float dx = xi - xj[k], dy = yi - yj[k], dz = zi - zj[k];
        const float r2 = dx * dx + dy * dy + dz * dz;
        const bool inside = ((mask >> k) & 1u) != 0 && r2 < p.cutoff2;
        const auto pf = physics::repulsion<kEnergy>(inside ? r2 : p.cutoff2, p);
        const float s = inside ? pf.force_over_r : 0.0f;
        fxi[k] += s * dx; fyi[k] += s * dy; fzi[k] += s * dz;
        fxj[k] -= s * dx; fyj[k] -= s * dy; fzj[k] -= s * dz;
        if constexpr (kEnergy) ui[k] += inside ? pf.energy : 0.0f;
      }
    }
    float sx = 0.0f, sy = 0.0f, sz = 0.0f, su = 0.0f;
    for (std::int32_t k = 0; k < W; ++k) { sx += fxi[k]; sy += fyi[k]; sz += fzi[k]; su += ui[k]; }
    f.x[i] += sx; f.y[i] += sy; f.z[i] += sz;
    if constexpr (kEnergy) u_total += su;
  }
  if constexpr (kEnergy) energy.repulsive += u_total;
}

}  // namespace ermak::cpu
