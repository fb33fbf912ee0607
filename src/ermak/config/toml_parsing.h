#pragma once
// TOML text → table: the configuration file's, and each `--set section.key=value`
// override's, merged over it. Syntax errors and conflicting overrides throw Error naming
// the file (or "--set") and line.
#include <toml++/toml.h>

#include <string>
#include <string_view>

namespace ermak::config {

toml::table parse_toml(std::string_view text, const std::string& file);

// "section.key=value" as a one-line TOML document (a value that is no TOML is a string).
toml::table parse_override(const std::string& text);

// Merges `from` (one override's table, `override_text` as the user typed it) into `into`.
void merge(toml::table& into, toml::table& from, const std::string& override_text, const std::string& prefix = "");

}  // namespace ermak::config
