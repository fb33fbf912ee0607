#include "ermak/config/toml_config.h"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "ermak/config/bead_list_checks.h"
#include "ermak/config/toml_parsing.h"
#include "ermak/config/toml_section.h"
#include "ermak/config/toml_section_readers.h"
#include "ermak/core/error.h"
#include "ermak/io/input_file.h"

namespace ermak {

namespace fs = std::filesystem;

namespace config {
namespace {

// The configuration's tables, each with the keys it knows, read in order; the readers are
// in toml_run_sections.cpp and toml_protocol_sections.cpp.
RunSpec build_spec(const Context& ctx, const toml::table& root, const fs::path& source_name) {
  reject_unknown_tables(ctx, root);
  RunSpec spec;
  spec.config_path = source_name;
  // The output directory defaults relative to the config too, like every other path.
  spec.output.directory = fs::absolute(ctx.base_dir / spec.output.directory).lexically_normal();

  const Section input(ctx, root, "input", {"structure", "topology", "coordinates", "replica_coordinates", "chains"});
  read_input(input, spec.input);
  for (const char* key : {"structure", "topology", "coordinates", "replica_coordinates", "chains"})
    remember(spec, input, key);  // a file not found is reported at its line (run/simulation.cpp)
  const Section model(ctx, root, "model",
                      {"native_cutoff_A", "native_energy_kcal_per_mol", "chain_break_A", "fene_spring_kcal_per_mol_A2",
                       "fene_max_stretch_A", "repulsion_energy_kcal_per_mol", "repulsion_sigma_A", "pair_cutoff_A"});
  read_model(model, spec.input, spec.model_build, spec.sop);
  // A cutoff inside σ is reported at its line (run/simulation.cpp), an R0 that makes the
  // steps too large at its own (run/step_size_check.h).
  for (const char* key : {"repulsion_sigma_A", "pair_cutoff_A", "fene_max_stretch_A"}) remember(spec, model, key);
  const bool run_temperature_given = read_run(
      Section(ctx, root, "run",
              {"steps", "replicas", "seed", "timestep_tau", "timestep_ps", "temperature_K",
               "temperature_kcal_per_mol", "friction", "backend", "threads", "device", "cuda_kernels", "rng",
               "rng_layout"}),
      spec);
  if (!spec.input.replica_coordinates.empty() &&
      std::int64_t(spec.input.replica_coordinates.size()) != spec.replicas)
    throw input.error("replica_coordinates",
                      fmt::format("lists {} files but run.replicas is {}: give one coordinates file per replica",
                                  spec.input.replica_coordinates.size(), spec.replicas));
  read_heating(Section(ctx, root, "heating",
                       {"start_K", "start_kcal_per_mol", "stop_K", "stop_kcal_per_mol",
                        "increment_K", "increment_kcal_per_mol", "every_steps"}),
               run_temperature_given, spec);
  read_minimize(Section(ctx, root, "minimize",
                        {"steps", "force_tolerance_pN", "force_tolerance_kcal_per_mol_A",
                         "max_displacement_A"}),
                spec.minimize);
  read_fixed(Section(ctx, root, "fixed", {"beads"}), spec);
  read_hydrodynamics(Section(ctx, root, "hydrodynamics", {"method", "radius_A"}), spec);
  const Section neighbor(ctx, root, "neighbor", {"skin_A"});
  assign(spec.neighbor.skin_A, neighbor.real("skin_A", kPositive, "Å"));
  const Section output(ctx, root, "output",
                       {"directory", "energy_every", "trajectory_every", "checkpoint_every", "contact_formed_ratio"});
  read_output(output, spec.output);
  remember(spec, output, "directory");  // the output-directory checks at the start name its line
  const Section pulling(ctx, root, "pulling",
                        {"pulled_beads", "speed_um_per_s", "speed_A_per_tau", "spring_pN_per_nm",
                         "spring_kcal_per_mol_A2", "direction", "ends", "output_every"});
  const Section clamp(ctx, root, "force_clamp",
                      {"pulled_beads", "force_pN", "force_kcal_per_mol_A", "schedule", "schedule_kcal_per_mol_A",
                       "direction", "ends", "output_every"});
  const Section plane(ctx, root, "plane_pulling", {"plane", "output_every"});
  const Section indentation(
      ctx, root, "indentation",
      {"tip_radius_nm", "tip_radius_A", "tip_friction", "tip_position_A", "base_position_A", "direction",
       "spring_pN_per_nm", "spring_kcal_per_mol_A2", "speed_um_per_s", "speed_A_per_tau", "tip_interaction",
       "tip_A", "tip_B", "tip_sigma_A", "tip_epsilon_kcal_per_mol", "tip_along_direction_only",
       "retract_at_depth_nm", "retract_at_depth_A", "retract_at_force_pN", "retract_at_force_kcal_per_mol_A",
       "retract_at_step", "move_surface", "output_every", "surface"});
  check_protocol_combination(pulling, clamp, indentation);
  read_pulling(pulling, spec);
  read_force_clamp(clamp, spec);
  read_plane_pulling(ctx, plane, spec);
  read_indentation(ctx, indentation, spec);
  check_bead_lists(spec);
  spec.resolved_toml = resolved_toml(spec);
  return spec;
}

}  // namespace
}  // namespace config

RunSpec parse_run_spec(std::string_view toml_text, const fs::path& source_name,
                       const std::vector<std::string>& overrides) {
  const config::Context ctx{source_name.string(), source_name.parent_path()};
  toml::table root = config::parse_toml(toml_text, ctx.file);
  for (const std::string& text : overrides) {
    toml::table override_table = config::parse_override(text);
    config::merge(root, override_table, text);
  }
  RunSpec spec = config::build_spec(ctx, root, source_name);
  spec.set_overrides = overrides;
  return spec;
}

RunSpec load_run_spec(const fs::path& toml_file, const std::vector<std::string>& overrides) {
  check_text_input_file(toml_file, "");
  std::ifstream in(toml_file, std::ios::binary);
  if (!in) throw Error(toml_file.string(), 0, "", "cannot open the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(toml_file.string(), 0, "", "cannot read the configuration file");
  return parse_run_spec(text.str(), toml_file, overrides);
}

}  // namespace ermak
