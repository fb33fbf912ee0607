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

// The clamp's force on its bead (kcal/mol/Å): `magnitude_kcal_per_mol_A`, the schedule's
// at the step, along the clamp's unit direction, rounded to the engines' float — one
// definition for the CPU engine and the CUDA kernels (bit for bit the same force).
ERMAK_HD Vec3f clamp_force_kcal_per_mol_A(double magnitude_kcal_per_mol_A, const Vec3d& direction) {
  return {float(magnitude_kcal_per_mol_A * direction.x), float(magnitude_kcal_per_mol_A * direction.y),
          float(magnitude_kcal_per_mol_A * direction.z)};
}

// The schedule's force at `step`: linear between its points (ascending steps), the first
// point's force before it, the last's after it; 0 without points. One definition for the CPU
// (ForceSchedule::at_step) and the CUDA kernels: the same double, up to the last bit where one
// compiler fuses a + f·(b − a) into a multiply-add and the other does not (docs/gpu.md#numerics).
ERMAK_HD double force_schedule_at(const ForceSchedulePoint* points, std::int64_t count, std::int64_t step) {
  if (count == 0) return 0.0;
  if (step <= points[0].step) return points[0].force_kcal_per_mol_A;
  for (std::int64_t k = 1; k < count; ++k) {
    if (step <= points[k].step) {
      const ForceSchedulePoint a = points[k - 1], b = points[k];
      const double f = double(step - a.step) / double(b.step - a.step);
      return a.force_kcal_per_mol_A + f * (b.force_kcal_per_mol_A - a.force_kcal_per_mol_A);
    }
  }
  return points[count - 1].force_kcal_per_mol_A;
}

struct ForceSchedule {
  std::vector<ForceSchedulePoint> points;  // ascending steps; one point = constant force
  double at_step(std::int64_t step) const {
    return force_schedule_at(points.data(), std::int64_t(points.size()), step);
  }
};

}  // namespace ermak
