#include "ermak/run/start_forces.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/load_system.h"
#include "ermak/model/closest_pair.h"
#include "ermak/model/residue_selection.h"
#include "ermak/physics/langevin_step.h"

namespace ermak {

double first_step_move_A(const RunSpec& spec, double force_kcal_per_mol_A) {
  return physics::langevin_mobility_step<double>(spec.langevin.timestep_tau, spec.langevin.zeta) * force_kcal_per_mol_A;
}

void warn_of_start_forces(const State& forces, const Topology& topology, const RunSpec& spec, spdlog::logger& log) {
  double largest = 0.0;
  std::int32_t replica = 0, bead = 0;
  for (std::int32_t r = 0; r < forces.replica_count; ++r)
    for (std::int32_t i = 0; i < forces.bead_count; ++i) {
      const Vec3f f = forces.position(r, i);
      const double norm = std::sqrt(double(f.x) * f.x + double(f.y) * f.y + double(f.z) * f.z);
      if (norm > largest) {  // refuse_coincident_start has refused a force that is not finite
        largest = norm;
        replica = r;
        bead = i;
      }
    }
  if (first_step_move_A(spec, largest) < 0.5 * double(spec.sop.fene_R0_A)) return;
  log.warn("warning: at the start {}{} feels {:.4g} pN, which moves it {:.3g} Å in one step (half the bonds' R0 is "
           "{:g} Å): the dynamics will break a bond; add a [minimize] section (docs/config.md) or check "
           "the start coordinates (overlapping beads)",
           describe_bead(topology, bead), forces.replica_count > 1 ? fmt::format(" of replica {}", replica) : "",
           units::internal_force_to_pN(largest), first_step_move_A(spec, largest), 0.5 * double(spec.sop.fene_R0_A));
}

// Beads this far apart or more are not on top of each other: a force they cannot make finite
// comes from somewhere else.
constexpr double kApartBeads_A = 0.5;

void refuse_coincident_start(Engine& engine, const State& forces, const RunSpec& spec) {
  for (std::int32_t r = 0; r < forces.replica_count; ++r)
    for (std::int32_t i = 0; i < forces.bead_count; ++i) {
      const Vec3f f = forces.position(r, i);
      if (std::isfinite(f.x) && std::isfinite(f.y) && std::isfinite(f.z)) continue;
      const State& start = engine.state();
      std::vector<Vec3d> positions(std::size_t(start.bead_count));
      for (std::int32_t b = 0; b < start.bead_count; ++b) positions[std::size_t(b)] = vec_cast<double>(start.position(r, b));
      const ClosestPair pair = closest_pair(positions);
      // No beads on top of each other: the model's numbers overflow a float force (an audit's
      // native contact with ε_h = 3e38 was blamed on the coordinates).
      if (start.bead_count < 2 || pair.distance_A >= kApartBeads_A)
        throw Error((spec.input.structure.empty() ? spec.input.topology : spec.input.structure).string(), 0, "",
                    fmt::format("bead {}{} feels a force that is not finite at the start{}: a parameter too large "
                                "for single-precision forces — the model's (a native contact's ε_h or r0, a bond's "
                                "r0) or the force field's and protocols' in the configuration ([model] energies, "
                                "spring constants, σ; a protocol's spring or force)",
                                i, forces.replica_count > 1 ? fmt::format(" of replica {}", r) : "",
                                start.bead_count < 2 ? std::string()
                                                     : fmt::format(", with no two beads closer than {:.3g} Å",
                                                                   pair.distance_A)));
      const bool own_file = std::size_t(r) < spec.input.replica_coordinates.size();
      throw Error((own_file ? spec.input.replica_coordinates[std::size_t(r)] : start_coordinates_source(spec.input)).string(),
                  0, own_file ? replica_coordinates_field(r) : "",
                  fmt::format("beads {} and {}{} are {:.3g} Å apart at the start (the closest pair; bead {} feels a "
                              "force that is not finite): beads on top of each other have no SOP energy, and no "
                              "minimisation can part them; correct the start coordinates",
                              pair.i, pair.j, forces.replica_count > 1 ? fmt::format(" of replica {}", r) : "",
                              pair.distance_A, i));
    }
}

void log_minimisation(const MinimizeResult& m, double seconds, const RunSpec& spec, spdlog::logger& log) {
  // Not converged before the limit: every replica that did not converge stopped where a
  // step of 10⁻⁷ Å no longer lowered its energy (float precision), not at the limit.
  log.info("minimisation: {} iteration{} in {:.3g} s, max |F| = {:.4g} pN, {}", m.iterations,
           m.iterations == 1 ? "" : "s", seconds, units::internal_force_to_pN(m.max_force_kcal_per_mol_A),
           m.converged     ? "converged"
           : m.interrupted ? "stopped by a signal"
           : m.iterations < spec.minimize.max_steps
               ? "not converged: stopped where a step of 1e-7 A no longer lowers the energy (float precision)"
               : "not converged (iteration limit)");
  if (!m.interrupted && !(first_step_move_A(spec, m.max_force_kcal_per_mol_A) < 0.5 * double(spec.sop.fene_R0_A)))
    log.warn("warning: after the minimisation a bead still feels {:.4g} pN, which moves it {:.3g} Å in one "
             "step (half the bonds' R0 is {:g} Å): the dynamics will break a bond; give more [minimize] steps "
             "(or check the start: overlapping beads)",
             units::internal_force_to_pN(m.max_force_kcal_per_mol_A),
             first_step_move_A(spec, m.max_force_kcal_per_mol_A), 0.5 * double(spec.sop.fene_R0_A));
}

}  // namespace ermak
