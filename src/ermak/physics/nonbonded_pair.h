#pragma once
// The two non-bonded SOP pair terms as one expression
// (docs/model.md#one-expression-for-both-non-bonded-terms):
//   U(r) = e12·x⁶ + e6·x³,   x = c²/r²,
//   −dU/dr / r = (12 e12·x⁶ + 6 e6·x³)/r².
// Repulsion ε_l (σ/r)⁶ (docs/model.md#repulsion): c = σ, e12 = 0, e6 = ε_l.
// Native contact ε_h[(r0/r)¹² − 2(r0/r)⁶] (docs/model.md#native-contacts): c = r0,
// e12 = ε_h, e6 = −2 ε_h. A pair of neither kind (bonded, excluded): all zero, an exact
// zero term. Kernels that evaluate a block of pairs with coefficients per pair — the CUDA
// block family's tiles layout (docs/gpu.md#tiles) and the tiles of `ermak bench
// --ceiling` — need no branch on the kind; the other kernels and the CPU engine keep
// repulsion() and native_contact(), which this equals to float rounding.
#include "ermak/core/hd.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/native_contact.h"
#include "ermak/physics/repulsion.h"

namespace ermak::physics {

// Held as the force's factors 12 e12 and 6 e6, so that a pair's force costs no more than
// the two terms' own (the energy, evaluated rarely, divides them back).
template <class Real>
struct NonbondedCoefficientsT {
  Real c2;    // c², Å²
  Real f12;   // 12 e12, kcal/mol
  Real f6;    // 6 e6, kcal/mol
};
using NonbondedCoefficients = NonbondedCoefficientsT<float>;

template <class Real>
ERMAK_HD NonbondedCoefficientsT<Real> repulsion_coefficients(RepulsionParametersT<Real> p) {
  return {p.sigma2, Real(0), Real(6) * p.eps};
}

template <class Real>
ERMAK_HD NonbondedCoefficientsT<Real> native_contact_coefficients(Real r0, Real eh) {
  return {r0 * r0, Real(12) * eh, Real(-12) * eh};
}

template <bool kEnergy, class Real>
ERMAK_HD PairForceT<Real> nonbonded_pair(Real r2, NonbondedCoefficientsT<Real> k) {
  const Real inv_r2 = Real(1) / r2;
  const Real x = k.c2 * inv_r2;
  const Real x3 = x * x * x;
  PairForceT<Real> out{x3 * (k.f12 * x3 + k.f6) * inv_r2, Real(0)};
  if constexpr (kEnergy) out.energy = x3 * (k.f12 * x3 / Real(12) + k.f6 / Real(6));
  return out;
}

}  // namespace ermak::physics
