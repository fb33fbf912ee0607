#pragma once
// FENE bond, docs/model.md#fene:
//   U(r) = −(k/2) R0² ln(1 − ((r − r0)/R0)²)
// Beyond |r − r0| ≥ R0 the logarithm is undefined; the result is then non-finite and
// the run stops at the next report with a message (see backend's finiteness check).
#include <cmath>

#include "ermak/core/hd.h"
#include "ermak/core/hd_math.h"

namespace ermak::physics {

// Physics functions are templated on the precision: float in the dynamics (both
// backends), double in the validation reference (backend/cpu/reference_energy.h).
template <class Real>
struct FeneParametersT {
  Real k;   // kcal/mol/Å²
  Real R0;  // Å
};
using FeneParameters = FeneParametersT<float>;

template <class Real>
struct PairForceT {
  Real force_over_r;  // F_i = force_over_r · (r_i − r_j); F_j = −F_i
  Real energy;        // kcal/mol (only meaningful when computed with kEnergy)
};
using PairForce = PairForceT<float>;

template <bool kEnergy, class Real>
ERMAK_HD PairForceT<Real> fene(Real r2, Real r0, FeneParametersT<Real> p) {
  const Real r = hd_sqrt(r2);
  const Real dr = r - r0;
  const Real x2 = (dr * dr) / (p.R0 * p.R0);
  const Real one_minus = Real(1) - x2;
  // −dU/dr = −k·dr/(1 − x²); divided by r for the Cartesian components.
  PairForceT<Real> out{-p.k * dr / (one_minus * r), Real(0)};
  if constexpr (kEnergy) out.energy = Real(-0.5) * p.k * p.R0 * p.R0 * hd_log(one_minus);
  return out;
}

// The bond's tension at a stretch Δ = r − r0 (|Δ| < R0): the radial force's magnitude,
// −F(r) = kΔ/(1 − Δ²/R0²), kcal/mol/Å (positive: pulling the beads together).
template <class Real>
ERMAK_HD Real fene_tension(Real stretch, FeneParametersT<Real> p) {
  return p.k * stretch / (Real(1) - (stretch * stretch) / (p.R0 * p.R0));
}

// Its inverse for a tension F > 0: the stretch 0 < Δ < R0 at which fene_tension(Δ) = F, the
// positive root of (F/R0²)Δ² + kΔ − F = 0, written as 2F/(k + sqrt(k² + 4F²/R0²)) so that
// it does not cancel for F ≪ k·R0 (the run's check of a force clamp).
template <class Real>
ERMAK_HD Real fene_stretch_at_tension(Real tension, FeneParametersT<Real> p) {
  const Real a = tension / (p.R0 * p.R0);
  return Real(2) * tension / (p.k + hd_sqrt(p.k * p.k + Real(4) * a * tension));
}

}  // namespace ermak::physics
