#pragma once
// The readers of a configuration's tables, one per table, each filling its part of the
// RunSpec: the run's sections (toml_run_sections.cpp) and the mechanical protocols'
// (toml_protocol_sections.cpp). build_spec (toml_config.cpp) calls them in order. Keys
// and their order are docs/config.md's.
#include <cstdint>
#include <string_view>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/config/toml_section.h"

namespace ermak::config {

// toml_run_sections.cpp
void reject_unknown_tables(const Context& ctx, const toml::table& root);
void read_input(const Section& s, InputSpec& in);
void read_model(const Section& s, const InputSpec& input, ModelBuildSpec& m, SopParameters& sop);
bool read_run(const Section& s, RunSpec& spec);
void read_heating(const Section& s, bool run_temperature_given, RunSpec& spec);
void read_minimize(const Section& s, MinimizeSpec& m);
void read_fixed(const Section& s, RunSpec& spec);
void read_hydrodynamics(const Section& s, RunSpec& spec);
void read_output(const Section& s, OutputSpec& o);

// Notes in spec.key_sources where `key` was given, for checks made once the model is
// loaded (they name the key's file and line).
void remember(RunSpec& spec, const Section& s, std::string_view key);
// A list of beads: indices, or residue selections left for the model to resolve.
std::vector<std::int32_t> bead_list(const Section& s, std::string_view key, bool required, RunSpec& spec);

// toml_protocol_sections.cpp
void check_protocol_combination(const Section& pulling, const Section& clamp, const Section& indentation);
void read_pulling(const Section& s, RunSpec& spec);
void read_force_clamp(const Section& s, RunSpec& spec);
void read_plane_pulling(const Context& ctx, const Section& s, RunSpec& spec);
void read_indentation(const Context& ctx, const Section& s, RunSpec& spec);

}  // namespace ermak::config
