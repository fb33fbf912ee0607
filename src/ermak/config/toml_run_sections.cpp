// The readers of the run's tables (docs/config.md): [input], [model], [run], [heating],
// [minimize], [fixed], [output]; the protocols' are in toml_protocol_sections.cpp.
#include "ermak/config/toml_section_readers.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "ermak/core/closest_name.h"
#include "ermak/core/units.h"
#include "ermak/model/residue_selection.h"
#include "ermak/rng/noise_source.h"

namespace ermak::config {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 13> kTables = {
    "input",  "model",   "run",         "heating",     "minimize",      "fixed",       "neighbor",
    "output", "pulling", "force_clamp", "plane_pulling", "indentation", "hydrodynamics"};

const UnitKey kTemperatureKcal{"temperature_kcal_per_mol", identity, "kcal/mol"};
const UnitKey kTemperatureK{"temperature_K", units::kelvin_to_kcal_per_mol, "K"};

// run.rng and run.rng_layout (docs/rng.md#choosing-the-generator-of-a-run): names checked
// against the generator registry, the layout resolved to the generator's default.
void read_rng_choice(const Section& s, RunSpec& spec) {
  const auto generator = s.string("rng");
  const auto layout = s.string("rng_layout");
  if (generator) {
    const std::vector<std::string> known = rng::generator_names();
    if (std::find(known.begin(), known.end(), *generator) == known.end())
      throw s.error("rng", fmt::format("unknown generator \"{}\"; known: {}", *generator, fmt::join(known, ", ")));
    spec.rng = *generator;
  }
  spec.rng_layout = rng::default_layout(spec.rng);
  if (layout) {
    const std::vector<std::string> supported = rng::layout_names(spec.rng);
    if (std::find(supported.begin(), supported.end(), *layout) == supported.end())
      throw s.error("rng_layout", fmt::format("generator \"{}\" has no layout \"{}\"; it supports: {} "
                                              "(docs/rng.md#layouts)",
                                              spec.rng, *layout, fmt::join(supported, ", ")));
    spec.rng_layout = *layout;
  }
}

// run.device: a GPU index, a list of them that share the replicas, or "all"
// (docs/config.md#run--the-dynamics, docs/gpu.md#several-gpus).
void read_device(const Section& s, RunSpec& spec) {
  if (!s.has("device")) return;
  if (const auto name = s.string_if_string("device")) {
    if (*name != "all")
      throw s.error("device", fmt::format("must be a GPU index, a list of them or \"all\", got \"{}\"", *name));
    spec.all_devices = true;
    spec.devices.clear();
    return;
  }
  spec.all_devices = false;
  if (s.is_array("device")) {
    const auto list = *s.integers("device", kNonNegativeInt32);
    if (list.empty()) throw s.error("device", "must list at least one GPU");
    spec.devices.assign(list.begin(), list.end());
    if (spec.devices.size() == 1) {
      spec.device = spec.devices.front();
      spec.devices.clear();
    }
    return;
  }
  spec.devices.clear();
  assign(spec.device, s.integer("device", kNonNegativeInt32));
}

}  // namespace

void reject_unknown_tables(const Context& ctx, const toml::table& root) {
  for (const auto& [key, value] : root) {
    if (std::find(kTables.begin(), kTables.end(), key.str()) != kTables.end()) continue;
    const std::string known = join(kTables, "[", "]");
    const auto close = closest_name(key.str(), kTables);
    const std::string hint = close ? fmt::format(" (did you mean [{}]?)", *close) : std::string();  // one table
    throw error_at(ctx, value, std::string(key.str()),
                   value.is_table()
                       ? fmt::format("unknown table{}; known tables: {}", hint, known)
                       : fmt::format("unknown key; top-level keys belong in a table: {}", known));
  }
}

void read_input(const Section& s, InputSpec& in) {
  const auto structure = s.path("structure");
  const auto topology = s.path("topology");
  const auto coordinates = s.path("coordinates");
  if (structure && topology)
    throw s.error(s.overridden_of("structure", "topology", "topology"),
                  "give either input.structure or input.topology, not both");
  if (!structure && !topology)
    throw s.error(
        "missing model input: give input.structure (all-atom PDB/mmCIF) or input.topology "
        "(.top/.etop) with input.coordinates");
  // An .etop from ermak topology stores the native coordinates, which are then the start
  // (docs/formats.md); a SOP-GPU .top has none.
  auto lower_extension = [](const fs::path& path) {
    std::string ext = path.extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return ext;
  };
  auto is_etop = [&](const fs::path& path) { return lower_extension(path) == ".etop"; };
  auto is_structure_file = [&](const fs::path& path) {
    const std::string ext = lower_extension(path.extension() == ".gz" ? path.stem() : path);  // 1ubq.pdb.gz
    return ext == ".pdb" || ext == ".cif" || ext == ".ent" || ext == ".mmcif";
  };
  // By name only (the file is not read here): a PDB/mmCIF is an all-atom structure or the
  // coordinates of a coarse-grained model (SOP-GPU's ww_cg.pdb), and either has its own key.
  if (topology && is_structure_file(*topology))
    throw s.error("topology", "input.topology is a SOP topology (.top or .etop), and " +
                                  topology->filename().string() +
                                  " is a PDB/mmCIF structure or coordinates file: give an all-atom structure as "
                                  "input.structure" +
                                  (coordinates ? " (without input.coordinates)" : "") +
                                  ", the coordinates of a coarse-grained model as input.coordinates with its .top "
                                  "or .etop as input.topology, or build the model with `ermak topology` and give "
                                  "its .etop");
  if (topology && !coordinates && !is_etop(*topology))
    throw s.error("topology", "input.topology needs input.coordinates (PDB with the initial "
                              "coordinates; only an .etop stores its own)");
  if (structure && coordinates)
    throw s.error("coordinates", "input.coordinates goes with input.topology; input.structure "
                                 "already has coordinates");
  assign(in.structure, structure);
  assign(in.topology, topology);
  assign(in.coordinates, coordinates);
  if (const auto chains = s.strings("chains")) {
    if (!structure)
      throw s.error("chains", "goes with input.structure (the chains of the file to model); a topology holds "
                              "its own chains (`ermak topology FILE --chains …` builds one of some chains)");
    if (chains->empty()) throw s.error("chains", "lists no chain: name at least one, or leave the key out");
    for (std::size_t i = 0; i < chains->size(); ++i)
      if (std::find(chains->begin(), chains->begin() + std::ptrdiff_t(i), (*chains)[i]) !=
          chains->begin() + std::ptrdiff_t(i))
        throw s.error("chains", "chain '" + (*chains)[i] + "' is listed twice");
    in.chains = *chains;
  }
  if (const auto per_replica = s.paths("replica_coordinates")) {
    if (!topology)
      throw s.error("replica_coordinates", "goes with input.topology (one coordinates PDB per replica)");
    if (per_replica->empty())
      throw s.error("replica_coordinates", "lists no files: give one coordinates PDB per replica (run.replicas "
                                           "files), or leave the key out");
    in.replica_coordinates = *per_replica;
  }
}

void read_model(const Section& s, const InputSpec& input, ModelBuildSpec& m, SopParameters& sop) {
  assign(m.native_cutoff_A, s.real("native_cutoff_A", kPositive, "Å"));
  assign(m.native_energy_kcal_per_mol, s.real("native_energy_kcal_per_mol", kPositiveFloat, "kcal/mol"));
  assign(m.chain_break_A, s.real("chain_break_A", kPositive, "Å"));
  // These three build a model from input.structure; a topology file carries its own bonds
  // and contacts, so another value there would be silently ignored. (The defaults pass:
  // a run's resolved configuration writes them for every input.)
  if (!input.topology.empty()) {
    const ModelBuildSpec defaults;
    const struct {
      const char* key;
      double value, fallback;
      const char* option;  // ermak topology's
    } build_keys[] = {{"native_cutoff_A", m.native_cutoff_A, defaults.native_cutoff_A, "--r-limit"},
                      {"native_energy_kcal_per_mol", m.native_energy_kcal_per_mol,
                       defaults.native_energy_kcal_per_mol, "--eh"},
                      {"chain_break_A", m.chain_break_A, defaults.chain_break_A, "--break-distance"}};
    for (const auto& [key, value, fallback, option] : build_keys) {
      if (s.has(key) && value != fallback)
        throw s.error(key, fmt::format("applies to a model built from input.structure; input.topology's file "
                                       "already holds the bonds and native contacts (build it again with "
                                       "`ermak topology {}`, docs/topology.md)",
                                       option));
    }
  }
  assign(sop.fene_k_kcal_per_mol_A2, s.real_float("fene_spring_kcal_per_mol_A2", "kcal/mol/Å²"));
  assign(sop.fene_R0_A, s.real_float("fene_max_stretch_A", "Å"));
  assign(sop.repulsion_eps_kcal_per_mol, s.real_float("repulsion_energy_kcal_per_mol", "kcal/mol"));
  assign(sop.repulsion_sigma_A, s.real_float("repulsion_sigma_A", "Å"));
  assign(sop.pair_cutoff_A, s.real_float("pair_cutoff_A", "Å"));
}

// Returns whether the run temperature was given (heating may not give it a second time).
bool read_run(const Section& s, RunSpec& spec) {
  // Where steps and replicas were given, for the errors found only when the run starts.
  // The time step's and temperature's too: the step-size check names them (run/step_size_check.h);
  // and the seed's, whose absence the run log notes (replicas depend only on seed and index).
  for (const char* key : {"steps", "replicas", "seed", "timestep_tau", "timestep_ps", "temperature_K",
                          "temperature_kcal_per_mol", "friction"})
    if (s.has(key)) spec.key_sources[s.field(key)] = s.source(key);
  assign(spec.steps, s.integer("steps", kRunSteps));
  assign(spec.replicas, s.integer("replicas", kPositiveInt32));
  assign(spec.seed, s.integer("seed", kNonNegative));
  const auto timestep = either(s, {"timestep_tau", identity, "tau_H"},
                               {"timestep_ps", units::ps_to_tau, "ps"}, kPositive);
  if (timestep) spec.langevin.timestep_tau = timestep->value;
  const auto temperature = either(s, kTemperatureKcal, kTemperatureK, kPositive);
  if (temperature) spec.langevin.temperature_kcal_per_mol = temperature->value;
  assign(spec.langevin.zeta, s.real("friction", kPositive, "kcal/mol·tau_H/Å²"));
  if (const auto backend = s.string("backend")) {
    if (*backend != "auto" && *backend != "cpu" && *backend != "cuda")
      throw s.error("backend", fmt::format("must be \"auto\", \"cpu\" or \"cuda\", got \"{}\"", *backend));
    spec.backend = *backend;
  }
  assign(spec.threads, s.integer("threads", kThreads));
  read_device(s, spec);
  if (const auto kernels = s.string("cuda_kernels")) {
    if (*kernels != "auto" && *kernels != "block" && *kernels != "perbead")
      throw s.error("cuda_kernels",
                    fmt::format("must be \"auto\", \"block\" or \"perbead\", got \"{}\"", *kernels));
    spec.cuda_kernels = *kernels;
  }
  read_rng_choice(s, spec);
  return temperature.has_value();
}

// Without [heating] the temperature is constant; with it, SOP-GPU's stepwise ramp. Either
// way the Langevin temperature is the schedule's value at step 0.
void read_heating(const Section& s, bool run_temperature_given, RunSpec& spec) {
  TemperatureSchedule& t = spec.temperature;
  const double run_T = spec.langevin.temperature_kcal_per_mol;
  t = TemperatureSchedule{run_T, 0.0, 0, run_T};
  if (!s.present()) return;
  // The step-size check at the start names the stop temperature's line when it is the culprit
  // (run/step_size_check.h).
  for (const char* key : {"start_K", "start_kcal_per_mol", "stop_K", "stop_kcal_per_mol"})
    if (s.has(key)) spec.key_sources[s.field(key)] = s.source(key);

  const auto start = either(s, {"start_kcal_per_mol", identity, "kcal/mol"},
                            {"start_K", units::kelvin_to_kcal_per_mol, "K"}, kPositive);
  if (start && run_temperature_given)
    throw s.error(start->key, "the start temperature is also given as run.temperature_*; give "
                              "it in one place");
  const auto stop = either(s, {"stop_kcal_per_mol", identity, "kcal/mol"},
                           {"stop_K", units::kelvin_to_kcal_per_mol, "K"}, kPositive);
  const auto increment = either(s, {"increment_kcal_per_mol", identity, "kcal/mol"},
                                {"increment_K", units::kelvin_to_kcal_per_mol, "K"}, kAny);
  const auto every = s.integer("every_steps", kPositiveInt);
  if (!stop) throw s.error("[heating] needs stop_K or stop_kcal_per_mol");
  if (!increment) throw s.error("[heating] needs increment_K or increment_kcal_per_mol");
  if (!every) throw s.error("[heating] needs every_steps");

  t.start_kcal_per_mol = start ? start->value : run_T;
  t.stop_kcal_per_mol = stop->value;
  t.increment_kcal_per_mol = increment->value;
  t.every_steps = *every;
  const double span = t.stop_kcal_per_mol - t.start_kcal_per_mol;
  if (span == 0.0) throw s.error(stop->key, "equals the start temperature; remove [heating] "
                                            "for a constant temperature");
  if (increment->value == 0.0 || (span > 0) != (increment->value > 0))
    throw s.error(increment->key,
                  fmt::format("out of range: must be {} to go from the start to the stop "
                              "temperature",
                              span > 0 ? "> 0" : "< 0"));
  spec.langevin.temperature_kcal_per_mol = t.start_kcal_per_mol;
}

void read_minimize(const Section& s, MinimizeSpec& m) {
  assign(m.max_steps, s.integer("steps", kNonNegative));
  // The internal-unit form exists so that resolved_toml can always write a value that
  // reads back exactly (see TomlWriter::converted).
  const auto tolerance = either(s, {"force_tolerance_pN", units::pN_to_internal_force, "pN"},
                                {"force_tolerance_kcal_per_mol_A", identity, "kcal/mol/Å"},
                                kPositive);
  if (tolerance) m.force_tolerance_kcal_per_mol_A = tolerance->value;
  assign(m.max_displacement_A, s.real("max_displacement_A", kPositive, "Å"));
}

void remember(RunSpec& spec, const Section& s, std::string_view key) {
  if (s.has(key)) spec.key_sources[s.field(key)] = s.source(key);
}

// A list of beads (docs/config.md#bead-selections): 0-based indices, or residue selections
// such as "A:76", which need the model: then the items go to spec.bead_selections
// (resolved by run/bead_lists.h) and the list returned is empty. `required` makes an
// absent or empty list an error; config/bead_list_checks.h checks the lists together.
std::vector<std::int32_t> bead_list(const Section& s, std::string_view key, bool required, RunSpec& spec) {
  const toml::node* n = s.node(key);
  if (!n) {
    if (required)
      throw s.error(fmt::format("[{}] needs {} (0-based bead indices or residue selections such as \"A:76\")",
                                s.name(), key));
    return {};
  }
  const auto* array = n->as_array();
  if (!array)
    throw s.error(key, fmt::format("expected an array of bead indices or residue selections, got {}",
                                   type_name(n->type())));
  std::vector<std::int32_t> indices;
  std::vector<std::string> items;
  bool selections = false;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    const std::string where = fmt::format("{}[{}]", s.field(key), i);
    if (const auto* text = item.as_string()) {
      std::string why;
      const bool parsed = looks_like_position_selection(text->get())
                              ? parse_position_selection(text->get(), &why).has_value()
                              : parse_residue_selection(text->get(), &why).has_value();
      if (!parsed) throw s.error_node(item, where, why);
      items.push_back(text->get());
      selections = true;
    } else {
      indices.push_back(std::int32_t(s.integer_in(item, where, kNonNegativeInt32)));
      items.push_back(std::to_string(indices.back()));
    }
  }
  if (items.empty() && required) throw s.error(key, "must list at least one bead");
  remember(spec, s, key);
  if (!selections) return indices;
  spec.bead_selections[s.field(key)] = items;
  return {};
}

void read_fixed(const Section& s, RunSpec& spec) { spec.fixed_beads = bead_list(s, "beads", false, spec); }

// [hydrodynamics] (docs/config.md#hydrodynamics--hydrodynamic-interactions-optional): its presence turns them on, by "auto"
// (resolved against the model at the start) unless method says otherwise; method = "none"
// turns them off again (e.g. from --set).
void read_hydrodynamics(const Section& s, RunSpec& spec) {
  HydrodynamicParameters& h = spec.langevin.hydrodynamics;
  if (!s.present()) return;
  h.method = HydrodynamicMethod::kAuto;
  if (const auto method = s.string("method")) {
    if (*method == "auto") h.method = HydrodynamicMethod::kAuto;
    else if (*method == "tea") h.method = HydrodynamicMethod::kTea;
    else if (*method == "cholesky") h.method = HydrodynamicMethod::kCholesky;
    else if (*method == "none") h.method = HydrodynamicMethod::kNone;
    else
      throw s.error("method",
                    fmt::format("must be \"auto\", \"tea\", \"cholesky\" or \"none\", got \"{}\"", *method));
  }
  assign(h.radius_A, s.real("radius_A", kPositive, "Å"));
  remember(spec, s, "method");  // the size check at the start names its line (run/hydrodynamics_check.h)
}

void read_output(const Section& s, OutputSpec& o) {
  assign(o.directory, s.path("directory"));
  assign(o.energy_every_steps, s.integer("energy_every", kPositiveInt));
  assign(o.trajectory_every_steps, s.integer("trajectory_every", kNonNegative));
  assign(o.checkpoint_every_steps, s.integer("checkpoint_every", kNonNegative));
  assign(o.contact_formed_ratio, s.real("contact_formed_ratio", kAboveOne, ""));
}

}  // namespace ermak::config
