#include "ermak/config/bead_list_checks.h"

#include <unordered_set>

#include <fmt/format.h>

#include "ermak/model/residue_selection.h"

namespace ermak {

namespace {

std::string bead_text(const Topology* topology, std::int32_t bead) {
  if (!topology || bead < 0 || bead >= topology->bead_count()) return std::to_string(bead);
  return fmt::format("{} ({})", bead, describe_bead(*topology, bead));
}

// Sets, not pairwise searches: a capsid's fixed list may hold 10⁵ beads.
void check_distinct(const RunSpec& spec, const Topology* topology, const std::string& key,
                    const std::vector<std::int32_t>& beads) {
  std::unordered_set<std::int32_t> seen;
  for (std::int32_t b : beads)
    if (!seen.insert(b).second)
      // A repeated index is almost surely a typo for another bead.
      throw key_error(spec, key, fmt::format("bead {} is listed twice", bead_text(topology, b)));
}

// Pulled beads must move: a bead that is also fixed would ignore its spring or force.
void check_not_fixed(const RunSpec& spec, const Topology* topology, const std::string& key,
                     const std::vector<std::int32_t>& beads, const std::unordered_set<std::int32_t>& fixed) {
  for (std::int32_t b : beads)
    if (fixed.count(b))
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

void check_bead_lists(const RunSpec& spec, const Topology* topology) {
  check_distinct(spec, topology, "fixed.beads", spec.fixed_beads);
  const std::unordered_set<std::int32_t> fixed(spec.fixed_beads.begin(), spec.fixed_beads.end());
  if (spec.pulling.enabled) {
    check_distinct(spec, topology, "pulling.pulled_beads", spec.pulling.pulled_beads);
    check_not_fixed(spec, topology, "pulling.pulled_beads", spec.pulling.pulled_beads, fixed);
    check_ends(spec, "pulling.ends", spec.pulling.ends);
  }
  if (spec.force_clamp.enabled) {
    check_distinct(spec, topology, "force_clamp.pulled_beads", spec.force_clamp.pulled_beads);
    check_not_fixed(spec, topology, "force_clamp.pulled_beads", spec.force_clamp.pulled_beads, fixed);
    check_ends(spec, "force_clamp.ends", spec.force_clamp.ends);
  }
  if (spec.plane_pulling.enabled) {
    std::unordered_set<std::int32_t> tethered;
    for (std::size_t i = 0; i < spec.plane_pulling.planes.size(); ++i) {
      const std::string key = fmt::format("plane_pulling.plane[{}].beads", i);
      const auto& beads = spec.plane_pulling.planes[i].beads;
      check_distinct(spec, topology, key, beads);
      check_not_fixed(spec, topology, key, beads, fixed);
      for (std::int32_t b : beads)
        if (!tethered.insert(b).second)
          throw key_error(spec, key,
                          fmt::format("bead {} is already tethered to another plane", bead_text(topology, b)));
    }
  }
}

}  // namespace ermak
