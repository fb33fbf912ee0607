#pragma once
// Spring to a plane along its normal, docs/protocols.md#plane-pulling:
//   U = (κ/2) s²,  s = r·n − p,   F = −κ s n.
#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"

namespace ermak::physics {

template <bool kEnergy>
ERMAK_HD void plane_tether(double normal_coordinate_A, double plane_A, double kappa,
                           double& force_along_normal, double& energy) {
  const double s = normal_coordinate_A - plane_A;
  force_along_normal = -kappa * s;
  if constexpr (kEnergy) energy = 0.5 * kappa * s * s;
}

}  // namespace ermak::physics
