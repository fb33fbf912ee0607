#pragma once
// Overdamped Langevin (Ermak–McCammon) step, docs/model.md#dynamics:
//   r(t+h) = r(t) + (h/ζ) F + sqrt(2 k_B T h/ζ) g,   g ~ N(0, 1) per component.
// The coefficients are computed in double and stored in the caller's precision: float for
// the beads' step on both backends (the default), double for the run's checks and the
// indentation tip.
#include <cmath>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"

namespace ermak::physics {

template <class Real>
struct LangevinCoefficientsT {
  Real mobility_step;    // h/ζ, Å²/(kcal/mol)
  Real noise_amplitude;  // sqrt(2 k_B T h/ζ), Å
};
using LangevinCoefficients = LangevinCoefficientsT<float>;

// h/ζ: the displacement per unit force in one step.
template <class Real = float>
ERMAK_HD Real langevin_mobility_step(double timestep, double zeta) {
  return Real(timestep / zeta);
}

// sqrt(2 k_B T h/ζ): the standard deviation of the random displacement per component.
template <class Real = float>
ERMAK_HD Real langevin_noise_amplitude(double timestep, double zeta, double kT) {
  return Real(sqrt(2.0 * kT * timestep / zeta));
}

template <class Real = float>
ERMAK_HD LangevinCoefficientsT<Real> langevin_coefficients(double timestep, double zeta, double kT) {
  return {langevin_mobility_step<Real>(timestep, zeta), langevin_noise_amplitude<Real>(timestep, zeta, kT)};
}

template <class Real>
ERMAK_HD Vec3<Real> langevin_displacement(Vec3<Real> force, Vec3<Real> gaussian, LangevinCoefficientsT<Real> c) {
  return {c.mobility_step * force.x + c.noise_amplitude * gaussian.x,
          c.mobility_step * force.y + c.noise_amplitude * gaussian.y,
          c.mobility_step * force.z + c.noise_amplitude * gaussian.z};
}

}  // namespace ermak::physics
