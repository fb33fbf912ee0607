#pragma once
// TOML run configuration → validated RunSpec (DESIGN.md §3; every key in docs/config.md).
// toml++ stays inside config/: the files that read tables include it through
// toml_section.h and toml_parsing.h, and no header outside config/ includes those.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ermak/config/spec.h"

namespace ermak {

// Reads and validates a run configuration file. `overrides` are command-line
// "section.key=value" strings (`ermak run --set ...`), merged over the file before
// validation. Every user mistake throws ermak::Error naming file, line and key; mistakes
// in an override name "--set" as the file.
RunSpec load_run_spec(const std::filesystem::path& toml_file,
                      const std::vector<std::string>& overrides = {});

// As load_run_spec, from text already in memory. `source_name` is used in messages, and
// its directory is the base for relative paths in [input] and [output].
RunSpec parse_run_spec(std::string_view toml_text, const std::filesystem::path& source_name,
                       const std::vector<std::string>& overrides = {});

// The complete configuration of `spec` as TOML in physical units, with the internal
// values in comments (resolved_config_writer.cpp). parse_run_spec of this text gives back the same RunSpec, bit for
// bit; parse_run_spec stores it in RunSpec::resolved_toml.
std::string resolved_toml(const RunSpec& spec);

}  // namespace ermak
