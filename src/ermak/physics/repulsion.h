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
  const Real s2 = p.sigma2 * inv_r2;
  const Real s6 = s2 * s2 * s2;
  // −dU/dr / r = 6 ε_l s⁶ / r²
  PairForceT<Real> out{Real(6) * p.eps * s6 * inv_r2, Real(0)};
  if constexpr (kEnergy) out.energy = p.eps * s6;
  return out;
}

}  // namespace ermak::physics
