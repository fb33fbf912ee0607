#include "ermak/run/step_size_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/protocol/external_force.h"

namespace ermak {

namespace {

// k_B·T at the schedule's highest temperature, kcal/mol.
double highest_kT(const RunSpec& spec) {
  const TemperatureSchedule& t = spec.temperature;
  return t.every_steps > 0 ? std::max(t.start_kcal_per_mol, t.stop_kcal_per_mol) : t.start_kcal_per_mol;
}

}  // namespace

double largest_noise_amplitude_A(const RunSpec& spec) {
  return std::sqrt(2.0 * highest_kT(spec) * spec.langevin.timestep_tau / spec.langevin.zeta);
}

std::string check_step_size(const RunSpec& spec) {
  const double amplitude_A = largest_noise_amplitude_A(spec);
  const double highest_K = units::kcal_per_mol_to_kelvin(highest_kT(spec));
  const std::string settings =
      fmt::format("a time step of {:.4g} ps, a temperature up to {:.4g} K and a friction of {:.4g}",
                  units::tau_to_ps(spec.langevin.timestep_tau), highest_K, spec.langevin.zeta);
  const double half_R0_A = 0.5 * double(spec.sop.fene_R0_A);
  if (!(amplitude_A < half_R0_A))
    throw Error(spec.config_path.string(), 0, "",
                fmt::format("{} move every bead by a random {:.3g} Å per component and step (sqrt(2 k_B T h/ζ); "
                            "SOP-GPU's defaults: 0.044 Å), at least half the bonds' R0 ({} Å): the bonds would break "
                            "within steps; lower run.timestep_ps or the temperature, or raise run.friction "
                            "(docs/model.md#dynamics)",
                            settings, amplitude_A, half_R0_A));
  // A clamp's force moves its beads by (h/ζ)·F per step on top of the noise.
  if (spec.force_clamp.enabled) {
    double largest_force = 0.0;
    for (const ForceSchedulePoint& p : spec.force_clamp.schedule)
      largest_force = std::max(largest_force, std::abs(p.force_kcal_per_mol_A));
    const double drift_A = spec.langevin.timestep_tau / spec.langevin.zeta * largest_force;
    if (!(drift_A < half_R0_A))
      throw Error(spec.config_path.string(), 0, "force_clamp",
                  fmt::format("a force of {:.4g} pN moves the clamped beads by {:.3g} Å per step ((h/ζ)·F), at least "
                              "half the bonds' R0 ({} Å): the bonds would break within steps; use a smaller force "
                              "(docs/protocols.md)",
                              units::internal_force_to_pN(largest_force), drift_A, half_R0_A));
  }
  if (amplitude_A < 1e-4)
    return fmt::format("warning: {} move a bead by only {:.3g} Å per component and step (SOP-GPU's defaults: "
                       "0.044 Å); the beads barely move (docs/model.md#dynamics)",
                       settings, amplitude_A);
  return "";
}

}  // namespace ermak
