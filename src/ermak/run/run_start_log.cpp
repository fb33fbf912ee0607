#include "ermak/run/run_start_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ermak/config/sopgpu_config.h"
#include "ermak/core/build_info.h"
#include "ermak/core/units.h"
#include "ermak/model/residue_selection.h"
#include "ermak/run/bonded_piece_check.h"
#include "ermak/run/config_fingerprint.h"

namespace ermak {

void log_heating_schedule(const RunSpec& spec, spdlog::logger& log) {
  const TemperatureSchedule& heat = spec.temperature;
  if (!heat.heating()) return;
  // The schedule in words, and whether the run reaches its stop (docs/config.md#heating--stepwise-heating-optional).
  const double per_K = 1.0 / units::kBoltzmann_kcal_per_mol_K;
  // A stop later than any run may go (kMostRunSteps) is never reached either: a step count
  // "to hold it" that run.steps refuses is no advice.
  const std::int64_t at_stop = heat.stop_step() > kMostRunSteps - heat.every_steps
                                   ? std::numeric_limits<std::int64_t>::max()
                                   : heat.stop_step();
  log.info("heating: {:.6g} K to {:.6g} K by {:+.6g} K every {} steps; {}", heat.start_kcal_per_mol * per_K,
           heat.stop_kcal_per_mol * per_K, heat.increment_kcal_per_mol * per_K, heat.every_steps,
           at_stop == std::numeric_limits<std::int64_t>::max()
               ? std::string("the stop is never reached")
               : fmt::format("at {:.6g} K from step {}", heat.stop_kcal_per_mol * per_K, at_stop));
  // The step from s to s + 1 runs at at_step(s): the last one simulated at at_step(steps − 1),
  // and the stop temperature is held for a whole stair from at_stop to at_stop + every.
  const std::int64_t whole_stop_stair =
      at_stop > std::numeric_limits<std::int64_t>::max() - heat.every_steps ? at_stop : at_stop + heat.every_steps;
  // A .sop run's stop is the temperature its numsteps reach (SOP-GPU's staircase has none):
  // not the user's, so neither warning below is theirs to act on.
  const bool derived_stop = is_sopgpu_config(spec.config_path);
  if (at_stop == std::numeric_limits<std::int64_t>::max() && !derived_stop)
    log.warn("warning: heating: the increment ({:+.6g} K every {} steps) is too small for any run to reach the stop "
             "temperature {:.6g} K (later than the {} steps a run may take); the last of the run's {} steps runs at {:.6g} K",
             heat.increment_kcal_per_mol * per_K, heat.every_steps, heat.stop_kcal_per_mol * per_K, kMostRunSteps,
             spec.steps, heat.at_step(std::max<std::int64_t>(spec.steps - 1, 0)) * per_K);
  else if (spec.steps < whole_stop_stair && !derived_stop)
    log.warn("warning: heating: the last of the run's {} steps runs at {:.6g} K, {} the schedule's stop temperature {:.6g} K "
             "(steps {} to {}); give run.steps ≥ {} to hold it for a whole stair",
             spec.steps, heat.at_step(std::max<std::int64_t>(spec.steps - 1, 0)) * per_K,
             spec.steps <= at_stop ? "before" : "during a part stair at", heat.stop_kcal_per_mol * per_K, at_stop,
             whole_stop_stair, whole_stop_stair);
  // An increment larger than the whole range jumps to the stop at once: a unit slip
  // (increment_kcal_per_mol = 5 beside start and stop in K) more often than a plan.
  // (Relative tolerance: 100 K against 300 → 400 K, each converted to kcal/mol, differ in
  // the last digit.)
  if (!derived_stop && std::abs(heat.increment_kcal_per_mol) >=
                           std::abs(heat.stop_kcal_per_mol - heat.start_kcal_per_mol) * (1.0 - 1e-9))
    log.warn("warning: heating: the increment ({:+.6g} K) spans the whole range from {:.6g} to {:.6g} K: one jump "
             "to the stop temperature at step {} (an increment in kcal/mol meant in K?)",
             heat.increment_kcal_per_mol * per_K, heat.start_kcal_per_mol * per_K, heat.stop_kcal_per_mol * per_K,
             heat.every_steps);
}

void log_run_start(const RunSpec& spec, const Topology& topology, const std::vector<Vec3d>& positions_A,
                   const std::vector<std::int32_t>& pieces, const std::string& travel_warning,
                   const std::vector<std::string>& bead_selection_lines, const RunOptions& options,
                   const RunLog& run_log) {
  auto& log = run_log.both;
  const std::int32_t n = topology.bead_count();
  const std::int32_t replicas = spec.replicas;
  log->info("ermak {} {} {}", build_description(),
            options.dry_run ? (options.resume ? "dry run of resuming" : "dry run of") : options.resume ? "resuming" : "starting",
            is_demo_config(spec.config_path) ? std::string("the demo's embedded configuration (ermak demo "
                                                          "--print-config)")
                                             : spec.config_path.string());
  const std::int32_t piece_count = pieces.empty() ? 0 : *std::max_element(pieces.begin(), pieces.end()) + 1;
  // A complex's interface: its contacts between chains, as `ermak topology` counts them.
  const std::size_t between_chains = count_contacts_between_chains(topology);
  bool several_chains = false;
  for (const BeadInfo& b : topology.beads) several_chains = several_chains || b.chain_id != topology.beads[0].chain_id;
  log->info("model: {} beads, {} bonds, {} native contacts{}, {} replica{}{}", n, topology.bonds.size(),
            topology.native_contacts.size(),
            several_chains ? fmt::format(" ({} between chains)", between_chains) : std::string(), replicas,
            replicas == 1 ? "" : "s",
            piece_count > 1 ? fmt::format("; {} bonded pieces (chains, and chains split at breaks)", piece_count) : "");
  // By content, so that `ermak analyze` pools only runs of one model (docs/analysis.md#pooling-runs-of-one-condition).
  log->info("model fingerprint: {} (its beads, bonds and native contacts with their parameters)",
            model_fingerprint(topology));
  if (!spec.input.structure.empty())
    log->info("model built from the structure by [model]'s C-alpha rule: native contacts between C-alphas closer "
              "than {} A, more than 2 residues apart (`ermak topology` builds SOP-GPU's rule, with side-chain "
              "contacts, for [input] topology: docs/formats.md)",
              fmt::format("{:g}", spec.model_build.native_cutoff_A));
  log->info("chains (for bead selections such as \"A:76\"): {}", chain_summary(topology, 12));
  log->info("extent at the input coordinates: {}", extent_summary(topology, positions_A));
  if (const std::string warning = pulled_apart_warning(spec, topology, pieces); !warning.empty())
    log->warn("{}", warning);
  if (!travel_warning.empty()) log->warn("{}", travel_warning);
  for (const std::string& note : spec.notes) log->info("note: {}", note);
  for (const std::string& line : bead_selection_lines) log->info("bead selection {}", line);
  run_log.file_only->info("resolved configuration:\n{}", spec.resolved_toml);
  log_heating_schedule(spec, *log);
  // Replica r depends only on the seed and r: two runs left at the default seed hold the same
  // trajectories, which pooled in an analysis would count twice.
  const bool default_seed = !is_sopgpu_config(spec.config_path) && !spec.key_sources.count("run.seed");
  log->info("noise: generator {}, layout {}, seed {}{}{}", spec.rng, spec.rng_layout, spec.seed,
            spec.rng == "philox" ? " (counter-based)" : "",
            default_seed ? " (the default: give each run whose replicas are to be pooled its own run.seed)" : "");
  if (const HydrodynamicParameters& h = spec.langevin.hydrodynamics; h.enabled())
    log->info("hydrodynamic interactions: Rotne–Prager–Yamakawa tensor of beads of radius {:g} Å, its square root by "
              "{} (docs/model.md#hydrodynamic-interactions); fixed beads take no part",
              h.radius_A,
              h.method == HydrodynamicMethod::kTea ? "the truncated expansion approximation (TEA), ε at every step"
                                                   : "Cholesky factorisation at every step");
}

}  // namespace ermak
