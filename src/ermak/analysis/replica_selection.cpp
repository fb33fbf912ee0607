#include "ermak/analysis/replica_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>

#include "ermak/core/error.h"

namespace ermak::analysis {

namespace {

[[noreturn]] void refuse(const std::string& what) {
  throw Error("--replica-files: " + what +
              " (give all, none, or replica numbers and ranges such as 0-9,5123; docs/analysis.md#options)");
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

int replica_number(std::string_view word, const std::string& part) {
  word = trimmed(word);
  if (word.empty()) refuse(fmt::format("'{}' is a range without its {}", part, part.find('-') == 0 ? "start" : "end"));
  int value = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (error == std::errc::result_out_of_range)
    refuse(fmt::format("{} is larger than any replica number (at most {})", word, std::numeric_limits<int>::max()));
  if (error != std::errc() || end != word.data() + word.size() || value < 0)
    refuse(fmt::format("'{}' is not a replica number (a whole number ≥ 0) in '{}'", word, part));
  return value;
}

}  // namespace

bool ReplicaSelection::includes(int number, std::size_t position) const {
  switch (kind) {
    case Kind::all: return true;
    case Kind::none: return false;
    case Kind::first: return position < first_count;
    case Kind::listed:
      return std::any_of(ranges.begin(), ranges.end(),
                         [number](const auto& r) { return number >= r.first && number <= r.second; });
  }
  return false;
}

std::string ReplicaSelection::describe() const {
  switch (kind) {
    case Kind::all: return "every replica";
    case Kind::none: return "no replica";
    case Kind::first: return fmt::format("the first {} replicas", first_count);
    case Kind::listed: {
      std::string s = ranges.size() == 1 && ranges.front().first == ranges.front().second ? "replica " : "replicas ";
      for (std::size_t k = 0; k < ranges.size(); ++k) {
        if (k > 0) s += ", ";
        s += ranges[k].first == ranges[k].second ? fmt::format("{}", ranges[k].first)
                                                   : fmt::format("{}-{}", ranges[k].first, ranges[k].second);
      }
      return s;
    }
  }
  return "";
}

std::vector<std::string> ReplicaSelection::unmatched_warnings(const std::vector<int>& numbers, bool pooled) const {
  const char* whose = pooled ? "the pooled runs (their" : "this run (its";
  std::vector<std::string> warnings;
  if (kind != Kind::listed || numbers.empty()) return warnings;
  const auto [lowest, highest] = std::minmax_element(numbers.begin(), numbers.end());
  for (const auto& [from, to] : ranges) {
    const auto found = std::count_if(numbers.begin(), numbers.end(), [&](int n) { return n >= from && n <= to; });
    const std::string entry = from == to ? fmt::format("{}", from) : fmt::format("{}-{}", from, to);
    // A range that covers every replica (0-2147483647) is no mistake.
    if (found == 0)
      warnings.push_back(fmt::format("--replica-files: {} names no replica of {} {} replicas are numbered "
                                     "{} to {})",
                                     entry, whose, numbers.size(), *lowest, *highest));
    else if (std::int64_t(found) < std::int64_t(to) - from + 1 && std::size_t(found) < numbers.size())
      warnings.push_back(fmt::format("--replica-files: {} names {} replica{} of {} {} replicas are "
                                     "numbered {} to {})",
                                     entry, found, found == 1 ? "" : "s", whose, numbers.size(), *lowest, *highest));
  }
  return warnings;
}

ReplicaSelection parse_replica_selection(const std::string& given) {
  ReplicaSelection selection;
  std::string text(trimmed(given));
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (lower == "all") {
    selection.kind = ReplicaSelection::Kind::all;
    return selection;
  }
  if (lower == "none") {
    selection.kind = ReplicaSelection::Kind::none;
    return selection;
  }
  if (text.empty()) refuse("empty");
  selection.kind = ReplicaSelection::Kind::listed;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string part(trimmed(std::string_view(text).substr(at, end - at)));
    if (part.empty()) refuse(fmt::format("an empty entry in '{}'", text));
    const std::size_t dash = part.find('-');
    if (dash != std::string::npos && part.find('-', dash + 1) != std::string::npos)
      refuse(fmt::format("'{}' is not a range (FROM-TO)", part));
    if (dash == std::string::npos) {
      const int n = replica_number(part, part);
      selection.ranges.push_back({n, n});
    } else {
      const int from = replica_number(std::string_view(part).substr(0, dash), part);
      const int to = replica_number(std::string_view(part).substr(dash + 1), part);
      if (to < from) refuse(fmt::format("the range '{}' runs backwards", part));
      selection.ranges.push_back({from, to});
    }
    at = end + 1;
  }
  // In order, overlapping and adjacent ranges joined ("1,1,2" is replicas 1-2).
  auto& r = selection.ranges;
  std::sort(r.begin(), r.end());
  std::vector<std::pair<int, int>> joined;
  for (const auto& range : r)
    if (!joined.empty() && std::int64_t(range.first) <= std::int64_t(joined.back().second) + 1)
      joined.back().second = std::max(joined.back().second, range.second);
    else
      joined.push_back(range);
  r = std::move(joined);
  return selection;
}

}  // namespace ermak::analysis
