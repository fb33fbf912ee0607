#include "ermak/config/toml_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "ermak/core/closest_name.h"
#include "ermak/io/text_fields.h"

namespace ermak::config {
namespace {

namespace fs = std::filesystem;

bool from_override(const toml::node& n) {
  return n.source().path && *n.source().path == kOverrideSource;
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

}  // namespace

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

Section::Section(const Context& ctx, const toml::table& root, std::string_view name,
                 std::initializer_list<std::string_view> known)
    : Section(ctx, root.get(name), name, known) {}

Section::Section(const Context& ctx, const toml::node* node, std::string_view name,
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

std::string_view Section::overridden_of(std::string_view a, std::string_view b, std::string_view otherwise) const {
  auto overridden = [&](std::string_view k) {
    const toml::node* n = find(k);
    return n && from_override(*n);
  };
  if (overridden(a) != overridden(b)) return overridden(a) ? a : b;
  return otherwise;
}

RunSpec::KeySource Section::source(std::string_view key) const {
  const toml::node* n = find(key);
  if (!n) return {ctx_.file, 0, {}};
  const auto& src = n->source();
  return {src.path ? *src.path : ctx_.file, from_override(*n) ? 0 : static_cast<int>(src.begin.line), {}};
}

std::optional<bool> Section::boolean(std::string_view key) const {
  const toml::node* n = find(key);
  if (!n) return std::nullopt;
  const auto* b = n->as_boolean();
  if (!b) throw error(key, fmt::format("expected true or false, got {}", type_name(n->type())));
  return b->get();
}

std::optional<Vec3d> Section::vec3(std::string_view key) const {
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

double Section::number_value(const toml::node& n, const std::string& where) const {
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

Error Section::error_node(const toml::node& n, const std::string& where, const std::string& what) const {
  return error_at(ctx_, n, where, what);
}

std::int64_t Section::integer_in(const toml::node& n, const std::string& where, Range range) const {
  return integer_value(n, where, range);
}

std::string Section::field(std::string_view key) const { return fmt::format("{}.{}", name_, key); }

Error Section::error(std::string_view key, const std::string& what) const {
  return error_at(ctx_, *find(key), field(key), what);
}

Error Section::error(const std::string& what) const {
  if (table_) return error_at(ctx_, *table_, name_, what);
  return Error(ctx_.file, 0, name_, what);
}

std::optional<double> Section::real(std::string_view key, Range range, std::string_view unit) const {
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

std::optional<float> Section::real_float(std::string_view key, std::string_view unit) const {
  const auto v = real(key, kPositiveFloat, unit);
  return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
}

std::optional<std::int64_t> Section::integer(std::string_view key, Range range) const {
  const toml::node* n = find(key);
  return n ? std::optional(integer_value(*n, field(key), range)) : std::nullopt;
}

std::optional<std::vector<std::int64_t>> Section::integers(std::string_view key, Range range) const {
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

std::optional<std::string> Section::string_if_string(std::string_view key) const {
  const toml::node* n = find(key);
  if (!n || !n->as_string()) return std::nullopt;
  return n->as_string()->get();
}

bool Section::is_array(std::string_view key) const {
  const toml::node* n = find(key);
  return n && n->as_array();
}

std::optional<std::string> Section::string(std::string_view key) const {
  const toml::node* n = find(key);
  if (!n) return std::nullopt;
  const auto* s = n->as_string();
  if (!s) throw error(key, fmt::format("expected a string, got {}", type_name(n->type())));
  return s->get();
}

std::optional<std::vector<fs::path>> Section::paths(std::string_view key) const {
  const auto texts = string_array(key, "file names");
  if (!texts) return std::nullopt;
  const fs::path base = from_override(*find(key)) ? fs::current_path() : ctx_.base_dir;
  std::vector<fs::path> out;
  for (const std::string& text : *texts) out.push_back(fs::absolute(base / fs::path(text)).lexically_normal());
  return out;
}

std::optional<std::vector<std::string>> Section::strings(std::string_view key) const {
  if (const toml::node* n = find(key); n && n->as_string()) {
    if (n->as_string()->get().empty()) throw error(key, "must not be empty");
    return std::vector<std::string>{n->as_string()->get()};
  }
  return string_array(key, "strings");
}

std::optional<std::vector<std::string>> Section::string_array(std::string_view key, std::string_view what) const {
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

std::optional<fs::path> Section::path(std::string_view key) const {
  const auto text = string(key);
  if (!text) return std::nullopt;
  if (text->empty()) throw error(key, "must not be empty");
  const fs::path base = from_override(*find(key)) ? fs::current_path() : ctx_.base_dir;
  return fs::absolute(base / fs::path(*text)).lexically_normal();
}

void Section::reject_unknown(std::initializer_list<std::string_view> known) const {
  if (!table_) return;
  for (const auto& [key, value] : *table_) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    throw error_at(ctx_, value, field(text::shortened(key.str())),
                   fmt::format("unknown key{}; known keys in [{}]: {}",
                               did_you_mean(key.str(), std::span<const std::string_view>(known.begin(), known.size())),
                               name_, join(known)));
  }
}

std::int64_t Section::integer_value(const toml::node& n, const std::string& where, Range range) const {
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

std::optional<Given> either(const Section& s, UnitKey a, UnitKey b, Range range) {
  if (s.has(a.key) && s.has(b.key))
    throw s.error(s.overridden_of(a.key, b.key, b.key), fmt::format("give either {} or {}, not both", s.field(a.key),
                                                                     s.field(b.key)));
  for (const UnitKey& k : {a, b})
    if (const auto v = s.real(k.key, range, k.unit)) return Given{k.to_internal(*v), k.key};
  return std::nullopt;
}

}  // namespace ermak::config
