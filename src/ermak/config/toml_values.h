#pragma once
// Values as TOML text, for the resolved configuration (resolved_config_writer.cpp) and
// for --set values that are no TOML (toml_parsing.cpp). Both directions must be exact:
// resolved_toml has to parse back to the same doubles, so every number is written in its
// shortest round-trip form.
#include <optional>
#include <string>
#include <string_view>

namespace ermak::config {

// A unit conversion, between a physical unit and ermak's internal one (core/units.h).
using Conversion = double (*)(double);

// The shortest text that reads back as `v`, in a form TOML reads as a float. A float is
// written as the float's shortest text where that reads back to it through a double.
std::string shortest(double v);
std::string shortest(float f);

// The shortest decimal y (in a physical unit) for which to_internal(y) == internal exactly,
// or nullopt where none exists near to_physical(internal).
std::optional<std::string> exact_physical(double internal, Conversion to_physical, Conversion to_internal);

// `s` as a TOML basic string, quoted and escaped.
std::string toml_string(std::string_view s);

}  // namespace ermak::config
