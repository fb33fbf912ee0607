#pragma once
// Repulsion of non-native, non-bonded pairs, docs/model.md#repulsion:
//   U(r) = ε_l (σ/r)⁶ for r < r_cut, 0 beyond (no shift; at 20 Å the jump is 4.7e-5 ε_l).
#include "ermak/core/hd.h"
#include "ermak/physics/fene.h"

namespace ermak::physics {

struct RepulsionParameters {
  float eps;       // ε_l, kcal/mol
  float sigma2;    // σ², Å²
  float cutoff2;   // r_cut², Å²
};

// Inside the cutoff only; callers mask r2 ≥ cutoff2 (kept out of here so vector loops
// can select instead of branch).
template <bool kEnergy>
ERMAK_HD PairForce repulsion(float r2, RepulsionParameters p) {
  const float s2 = p.sigma2 / r2;
  const float s6 = s2 * s2 * s2;
  // −dU/dr / r = 6 ε_l s⁶ / r²
  PairForce out{6.0f * p.eps * s6 / r2, 0.0f};
  if constexpr (kEnergy) out.energy = p.eps * s6;
  return out;
}

}  // namespace ermak::physics
