// ProtocolSetup's lines for the run log: what the protocols do, in physical units
// (describe), and its warnings and notes (travel_warnings: ends that coincide, a clamp
// schedule longer than the run, an indentation travel that crushes or never reaches).
#include "ermak/run/protocol_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ermak/config/sopgpu_config.h"
#include "ermak/core/units.h"
#include "ermak/physics/tip.h"
#include "ermak/run/protocol_setup_detail.h"
#include "ermak/run/stability_checks.h"

namespace ermak {
namespace {

// How far from the tip's surface its wall (docs/protocols.md#indentation) still pushes a bead
// with 1 pN or more: the tip of a run whose base stops short of the molecule may touch it
// anyway (an audit's PF8 tip started 0.14 nm away, "no contact", with 63 pN on the molecule).
double wall_reach_A(const WallSpec& wall) {
  const physics::WallParametersT<double> p{wall.A, wall.B, wall.sigma_A, wall.epsilon_kcal_per_mol, 0.0};
  const double threshold = units::pN_to_internal_force(1.0);
  double unused = 0.0;
  const auto pushes = [&](double rho_A) { return std::abs(physics::wall_force<false>(rho_A, p, unused)) >= threshold; };
  // The outermost distance on a 1 % grid where it pushes that hard, then the crossing beyond it.
  double reach_A = 0.0;
  for (double rho_A = 0.25 * wall.sigma_A; rho_A < 100.0 * wall.sigma_A; rho_A *= 1.01)
    if (pushes(rho_A)) reach_A = rho_A;
  if (reach_A == 0.0) return 0.0;
  double beyond_A = 1.01 * reach_A;
  for (int i = 0; i < 40; ++i) {
    const double mid_A = 0.5 * (reach_A + beyond_A);
    (pushes(mid_A) ? reach_A : beyond_A) = mid_A;
  }
  return reach_A;
}

using protocol_setup_detail::unit;
using protocol_setup_detail::vec_text;

}  // namespace

// A tip drag above this is a large part of what a protein resists with (ProtocolSetup::describe).
constexpr double kLargeTipDrag_pN = 50.0;

std::vector<std::string> ProtocolSetup::describe() const {
  std::vector<std::string> lines;
  const double h = spec_.langevin.timestep_tau;
  auto beads_text = [](const std::vector<std::int32_t>& b) { return fmt::format("[{}]", fmt::join(b, ", ")); };
  auto direction_text = [&](const DirectionSpec& dir) {
    if (!dir.end_to_end) return fmt::format("along {}", vec_text(directions_[0]));
    std::string s = fmt::format("end-to-end {}→{} at the start", ends_[0], ends_[1]);
    s += fmt::format(", replica 0: {}", vec_text(directions_[0]));
    return s;
  };
  if (spec_.pulling.enabled) {
    const PullingSpec& p = spec_.pulling;
    const double loading_rate_pN_per_s = units::internal_spring_to_pN_per_nm(p.spring_kcal_per_mol_A2) *
                                         units::A_per_tau_to_um_per_s(p.speed_A_per_tau) * 1e3;
    lines.push_back(fmt::format(
        "pulling: beads {} on springs κ = {:.6g} pN/nm, base speed v = {:.6g} µm/s ({:.6g} Å per step), {}; "
        "ends {} {}; loading rate κv = {:.6g} pN/s{}; output every {} steps (pulling.tsv)",
        beads_text(p.pulled_beads), units::internal_spring_to_pN_per_nm(p.spring_kcal_per_mol_A2),
        units::A_per_tau_to_um_per_s(p.speed_A_per_tau), p.speed_A_per_tau * h, direction_text(p.direction),
        ends_[0], ends_[1], loading_rate_pN_per_s,
        // pulling.tsv's force sums the springs: it rises at m·κv (analysis/run_directory.h
        // reads κv first, then the beads, so the phrase after it is for the reader).
        p.pulled_beads.size() > 1
            ? fmt::format(" per spring, m·κv = {:.6g} pN/s for the sum of the {} springs' forces",
                          loading_rate_pN_per_s * double(p.pulled_beads.size()), p.pulled_beads.size())
            : std::string(),
        pulling_every()));
  }
  if (spec_.force_clamp.enabled) {
    const ForceClampSpec& c = spec_.force_clamp;
    std::string force;
    if (c.constant)
      force = fmt::format("{:.6g} pN", units::internal_force_to_pN(c.schedule.front().force_kcal_per_mol_A));
    else
      for (const auto& point : c.schedule)
        force += fmt::format("{}(step {}: {:.6g} pN)", force.empty() ? "schedule " : ", ", point.step,
                             units::internal_force_to_pN(point.force_kcal_per_mol_A));
    lines.push_back(fmt::format("force clamp: beads {}, each pulled with {}, {}; ends {} {}; output every {} steps "
                                "(pulling.tsv)",
                                beads_text(c.pulled_beads), force, direction_text(c.direction), ends_[0], ends_[1],
                                pulling_every()));
  }
  if (spec_.plane_pulling.enabled)
    for (std::size_t g = 0; g < spec_.plane_pulling.planes.size(); ++g) {
      const PlaneSpec& p = spec_.plane_pulling.planes[g];
      lines.push_back(fmt::format("plane {}: {} bead{}, normal {}, speed {:.6g} µm/s, κ = {:.6g} pN/nm per bead; output "
                                  "every {} steps (plane.tsv)",
                                  g, p.beads.size(), p.beads.size() == 1 ? "" : "s", vec_text(unit(p.normal)), units::A_per_tau_to_um_per_s(p.speed_A_per_tau),
                                  units::internal_spring_to_pN_per_nm(p.spring_kcal_per_mol_A2), plane_every()));
    }
  if (spec_.indentation.enabled) {
    const IndentationSpec& in = spec_.indentation;
    const Indentation& ind = indentation_;
    // "ε[1(σ/ρ)¹² − 2(σ/ρ)⁶]": the wall's coefficients with their signs.
    auto wall_text = [](double a, double b) {
      return fmt::format("ε[{:g}(σ/ρ)¹² {} {:g}(σ/ρ)⁶]", a, b < 0 ? "−" : "+", std::abs(b));
    };
    lines.push_back(fmt::format(
        "indentation: tip R = {:.6g} nm at {} Å, ζ_tip = {:.6g}, base at {} Å moving {:.6g} µm/s along {}, κ = {:.6g} "
        "pN/nm; tip {} σ = {:.6g} Å ε = {:.6g} kcal/mol; {}{}; output every {} steps "
        "(indentation.tsv)",
        in.tip_radius_A / units::A_per_nm, vec_text(in.tip_position_A, 6), in.tip_friction,
        vec_text(in.base_position_A, 6), units::A_per_tau_to_um_per_s(in.speed_A_per_tau), vec_text(ind.direction),
        units::internal_spring_to_pN_per_nm(in.spring_kcal_per_mol_A2), wall_text(in.tip.A, in.tip.B), in.tip.sigma_A,
        in.tip.epsilon_kcal_per_mol,
        in.retract == RetractAt::kNever   ? "no retraction"
        : in.retract == RetractAt::kDepth ? fmt::format("retraction after {:.6g} nm of base travel",
                                                        in.retract_depth_A / units::A_per_nm)
        : in.retract == RetractAt::kForce
            ? fmt::format("retraction at {:.6g} pN", units::internal_force_to_pN(in.retract_force_kcal_per_mol_A))
            : fmt::format("retraction at step {}", in.retract_step),
        in.move_surface ? ", the surface moves instead of the base" : "", indentation_every()));
    // Before contact the spring holds the tip against its friction: a force of ζ_tip·v that
    // the curve carries as an offset (docs/protocols.md#indentation), reached within a few
    // τ_t = ζ_tip/κ. At simulation speeds a large tip's default (Stokes) friction makes it
    // hundreds of pN.
    const double drag_pN = units::internal_force_to_pN(in.tip_friction * std::abs(in.speed_A_per_tau));
    const double relax_steps = in.tip_friction / in.spring_kcal_per_mol_A2 / spec_.langevin.timestep_tau;
    lines.push_back(fmt::format("indentation: before contact the spring drags the tip: ζ_tip·v = {:.3g} pN, reached "
                                "within ~3 ζ_tip/κ = {:.3g} steps{}",
                                drag_pN, 3 * relax_steps,
                                drag_pN > kLargeTipDrag_pN
                                    ? fmt::format("; note: that drag is large against the forces of a protein (above "
                                                  "{:g} pN): give a smaller indentation.tip_friction or a lower speed",
                                                  kLargeTipDrag_pN)
                                    : std::string()));
    // A retraction force within the free tip's range — the drag plus z sd of the spring's
    // thermal force, √(kT κ) by equipartition — turns the base on noise, before any contact.
    // The approach holds ~N = travel to contact / (v τ_t) independent samples of that force:
    // its largest is ~√(2 ln N) sd above the mean, more than 3 for a long, slow approach.
    if (in.retract == RetractAt::kForce) {
      const double thermal_pN =
          units::internal_force_to_pN(std::sqrt(spec_.temperature.start_kcal_per_mol * in.spring_kcal_per_mol_A2));
      const double retract_pN = units::internal_force_to_pN(in.retract_force_kcal_per_mol_A);
      // The approach's samples before contact, within the run's travel.
      const double free_travel_A =
          std::min(contact_travel_A_, std::abs(in.speed_A_per_tau) * spec_.langevin.timestep_tau *
                                          double(std::max<std::int64_t>(spec_.steps - start_step_, 0)));
      const double samples = geometry_known_ && std::isfinite(free_travel_A) && std::abs(in.speed_A_per_tau) > 0
                                 ? free_travel_A / (std::abs(in.speed_A_per_tau) * (in.tip_friction /
                                                                                    in.spring_kcal_per_mol_A2))
                                 : 0.0;
      const double z = samples > 1.0 ? std::max(3.0, std::sqrt(2.0 * std::log(samples))) : 3.0;
      if (retract_pN < drag_pN + z * thermal_pN)
        lines.push_back(fmt::format("indentation: note: retract_at_force_pN = {:.6g} pN lies within the free tip's "
                                    "range (drag {:.3g} pN + {:.3g} × √(kTκ) = {:.3g} pN, the largest of ~{:.2g} "
                                    "independent samples of its noise before contact): noise may turn the base before "
                                    "the tip touches the molecule; give a larger force",
                                    retract_pN, drag_pN, z, drag_pN + z * thermal_pN, std::max(samples, 1.0)));
    }
    // The bond check names this cause when the bond breaks (run/stability_checks.h).
    if (surface_drives_into_fixed_beads(spec_))
      lines.push_back("indentation: note: move_surface with [fixed] beads: the surface moves toward the tip while "
                      "the fixed beads stay where they are, so it drives into them (a FENE bond of theirs breaks); "
                      "move the base instead, or fix no beads");
    if (in.surface.enabled)
      lines.push_back(fmt::format("surface: {} through {} Å, normal {}, {} σ = {:.6g} Å ε = "
                                  "{:.6g} kcal/mol{}",
                                  in.surface.beads ? "grid of beads" : "plane", vec_text(in.surface.point_A, 6),
                                  vec_text(ind.surface.normal), wall_text(in.surface.wall.A, in.surface.wall.B),
                                  in.surface.wall.sigma_A, in.surface.wall.epsilon_kcal_per_mol,
                                  in.surface.beads ? fmt::format(", {}×{} beads {:.6g} Å apart", in.surface.grid_size,
                                                                 in.surface.grid_size, in.surface.spacing_A)
                                                   : std::string()));
  }
  return lines;
}

std::vector<std::string> ProtocolSetup::travel_warnings() const {
  std::vector<std::string> lines;
  // Default ends that are one bead (bead 0 pulled, none fixed): nothing to measure.
  if ((spec_.pulling.enabled || spec_.force_clamp.enabled) && ends_[0] == ends_[1]) {
    const std::string section = spec_.pulling.enabled ? "pulling" : "force_clamp";
    lines.push_back(fmt::format("warning: {0}: the end-to-end vector's default ends (the first fixed bead, or bead 0, "
                                "and the first pulled bead) are both bead {1}: the table's end_to_end and extension "
                                "columns stay 0; give {0}.ends = [i, j] to measure them",
                                section, ends_[0]));
  }
  // A force schedule that ends after the run: the clamp never gets to its last forces.
  if (spec_.force_clamp.enabled && !spec_.force_clamp.constant && !spec_.force_clamp.schedule.empty() &&
      spec_.force_clamp.schedule.back().step > spec_.steps)
    lines.push_back(fmt::format("note: force_clamp: the schedule's last point (step {}, {:.6g} pN) lies beyond the "
                                "run's {} steps: the run ends at {:.4g} pN",
                                spec_.force_clamp.schedule.back().step,
                                units::internal_force_to_pN(spec_.force_clamp.schedule.back().force_kcal_per_mol_A),
                                spec_.steps, units::internal_force_to_pN(schedule_.at_step(spec_.steps))));
  if (!spec_.indentation.enabled) return lines;
  const IndentationSpec& in = spec_.indentation;
  const double per_step_A = std::abs(in.speed_A_per_tau) * spec_.langevin.timestep_tau;
  if (!(per_step_A > 0)) return lines;
  // The base's travel before it turns: the whole run, or up to its retraction trigger.
  const double whole_A = per_step_A * double(std::max<std::int64_t>(spec_.steps - start_step_, 0));
  double approach_A = whole_A;
  std::string until = "over the run's steps";
  bool turns = true;  // within the run
  if (in.retract == RetractAt::kDepth && in.retract_depth_A < whole_A) {
    approach_A = in.retract_depth_A;
    until = "before retract_at_depth_nm turns it";
  } else if (in.retract == RetractAt::kStep && in.retract_step < spec_.steps) {
    approach_A = per_step_A * double(std::max<std::int64_t>(in.retract_step - start_step_, 0));
    until = "before retract_at_step turns it";
  } else {
    turns = false;
  }
  const double kappa_pN_per_nm = units::internal_spring_to_pN_per_nm(in.spring_kcal_per_mol_A2);
  constexpr double kOverload_pN = 1000.0;
  const bool turns_below_overload = in.retract == RetractAt::kForce &&
                                    units::internal_force_to_pN(in.retract_force_kcal_per_mol_A) <= kOverload_pN;
  if (std::isfinite(surface_travel_A_) && kappa_pN_per_nm > 0 && !turns_below_overload) {
    // Where the tip stalls: on the substrate's wall, or — with the molecule under it — at
    // about half the molecule's thickness (a pressed molecule does not flatten; the λ
    // repressor's tip stalled at 3.4 nm of a 0.6–5.4 nm span). Past that, the spring's force
    // grows by κ per nm of travel.
    const bool molecule_between = geometry_known_ && contact_travel_A_ < surface_travel_A_;
    const double stall_A =
        molecule_between ? contact_travel_A_ + 0.5 * (surface_travel_A_ - contact_travel_A_) : surface_travel_A_;
    const double overload_A = stall_A + 10.0 * kOverload_pN / kappa_pN_per_nm;
    const bool sop = is_sopgpu_config(spec_.config_path);
    if (approach_A > overload_A)
      lines.push_back(fmt::format(
          "warning: indentation: the base travels {:.4g} nm {}, but the tip's surface reaches the substrate's wall "
          "after {:.4g} nm{}: past that the spring presses the tip{} onto the surface — about {:.0f} pN by the {}, a "
          "crushed molecule and a curve of the wall. Unless that is meant, {} = {:.3g} nm turns it below ~{:g} pN "
          "(docs/protocols.md#indentation)",
          approach_A / 10.0, until, surface_travel_A_ / 10.0,
          molecule_between ? fmt::format(", and stalls near {:.3g} nm on the molecule between", stall_A / 10.0)
                           : std::string(),
          molecule_between ? ", and the molecule under it," : "", kappa_pN_per_nm * (approach_A - stall_A) / 10.0,
          turns ? "turn" : "last step",
          sop ? "a turn after (fewer numsteps)" : "retract_at_depth_nm", std::floor(overload_A) / 10.0,
          kOverload_pN));
  }
  // Retraction triggers the run's steps never reach: the base never turns.
  if (in.retract == RetractAt::kDepth && in.retract_depth_A > whole_A)
    lines.push_back(fmt::format("note: indentation: retract_at_depth_nm = {:.6g} is beyond the base's travel over the "
                                "run's steps ({:.4g} nm): the base never turns",
                                in.retract_depth_A / 10.0, whole_A / 10.0));
  if (in.retract == RetractAt::kStep && in.retract_step >= spec_.steps)
    lines.push_back(fmt::format("note: indentation: retract_at_step = {} is not before the run's last step {}: the "
                                "base never turns",
                                in.retract_step, spec_.steps));
  if (!geometry_known_) return lines;
  if (!std::isfinite(contact_travel_A_))
    lines.push_back(fmt::format("note: indentation: the tip's path (radius {:g} Å along the direction) misses every "
                                "bead of replica 0: no bead lies ahead of it within its radius",
                                in.tip_radius_A));
  else if (const double reach_A = wall_reach_A(in.tip); contact_travel_A_ - approach_A > reach_A)
    lines.push_back(fmt::format("note: indentation: the base travels {:.4g} nm {}, but the tip's surface starts "
                                "{:.4g} nm from the molecule along the direction, and its wall pushes with 1 pN or "
                                "more only within {:.2g} nm: no contact in this run (more steps, a faster speed, or "
                                "the tip closer)",
                                approach_A / 10.0, until, contact_travel_A_ / 10.0, reach_A / 10.0));
  return lines;
}

}  // namespace ermak
