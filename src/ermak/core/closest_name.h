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
// nullopt when `typed` is itself known, or nothing (or more than one name) is that close.
std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string_view> known);

}  // namespace ermak
