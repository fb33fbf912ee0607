#pragma once
// Force clamp (docs/protocols.md#force-clamp): a force of given magnitude along a fixed
// direction on a bead, constant or following a piecewise-linear schedule in steps.
#include <cstdint>
#include <vector>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"

namespace ermak {

struct ForceSchedulePoint {
  std::int64_t step = 0;
  double force_kcal_per_mol_A = 0.0;
};

struct ExternalForce {
  std::int32_t bead = 0;
  std::int32_t replica = -1;  // −1: every replica
  Vec3d direction{1, 0, 0};   // unit vector
};

// Piecewise-linear in the step, constant beyond the first and last points.
struct ForceSchedule {
  std::vector<ForceSchedulePoint> points;  // ascending steps; one point = constant force
  double at_step(std::int64_t step) const;
};

}  // namespace ermak
