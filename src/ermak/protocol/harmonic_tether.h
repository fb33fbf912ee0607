#pragma once
// A bead held by a harmonic spring to an anchor that moves at constant velocity: the
// cantilever of force-ramp pulling when the velocity is non-zero, a fixed restraint
// otherwise (docs/protocols.md#pulling). The anchor position is computed from the step
// count in double precision, never accumulated, so slow speeds stay exact over 10^10
// steps: anchor(step) = anchor_start + (step − start_step)·h·velocity.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"
#include "ermak/physics/harmonic.h"

namespace ermak {

struct HarmonicTether {
  std::int32_t bead = 0;
  std::int32_t replica = -1;  // −1: the same tether in every replica
  Vec3d anchor_start_A{};
  Vec3d anchor_velocity_A_per_tau{};
  double spring_kcal_per_mol_A2 = 0.0;
  std::int64_t start_step = 0;  // step at which the anchor is at anchor_start_A
};

ERMAK_HD Vec3d tether_anchor_at(const HarmonicTether& tether, std::int64_t step,
                                double timestep_tau) {
  const double t = double(step - tether.start_step) * timestep_tau;
  return tether.anchor_start_A + t * tether.anchor_velocity_A_per_tau;
}

// The tether's force (and energy) on its bead at `position` at `step`, as both engines add
// it: the offset from the anchor is taken in double before it is rounded to float, so that
// a far-travelled anchor stays exact.
template <bool kEnergy>
ERMAK_HD physics::TetherForce tether_force_on_bead(const HarmonicTether& tether, Vec3f position,
                                                  std::int64_t step, double timestep_tau) {
  const Vec3f offset = vec_cast<float>(vec_cast<double>(position) - tether_anchor_at(tether, step, timestep_tau));
  return physics::harmonic_tether<kEnergy>(offset, {0, 0, 0}, float(tether.spring_kcal_per_mol_A2));
}

}  // namespace ermak
