#include "ermak/run/bead_lists.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "ermak/model/residue_selection.h"

namespace ermak {

namespace {

// The index list a key of spec.bead_selections fills.
std::vector<std::int32_t>& target_list(RunSpec& spec, const std::string& key) {
  if (key == "fixed.beads") return spec.fixed_beads;
  if (key == "pulling.pulled_beads") return spec.pulling.pulled_beads;
  if (key == "pulling.ends") return spec.pulling.ends;
  if (key == "force_clamp.pulled_beads") return spec.force_clamp.pulled_beads;
  if (key == "force_clamp.ends") return spec.force_clamp.ends;
  const std::string prefix = "plane_pulling.plane[", suffix = "].beads";
  std::size_t plane = 0;
  if (key.rfind(prefix, 0) == 0 && key.size() > prefix.size() + suffix.size() &&
      key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const char* first = key.data() + prefix.size();
    const char* last = key.data() + key.size() - suffix.size();
    const auto [end, ec] = std::from_chars(first, last, plane);
    if (ec == std::errc() && end == last && plane < spec.plane_pulling.planes.size())
      return spec.plane_pulling.planes[plane].beads;
  }
  throw Error("internal error: no bead list for the key " + key);
}

std::string bead_text(const Topology& topology, std::int32_t bead) {
  if (bead < 0 || bead >= topology.bead_count()) return std::to_string(bead);
  return fmt::format("{} ({})", bead, describe_bead(topology, bead));
}

void check_distinct(const RunSpec& spec, const Topology& topology, const std::string& key,
                    const std::vector<std::int32_t>& beads) {
  for (std::size_t i = 0; i < beads.size(); ++i)
    if (std::find(beads.begin(), beads.begin() + i, beads[i]) != beads.begin() + i)
      throw key_error(spec, key, fmt::format("bead {} is listed twice", bead_text(topology, beads[i])));
}

void check_not_fixed(const RunSpec& spec, const Topology& topology, const std::string& key,
                     const std::vector<std::int32_t>& beads) {
  for (std::int32_t b : beads)
    if (std::find(spec.fixed_beads.begin(), spec.fixed_beads.end(), b) != spec.fixed_beads.end())
      throw key_error(spec, key,
                      fmt::format("bead {} is also in fixed.beads: a bead cannot be both fixed and pulled",
                                  bead_text(topology, b)));
}

void check_ends(const RunSpec& spec, const std::string& key, const std::vector<std::int32_t>& ends) {
  if (ends.empty()) return;
  if (ends.size() != 2)
    throw key_error(spec, key,
                    fmt::format("expected two beads [first, second]; the selections name {} (give one residue "
                                "each, e.g. [\"A:1\", \"A:76\"])",
                                ends.size()));
  if (ends[0] == ends[1]) throw key_error(spec, key, "the two ends must be different beads");
}

}  // namespace

std::vector<std::string> resolve_bead_selections(RunSpec& spec, const Topology& topology) {
  std::vector<std::string> log_lines;
  if (spec.bead_selections.empty()) return log_lines;
  for (const auto& [key, items] : spec.bead_selections) {
    std::vector<std::int32_t>& list = target_list(spec, key);
    list.clear();
    std::vector<std::string> shown;
    for (const std::string& item : items) {
      if (!looks_like_residue_selection(item)) {
        std::int32_t index = 0;
        std::from_chars(item.data(), item.data() + item.size(), index);
        list.push_back(index);
        continue;
      }
      std::string why;
      const auto selection = parse_residue_selection(item, &why);
      if (!selection) throw key_error(spec, key, why);
      const std::vector<std::int32_t> beads = select_beads(topology, *selection, &why);
      if (beads.empty()) throw key_error(spec, key, why);
      list.insert(list.end(), beads.begin(), beads.end());
      shown.push_back(beads.size() == 1 ? fmt::format("\"{}\" → bead {}", item, bead_text(topology, beads[0]))
                                        : fmt::format("\"{}\" → {} beads, {} to {}", item, beads.size(),
                                                      bead_text(topology, beads.front()),
                                                      bead_text(topology, beads.back())));
    }
    log_lines.push_back(fmt::format("{}: {}", key, fmt::join(shown, "; ")));
  }
  // The parser's checks, now on every list (lists of indices pass them again).
  check_distinct(spec, topology, "fixed.beads", spec.fixed_beads);
  if (spec.pulling.enabled) {
    check_distinct(spec, topology, "pulling.pulled_beads", spec.pulling.pulled_beads);
    check_not_fixed(spec, topology, "pulling.pulled_beads", spec.pulling.pulled_beads);
    check_ends(spec, "pulling.ends", spec.pulling.ends);
  }
  if (spec.force_clamp.enabled) {
    check_distinct(spec, topology, "force_clamp.pulled_beads", spec.force_clamp.pulled_beads);
    check_not_fixed(spec, topology, "force_clamp.pulled_beads", spec.force_clamp.pulled_beads);
    check_ends(spec, "force_clamp.ends", spec.force_clamp.ends);
  }
  if (spec.plane_pulling.enabled) {
    std::vector<std::int32_t> seen;
    for (std::size_t i = 0; i < spec.plane_pulling.planes.size(); ++i) {
      const std::string key = fmt::format("plane_pulling.plane[{}].beads", i);
      const auto& beads = spec.plane_pulling.planes[i].beads;
      check_distinct(spec, topology, key, beads);
      check_not_fixed(spec, topology, key, beads);
      for (std::int32_t b : beads) {
        if (std::find(seen.begin(), seen.end(), b) != seen.end())
          throw key_error(spec, key, fmt::format("bead {} is already tethered to another plane", bead_text(topology, b)));
        seen.push_back(b);
      }
    }
  }
  return log_lines;
}

}  // namespace ermak
