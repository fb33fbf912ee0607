#pragma once
// FENE bond, docs/model.md#fene:
//   U(r) = −(k/2) R0² ln(1 − ((r − r0)/R0)²)
// Beyond |r − r0| ≥ R0 the logarithm is undefined; the result is then non-finite and
// the run stops at the next report with a message (see backend's finiteness check).
#include <cmath>

#include "ermak/core/hd.h"

namespace ermak::physics {

struct FeneParameters {
  float k;   // kcal/mol/Å²
  float R0;  // Å
};

struct PairForce {
  float force_over_r;  // F_i = force_over_r · (r_i − r_j); F_j = −F_i
  float energy;        // kcal/mol (only meaningful when computed with kEnergy)
};

template <bool kEnergy>
ERMAK_HD PairForce fene(float r2, float r0, FeneParameters p) {
  const float r = sqrtf(r2);
  const float dr = r - r0;
  const float x2 = (dr * dr) / (p.R0 * p.R0);
  const float one_minus = 1.0f - x2;
  // −dU/dr = −k·dr/(1 − x²); divided by r for the Cartesian components.
  PairForce out{-p.k * dr / (one_minus * r), 0.0f};
  if constexpr (kEnergy) out.energy = -0.5f * p.k * p.R0 * p.R0 * logf(one_minus);
  return out;
}

}  // namespace ermak::physics
