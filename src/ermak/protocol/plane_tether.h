#pragma once
// Plane pulling (docs/protocols.md#plane-pulling): a bead tethered by a spring to a plane
// with unit normal n that moves along n. Only the normal coordinate is restrained, the
// bead slides freely within the plane:
//   U = (κ/2) (r·n − p(t))²,   p(t) = p0 + v·(step − start_step)·h.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"
#include "ermak/physics/plane_tether.h"

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

// The plane tether's force on its bead at `position` at `step`, as both engines add it (the
// force along the normal in double, each component rounded to float); its energy into
// `energy` when kEnergy.
template <bool kEnergy>
ERMAK_HD Vec3f plane_tether_force_on_bead(const PlaneTether& tether, Vec3d position, std::int64_t step,
                                          double timestep_tau, double& energy) {
  double along = 0;
  physics::plane_tether<kEnergy>(dot(position, tether.normal), plane_position_at(tether, step, timestep_tau),
                                 tether.spring_kcal_per_mol_A2, along, energy);
  return {float(along * tether.normal.x), float(along * tether.normal.y), float(along * tether.normal.z)};
}

}  // namespace ermak
