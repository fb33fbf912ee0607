#include "ermak/run/stability_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ermak/backend/stability_screen.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/model/coordinate_range.h"
#include "ermak/model/residue_selection.h"
#include "ermak/physics/langevin_step.h"

namespace ermak {
namespace {

// What makes a run's forces smaller when a bond breaks: a force protocol's speed, spring or
// force; in a run without one, the start (minimise) or the temperature.
const char* bond_break_remedy(const RunSpec& spec) {
  if (spec.force_clamp.enabled && !spec.pulling.enabled && !spec.plane_pulling.enabled && !spec.indentation.enabled)
    return BondStretchCheck::kClampRemedy;
  const bool force_protocol = spec.pulling.enabled || spec.force_clamp.enabled || spec.plane_pulling.enabled ||
                              spec.indentation.enabled;
  return force_protocol ? BondStretchCheck::kPullingRemedy : BondStretchCheck::kEquilibriumRemedy;
}

bool all_finite(const std::vector<float>& values) {
  std::uint32_t bad = 0;
  for (const float v : values) bad |= static_cast<std::uint32_t>(non_finite(v));
  return bad == 0;
}

}  // namespace

void check_finite(const State& state, std::int64_t since_step) {
  if (all_finite(state.x) && all_finite(state.y) && all_finite(state.z)) return;
  for (std::size_t k = 0; k < state.x.size(); ++k) {
    if (!std::isfinite(state.x[k]) || !std::isfinite(state.y[k]) || !std::isfinite(state.z[k])) {
      const auto replica = std::int32_t(k / std::size_t(state.bead_count));
      const auto bead = std::int32_t(k % std::size_t(state.bead_count));
      throw Error("the simulation became unstable between steps " + std::to_string(since_step) +
                  " and " + std::to_string(state.step) + ": bead " + std::to_string(bead) +
                  " of replica " + std::to_string(replica) +
                  " has non-finite coordinates (a FENE bond was probably stretched beyond R0; "
                  "use a smaller timestep, minimise first, or check the input structure)");
    }
  }
}

void check_indentation_tips(const Indentation& ind, const std::vector<IndentationStatus>& tips, double timestep_tau,
                            std::int64_t since_step, std::int64_t step) {
  // At the run's start (its first checkpoint) the two steps are one: "at step 0".
  const std::string when = since_step == step ? fmt::format("at step {}", step)
                                              : fmt::format("between steps {} and {}", since_step, step);
  const std::string remedy =
      fmt::format("the tip's steps are unstable where the surface or the molecule pushes it: raise "
                  "indentation.tip_friction (now {:g}), or lower indentation.speed_um_per_s or the cantilever spring",
                  ind.tip_zeta);
  for (std::size_t r = 0; r < tips.size(); ++r) {
    const Vec3d& tip = tips[r].tip_A;
    if (!std::isfinite(tip.x) || !std::isfinite(tip.y) || !std::isfinite(tip.z))
      throw Error(fmt::format("the indentation tip became unstable {}: the tip of replica {} "
                              "has non-finite coordinates; {}",
                              when, r, remedy));
    // One step's move under the forces at this stop: beyond the tip's radius the overdamped
    // step has lost the tip (a push of 10⁸ pN throws it microns off; docs/protocols.md#indentation).
    const Vec3d force = tips[r].spring_force_kcal_per_mol_A + tips[r].molecule_force_kcal_per_mol_A + tips[r].surface_force_kcal_per_mol_A;
    const double move_A = physics::langevin_mobility_step<double>(timestep_tau, ind.tip_zeta) * norm(force);
    if (!(move_A <= ind.tip.radius))
      throw Error(fmt::format("the indentation tip became unstable {}: at step {} the forces on "
                              "the tip of replica {} ({:.4g} pN) move it {:.4g} Å in one step, more than its radius "
                              "({:g} Å); {}",
                              when, step, r, units::internal_force_to_pN(norm(force)), move_A,
                              ind.tip.radius, remedy));
    if (!ind.surface.enabled || !ind.surface.tip_interaction) continue;
    const IndentationSurface surface = surface_at(ind, step, tips[r].turnaround_step, timestep_tau);
    const double height_A = dot(tip - surface.point_A, surface.normal);
    if (height_A < 0.0)
      throw Error(fmt::format("the indentation tip went through the substrate {}: the tip "
                              "of replica {} has its centre {:.4g} Å behind the surface; {}",
                              when, r, -height_A, remedy));
  }
}

BondStretchCheck::BondStretchCheck(const Topology& topology, float max_stretch_A, std::string remedy)
    : bonds_(topology.bonds),
      screen_(make_bond_screen(bonds_, max_stretch_A)),
      max_stretch_A_(max_stretch_A),
      remedy_(std::move(remedy)) {}

void BondStretchCheck::operator()(const State& state, std::int64_t since_step) const {
  for (std::int32_t r = 0; r < state.replica_count; ++r) {
    bool suspect = false;
    for (const BondScreen& b : screen_) {
      const Vec3f d = state.position(r, b.j) - state.position(r, b.i);
      suspect |= outside_bond_screen(b, d.x, d.y, d.z);
    }
    if (suspect) check_replica_exactly(state, r, since_step);
  }
}

// A FENE bond stretched beyond R0 has no finite energy and its force changes sign: the
// bond has broken, which the SOP model does not allow. Overdamped steps overshoot the
// singularity when the force on the chain is far too large for the time step (pulling
// too fast or with too stiff a spring), so stop with a message saying so.
void BondStretchCheck::check_replica_exactly(const State& state, std::int32_t r, std::int64_t since_step) const {
  for (const Bond& b : bonds_) {
    const float stretch = norm(state.position(r, b.j) - state.position(r, b.i)) - b.r0_A;
    if (std::abs(stretch) >= max_stretch_A_)
      throw Error(std::string(stretch < 0.0f ? "a FENE bond collapsed (closer than r0 − R0)" : "a FENE bond broke") +
                  " between steps " + std::to_string(since_step) + " and " +
                  std::to_string(state.step) + ": beads " + std::to_string(b.i) + "–" + std::to_string(b.j) +
                  " of replica " + std::to_string(r) + " are " + std::to_string(b.r0_A + stretch) +
                  " Å apart (native " + std::to_string(b.r0_A) + " Å, maximum stretch R0 = " +
                  std::to_string(max_stretch_A_) + " Å); " + cause_ + ": " +
                      (state.step >= later_from_step_ ? later_remedy_ : remedy_));
  }
}

void check_coordinates_fit_pdb(const Topology& topology, const std::vector<Vec3d>& positions_A,
                               const std::string& source, const std::string& field) {
  // The model and final PDBs write a coordinate in 8 columns (fewer decimals for large ones).
  for (std::size_t i = 0; i < positions_A.size(); ++i)
    for (const double v : {positions_A[i].x, positions_A[i].y, positions_A[i].z})
      if (!coordinate_fits(v))
        throw Error(source, 0, field,
                    fmt::format("bead {} ({}) has the coordinate {} Å, beyond the ±10⁷ Å a PDB file can hold",
                                i, describe_bead(topology, std::int32_t(i)), v));
}

std::string check_coordinate_resolution(const Topology& topology, const std::vector<Vec3d>& positions_A,
                                        double noise_amplitude_A, const std::string& source,
                                        const std::string& field) {
  std::size_t farthest_bead = 0;
  double farthest_A = 0.0;
  for (std::size_t i = 0; i < positions_A.size(); ++i)
    for (const double v : {positions_A[i].x, positions_A[i].y, positions_A[i].z})
      if (std::abs(v) > farthest_A) {
        farthest_A = std::abs(v);
        farthest_bead = i;
      }
  // A cold or noiseless run is held to SOP-GPU's 300 K step: it is not refused a structure
  // that a run at 300 K accepts.
  noise_amplitude_A = std::max(noise_amplitude_A, kSopGpuNoiseAmplitude_A);
  const float as_float = static_cast<float>(farthest_A);
  const double spacing_A = double(std::nextafter(as_float, INFINITY)) - double(as_float);
  const double share = spacing_A / noise_amplitude_A;
  if (!(share >= 0.01)) return "";
  const std::string what = fmt::format(
      "bead {} ({}) is {:.6g} Å from the origin, where single-precision positions are {:.2g} Å apart: {:.0f} % of a "
      "step's noise ({:.3g} Å)",
      farthest_bead, describe_bead(topology, std::int32_t(farthest_bead)), farthest_A, spacing_A, 100.0 * share,
      noise_amplitude_A);
  const std::string remedy =
      "move the structure nearer the origin (subtract its centre from the coordinates; the protocols' positions "
      "are given in the same frame)";
  if (share >= 0.1)
    throw Error(source, 0, field,
                what + ", so the beads would move in coarse jumps or not at all (docs/model.md#precision); " + remedy);
  return "warning: " + source + ": " + what + "; the steps lose precision (docs/model.md#precision): " + remedy;
}

void check_start_coordinates(const Topology& topology, const std::vector<Vec3d>& positions_A, double max_stretch_A,
                             const std::string& source, const std::string& field) {
  check_coordinates_fit_pdb(topology, positions_A, source, field);
  for (const Bond& b : topology.bonds) {
    const double length = norm(positions_A[std::size_t(b.j)] - positions_A[std::size_t(b.i)]);
    if (!(std::abs(length - b.r0_A) < max_stretch_A))
      throw Error(source, 0, field,
                  fmt::format("the bond of beads {} ({}) and {} ({}) is {:.3f} Å long, but the topology's r0 is "
                              "{:.3f} Å: beyond r0 ± R0 "
                              "({} Å), where the FENE energy is undefined (docs/model.md#fene); these coordinates "
                              "do not fit the topology's bonds",
                              b.i, describe_bead(topology, b.i), b.j, describe_bead(topology, b.j), length, b.r0_A,
                              max_stretch_A));
  }
}

bool surface_drives_into_fixed_beads(const RunSpec& spec) {
  // The surface moves by −s(t)·direction (docs/protocols.md#indentation): toward the molecule,
  // whose side its normal points to, only when direction · normal < 0.
  return spec.indentation.enabled && spec.indentation.move_surface && !spec.fixed_beads.empty() &&
         dot(spec.indentation.direction, spec.indentation.surface.normal) < 0.0;
}

BondStretchCheck bond_check_for_run(const Topology& topology, const RunSpec& spec,
                                    std::optional<std::int64_t> overload) {
  BondStretchCheck check(topology, spec.sop.fene_R0_A, bond_break_remedy(spec));
  if (bond_break_remedy(spec) == std::string_view(BondStretchCheck::kEquilibriumRemedy))
    check.use_remedy_from(BondStretchCheck::kThermalBreakFromStep, BondStretchCheck::kThermalRemedy);
  if (overload)
    check.use_remedy_from(*overload,
                          "the base (or a moving plane) has travelled past the chain's contour length by then, loading the straight chain "
                          "beyond 1000 pN: give fewer steps (the run's start warns with a step count when the run "
                          "goes that far), as pulling more slowly only takes longer to the same break; at speeds "
                          "whose drag alone breaks bonds, " +
                              std::string(BondStretchCheck::kPullingRemedy));
  if (surface_drives_into_fixed_beads(spec)) check.use_known_cause(kSurfaceIntoFixedBeadsCause, kSurfaceIntoFixedBeadsRemedy);
  return check;
}

}  // namespace ermak
