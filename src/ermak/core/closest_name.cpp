#include "ermak/core/closest_name.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ermak {

std::size_t name_edit_distance(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
  const std::size_t n = a.size(), m = b.size();
  // d[i][j]: edits between a's first i and b's first j characters (optimal string alignment).
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

namespace {

// No key is longer: a longer name is no slip of one, and the distance's cost grows with it.
constexpr std::size_t kLongestName = 64;

}  // namespace

std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string_view> known) {
  if (typed.size() > kLongestName) return std::nullopt;
  const std::size_t allowed = typed.size() <= 4 ? 1 : 2;
  std::optional<std::string_view> best;
  std::size_t best_distance = allowed + 1;
  bool tie = false;
  for (std::string_view name : known) {
    if (name == typed) return std::nullopt;
    // The lengths' difference bounds the distance from below.
    if ((name.size() > typed.size() ? name.size() - typed.size() : typed.size() - name.size()) > allowed) continue;
    const std::size_t d = name_edit_distance(typed, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
      tie = false;
    } else if (d == best_distance && best && name != *best) {
      tie = true;
    }
  }
  if (!best || tie) return std::nullopt;
  return std::string(*best);
}

std::string did_you_mean(std::string_view typed, std::span<const std::string_view> known) {
  if (typed.empty() || typed.size() > kLongestName) return "";
  // Keys that are the typed name with a unit after it: all of them. Several keys of one stem
  // are its units (temperature_K, temperature_kcal_per_mol); one alone is named where its tail
  // is a unit (skin_A), not where it is another word (chain → chain_break_A).
  static constexpr std::string_view kUnits[] = {"A",   "nm",     "ps",        "ns",          "K",
                                                "pN",  "tau",    "steps",     "kcal_per_mol", "kcal_per_mol_A",
                                                "kcal_per_mol_A2", "pN_per_nm", "um_per_s", "A_per_tau", "amu"};
  std::string stems;
  int count = 0;
  bool unit_tail = false;
  for (std::string_view name : known)
    if (name.size() > typed.size() + 1 && name[typed.size()] == '_' && name.substr(0, typed.size()) == typed) {
      stems += (count == 0 ? "'" : "' or '") + std::string(name);
      ++count;
      const std::string_view tail = name.substr(typed.size() + 1);
      unit_tail = unit_tail || std::find(std::begin(kUnits), std::end(kUnits), tail) != std::end(kUnits);
    }
  if (count > 1 || (count == 1 && unit_tail)) return " (did you mean " + stems + "'?)";
  const std::optional<std::string> close = closest_name(typed, known);
  return close ? " (did you mean '" + *close + "'?)" : "";
}

}  // namespace ermak
