#pragma once
// Repulsion of non-native, non-bonded pairs, docs/model.md#repulsion:
//   U(r) = ε_l (σ/r)⁶ for r < r_cut, 0 beyond (no shift; at 20 Å the jump is 4.7e-5 ε_l).
#include "ermak/core/hd.h"
#include "ermak/physics/fene.h"

namespace ermak::physics {

template <class Real>
struct RepulsionParametersT {
  Real eps;       // ε_l, kcal/mol
  Real sigma2;    // σ², Å²
  Real cutoff2;   // r_cut², Å²
};
using RepulsionParameters = RepulsionParametersT<float>;

// Inside the cutoff only; callers mask r2 ≥ cutoff2 (kept out of here so vector loops
// can select instead of branch).
template <bool kEnergy, class Real>
ERMAK_HD PairForceT<Real> repulsion(Real r2, RepulsionParametersT<Real> p) {
  const Real inv_r2 = Real(1) / r2;  // one division per pair
  const Real inv_r4 = inv_r2 * inv_r2;
  // −dU/dr / r = 6 ε_l σ⁶ / r⁸. Written left to right so that the constant factor
  // 6 ε_l σ⁶ is one loop-invariant product: three multiplications per pair remain.
  PairForceT<Real> out{Real(6) * p.eps * p.sigma2 * p.sigma2 * p.sigma2 * inv_r4 * inv_r4, Real(0)};
  if constexpr (kEnergy) out.energy = p.eps * p.sigma2 * p.sigma2 * p.sigma2 * inv_r4 * inv_r2;
  return out;
}

}  // namespace ermak::physics
