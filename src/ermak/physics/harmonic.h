#pragma once
// Harmonic spring to a point, U = (κ/2)|r − r_anchor|² (docs/model.md#harmonic-tether).
// Used by protocols (cantilever springs) and by the integrator validation tests.
#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"

namespace ermak::physics {

// Hooke's law, written once for the cantilever and tether springs of the protocols (their
// steps, checks and reports), in the caller's precision:
// the force of a spring κ on its end at `end`, pulled toward `anchor`: κ(anchor − end);
template <class T>
ERMAK_HD Vec3<T> spring_force(T kappa, Vec3<T> anchor, Vec3<T> end) {
  return kappa * (anchor - end);
}
// the same along one direction (or in magnitude), from the stretch along it: κ·stretch;
template <class T>
ERMAK_HD T spring_force(T kappa, T stretch) {
  return kappa * stretch;
}
// the spring's energy (κ/2)|stretch|², stretch = anchor − end.
template <class T>
ERMAK_HD T spring_energy(T kappa, Vec3<T> stretch) {
  return T(0.5) * kappa * dot(stretch, stretch);
}

struct TetherForce {
  Vec3f force;   // on the bead, kcal/mol/Å
  float energy;  // kcal/mol
};

template <bool kEnergy>
ERMAK_HD TetherForce harmonic_tether(Vec3f position, Vec3f anchor, float kappa) {
  // Hooke's law above; (-κ)(r − a) and κ(a − r) are the same floats (negation is exact).
  TetherForce out{spring_force(kappa, anchor, position), 0.0f};
  if constexpr (kEnergy) out.energy = spring_energy(kappa, anchor - position);
  return out;
}

}  // namespace ermak::physics
