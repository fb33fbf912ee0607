// The known name a mistyped one most likely meant, for "did you mean …?" in the errors of
// the configuration readers (an unknown TOML or .sop key).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ermak {

// Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`,
// letters compared without case.
std::size_t name_edit_distance(std::string_view a, std::string_view b);

// The one name of `known` closest to `typed`, when it is close enough to be a slip: at most
// one edit for names of up to 4 characters, two for longer ones, and no other name as close.
// nullopt when `typed` is itself known, longer than any key (64 characters: no slip), or
// nothing (or more than one name) is that close.
std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string_view> known);

// " (did you mean 'x'?)" for the name `typed` most likely meant, or "". A name typed without
// its unit that several keys share as their stem ("temperature": temperature_K and
// temperature_kcal_per_mol) names them all, so that the hint does not pick a unit for the
// user (SOP-GPU's temperature is in kcal/mol).
std::string did_you_mean(std::string_view typed, std::span<const std::string_view> known);

}  // namespace ermak
