#include "ermak/run/step_size_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "ermak/config/sopgpu_config.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/protocol/external_force.h"

namespace ermak {

namespace {

// k_B·T at the schedule's highest temperature, kcal/mol.
// The highest temperature the run's steps reach: a schedule's stop only if the run gets there
// (the step from s to s + 1 runs at the temperature of step s).
double highest_kT(const RunSpec& spec) {
  const TemperatureSchedule& t = spec.temperature;
  if (t.every_steps <= 0) return t.start_kcal_per_mol;
  return std::max(t.start_kcal_per_mol, t.at_step(std::max<std::int64_t>(spec.steps - 1, 0)));
}

// The key of `section` that the configuration gave among `names` (its file and line are in
// key_sources), else the first: errors then point at the line that set the value.
std::string given_key(const RunSpec& spec, const std::string& section, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (spec.key_sources.count(section + "." + name)) return section + "." + name;
  return section + "." + *names.begin();
}

// A cantilever or plane spring κ on a bead of friction ζ relaxes by (h/ζ)·κ of its
// stretch per Euler step: at 1 the bead overshoots the spring's rest point every step,
// at 2 the iteration diverges (docs/model.md#dynamics). A base that moves R0/2 or more per
// step stretches the spring faster than any bond can follow.
// `friction_key`: where the pulled body's friction comes from when it is not the beads'
// (an indentation tip's, given or derived from its radius), named when the spring is not.
void check_spring(const RunSpec& spec, const std::string& section, double spring_kcal_per_mol_A2, double speed_A_per_tau,
                  double friction, double half_R0_A, const std::string& friction_key = "") {
  const double h = spec.langevin.timestep_tau;
  const double relaxation = physics::langevin_mobility_step<double>(h, friction) * spring_kcal_per_mol_A2;
  const std::string spring_key = given_key(spec, section, {"spring_pN_per_nm", "spring_kcal_per_mol_A2"});
  // A spring of the usual range on a body of tiny friction: the friction is the culprit.
  const bool blame_friction = !friction_key.empty() && spec.key_sources.count(friction_key) &&
                              units::internal_spring_to_pN_per_nm(spring_kcal_per_mol_A2) <= 1e4 &&
                              friction < 1e-3 * spec.langevin.zeta;
  if (!(relaxation < 1.0))
    throw key_error(spec, blame_friction ? friction_key : spring_key,
                    fmt::format("a spring of {:.4g} pN/nm relaxes by {:.3g} of its stretch per step ((h/ζ)·κ with "
                                "ζ = {:.4g}), at least 1: the pulled bead would overshoot every step and the step "
                                "diverges at 2; {} (docs/protocols.md)",
                                units::internal_spring_to_pN_per_nm(spring_kcal_per_mol_A2), relaxation, friction,
                                blame_friction ? "give the tip more friction (tip_friction, or a larger radius: Stokes' "
                                                 "law)"
                                               : "use a softer spring or a smaller run.timestep_ps"));
  const double travel_A = std::abs(speed_A_per_tau) * h;
  if (!(travel_A < half_R0_A))
    throw key_error(spec, given_key(spec, section, {"speed_um_per_s", "speed_A_per_tau"}),
                    fmt::format("a speed of {:.4g} µm/s moves the spring's base by {:.3g} Å per step, at least half "
                                "the bonds' R0 ({} Å): the bonds would break within steps; pull more slowly "
                                "(docs/protocols.md)",
                                units::A_per_tau_to_um_per_s(speed_A_per_tau), travel_A, half_R0_A));
}

}  // namespace

double largest_noise_amplitude_A(const RunSpec& spec) {
  return physics::langevin_noise_amplitude<double>(spec.langevin.timestep_tau, spec.langevin.zeta, highest_kT(spec));
}

std::string check_step_size(const RunSpec& spec) {
  const double amplitude_A = largest_noise_amplitude_A(spec);
  const double highest_K = units::kcal_per_mol_to_kelvin(highest_kT(spec));
  const std::string settings =
      fmt::format("a time step of {:.4g} ps, a temperature up to {:.4g} K and a friction of {:.4g}",
                  units::tau_to_ps(spec.langevin.timestep_tau), highest_K, spec.langevin.zeta);
  const double half_R0_A = 0.5 * double(spec.sop.fene_R0_A);
  if (!(amplitude_A < half_R0_A)) {
    // Named at the key the user's latest word set (a --set of the time step, temperature or
    // friction), else at the one furthest above SOP-GPU's defaults (h = 0.08 τ_H, 300 K,
    // ζ = 50) where the file gives it, else at the time step's key: the usual culprit.
    // R0 below SOP-GPU's 2 Å (`.sop` R_limit) halves the margin as surely as a longer step.
    std::string step_key = given_key(spec, "run", {"timestep_ps", "timestep_tau"});
    {
      const double step_ratio = spec.langevin.timestep_tau / 0.08, temperature_ratio = highest_K / 300.0,
                   friction_ratio = 50.0 / spec.langevin.zeta, r0_ratio = 2.0 / double(spec.sop.fene_R0_A);
      const std::string temperature_key =
          spec.temperature.every_steps > 0 ? given_key(spec, "heating", {"stop_K", "stop_kcal_per_mol"})
                                           : given_key(spec, "run", {"temperature_K", "temperature_kcal_per_mol"});
      const double largest = std::max({step_ratio, temperature_ratio, friction_ratio, r0_ratio});
      const std::string culprit = r0_ratio == largest           ? std::string("model.fene_max_stretch_A")
                                  : temperature_ratio == largest ? temperature_key
                                  : friction_ratio == largest    ? std::string("run.friction")
                                                                 : step_key;
      if (spec.key_sources.count(culprit)) step_key = culprit;
    }
    for (const char* key : {"run.timestep_ps", "run.timestep_tau", "run.temperature_K", "run.temperature_kcal_per_mol",
                            "heating.stop_K", "heating.stop_kcal_per_mol", "run.friction", "model.fene_max_stretch_A"})
      if (const auto it = spec.key_sources.find(key); it != spec.key_sources.end() && it->second.file == "--set") {
        step_key = key;
        break;
      }
    // The keys as the user's file names them (a .sop file's are SOP-GPU's).
    const bool sop = is_sopgpu_config(spec.config_path);
    throw key_error(spec, step_key,
                    fmt::format("{} move every bead by a random {:.3g} Å per component and step (sqrt(2 k_B T h/ζ); "
                                "SOP-GPU's defaults: 0.044 Å), at least half the bonds' R0 ({:.4g} Å): the bonds "
                                "would break within steps; lower {} or the temperature, or raise {}{} "
                                "(docs/model.md#dynamics)",
                                settings, amplitude_A, half_R0_A,
                                sop ? std::string("timestep") : given_key(spec, "run", {"timestep_ps", "timestep_tau"}),
                                sop ? "zeta" : "run.friction",
                                spec.sop.fene_R0_A < 2.0f
                                    ? fmt::format(" or R0 ({} {:.4g} Å, below SOP-GPU's 2 Å)",
                                                  sop ? "R_limit" : "model.fene_max_stretch_A", spec.sop.fene_R0_A)
                                    : std::string()));
  }
  // A FENE bond at rest relaxes with the relative mobility 2/ζ: the step is stable only while
  // h·2k/ζ < 2 (docs/model.md#dynamics); well below that, large steps let thermal kicks break
  // bonds in long runs (WW at 300 K, h = 0.6–0.8 τ_H: some seeds broke one after
  // 2.5·10⁴–2.5·10⁵ steps, others ran 10⁶). Warned below from 0.2.
  const double bond_relaxation = spec.langevin.timestep_tau * 2.0 * double(spec.sop.fene_k_kcal_per_mol_A2) /
                                 spec.langevin.zeta;
  // A clamp's force moves its beads by (h/ζ)·F per step on top of the noise.
  if (spec.force_clamp.enabled) {
    double largest_force = 0.0;  // the largest in magnitude, with its sign (for the message)
    for (const ForceSchedulePoint& p : spec.force_clamp.schedule)
      if (std::abs(p.force_kcal_per_mol_A) > std::abs(largest_force)) largest_force = p.force_kcal_per_mol_A;
    const double drift_A = physics::langevin_mobility_step<double>(spec.langevin.timestep_tau, spec.langevin.zeta) *
                           std::abs(largest_force);
    if (!(drift_A < half_R0_A))
      throw key_error(spec,
                      given_key(spec, "force_clamp",
                                {"force_pN", "force_kcal_per_mol_A", "schedule", "schedule_kcal_per_mol_A"}),
                      fmt::format("a force of {:.4g} pN moves the clamped beads by {:.3g} Å per step ((h/ζ)·F), at least "
                              "half the bonds' R0 ({} Å): the bonds would break within steps; use a smaller force "
                              "(docs/protocols.md)",
                              units::internal_force_to_pN(largest_force), drift_A, half_R0_A));
  }
  if (spec.pulling.enabled)
    check_spring(spec, "pulling", spec.pulling.spring_kcal_per_mol_A2, spec.pulling.speed_A_per_tau,
                 spec.langevin.zeta, half_R0_A);
  if (spec.plane_pulling.enabled)
    for (std::size_t k = 0; k < spec.plane_pulling.planes.size(); ++k)
      check_spring(spec, fmt::format("plane_pulling.plane[{}]", k),
                   spec.plane_pulling.planes[k].spring_kcal_per_mol_A2, spec.plane_pulling.planes[k].speed_A_per_tau,
                   spec.langevin.zeta, half_R0_A);
  if (spec.indentation.enabled)
    check_spring(spec, "indentation", spec.indentation.spring_kcal_per_mol_A2, spec.indentation.speed_A_per_tau,
                 spec.indentation.tip_friction, half_R0_A,
                 spec.key_sources.count("indentation.tip_friction")
                     ? "indentation.tip_friction"
                     : given_key(spec, "indentation", {"tip_radius_nm", "tip_radius_A"}));
  if (amplitude_A < 1e-4)
    return fmt::format("warning: {} move a bead by only {:.3g} Å per component and step (SOP-GPU's defaults: "
                       "0.044 Å); the beads barely move (docs/model.md#dynamics)",
                       settings, amplitude_A);
  // A warning, not a refusal: a run meant to break is a test's way to reach the checks. From
  // h·k/ζ = 0.1 the bond-length fluctuations carry an O(h) excess of ~10 % (docs/model.md#dynamics),
  // and large steps let thermal kicks break bonds in long runs.
  if (bond_relaxation >= 0.2)
    return fmt::format("warning: a time step of {:.4g} τ_H gives h·2k/ζ = {:.3g} for the FENE bonds ({}; SOP-GPU's "
                       "0.08 τ_H gives 0.064): {} (docs/model.md#dynamics)",
                       spec.langevin.timestep_tau, bond_relaxation,
                       bond_relaxation < 2.0 ? "the scheme is stable below 2" : "2 or more: unstable, every step overshoots",
                       bond_relaxation < 2.0
                           ? fmt::format("the bond lengths fluctuate about {:.0f} % more than at equilibrium, and thermal "
                                         "kicks may break bonds in long runs (the WW domain at 300 K broke some after "
                                         "2.5·10⁴–2.5·10⁵ steps at 0.6–0.8 τ_H, others ran 10⁶); try a short run at your "
                                         "temperature first",
                                         100.0 * bond_relaxation / 2.0)
                           : std::string("the run will stop with a broken bond within its first steps"));
  return "";
}

std::string clamp_tension_warning(const RunSpec& spec) {
  if (!spec.force_clamp.enabled) return "";
  // The largest force the run reaches: the schedule's points within its steps, and where it
  // stands at its last step (piecewise linear between points).
  const auto& points = spec.force_clamp.schedule;
  double force = std::abs(force_schedule_at(points.data(), std::int64_t(points.size()), spec.steps));
  for (const ForceSchedulePoint& p : points)
    if (p.step <= spec.steps) force = std::max(force, std::abs(p.force_kcal_per_mol_A));
  // Every pulled bead gets the whole force: the bonds next to the fixed end carry the sum of
  // those pulled along one chain, at most n·F.
  const std::size_t pulled = std::max<std::size_t>(1, spec.force_clamp.pulled_beads.size());
  force *= double(pulled);
  const physics::FeneParametersT<double> fene = fene_parameters<double>(spec.sop);
  const double k = fene.k, R0 = fene.R0;
  if (!(force > 0) || !(k > 0) || !(R0 > 0)) return "";
  // The stretch Δ at which the FENE tension kΔ/(1 − Δ²/R0²) equals the force; the clamp
  // suggested below is the tension at 0.7·R0.
  const double stretch_A = physics::fene_stretch_at_tension(force, fene);
  if (stretch_A < 0.7 * R0) return "";
  return fmt::format("warning: force_clamp: {:.4g} pN{} holds the bonds along the clamped chain stretched by {:.2f} Å "
                     "of their R0 = {:g} Å at rest (the FENE tension, docs/model.md#fene): the steps' noise breaks a "
                     "bond within 10⁴–10⁶ steps at such forces (5 nN: ~3·10⁴ steps); a clamp below ~{:.0f} pN{} "
                     "keeps the bonds under 70 % of R0",
                     units::internal_force_to_pN(force),
                     pulled > 1 ? fmt::format(" ({} pulled beads × {:.4g} pN, all on one chain at most)", pulled,
                                              units::internal_force_to_pN(force) / double(pulled))
                                : std::string(),
                     stretch_A, R0, units::internal_force_to_pN(physics::fene_tension(0.7 * R0, fene)) / double(pulled),
                     pulled > 1 ? " per bead" : "");
}

}  // namespace ermak
