#include "ermak/config/toml_config.h"

#include <fmt/format.h>

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
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

#include "ermak/config/bead_list_checks.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/core/vec3.h"
#include "ermak/io/input_file.h"
#include "ermak/model/residue_selection.h"
#include "ermak/protocol/indentation.h"
#include "ermak/rng/noise_source.h"

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

// "expected a number, got a string" and what the string probably meant: a value with its
// unit ("300K", "2.5 nm": units belong in the key's name), a number in quotes, or, where an
// integer was expected, digits beyond the 64-bit range (a --set value toml++ could not
// read as an integer).
std::string wrong_type(const toml::node& n, std::string_view expected) {
  std::string what = fmt::format("expected {}, got {}", expected, type_name(n.type()));
  const auto* text = n.as_string();
  if (!text) return what;
  const std::string& t = text->get();
  const std::size_t first = t.find_first_not_of("+-");
  if (first == std::string::npos || !std::isdigit(static_cast<unsigned char>(t[first]))) return what;
  const bool all_digits = t.find_first_not_of("0123456789", first) == std::string::npos;
  const bool all_number = t.find_first_not_of("0123456789._eE+-", first) == std::string::npos;
  std::int64_t value = 0;
  const bool fits = std::from_chars(t.data(), t.data() + t.size(), value).ec == std::errc() || t[0] == '+';
  if (all_digits && expected == "an integer" && !fits)
    what += fmt::format(" ('{}' is out of range for a 64-bit integer)", t);
  else if (all_number && !all_digits && expected == "an integer")
    what += fmt::format(" ('{}': an integer is written with digits only and without quotes)", t);
  else if (all_number)
    what += fmt::format(" ('{}': write the number without quotes)", t);
  else
    what += fmt::format(" ('{}': the unit goes in the key's name, e.g. temperature_K = 300, and the value is a "
                        "plain number)",
                        t);
  return what;
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
// A value kept as a float: from its smallest normal value (a smaller one becomes 0 or a
// denormal, and a run without repulsion or contacts) to its largest.
constexpr Range kPositiveFloat{std::numeric_limits<float>::min(), false, std::numeric_limits<float>::max()};
constexpr Range kNonNegativeInt32{0.0, false, INT32_MAX};
// Steps of a run: the noise counter holds 48 bits of the step (docs/model.md#noise),
// beyond which Philox's numbers would repeat (2.8·10¹⁴ steps: 9 years at 10⁶ steps/s).
constexpr Range kRunSteps{0.0, false, 281474976710656.0};
constexpr Range kPositiveInt32{1.0, false, INT32_MAX};
constexpr Range kPositiveInt{1.0, false};
// CPU threads: more than any machine's cores (the CPU backend warns above this machine's);
// without a bound, 10⁵ threads crashed the OpenMP runtime.
constexpr Range kThreads{0.0, false, double(kMaxCpuThreads)};

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
      : Section(ctx, root.get(name), name, known) {}

  // A table that is not at the top level: a sub-table ([indentation.surface]) or one
  // element of an array of tables ([[plane_pulling.plane]]); `name` is its name in
  // messages. A null node reads as an absent (empty) table.
  Section(const Context& ctx, const toml::node* node, std::string_view name,
          std::initializer_list<std::string_view> known)
      : ctx_(ctx), name_(name) {
    if (node) {
      table_ = node->as_table();
      if (!table_)
        throw error_at(ctx, *node, name_,
                       fmt::format("expected a table ([{}]), got {}", name, type_name(node->type())));
    }
    reject_unknown(known);
  }

  const std::string& name() const { return name_; }
  const toml::node* node(std::string_view key) const { return find(key); }

  // Where `key` was given (file or "--set", line), for checks made after the model is
  // loaded.
  // Of two keys that conflict, the one to name: the one an override gave (the user's latest
  // word), else `otherwise`.
  std::string_view overridden_of(std::string_view a, std::string_view b, std::string_view otherwise) const {
    auto overridden = [&](std::string_view k) {
      const toml::node* n = find(k);
      return n && from_override(*n);
    };
    if (overridden(a) != overridden(b)) return overridden(a) ? a : b;
    return otherwise;
  }
  RunSpec::KeySource source(std::string_view key) const {
    const toml::node* n = find(key);
    if (!n) return {ctx_.file, 0, {}};
    const auto& src = n->source();
    return {src.path ? *src.path : ctx_.file, from_override(*n) ? 0 : static_cast<int>(src.begin.line), {}};
  }

  std::optional<bool> boolean(std::string_view key) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    const auto* b = n->as_boolean();
    if (!b) throw error(key, fmt::format("expected true or false, got {}", type_name(n->type())));
    return b->get();
  }

  // [x, y, z]: an array of three numbers.
  std::optional<Vec3d> vec3(std::string_view key) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    const auto* array = n->as_array();
    if (!array || array->size() != 3)
      throw error(key, fmt::format("expected an array of three numbers [x, y, z], got {}",
                                   array ? fmt::format("{} values", array->size())
                                         : std::string(type_name(n->type()))));
    double v[3] = {};
    for (std::size_t i = 0; i < 3; ++i) v[i] = number_value(*array->get(i), fmt::format("{}[{}]", field(key), i));
    return Vec3d{v[0], v[1], v[2]};
  }

  // A number inside an array (no unit check beyond finiteness).
  double number_value(const toml::node& n, const std::string& where) const {
    double v = 0;
    if (const auto* i = n.as_integer())
      v = static_cast<double>(i->get());
    else if (const auto* f = n.as_floating_point())
      v = f->get();
    else
      throw error_at(ctx_, n, where, wrong_type(n, "a number"));
    if (!std::isfinite(v)) throw error_at(ctx_, n, where, fmt::format("must be a finite number, got {}", v));
    return v;
  }

  Error error_node(const toml::node& n, const std::string& where, const std::string& what) const {
    return error_at(ctx_, n, where, what);
  }

  std::int64_t integer_in(const toml::node& n, const std::string& where, Range range) const {
    return integer_value(n, where, range);
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
      throw error(key, wrong_type(*n, "a number"));
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

  // The value of `key` when it is a string (nullopt when absent or of another type).
  std::optional<std::string> string_if_string(std::string_view key) const {
    const toml::node* n = find(key);
    if (!n || !n->as_string()) return std::nullopt;
    return n->as_string()->get();
  }
  bool is_array(std::string_view key) const {
    const toml::node* n = find(key);
    return n && n->as_array();
  }

  std::optional<std::string> string(std::string_view key) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    const auto* s = n->as_string();
    if (!s) throw error(key, fmt::format("expected a string, got {}", type_name(n->type())));
    return s->get();
  }

  // An array of paths, each resolved as path() does.
  std::optional<std::vector<fs::path>> paths(std::string_view key) const {
    const auto texts = string_array(key, "file names");
    if (!texts) return std::nullopt;
    const fs::path base = from_override(*find(key)) ? fs::current_path() : ctx_.base_dir;
    std::vector<fs::path> out;
    for (const std::string& text : *texts) out.push_back(fs::absolute(base / fs::path(text)).lexically_normal());
    return out;
  }

  // An array of non-empty strings (a single string is taken as an array of one).
  std::optional<std::vector<std::string>> strings(std::string_view key) const {
    if (const toml::node* n = find(key); n && n->as_string()) {
      if (n->as_string()->get().empty()) throw error(key, "must not be empty");
      return std::vector<std::string>{n->as_string()->get()};
    }
    return string_array(key, "strings");
  }

  // An array of non-empty strings, each error at its item; `what` names the items for a value
  // that is no array ("file names").
  std::optional<std::vector<std::string>> string_array(std::string_view key, std::string_view what) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    const auto* array = n->as_array();
    if (!array) throw error(key, fmt::format("expected an array of {}, got {}", what, type_name(n->type())));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::node& item = *array->get(i);
      const auto* text = item.as_string();
      const std::string where = fmt::format("{}[{}]", field(key), i);
      if (!text) throw error_at(ctx_, item, where, fmt::format("expected a string, got {}", type_name(item.type())));
      if (text->get().empty()) throw error_at(ctx_, item, where, "must not be empty");
      out.push_back(text->get());
    }
    return out;
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
      std::string what = wrong_type(n, "an integer");
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
    throw s.error(s.overridden_of(a.key, b.key, b.key), fmt::format("give either {} or {}, not both", s.field(a.key),
                                                                     s.field(b.key)));
  for (const UnitKey& k : {a, b})
    if (const auto v = s.real(k.key, range, k.unit)) return Given{k.to_internal(*v), k.key};
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// The schema, one reader per table. Keys and their order here are docs/config.md's.

constexpr std::array<std::string_view, 12> kTables = {
    "input",  "model",   "run",         "heating",     "minimize",      "fixed",
    "neighbor", "output", "pulling", "force_clamp", "plane_pulling", "indentation"};

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

void read_output(const Section& s, OutputSpec& o) {
  assign(o.directory, s.path("directory"));
  assign(o.energy_every_steps, s.integer("energy_every", kPositiveInt));
  assign(o.trajectory_every_steps, s.integer("trajectory_every", kNonNegative));
  assign(o.checkpoint_every_steps, s.integer("checkpoint_every", kNonNegative));
  assign(o.contact_formed_ratio, s.real("contact_formed_ratio", kAboveOne, ""));
}

// ---------------------------------------------------------------------------------------
// Protocols (docs/protocols.md). Checks that need the model (bead indices against the
// bead count, the tip against the start positions) happen in protocol/protocol_setup.cpp;
// key_sources remembers where those keys were given.

double nm_to_A(double x) { return x * units::A_per_nm; }
double A_to_nm(double x) { return x / units::A_per_nm; }

const UnitKey kSpeedUm{"speed_um_per_s", units::um_per_s_to_A_per_tau, "µm/s"};
const UnitKey kSpeedInternal{"speed_A_per_tau", identity, "Å/tau_H"};
const UnitKey kSpringPn{"spring_pN_per_nm", units::pN_per_nm_to_internal_spring, "pN/nm"};
const UnitKey kSpringInternal{"spring_kcal_per_mol_A2", identity, "kcal/mol/Å²"};

Vec3d nonzero_vector(const Section& s, std::string_view key) {
  const Vec3d v = *s.vec3(key);
  if (norm2(v) == 0.0) throw s.error(key, "the direction vector is zero; give a non-zero [x, y, z]");
  // Only its direction counts: a vector whose squared length overflows is scaled to its
  // largest component (others stay as written, for the resolved configuration).
  const double largest = std::max({std::abs(v.x), std::abs(v.y), std::abs(v.z)});
  if (!std::isfinite(largest)) throw s.error(key, "the direction vector is not finite");
  return std::isfinite(norm2(v)) ? v : (1.0 / largest) * v;
}

DirectionSpec read_direction(const Section& s) {
  DirectionSpec d;
  const toml::node* n = s.node("direction");
  if (!n) return d;
  if (const auto* text = n->as_string()) {
    if (text->get() != "end_to_end")
      throw s.error("direction", fmt::format("must be \"end_to_end\" or a vector [x, y, z], got \"{}\"",
                                             text->get()));
    return d;
  }
  if (!n->is_array())
    throw s.error("direction", fmt::format("must be \"end_to_end\" or a vector [x, y, z], got {}",
                                           type_name(n->type())));
  d.end_to_end = false;
  d.vector = nonzero_vector(s, "direction");
  return d;
}

std::vector<std::int32_t> read_ends(const Section& s, RunSpec& spec) {
  if (!s.has("ends")) return {};
  const auto* array = s.node("ends")->as_array();
  if (array && array->size() != 2)
    throw s.error("ends", fmt::format("expected two beads [first, second], got {} values", array->size()));
  return bead_list(s, "ends", false, spec);
}

std::int64_t read_output_every(const Section& s) {
  return s.integer("output_every", kPositiveInt).value_or(0);
}

void read_pulling(const Section& s, RunSpec& spec) {
  if (!s.present()) return;
  PullingSpec& p = spec.pulling;
  p.enabled = true;
  p.pulled_beads = bead_list(s, "pulled_beads", true, spec);
  const auto speed = either(s, kSpeedUm, kSpeedInternal, kNonNegative);
  if (!speed) throw s.error("[pulling] needs speed_um_per_s (the cantilever base speed)");
  p.speed_A_per_tau = speed->value;
  const auto spring = either(s, kSpringPn, kSpringInternal, kPositive);
  if (!spring) throw s.error("[pulling] needs spring_pN_per_nm (the cantilever spring constant)");
  p.spring_kcal_per_mol_A2 = spring->value;
  remember(spec, s, speed->key);  // for the step-size check at the start (run/step_size_check.h)
  remember(spec, s, spring->key);
  p.direction = read_direction(s);
  p.ends = read_ends(s, spec);
  p.output_every_steps = read_output_every(s);
  remember(spec, s, "direction");
  remember(spec, s, "pulled_beads");  // a default end-to-end direction's errors point here
}

// schedule = [[step, force], ...]: steps ascending integers ≥ 0, forces in `unit`.
std::vector<ForceSchedulePoint> read_schedule(const Section& s, std::string_view key, Conversion to_internal) {
  const toml::node* n = s.node(key);
  const auto* array = n->as_array();
  if (!array || array->empty())
    throw s.error(key, "expected a non-empty array of [step, force] pairs, e.g. [[0, 0.0], [100000, 200.0]]");
  std::vector<ForceSchedulePoint> points;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string where = fmt::format("{}[{}]", s.field(key), i);
    const toml::node& item = *array->get(i);
    const auto* pair = item.as_array();
    if (!pair || pair->size() != 2)
      throw s.error_node(item, where, "expected a pair [step, force]");
    ForceSchedulePoint point;
    point.step = s.integer_in(*pair->get(0), where + "[0]", kNonNegative);
    point.force_kcal_per_mol_A = to_internal(s.number_value(*pair->get(1), where + "[1]"));
    if (!points.empty() && point.step <= points.back().step)
      throw s.error_node(item, where,
                     fmt::format("steps must increase: step {} follows step {}", point.step, points.back().step));
    points.push_back(point);
  }
  return points;
}

void read_force_clamp(const Section& s, RunSpec& spec) {
  if (!s.present()) return;
  ForceClampSpec& c = spec.force_clamp;
  c.enabled = true;
  c.pulled_beads = bead_list(s, "pulled_beads", true, spec);
  const auto force = either(s, {"force_pN", units::pN_to_internal_force, "pN"},
                            {"force_kcal_per_mol_A", identity, "kcal/mol/Å"}, kAny);
  const bool schedule_pN = s.has("schedule"), schedule_internal = s.has("schedule_kcal_per_mol_A");
  const int given = int(force.has_value()) + int(schedule_pN) + int(schedule_internal);
  if (given == 0) throw s.error("[force_clamp] needs force_pN (a constant force) or schedule = [[step, force_pN], ...]");
  if (given > 1)
    throw s.error(force ? std::string_view(force->key) : std::string_view("schedule_kcal_per_mol_A"),
                  "give one of force_clamp.force_pN, force_clamp.schedule (or their _kcal_per_mol_A forms)");
  c.constant = force.has_value();
  for (std::string_view key : {"force_pN", "force_kcal_per_mol_A", "schedule", "schedule_kcal_per_mol_A"})
    remember(spec, s, key);
  if (force)
    c.schedule = {ForceSchedulePoint{0, force->value}};
  else if (schedule_pN)
    c.schedule = read_schedule(s, "schedule", units::pN_to_internal_force);
  else
    c.schedule = read_schedule(s, "schedule_kcal_per_mol_A", identity);
  c.direction = read_direction(s);
  c.ends = read_ends(s, spec);
  c.output_every_steps = read_output_every(s);
  remember(spec, s, "direction");
  remember(spec, s, "pulled_beads");  // a default end-to-end direction's errors point here
}

void read_plane_pulling(const Context& ctx, const Section& s, RunSpec& spec) {
  if (!s.present()) return;
  PlanePullingSpec& pp = spec.plane_pulling;
  pp.enabled = true;
  pp.output_every_steps = read_output_every(s);
  const toml::node* n = s.node("plane");
  if (!n) throw s.error("[plane_pulling] needs at least one [[plane_pulling.plane]]");
  const auto* array = n->as_array();
  if (!array || !array->is_array_of_tables() || array->empty())
    throw s.error("plane", "expected an array of tables: write each plane as [[plane_pulling.plane]]");
  for (std::size_t i = 0; i < array->size(); ++i) {
    const Section plane(ctx, array->get(i), fmt::format("plane_pulling.plane[{}]", i),
                        {"beads", "normal", "speed_um_per_s", "speed_A_per_tau", "spring_pN_per_nm",
                         "spring_kcal_per_mol_A2"});
    PlaneSpec p;
    p.beads = bead_list(plane, "beads", true, spec);
    if (!plane.has("normal")) throw plane.error(fmt::format("[[plane_pulling.plane]] {} needs normal = [x, y, z]", i));
    p.normal = nonzero_vector(plane, "normal");
    if (const auto speed = either(plane, kSpeedUm, kSpeedInternal, kAny)) p.speed_A_per_tau = speed->value;
    const auto spring = either(plane, kSpringPn, kSpringInternal, kPositive);
    if (!spring) throw plane.error(fmt::format("[[plane_pulling.plane]] {} needs spring_pN_per_nm", i));
    p.spring_kcal_per_mol_A2 = spring->value;
    for (std::string_view key : {kSpeedUm.key, kSpeedInternal.key, kSpringPn.key, kSpringInternal.key})
      remember(spec, plane, key);
    pp.planes.push_back(std::move(p));
  }
}

// interaction = "repulsive" (A = 0, B = 1) | "lennard_jones" (A = 1, B = −2), or A and B.
void read_wall_shape(const Section& s, std::string_view preset_key, std::string_view a_key,
                     std::string_view b_key, WallSpec& wall) {
  const auto preset = s.string(preset_key);
  const bool a = s.has(a_key), b = s.has(b_key);
  if (preset && (a || b))
    throw s.error(a ? a_key : b_key, fmt::format("give either {} or {} and {}, not both", s.field(preset_key),
                                                 s.field(a_key), s.field(b_key)));
  if (preset) {
    if (*preset == "repulsive") { wall.A = 0.0; wall.B = 1.0; }
    else if (*preset == "lennard_jones") { wall.A = 1.0; wall.B = -2.0; }
    else
      throw s.error(preset_key, fmt::format("must be \"repulsive\" or \"lennard_jones\", got \"{}\"", *preset));
    return;
  }
  if (a != b) throw s.error(a ? a_key : b_key, fmt::format("give both {} and {}", s.field(a_key), s.field(b_key)));
  if (a) {
    wall.A = *s.real(a_key, kAny, "");
    wall.B = *s.real(b_key, kAny, "");
    if (wall.A == 0.0 && wall.B == 0.0) throw s.error(a_key, "A and B are both zero: no interaction");
  }
}

void read_surface(const Context& ctx, const Section& parent, RunSpec& spec) {
  const Section s(ctx, parent.node("surface"), "indentation.surface",
                  {"type", "point_A", "normal", "interaction", "A", "B", "sigma_A", "epsilon_kcal_per_mol",
                   "spacing_A", "grid_size", "tip_interaction"});
  if (!s.present()) return;
  IndentationSurfaceSpec& surface = spec.indentation.surface;
  surface.enabled = true;
  const std::string type = s.string("type").value_or("plane");
  if (type != "plane" && type != "beads")
    throw s.error("type", fmt::format("must be \"plane\" or \"beads\", got \"{}\"", type));
  surface.beads = type == "beads";
  if (!s.has("point_A")) throw s.error("[indentation.surface] needs point_A = [x, y, z] (a point of the surface)");
  surface.point_A = *s.vec3("point_A");
  if (!s.has("normal")) throw s.error("[indentation.surface] needs normal = [x, y, z] (toward the molecule)");
  surface.normal = nonzero_vector(s, "normal");
  read_wall_shape(s, "interaction", "A", "B", surface.wall);
  assign(surface.wall.sigma_A, s.real("sigma_A", kPositive, "Å"));
  assign(surface.wall.epsilon_kcal_per_mol, s.real("epsilon_kcal_per_mol", kPositive, "kcal/mol"));
  assign(surface.tip_interaction, s.boolean("tip_interaction"));
  if (surface.beads) {
    assign(surface.spacing_A, s.real("spacing_A", kPositive, "Å"));
    const auto grid = s.integer("grid_size", {1.0, false, 46340.0});
    if (!grid) throw s.error("type", "type = \"beads\" needs grid_size (surface beads per side)");
    surface.grid_size = std::int32_t(*grid);
  } else {
    for (const char* key : {"spacing_A", "grid_size"})
      if (s.has(key)) throw s.error(key, "applies only to type = \"beads\"");
  }
  remember(spec, s, "point_A");
  remember(spec, s, "normal");
}

void read_indentation(const Context& ctx, const Section& s, RunSpec& spec) {
  if (!s.present()) return;
  IndentationSpec& ind = spec.indentation;
  ind.enabled = true;
  const auto radius = either(s, {"tip_radius_nm", nm_to_A, "nm"}, {"tip_radius_A", identity, "Å"}, kPositive);
  if (!radius) throw s.error("[indentation] needs tip_radius_nm");
  ind.tip_radius_A = radius->value;
  // Default: Stokes' law from the beads' friction, ζ_tip = ζ·R_tip/a with a = 3.8 Å the
  // bead radius behind SOP-GPU's ζ = 50 (docs/protocols.md#indentation).
  ind.tip_friction = stokes_tip_friction(spec.langevin.zeta, ind.tip_radius_A);
  assign(ind.tip_friction, s.real("tip_friction", kPositive, "kcal/mol·tau_H/Å²"));
  if (!s.has("tip_position_A")) throw s.error("[indentation] needs tip_position_A = [x, y, z] (the tip centre)");
  ind.tip_position_A = *s.vec3("tip_position_A");
  ind.base_position_A = s.vec3("base_position_A").value_or(ind.tip_position_A);
  if (!s.has("direction")) throw s.error("[indentation] needs direction = [x, y, z] (the way the base moves)");
  ind.direction = nonzero_vector(s, "direction");
  const auto spring = either(s, kSpringPn, kSpringInternal, kPositive);
  if (!spring) throw s.error("[indentation] needs spring_pN_per_nm (the cantilever spring constant)");
  ind.spring_kcal_per_mol_A2 = spring->value;
  // A base given far from the tip pulls the tip at the first step with the whole stretch
  // (a base 2 µm away at 200 pN/nm: 4·10⁵ pN; one at 1e308 Å: an infinite force).
  {
    const double stretch_A = norm(ind.base_position_A - ind.tip_position_A);
    const double force_pN = units::internal_force_to_pN(ind.spring_kcal_per_mol_A2 * stretch_A);
    constexpr double kMostStartForce_pN = 1e4;
    if (!(force_pN <= kMostStartForce_pN))
      throw s.error("base_position_A",
                    fmt::format("the base starts {:.4g} nm from the tip, so the spring pulls the tip with {:.4g} pN at "
                                "the first step (more than {:g} pN): give base_position_A at or near tip_position_A "
                                "(it defaults to it)",
                                stretch_A / 10.0, force_pN, kMostStartForce_pN));
  }
  const auto speed = either(s, kSpeedUm, kSpeedInternal, kNonNegative);
  if (!speed) throw s.error("[indentation] needs speed_um_per_s (the cantilever base speed)");
  ind.speed_A_per_tau = speed->value;
  remember(spec, s, speed->key);
  remember(spec, s, spring->key);
  read_wall_shape(s, "tip_interaction", "tip_A", "tip_B", ind.tip);
  assign(ind.tip.sigma_A, s.real("tip_sigma_A", kPositive, "Å"));
  assign(ind.tip.epsilon_kcal_per_mol, s.real("tip_epsilon_kcal_per_mol", kPositive, "kcal/mol"));
  assign(ind.tip_along_direction_only, s.boolean("tip_along_direction_only"));
  assign(ind.move_surface, s.boolean("move_surface"));
  const auto depth = either(s, {"retract_at_depth_nm", nm_to_A, "nm"}, {"retract_at_depth_A", identity, "Å"}, kPositive);
  const auto force = either(s, {"retract_at_force_pN", units::pN_to_internal_force, "pN"},
                            {"retract_at_force_kcal_per_mol_A", identity, "kcal/mol/Å"}, kPositive);
  const auto step = s.integer("retract_at_step", kPositiveInt);
  if (int(depth.has_value()) + int(force.has_value()) + int(step.has_value()) > 1)
    throw s.error(step ? std::string_view("retract_at_step") : force ? force->key : depth->key,
                  "give at most one of retract_at_depth_nm, retract_at_force_pN, retract_at_step");
  if (depth) { ind.retract = RetractAt::kDepth; ind.retract_depth_A = depth->value; }
  if (force) { ind.retract = RetractAt::kForce; ind.retract_force_kcal_per_mol_A = force->value; }
  if (step) { ind.retract = RetractAt::kStep; ind.retract_step = *step; }
  ind.output_every_steps = read_output_every(s);
  read_surface(ctx, s, spec);
  if (ind.move_surface && !ind.surface.enabled)
    throw s.error("move_surface", "needs an [indentation.surface] to move");
  // The tip presses the molecule onto the surface: its base should move against the
  // surface's normal (which points from the surface to the molecule).
  if (ind.surface.enabled && dot(ind.direction, ind.surface.normal) >= 0.0)
    spec.notes.push_back(
        "[indentation] direction does not point towards the surface (direction · surface normal >= 0): the tip "
        "moves away from it, and no indentation presses the molecule onto the surface");
  remember(spec, s, "tip_position_A");
  remember(spec, s, "tip_radius_nm");
  remember(spec, s, "tip_radius_A");
  remember(spec, s, "tip_friction");  // a spring too stiff for it (run/step_size_check.cpp)
  remember(spec, s, "tip_sigma_A");  // the tip's wall at the start (protocol_setup.cpp)
  remember(spec, s, "tip_epsilon_kcal_per_mol");
}

// The mechanical protocols that may share a run: [pulling] alone; [force_clamp] and
// [indentation] together (a constant force on some beads while the tip indents, as
// SOP-GPU's PF8 input does); [plane_pulling] and [fixed] with any. Pulling and the clamp
// both write pulling.tsv, and a cantilever spring beside an indenting tip has no SOP-GPU
// counterpart to check it against.
void check_protocol_combination(const Section& pulling, const Section& clamp, const Section& indentation) {
  if (!pulling.present()) return;
  for (const Section* s : {&clamp, &indentation})
    if (s->present())
      throw s->error(fmt::format("[{}] cannot be combined with [pulling]: [pulling] combines with neither "
                                 "[force_clamp] nor [indentation] ([force_clamp] and [indentation] combine with "
                                 "each other; [plane_pulling] and [fixed] with any)",
                                 s->name()));
}

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
  for (const char* key : {"repulsion_sigma_A", "pair_cutoff_A"})
    remember(spec, model, key);  // a cutoff inside σ is reported at its line (run/simulation.cpp)
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
  } catch (const Error& e) {
    // An array, inline table or quoted string meant as TOML: its syntax error, not a string.
    if (value.front() == '[' || value.front() == '{' || value.front() == '"' || value.front() == '\'')
      throw Error(file, 0, key, fmt::format("cannot read \"{}\": {}", text, e.description()));
    try {
      return parse_toml(key + " = " + toml_string(value), file);
    } catch (const Error& e) {
      throw Error(file, 0, key, fmt::format("cannot read \"{}\": {}", text, e.description()));
    }
  }
}

// A value as TOML writes it ("1", "\"out\"", "[1, 2]"), for messages.
std::string existing_text(const toml::node& n) {
  std::ostringstream out;
  n.visit([&](auto&& v) { out << v; });
  return out.str();
}

// Tables merge key by key; any other value replaces what was there. Moving the nodes
// keeps their source ("--set"), which the error messages rely on. A value where there was
// a section, or a section where there was a value, is an error: silently replacing one by
// the other would drop the file's (or an earlier --set's) whole section.
void merge(toml::table& into, toml::table& from, const std::string& override_text, const std::string& prefix = "") {
  for (auto&& [key, value] : from) {
    const std::string name = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    toml::node* existing = into.get(key.str());
    if (existing && existing->is_table() && value.is_table()) {
      merge(*existing->as_table(), *value.as_table(), override_text, name);
      continue;
    }
    if (existing && existing->is_table())
      throw Error(std::string(kOverrideSource), 0, name,
                  fmt::format("\"{}\" gives a value where the configuration has the section [{}]; set its keys "
                              "as {}.KEY=VALUE",
                              override_text, name, name));
    if (existing && value.is_table())
      throw Error(std::string(kOverrideSource), 0, name,
                  fmt::format("\"{}\" sets a key inside {}, which is a value here ({} = {}), not a section",
                              override_text, name, name, existing_text(*existing)));
    into.insert_or_assign(key, std::move(value));
  }
}

// ---------------------------------------------------------------------------------------
// Writing the resolved configuration.

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

void write_protocols(TomlWriter& w, const RunSpec& spec) {
  if (const PullingSpec& p = spec.pulling; p.enabled) {
    w.table("pulling");
    w.value("pulled_beads", bead_list_text(spec, "pulling.pulled_beads", p.pulled_beads));
    write_speed(w, p.speed_A_per_tau);
    write_spring(w, p.spring_kcal_per_mol_A2);
    write_direction(w, p.direction);
    if (!p.ends.empty() || has_bead_selections(spec, "pulling.ends"))
      w.value("ends", bead_list_text(spec, "pulling.ends", p.ends));
    else
      w.comment("ends: the first fixed bead (bead 0 without one) and the first pulled bead");
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
    if (!c.ends.empty() || has_bead_selections(spec, "force_clamp.ends"))
      w.value("ends", bead_list_text(spec, "force_clamp.ends", c.ends));
    else
      w.comment("ends: the first fixed bead (bead 0 without one) and the first pulled bead");
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

  w.table("output");
  w.value("directory", toml_string(spec.output.directory.string()));
  w.value("energy_every", std::to_string(spec.output.energy_every_steps));
  w.value("trajectory_every", std::to_string(spec.output.trajectory_every_steps));
  w.value("checkpoint_every", std::to_string(spec.output.checkpoint_every_steps));
  w.value("contact_formed_ratio", shortest(spec.output.contact_formed_ratio));
  write_protocols(w, spec);
  return w.str();
}

RunSpec parse_run_spec(std::string_view toml_text, const fs::path& source_name,
                       const std::vector<std::string>& overrides) {
  const Context ctx{source_name.string(), source_name.parent_path()};
  toml::table root = parse_toml(toml_text, ctx.file);
  for (const std::string& text : overrides) {
    toml::table override_table = parse_override(text);
    merge(root, override_table, text);
  }
  RunSpec spec = build_spec(ctx, root, source_name);
  spec.set_overrides = overrides;
  return spec;
}

RunSpec load_run_spec(const fs::path& toml_file, const std::vector<std::string>& overrides) {
  check_regular_input_file(toml_file, "");
  std::ifstream in(toml_file, std::ios::binary);
  if (!in) throw Error(toml_file.string(), 0, "", "cannot open the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(toml_file.string(), 0, "", "cannot read the configuration file");
  return parse_run_spec(text.str(), toml_file, overrides);
}

}  // namespace ermak
