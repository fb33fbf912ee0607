#pragma once
// Harmonic spring to a point, U = (κ/2)|r − r_anchor|² (docs/model.md#harmonic-tether).
// Used by protocols (cantilever springs) and by the integrator validation tests.
#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"

namespace ermak::physics {

struct TetherForce {
  Vec3f force;   // on the bead, kcal/mol/Å
  float energy;  // kcal/mol
};

template <bool kEnergy>
ERMAK_HD TetherForce harmonic_tether(Vec3f position, Vec3f anchor, float kappa) {
  const Vec3f d = position - anchor;
  TetherForce out{(-kappa) * d, 0.0f};
  if constexpr (kEnergy) out.energy = 0.5f * kappa * norm2(d);
  return out;
}

}  // namespace ermak::physics
