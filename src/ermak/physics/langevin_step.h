#pragma once
// Overdamped Langevin (Ermak–McCammon) step, docs/model.md#dynamics:
//   r(t+h) = r(t) + (h/ζ) F + sqrt(2 k_B T h/ζ) g,   g ~ N(0, 1) per component.
#include <cmath>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"

namespace ermak::physics {

struct LangevinCoefficients {
  float mobility_step;    // h/ζ, Å²/(kcal/mol)
  float noise_amplitude;  // sqrt(2 k_B T h/ζ), Å
};

ERMAK_HD LangevinCoefficients langevin_coefficients(double timestep, double zeta,
                                                     double kT) {
  return {float(timestep / zeta), float(sqrt(2.0 * kT * timestep / zeta))};
}

ERMAK_HD Vec3f langevin_displacement(Vec3f force, Vec3f gaussian, LangevinCoefficients c) {
  return {c.mobility_step * force.x + c.noise_amplitude * gaussian.x,
          c.mobility_step * force.y + c.noise_amplitude * gaussian.y,
          c.mobility_step * force.z + c.noise_amplitude * gaussian.z};
}

}  // namespace ermak::physics
