#pragma once
// A bead held by a harmonic spring to an anchor that moves at constant velocity: the
// cantilever of force-ramp pulling when the velocity is non-zero, a fixed optical-trap
// or restraint otherwise (docs/model.md#harmonic-tether). The anchor position is
// computed from the step count in double precision, never accumulated, so slow speeds
// stay exact over 10^10 steps.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"

namespace ermak {

struct HarmonicTether {
  std::int32_t bead = 0;
  Vec3d anchor_start_A{};
  Vec3d anchor_velocity_A_per_tau{};
  double spring_kcal_per_mol_A2 = 0.0;
};

ERMAK_HD Vec3d tether_anchor_at(const HarmonicTether& tether, std::int64_t step,
                                double timestep_tau) {
  const double t = double(step) * timestep_tau;
  return tether.anchor_start_A + t * tether.anchor_velocity_A_per_tau;
}

}  // namespace ermak
