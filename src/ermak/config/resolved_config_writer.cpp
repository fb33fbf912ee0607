// The resolved configuration (`ermak run --print-config`, run.log's echo, RunSpec::
// resolved_toml): every key of a RunSpec after defaults and unit conversion, as TOML that
// parse_run_spec reads back to the same RunSpec, bit for bit.
#include "ermak/config/toml_config.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/config/toml_unit_keys.h"
#include "ermak/config/toml_values.h"
#include "ermak/core/units.h"
#include "ermak/core/vec3.h"
#include "ermak/model/residue_selection.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;
// The value texts and the unit keys are the readers' too.
using config::A_to_nm;
using config::Conversion;
using config::exact_physical;
using config::kSpeedInternal;
using config::kSpeedUm;
using config::kSpringInternal;
using config::kSpringPn;
using config::nm_to_A;
using config::shortest;
using config::toml_string;
using config::UnitKey;

class TomlWriter {
 public:
  void table(std::string_view name) { out_ << "\n[" << name << "]\n"; }
  void array_table(std::string_view name) { out_ << "\n[[" << name << "]]\n"; }
  void value(std::string_view key, const std::string& text, const std::string& comment = "") {
    out_ << key << " = " << text;
    if (!comment.empty()) out_ << "  # " << comment;
    out_ << '\n';
  }
  void comment(std::string_view text) { out_ << "# " << text << '\n'; }

  // A quantity kept internally in `internal_unit`, written in its physical unit when a
  // decimal exists that converts back to exactly the same double.
  void converted(double internal, UnitKey physical, Conversion to_physical,
                 std::string_view internal_key, std::string_view internal_unit) {
    if (const auto text = exact_physical(internal, to_physical, physical.to_internal))
      value(physical.key, *text, fmt::format("= {} {}", shortest(internal), internal_unit));
    else
      value(internal_key, shortest(internal),
            fmt::format("= {} {}", shortest(to_physical(internal)), physical.unit));
  }

  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

void write_temperature(TomlWriter& w, std::string_view prefix, double kT) {
  const std::string k_key = fmt::format("{}_K", prefix);
  const std::string kcal_key = fmt::format("{}_kcal_per_mol", prefix);
  w.converted(kT, {k_key, units::kelvin_to_kcal_per_mol, "K"}, units::kcal_per_mol_to_kelvin,
              kcal_key, "kcal/mol");
}

std::string integer_list(const std::vector<std::int32_t>& values) {
  return fmt::format("[{}]", fmt::join(values, ", "));
}

// A bead list as the configuration gave it: indices, or with residue selections its items
// as written (quoted), so that the resolved configuration reads back the same.
bool has_bead_selections(const RunSpec& spec, const std::string& key) { return spec.bead_selections.count(key) > 0; }
std::string bead_list_text(const RunSpec& spec, const std::string& key, const std::vector<std::int32_t>& values) {
  const auto it = spec.bead_selections.find(key);
  if (it == spec.bead_selections.end()) return integer_list(values);
  std::vector<std::string> items;
  for (const std::string& item : it->second)
    items.push_back(looks_like_bead_selection(item) ? "\"" + item + "\"" : item);
  return fmt::format("[{}]", fmt::join(items, ", "));
}

std::string vector_text(Vec3d v) {
  return fmt::format("[{}, {}, {}]", shortest(v.x), shortest(v.y), shortest(v.z));
}

void write_direction(TomlWriter& w, const DirectionSpec& d) {
  if (d.end_to_end)
    w.value("direction", "\"end_to_end\"");
  else
    w.value("direction", vector_text(d.vector));
}

void write_speed(TomlWriter& w, double v) {
  w.converted(v, kSpeedUm, units::A_per_tau_to_um_per_s, kSpeedInternal.key, "A/tau_H");
}
void write_spring(TomlWriter& w, double k) {
  w.converted(k, kSpringPn, units::internal_spring_to_pN_per_nm, kSpringInternal.key, "kcal/mol/A^2");
}
void write_output_every(TomlWriter& w, std::int64_t every) {
  if (every > 0)
    w.value("output_every", std::to_string(every));
  else
    w.comment("output_every: [output] energy_every");
}
void write_wall(TomlWriter& w, std::string_view prefix, const WallSpec& wall, std::string_view sigma_key,
                std::string_view epsilon_key) {
  w.value(fmt::format("{}A", prefix), shortest(wall.A));
  w.value(fmt::format("{}B", prefix), shortest(wall.B));
  w.value(sigma_key, shortest(wall.sigma_A));
  w.value(epsilon_key, shortest(wall.epsilon_kcal_per_mol));
}

void write_schedule(TomlWriter& w, const std::vector<ForceSchedulePoint>& points) {
  std::vector<std::string> pN;
  for (const auto& p : points) {
    const auto text = exact_physical(p.force_kcal_per_mol_A, units::internal_force_to_pN, units::pN_to_internal_force);
    if (!text) break;
    pN.push_back(fmt::format("[{}, {}]", p.step, *text));
  }
  if (pN.size() == points.size()) {
    w.value("schedule", fmt::format("[{}]", fmt::join(pN, ", ")), "[step, force_pN]");
    return;
  }
  std::vector<std::string> internal;
  for (const auto& p : points) internal.push_back(fmt::format("[{}, {}]", p.step, shortest(p.force_kcal_per_mol_A)));
  w.value("schedule_kcal_per_mol_A", fmt::format("[{}]", fmt::join(internal, ", ")), "[step, force kcal/mol/A]");
}

// A protocol table's `ends`: as given (numbers or selections), else a comment naming the default.
void write_ends(TomlWriter& w, const RunSpec& spec, const std::string& table, const std::vector<std::int32_t>& ends) {
  if (!ends.empty() || has_bead_selections(spec, table + ".ends"))
    w.value("ends", bead_list_text(spec, table + ".ends", ends));
  else
    w.comment("ends: the first fixed bead (bead 0 without one) and the first pulled bead");
}

void write_protocols(TomlWriter& w, const RunSpec& spec) {
  if (const PullingSpec& p = spec.pulling; p.enabled) {
    w.table("pulling");
    w.value("pulled_beads", bead_list_text(spec, "pulling.pulled_beads", p.pulled_beads));
    write_speed(w, p.speed_A_per_tau);
    write_spring(w, p.spring_kcal_per_mol_A2);
    write_direction(w, p.direction);
    write_ends(w, spec, "pulling", p.ends);
    write_output_every(w, p.output_every_steps);
  }
  if (const ForceClampSpec& c = spec.force_clamp; c.enabled) {
    w.table("force_clamp");
    w.value("pulled_beads", bead_list_text(spec, "force_clamp.pulled_beads", c.pulled_beads));
    if (c.constant)
      w.converted(c.schedule.front().force_kcal_per_mol_A, {"force_pN", units::pN_to_internal_force, "pN"},
                  units::internal_force_to_pN, "force_kcal_per_mol_A", "kcal/mol/A");
    else
      write_schedule(w, c.schedule);
    write_direction(w, c.direction);
    write_ends(w, spec, "force_clamp", c.ends);
    write_output_every(w, c.output_every_steps);
  }
  if (const PlanePullingSpec& pp = spec.plane_pulling; pp.enabled) {
    w.table("plane_pulling");
    write_output_every(w, pp.output_every_steps);
    for (std::size_t i = 0; i < pp.planes.size(); ++i) {
      const PlaneSpec& p = pp.planes[i];
      w.array_table("plane_pulling.plane");
      w.value("beads", bead_list_text(spec, fmt::format("plane_pulling.plane[{}].beads", i), p.beads));
      w.value("normal", vector_text(p.normal));
      write_speed(w, p.speed_A_per_tau);
      write_spring(w, p.spring_kcal_per_mol_A2);
    }
  }
  if (const IndentationSpec& ind = spec.indentation; ind.enabled) {
    w.table("indentation");
    w.converted(ind.tip_radius_A, {"tip_radius_nm", nm_to_A, "nm"}, A_to_nm, "tip_radius_A", "A");
    w.value("tip_friction", shortest(ind.tip_friction), "zeta_tip, kcal/mol*tau_H/A^2");
    w.value("tip_position_A", vector_text(ind.tip_position_A));
    w.value("base_position_A", vector_text(ind.base_position_A));
    w.value("direction", vector_text(ind.direction));
    write_spring(w, ind.spring_kcal_per_mol_A2);
    write_speed(w, ind.speed_A_per_tau);
    write_wall(w, "tip_", ind.tip, "tip_sigma_A", "tip_epsilon_kcal_per_mol");
    w.value("tip_along_direction_only", ind.tip_along_direction_only ? "true" : "false");
    switch (ind.retract) {
      case RetractAt::kNever: w.comment("no retraction"); break;
      case RetractAt::kDepth:
        w.converted(ind.retract_depth_A, {"retract_at_depth_nm", nm_to_A, "nm"}, A_to_nm, "retract_at_depth_A", "A");
        break;
      case RetractAt::kForce:
        w.converted(ind.retract_force_kcal_per_mol_A, {"retract_at_force_pN", units::pN_to_internal_force, "pN"},
                    units::internal_force_to_pN, "retract_at_force_kcal_per_mol_A", "kcal/mol/A");
        break;
      case RetractAt::kStep: w.value("retract_at_step", std::to_string(ind.retract_step)); break;
    }
    w.value("move_surface", ind.move_surface ? "true" : "false");
    write_output_every(w, ind.output_every_steps);
    if (const IndentationSurfaceSpec& s = ind.surface; s.enabled) {
      w.table("indentation.surface");
      w.value("type", s.beads ? "\"beads\"" : "\"plane\"");
      w.value("point_A", vector_text(s.point_A));
      w.value("normal", vector_text(s.normal));
      write_wall(w, "", s.wall, "sigma_A", "epsilon_kcal_per_mol");
      w.value("tip_interaction", s.tip_interaction ? "true" : "false");
      if (s.beads) {
        w.value("spacing_A", shortest(s.spacing_A));
        w.value("grid_size", std::to_string(s.grid_size));
      }
    }
  }
}

}  // namespace

std::string resolved_toml(const RunSpec& spec) {
  TomlWriter w;
  w.comment("ermak resolved configuration: every key after defaults and unit conversion.");
  w.comment(fmt::format("source: {}", spec.config_path.string()));

  w.table("input");
  if (!spec.input.structure.empty()) w.value("structure", toml_string(spec.input.structure.string()));
  if (!spec.input.topology.empty()) w.value("topology", toml_string(spec.input.topology.string()));
  if (!spec.input.coordinates.empty())
    w.value("coordinates", toml_string(spec.input.coordinates.string()));
  if (!spec.input.chains.empty()) {
    std::vector<std::string> names;
    for (const std::string& c : spec.input.chains) names.push_back(toml_string(c));
    w.value("chains", fmt::format("[{}]", fmt::join(names, ", ")));
  }
  if (!spec.input.replica_coordinates.empty()) {
    std::vector<std::string> files;
    for (const fs::path& p : spec.input.replica_coordinates) files.push_back(toml_string(p.string()));
    w.value("replica_coordinates", fmt::format("[{}]", fmt::join(files, ", ")));
  }

  w.table("model");
  w.value("native_cutoff_A", shortest(spec.model_build.native_cutoff_A));
  w.value("native_energy_kcal_per_mol", shortest(spec.model_build.native_energy_kcal_per_mol));
  w.value("chain_break_A", shortest(spec.model_build.chain_break_A));
  w.value("fene_spring_kcal_per_mol_A2", shortest(spec.sop.fene_k_kcal_per_mol_A2));
  w.value("fene_max_stretch_A", shortest(spec.sop.fene_R0_A));
  w.value("repulsion_energy_kcal_per_mol", shortest(spec.sop.repulsion_eps_kcal_per_mol));
  w.value("repulsion_sigma_A", shortest(spec.sop.repulsion_sigma_A));
  w.value("pair_cutoff_A", shortest(spec.sop.pair_cutoff_A));

  const bool heating = spec.temperature.every_steps > 0;
  w.table("run");
  w.value("steps", std::to_string(spec.steps));
  w.value("replicas", std::to_string(spec.replicas));
  w.value("seed", std::to_string(spec.seed));
  w.converted(spec.langevin.timestep_tau, {"timestep_ps", units::ps_to_tau, "ps"},
              units::tau_to_ps, "timestep_tau", "tau_H");
  if (heating)
    w.comment("temperature: the [heating] start");
  else
    write_temperature(w, "temperature", spec.langevin.temperature_kcal_per_mol);
  w.value("friction", shortest(spec.langevin.zeta), "zeta, kcal/mol*tau_H/A^2");
  w.value("backend", toml_string(spec.backend));
  w.value("threads", std::to_string(spec.threads), spec.threads == 0 ? "all available" : "");
  if (spec.all_devices) w.value("device", toml_string("all"), "every GPU; the replicas split between them");
  else if (!spec.devices.empty())
    w.value("device", fmt::format("[{}]", fmt::join(spec.devices, ", ")), "the replicas split between these GPUs");
  else if (spec.device >= 0) w.value("device", std::to_string(spec.device));
  else w.comment("device: $ERMAK_CUDA_DEVICE, else 0");
  w.value("cuda_kernels", toml_string(spec.cuda_kernels));
  w.value("rng", toml_string(spec.rng), "generator of the thermal noise (docs/rng.md)");
  w.value("rng_layout", toml_string(spec.rng_layout));

  if (heating) {
    w.table("heating");
    write_temperature(w, "start", spec.temperature.start_kcal_per_mol);
    write_temperature(w, "stop", spec.temperature.stop_kcal_per_mol);
    write_temperature(w, "increment", spec.temperature.increment_kcal_per_mol);
    w.value("every_steps", std::to_string(spec.temperature.every_steps));
  }

  w.table("minimize");
  w.value("steps", std::to_string(spec.minimize.max_steps));
  w.converted(spec.minimize.force_tolerance_kcal_per_mol_A,
              {"force_tolerance_pN", units::pN_to_internal_force, "pN"},
              units::internal_force_to_pN, "force_tolerance_kcal_per_mol_A", "kcal/mol/A");
  w.value("max_displacement_A", shortest(spec.minimize.max_displacement_A));

  w.table("fixed");
  w.value("beads", bead_list_text(spec, "fixed.beads", spec.fixed_beads));

  w.table("neighbor");
  w.value("skin_A", shortest(spec.neighbor.skin_A));

  // Written only when on: runs without hydrodynamics keep the resolved text (and the
  // checkpoint fingerprint) of the versions before them.
  if (spec.langevin.hydrodynamics.enabled()) {
    w.table("hydrodynamics");
    w.value("method", toml_string(hydrodynamic_method_name(spec.langevin.hydrodynamics.method)));
    w.value("radius_A", shortest(spec.langevin.hydrodynamics.radius_A));
  }

  w.table("output");
  w.value("directory", toml_string(spec.output.directory.string()));
  w.value("energy_every", std::to_string(spec.output.energy_every_steps));
  w.value("trajectory_every", std::to_string(spec.output.trajectory_every_steps));
  w.value("checkpoint_every", std::to_string(spec.output.checkpoint_every_steps));
  w.value("contact_formed_ratio", shortest(spec.output.contact_formed_ratio));
  write_protocols(w, spec);
  return w.str();
}

}  // namespace ermak
