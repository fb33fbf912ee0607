#pragma once
// Indentation tip and substrate surface interactions, docs/protocols.md#indentation.
// Both use the same shifted Lennard-Jones-like form with selectable A, B:
//   U(d) = ε [A (σ/ρ)¹² + B (σ/ρ)⁶],  ρ = d − R
// tip: d = |r_bead − r_tip|, R = tip radius; surface plane: d = (r − r0)·n, R = 0;
// surface bead: d = |r − r_s|, R = 0. (A, B) = (0, 1) is purely repulsive (σ/ρ)⁶,
// (1, −2) a 12-6 well of depth ε at ρ = σ.
#include "ermak/core/hd.h"
#include "ermak/core/hd_math.h"

namespace ermak::physics {

template <class Real>
struct WallParametersT {
  Real A, B;
  Real sigma;    // Å
  Real epsilon;  // kcal/mol
  Real radius;   // R, Å (tip radius; 0 for surfaces)
};
using WallParameters = WallParametersT<float>;

// Returns −dU/dd (positive = pushes the bead away from the tip/surface) and the energy.
template <bool kEnergy, class Real>
ERMAK_HD Real wall_force(Real d, WallParametersT<Real> p, Real& energy) {
  const Real rho = d - p.radius;
  const Real s = p.sigma / rho;
  const Real s2 = s * s;
  const Real s6 = s2 * s2 * s2;
  const Real s12 = s6 * s6;
  if constexpr (kEnergy) energy = p.epsilon * (p.A * s12 + p.B * s6);
  return p.epsilon * (Real(12) * p.A * s12 + Real(6) * p.B * s6) / rho;
}

}  // namespace ermak::physics
