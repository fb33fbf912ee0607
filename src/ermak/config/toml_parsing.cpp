#include "ermak/config/toml_parsing.h"

#include <fmt/format.h>

#include <sstream>
#include <utility>

#include "ermak/config/toml_section.h"
#include "ermak/config/toml_values.h"
#include "ermak/core/error.h"

namespace ermak::config {
namespace {

Error syntax_error(const toml::parse_error& e, const std::string& file) {
  return Error(file, static_cast<int>(e.source().begin.line), "",
               fmt::format("TOML syntax error: {}", e.description()));
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

// A value as TOML writes it ("1", "\"out\"", "[1, 2]"), for messages.
std::string existing_text(const toml::node& n) {
  std::ostringstream out;
  n.visit([&](auto&& v) { out << v; });
  return out.str();
}

}  // namespace

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
  // A TOML key has no index: one element of an array (a [[plane_pulling.plane]] table) is
  // replaced only with the whole array.
  if (key.find('[') != std::string::npos)
    throw Error(file, 0, key,
                "a key cannot index an array: give the whole array (--set 'plane_pulling.plane=[{ beads = [0], "
                "speed_um_per_s = 0 }, { … }]', every table with all its keys), or edit the file");
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

// Tables merge key by key; any other value replaces what was there. Moving the nodes
// keeps their source ("--set"), which the error messages rely on. A value where there was
// a section, or a section where there was a value, is an error: silently replacing one by
// the other would drop the file's (or an earlier --set's) whole section.
void merge(toml::table& into, toml::table& from, const std::string& override_text, const std::string& prefix) {
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

}  // namespace ermak::config
