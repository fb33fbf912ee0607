#include "ermak/config/toml_config.h"

#include <fmt/format.h>

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "ermak/core/error.h"
#include "ermak/core/units.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

// The "file" named in messages about command-line overrides.
constexpr std::string_view kOverrideSource = "--set";
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------
// Numbers as text. Both directions must be exact: resolved_toml has to parse back to the
// same doubles, so every number is written in its shortest round-trip form.

std::string shortest(double v) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  std::string s(buf, end);
  // TOML reads "50" as an integer; a float key must look like a float.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

double parse_double(const std::string& s) {
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// SopParameters are floats; "3.8" reads back as 3.8f, where the double 3.799999952... would
// only clutter the log. Double rounding (text → double → float) can in rare cases miss the
// float, so the short form is used only after checking that it does not.
std::string shortest(float f) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, f).ptr;
  std::string s(buf, end);
  if (static_cast<float>(parse_double(s)) != f) return shortest(static_cast<double>(f));
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

using Conversion = double (*)(double);

// The shortest decimal y (in a physical unit) for which to_internal(y) == internal exactly,
// searched among the doubles next to to_physical(internal). No such y may exist (the
// conversion is not onto); the caller then writes the internal value itself.
std::optional<std::string> exact_physical(double internal, Conversion to_physical,
                                          Conversion to_internal) {
  constexpr int kNeighbours = 8;
  const double centre = to_physical(internal);
  std::optional<std::string> best;
  double down = centre, up = centre;
  auto consider = [&](double y) {
    const std::string s = shortest(y);
    if (to_internal(parse_double(s)) != internal) return;
    if (!best || s.size() < best->size()) best = s;
  };
  consider(centre);
  for (int i = 0; i < kNeighbours; ++i) {
    down = std::nextafter(down, -kInf);
    up = std::nextafter(up, kInf);
    consider(down);
    consider(up);
  }
  return best;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else
          out += c;
    }
  }
  return out + "\"";
}

// ---------------------------------------------------------------------------------------
// Locations. Every node remembers where it was parsed: the config file, or "--set" for
// values merged from the command line (which have no useful line number).

struct Context {
  std::string file;   // the configuration's name in messages
  fs::path base_dir;  // relative paths in the file resolve against it
};

bool from_override(const toml::node& n) {
  return n.source().path && *n.source().path == kOverrideSource;
}

Error error_at(const Context& ctx, const toml::node& n, const std::string& field,
               const std::string& what) {
  const auto& src = n.source();
  const std::string file = src.path ? *src.path : ctx.file;
  const int line = from_override(n) ? 0 : static_cast<int>(src.begin.line);
  return Error(file, line, field, what);
}

std::string_view type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

template <typename Names>
std::string join(const Names& names, std::string_view before = "", std::string_view after = "") {
  std::string out;
  for (const auto name : names) {
    if (!out.empty()) out += ", ";
    out.append(before).append(name).append(after);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Allowed ranges, written into the messages so the user sees what would be accepted.

struct Range {
  double min = -kInf;
  bool min_exclusive = false;
  double max = kInf;

  bool contains(double v) const { return (min_exclusive ? v > min : v >= min) && v <= max; }
};

constexpr Range kAny{};
constexpr Range kPositive{0.0, true};
constexpr Range kNonNegative{0.0, false};
constexpr Range kAboveOne{1.0, true};
constexpr Range kPositiveFloat{0.0, true, std::numeric_limits<float>::max()};
constexpr Range kNonNegativeInt32{0.0, false, INT32_MAX};
constexpr Range kPositiveInt32{1.0, false, INT32_MAX};
constexpr Range kPositiveInt{1.0, false};

// Bounds for messages: integers in full (2147483647), huge ones short (FLT_MAX: 3.40282e+38).
std::string number_text(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{}", static_cast<std::int64_t>(v))
                                                  : fmt::format("{:.6g}", v);
}

std::string describe(const Range& r, std::string_view unit) {
  const std::string u = unit.empty() ? "" : fmt::format(" {}", unit);
  const std::string lower =
      fmt::format("{} {}", r.min_exclusive ? ">" : ">=", number_text(r.min));
  if (r.min == -kInf && r.max == kInf) return "a finite number";
  if (r.max == kInf) return lower + u;
  if (r.min_exclusive) return fmt::format("{} and <= {}{}", lower, number_text(r.max), u);
  return fmt::format("between {} and {}{}", number_text(r.min), number_text(r.max), u);
}

// ---------------------------------------------------------------------------------------
// One [section] of the file: rejects unknown keys on construction, then hands out typed,
// range-checked values. An absent section reads as empty.

class Section {
 public:
  Section(const Context& ctx, const toml::table& root, std::string_view name,
          std::initializer_list<std::string_view> known)
      : ctx_(ctx), name_(name) {
    if (const toml::node* n = root.get(name)) {
      table_ = n->as_table();
      if (!table_)
        throw error_at(ctx, *n, name_,
                       fmt::format("expected a table ([{}]), got {}", name, type_name(n->type())));
    }
    reject_unknown(known);
  }

  bool present() const { return table_ != nullptr; }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  std::string field(std::string_view key) const { return fmt::format("{}.{}", name_, key); }

  // An error about `key`, which must be present.
  Error error(std::string_view key, const std::string& what) const {
    return error_at(ctx_, *find(key), field(key), what);
  }
  // An error about the section as a whole (a missing key, a combination).
  Error error(const std::string& what) const {
    if (table_) return error_at(ctx_, *table_, name_, what);
    return Error(ctx_.file, 0, name_, what);
  }

  std::optional<double> real(std::string_view key, Range range, std::string_view unit) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    double v = 0;
    if (const auto* i = n->as_integer())
      v = static_cast<double>(i->get());
    else if (const auto* f = n->as_floating_point())
      v = f->get();
    else
      throw error(key, fmt::format("expected a number, got {}", type_name(n->type())));
    if (!std::isfinite(v)) throw error(key, fmt::format("must be a finite number, got {}", v));
    if (!range.contains(v))
      throw error(key, fmt::format("out of range: must be {}, got {}", describe(range, unit), v));
    return v;
  }

  std::optional<float> real_float(std::string_view key, std::string_view unit) const {
    const auto v = real(key, kPositiveFloat, unit);
    return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
  }

  std::optional<std::int64_t> integer(std::string_view key, Range range) const {
    const toml::node* n = find(key);
    return n ? std::optional(integer_value(*n, field(key), range)) : std::nullopt;
  }

  std::optional<std::vector<std::int64_t>> integers(std::string_view key, Range range) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    const auto* array = n->as_array();
    if (!array)
      throw error(key, fmt::format("expected an array of integers, got {}", type_name(n->type())));
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < array->size(); ++i)
      out.push_back(integer_value(*array->get(i), fmt::format("{}[{}]", field(key), i), range));
    return out;
  }

  std::optional<std::string> string(std::string_view key) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    const auto* s = n->as_string();
    if (!s) throw error(key, fmt::format("expected a string, got {}", type_name(n->type())));
    return s->get();
  }

  // A path relative to the config file's directory, or to the working directory when it
  // came from --set (where the user typed it). Made absolute so that the resolved config
  // means the same wherever it is read back.
  std::optional<fs::path> path(std::string_view key) const {
    const auto text = string(key);
    if (!text) return std::nullopt;
    if (text->empty()) throw error(key, "must not be empty");
    const fs::path base = from_override(*find(key)) ? fs::current_path() : ctx_.base_dir;
    return fs::absolute(base / fs::path(*text)).lexically_normal();
  }

 private:
  const toml::node* find(std::string_view key) const {
    return table_ ? table_->get(key) : nullptr;
  }

  void reject_unknown(std::initializer_list<std::string_view> known) const {
    if (!table_) return;
    for (const auto& [key, value] : *table_) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      throw error_at(ctx_, value, field(key.str()),
                     fmt::format("unknown key; known keys in [{}]: {}", name_, join(known)));
    }
  }

  std::int64_t integer_value(const toml::node& n, const std::string& where, Range range) const {
    const auto* i = n.as_integer();
    if (!i) {
      std::string what = fmt::format("expected an integer, got {}", type_name(n.type()));
      if (n.is_floating_point())
        what += " (write whole numbers without '.' or exponent, e.g. 1000000 or 1_000_000)";
      throw error_at(ctx_, n, where, what);
    }
    const std::int64_t v = i->get();
    if (!range.contains(static_cast<double>(v)))
      throw error_at(ctx_, n, where,
                     fmt::format("out of range: must be {}, got {}", describe(range, ""), v));
    return v;
  }

  const Context& ctx_;
  std::string name_;
  const toml::table* table_ = nullptr;
};

template <typename T, typename U>
void assign(T& target, const std::optional<U>& value) {
  if (value) target = static_cast<T>(*value);
}

// A quantity the user may give in either of two units (never both). Returns the value in
// internal units and the key it came from, or nullopt when neither key is present.
struct UnitKey {
  std::string_view key;
  Conversion to_internal;
  std::string_view unit;
};
struct Given {
  double value;
  std::string_view key;
};

double identity(double x) { return x; }

std::optional<Given> either(const Section& s, UnitKey a, UnitKey b, Range range) {
  if (s.has(a.key) && s.has(b.key))
    throw s.error(b.key, fmt::format("give either {} or {}, not both", s.field(a.key),
                                     s.field(b.key)));
  for (const UnitKey& k : {a, b})
    if (const auto v = s.real(k.key, range, k.unit)) return Given{k.to_internal(*v), k.key};
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// The schema, one reader per table. Keys and their order here are docs/config.md's.

constexpr std::array<std::string_view, 8> kTables = {
    "input", "model", "run", "heating", "minimize", "fixed", "neighbor", "output"};

void reject_unknown_tables(const Context& ctx, const toml::table& root) {
  for (const auto& [key, value] : root) {
    if (std::find(kTables.begin(), kTables.end(), key.str()) != kTables.end()) continue;
    const std::string known = join(kTables, "[", "]");
    throw error_at(ctx, value, std::string(key.str()),
                   value.is_table()
                       ? fmt::format("unknown table; known tables: {}", known)
                       : fmt::format("unknown key; top-level keys belong in a table: {}", known));
  }
}

void read_input(const Section& s, InputSpec& in) {
  const auto structure = s.path("structure");
  const auto topology = s.path("topology");
  const auto coordinates = s.path("coordinates");
  if (structure && topology)
    throw s.error("topology", "give either input.structure or input.topology, not both");
  if (!structure && !topology)
    throw s.error(
        "missing model input: give input.structure (all-atom PDB/mmCIF) or input.topology "
        "(.top/.etop) with input.coordinates");
  if (topology && !coordinates)
    throw s.error("topology", "input.topology needs input.coordinates (PDB with the initial "
                              "coordinates)");
  if (structure && coordinates)
    throw s.error("coordinates", "input.coordinates goes with input.topology; input.structure "
                                 "already has coordinates");
  assign(in.structure, structure);
  assign(in.topology, topology);
  assign(in.coordinates, coordinates);
}

void read_model(const Section& s, ModelBuildSpec& m, SopParameters& sop) {
  assign(m.native_cutoff_A, s.real("native_cutoff_A", kPositive, "Å"));
  assign(m.native_energy_kcal_per_mol, s.real("native_energy_kcal_per_mol", kPositive, "kcal/mol"));
  assign(m.chain_break_A, s.real("chain_break_A", kPositive, "Å"));
  assign(sop.fene_k_kcal_per_mol_A2, s.real_float("fene_spring_kcal_per_mol_A2", "kcal/mol/Å²"));
  assign(sop.fene_R0_A, s.real_float("fene_max_stretch_A", "Å"));
  assign(sop.repulsion_eps_kcal_per_mol, s.real_float("repulsion_energy_kcal_per_mol", "kcal/mol"));
  assign(sop.repulsion_sigma_A, s.real_float("repulsion_sigma_A", "Å"));
  assign(sop.pair_cutoff_A, s.real_float("pair_cutoff_A", "Å"));
}

const UnitKey kTemperatureKcal{"temperature_kcal_per_mol", identity, "kcal/mol"};
const UnitKey kTemperatureK{"temperature_K", units::kelvin_to_kcal_per_mol, "K"};

// Returns whether the run temperature was given (heating may not give it a second time).
bool read_run(const Section& s, RunSpec& spec) {
  assign(spec.steps, s.integer("steps", kNonNegative));
  assign(spec.replicas, s.integer("replicas", kPositiveInt32));
  assign(spec.seed, s.integer("seed", kNonNegative));
  const auto timestep = either(s, {"timestep_tau", identity, "tau_H"},
                               {"timestep_ps", units::ps_to_tau, "ps"}, kPositive);
  if (timestep) spec.langevin.timestep_tau = timestep->value;
  const auto temperature = either(s, kTemperatureKcal, kTemperatureK, kPositive);
  if (temperature) spec.langevin.temperature_kcal_per_mol = temperature->value;
  assign(spec.langevin.zeta, s.real("friction", kPositive, "kcal/mol·tau_H/Å²"));
  if (const auto backend = s.string("backend")) {
    if (*backend != "cpu" && *backend != "cuda")
      throw s.error("backend", fmt::format("must be \"cpu\" or \"cuda\", got \"{}\"", *backend));
    spec.backend = *backend;
  }
  assign(spec.threads, s.integer("threads", kNonNegativeInt32));
  return temperature.has_value();
}

// Without [heating] the temperature is constant; with it, SOP-GPU's stepwise ramp. Either
// way the Langevin temperature is the schedule's value at step 0.
void read_heating(const Section& s, bool run_temperature_given, RunSpec& spec) {
  TemperatureSchedule& t = spec.temperature;
  const double run_T = spec.langevin.temperature_kcal_per_mol;
  t = TemperatureSchedule{run_T, 0.0, 0, run_T};
  if (!s.present()) return;

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

void read_fixed(const Section& s, std::vector<std::int32_t>& beads) {
  const auto list = s.integers("beads", kNonNegativeInt32);
  if (!list) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    // A repeated index is almost surely a typo for another bead.
    if (std::find(list->begin(), list->begin() + i, (*list)[i]) != list->begin() + i)
      throw s.error("beads", fmt::format("bead {} is listed twice", (*list)[i]));
  }
  beads.assign(list->begin(), list->end());
}

void read_output(const Section& s, OutputSpec& o) {
  assign(o.directory, s.path("directory"));
  assign(o.energy_every_steps, s.integer("energy_every", kPositiveInt));
  assign(o.trajectory_every_steps, s.integer("trajectory_every", kNonNegative));
  assign(o.checkpoint_every_steps, s.integer("checkpoint_every", kNonNegative));
  assign(o.contact_formed_ratio, s.real("contact_formed_ratio", kAboveOne, ""));
}

RunSpec build_spec(const Context& ctx, const toml::table& root, const fs::path& source_name) {
  reject_unknown_tables(ctx, root);
  RunSpec spec;
  spec.config_path = source_name;
  // The output directory defaults relative to the config too, like every other path.
  spec.output.directory = fs::absolute(ctx.base_dir / spec.output.directory).lexically_normal();

  read_input(Section(ctx, root, "input", {"structure", "topology", "coordinates"}), spec.input);
  read_model(Section(ctx, root, "model",
                     {"native_cutoff_A", "native_energy_kcal_per_mol", "chain_break_A",
                      "fene_spring_kcal_per_mol_A2", "fene_max_stretch_A",
                      "repulsion_energy_kcal_per_mol", "repulsion_sigma_A", "pair_cutoff_A"}),
             spec.model_build, spec.sop);
  const bool run_temperature_given = read_run(
      Section(ctx, root, "run",
              {"steps", "replicas", "seed", "timestep_tau", "timestep_ps", "temperature_K",
               "temperature_kcal_per_mol", "friction", "backend", "threads"}),
      spec);
  read_heating(Section(ctx, root, "heating",
                       {"start_K", "start_kcal_per_mol", "stop_K", "stop_kcal_per_mol",
                        "increment_K", "increment_kcal_per_mol", "every_steps"}),
               run_temperature_given, spec);
  read_minimize(Section(ctx, root, "minimize",
                        {"steps", "force_tolerance_pN", "force_tolerance_kcal_per_mol_A",
                         "max_displacement_A"}),
                spec.minimize);
  read_fixed(Section(ctx, root, "fixed", {"beads"}), spec.fixed_beads);
  const Section neighbor(ctx, root, "neighbor", {"skin_A"});
  assign(spec.neighbor.skin_A, neighbor.real("skin_A", kPositive, "Å"));
  read_output(Section(ctx, root, "output",
                      {"directory", "energy_every", "trajectory_every", "checkpoint_every",
                       "contact_formed_ratio"}),
              spec.output);
  spec.resolved_toml = resolved_toml(spec);
  return spec;
}

// ---------------------------------------------------------------------------------------
// Parsing text, and merging --set overrides into the parsed table.

Error syntax_error(const toml::parse_error& e, const std::string& file) {
  return Error(file, static_cast<int>(e.source().begin.line), "",
               fmt::format("TOML syntax error: {}", e.description()));
}

toml::table parse_toml(std::string_view text, const std::string& file) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw syntax_error(e, file);
  }
#else
  auto result = toml::parse(text, file);
  if (!result) throw syntax_error(result.error(), file);
  return std::move(result).table();
#endif
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

// "section.key=value" as a one-line TOML document. The value is read as TOML first
// (numbers, booleans, arrays, quoted strings); text that is no TOML value is taken as a
// plain string, so that `--set run.backend=cuda` needs no shell-proof quotes.
toml::table parse_override(const std::string& text) {
  const std::string file(kOverrideSource);
  const auto eq = text.find('=');
  if (eq == std::string::npos || text.find_first_of("\r\n") != std::string::npos)
    throw Error(file, 0, text, "expected section.key=value");
  const std::string key = trim(std::string_view(text).substr(0, eq));
  const std::string value = trim(std::string_view(text).substr(eq + 1));
  if (key.empty()) throw Error(file, 0, text, "expected section.key=value");
  if (value.empty()) throw Error(file, 0, key, "missing value after '='");
  try {
    return parse_toml(key + " = " + value, file);
  } catch (const Error&) {
    try {
      return parse_toml(key + " = " + toml_string(value), file);
    } catch (const Error& e) {
      throw Error(file, 0, key, fmt::format("cannot read \"{}\": {}", text, e.description()));
    }
  }
}

// Tables merge key by key; any other value replaces what was there. Moving the nodes
// keeps their source ("--set"), which the error messages rely on.
void merge(toml::table& into, toml::table& from) {
  for (auto&& [key, value] : from) {
    toml::node* existing = into.get(key.str());
    if (existing && existing->is_table() && value.is_table())
      merge(*existing->as_table(), *value.as_table());
    else
      into.insert_or_assign(key, std::move(value));
  }
}

// ---------------------------------------------------------------------------------------
// Writing the resolved configuration.

class TomlWriter {
 public:
  void table(std::string_view name) { out_ << "\n[" << name << "]\n"; }
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
  w.value("beads", integer_list(spec.fixed_beads));

  w.table("neighbor");
  w.value("skin_A", shortest(spec.neighbor.skin_A));

  w.table("output");
  w.value("directory", toml_string(spec.output.directory.string()));
  w.value("energy_every", std::to_string(spec.output.energy_every_steps));
  w.value("trajectory_every", std::to_string(spec.output.trajectory_every_steps));
  w.value("checkpoint_every", std::to_string(spec.output.checkpoint_every_steps));
  w.value("contact_formed_ratio", shortest(spec.output.contact_formed_ratio));
  return w.str();
}

RunSpec parse_run_spec(std::string_view toml_text, const fs::path& source_name,
                       const std::vector<std::string>& overrides) {
  const Context ctx{source_name.string(), source_name.parent_path()};
  toml::table root = parse_toml(toml_text, ctx.file);
  for (const std::string& text : overrides) {
    toml::table override_table = parse_override(text);
    merge(root, override_table);
  }
  return build_spec(ctx, root, source_name);
}

RunSpec load_run_spec(const fs::path& toml_file, const std::vector<std::string>& overrides) {
  std::ifstream in(toml_file, std::ios::binary);
  if (!in) throw Error(toml_file.string(), 0, "", "cannot open the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(toml_file.string(), 0, "", "cannot read the configuration file");
  return parse_run_spec(text.str(), toml_file, overrides);
}

}  // namespace ermak
