#pragma once
// Reading one table of a TOML configuration: typed, range-checked values in the unit its
// key names, and errors naming file, line and key (Error, core/error.h). Shared by the
// readers of the run's sections (toml_run_sections.cpp) and of the protocols'
// (toml_protocol_sections.cpp). toml++ stays inside config/: only the files that read
// tables include this header.
#include <toml++/toml.h>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/config/toml_unit_keys.h"
#include "ermak/core/error.h"
#include "ermak/core/vec3.h"

namespace ermak::config {

// The "file" named in messages about command-line overrides.
inline constexpr std::string_view kOverrideSource = "--set";
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------
// Locations. Every node remembers where it was parsed: the config file, or "--set" for
// values merged from the command line (which have no useful line number).

struct Context {
  std::string file;                 // the configuration's name in messages
  std::filesystem::path base_dir;   // relative paths in the file resolve against it
};

Error error_at(const Context& ctx, const toml::node& n, const std::string& field, const std::string& what);

// "a table", "an integer", ...: a node's type in messages.
std::string_view type_name(toml::node_type t);

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

inline constexpr Range kAny{};
inline constexpr Range kPositive{0.0, true};
inline constexpr Range kNonNegative{0.0, false};
inline constexpr Range kAboveOne{1.0, true};
// A value kept as a float: from its smallest normal value (a smaller one becomes 0 or a
// denormal, and a run without repulsion or contacts) to its largest.
inline constexpr Range kPositiveFloat{std::numeric_limits<float>::min(), false, std::numeric_limits<float>::max()};
inline constexpr Range kNonNegativeInt32{0.0, false, INT32_MAX};
// Steps of a run (kMostRunSteps, spec.h).
inline constexpr Range kRunSteps{0.0, false, double(kMostRunSteps)};
inline constexpr Range kPositiveInt32{1.0, false, INT32_MAX};
inline constexpr Range kPositiveInt{1.0, false};
// CPU threads: more than any machine's cores (the CPU backend warns above this machine's);
// without a bound, 10⁵ threads crashed the OpenMP runtime.
inline constexpr Range kThreads{0.0, false, double(kMaxCpuThreads)};

// ---------------------------------------------------------------------------------------
// One [section] of the file: rejects unknown keys on construction, then hands out typed,
// range-checked values. An absent section reads as empty.

class Section {
 public:
  Section(const Context& ctx, const toml::table& root, std::string_view name,
          std::initializer_list<std::string_view> known);

  // A table that is not at the top level: a sub-table ([indentation.surface]) or one
  // element of an array of tables ([[plane_pulling.plane]]); `name` is its name in
  // messages. A null node reads as an absent (empty) table.
  Section(const Context& ctx, const toml::node* node, std::string_view name,
          std::initializer_list<std::string_view> known);

  const std::string& name() const { return name_; }
  const toml::node* node(std::string_view key) const { return find(key); }

  // Of two keys that conflict, the one to name: the one an override gave (the user's latest
  // word), else `otherwise`.
  std::string_view overridden_of(std::string_view a, std::string_view b, std::string_view otherwise) const;
  // Where `key` was given (file or "--set", line), for checks made after the model is
  // loaded.
  RunSpec::KeySource source(std::string_view key) const;

  std::optional<bool> boolean(std::string_view key) const;

  // [x, y, z]: an array of three numbers.
  std::optional<Vec3d> vec3(std::string_view key) const;

  // A number inside an array (no unit check beyond finiteness).
  double number_value(const toml::node& n, const std::string& where) const;

  Error error_node(const toml::node& n, const std::string& where, const std::string& what) const;

  std::int64_t integer_in(const toml::node& n, const std::string& where, Range range) const;

  bool present() const { return table_ != nullptr; }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  std::string field(std::string_view key) const;

  // An error about `key`, which must be present.
  Error error(std::string_view key, const std::string& what) const;
  // An error about the section as a whole (a missing key, a combination).
  Error error(const std::string& what) const;

  std::optional<double> real(std::string_view key, Range range, std::string_view unit) const;
  std::optional<float> real_float(std::string_view key, std::string_view unit) const;
  std::optional<std::int64_t> integer(std::string_view key, Range range) const;
  std::optional<std::vector<std::int64_t>> integers(std::string_view key, Range range) const;

  // The value of `key` when it is a string (nullopt when absent or of another type).
  std::optional<std::string> string_if_string(std::string_view key) const;
  bool is_array(std::string_view key) const;

  std::optional<std::string> string(std::string_view key) const;

  // An array of paths, each resolved as path() does.
  std::optional<std::vector<std::filesystem::path>> paths(std::string_view key) const;

  // An array of non-empty strings (a single string is taken as an array of one).
  std::optional<std::vector<std::string>> strings(std::string_view key) const;

  // An array of non-empty strings, each error at its item; `what` names the items for a value
  // that is no array ("file names").
  std::optional<std::vector<std::string>> string_array(std::string_view key, std::string_view what) const;

  // A path relative to the config file's directory, or to the working directory when it
  // came from --set (where the user typed it). Made absolute so that the resolved config
  // means the same wherever it is read back.
  std::optional<std::filesystem::path> path(std::string_view key) const;

 private:
  const toml::node* find(std::string_view key) const { return table_ ? table_->get(key) : nullptr; }
  void reject_unknown(std::initializer_list<std::string_view> known) const;
  std::int64_t integer_value(const toml::node& n, const std::string& where, Range range) const;

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
struct Given {
  double value;
  std::string_view key;
};
std::optional<Given> either(const Section& s, UnitKey a, UnitKey b, Range range);

}  // namespace ermak::config
