#pragma once
// Plane pulling (docs/protocols.md#plane-pulling): a bead tethered by a spring to a plane
// with unit normal n that moves along n. Only the normal coordinate is restrained, the
// bead slides freely within the plane:
//   U = (κ/2) (r·n − p(t))²,   p(t) = p0 + v·(step − start_step)·h.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"

namespace ermak {

struct PlaneTether {
  std::int32_t bead = 0;
  std::int32_t replica = -1;        // −1: every replica
  Vec3d normal{0, 0, 1};            // unit
  double plane_start_A = 0.0;       // p0, position of the plane along n
  double speed_A_per_tau = 0.0;     // v along n
  double spring_kcal_per_mol_A2 = 0.0;
  std::int64_t start_step = 0;
  std::int32_t group = 0;           // plane index, for reporting the force per plane
};

ERMAK_HD double plane_position_at(const PlaneTether& tether, std::int64_t step, double timestep_tau) {
  return tether.plane_start_A + double(step - tether.start_step) * timestep_tau * tether.speed_A_per_tau;
}

}  // namespace ermak
