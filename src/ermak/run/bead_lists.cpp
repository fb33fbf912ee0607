#include "ermak/run/bead_lists.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include <fmt/format.h>

#include "ermak/config/bead_list_checks.h"
#include "ermak/model/residue_selection.h"

namespace ermak {

namespace {

// Every bead list of the configuration with its key (the keys of RunSpec::bead_selections).
std::vector<std::pair<std::string, std::vector<std::int32_t>*>> bead_lists(RunSpec& spec) {
  std::vector<std::pair<std::string, std::vector<std::int32_t>*>> lists = {
      {"fixed.beads", &spec.fixed_beads},
      {"pulling.pulled_beads", &spec.pulling.pulled_beads},
      {"pulling.ends", &spec.pulling.ends},
      {"force_clamp.pulled_beads", &spec.force_clamp.pulled_beads},
      {"force_clamp.ends", &spec.force_clamp.ends}};
  for (std::size_t i = 0; i < spec.plane_pulling.planes.size(); ++i)
    lists.emplace_back(fmt::format("plane_pulling.plane[{}].beads", i), &spec.plane_pulling.planes[i].beads);
  return lists;
}

std::string bead_text(const Topology& topology, std::int32_t bead) {
  return fmt::format("{} ({})", bead, describe_bead(topology, bead));
}

}  // namespace

std::vector<std::string> resolve_bead_selections(RunSpec& spec, const Topology& topology,
                                                 const std::vector<Vec3d>& positions_A) {
  std::vector<std::string> log_lines;
  if (spec.bead_selections.empty()) return log_lines;
  const auto lists = bead_lists(spec);
  for (const auto& [key, items] : spec.bead_selections) {
    const auto target = std::find_if(lists.begin(), lists.end(), [&](const auto& l) { return l.first == key; });
    if (target == lists.end()) throw Error("internal error: no bead list for the key " + key);
    std::vector<std::int32_t>* list = target->second;
    list->clear();
    std::vector<std::string> shown;
    for (const std::string& item : items) {
      if (!looks_like_bead_selection(item)) {
        std::int32_t index = 0;
        std::from_chars(item.data(), item.data() + item.size(), index);
        list->push_back(index);
        continue;
      }
      std::string why;
      std::vector<std::int32_t> beads;
      if (looks_like_position_selection(item)) {
        const auto selection = parse_position_selection(item, &why);
        if (!selection) throw key_error(spec, key, why);
        beads = select_beads_at(positions_A, *selection, &why);
      } else {
        const auto selection = parse_residue_selection(item, &why);
        if (!selection) throw key_error(spec, key, why);
        beads = select_beads(topology, *selection, &why);
      }
      if (beads.empty()) throw key_error(spec, key, why);
      list->insert(list->end(), beads.begin(), beads.end());
      shown.push_back(beads.size() == 1 ? fmt::format("\"{}\" → bead {}", item, bead_text(topology, beads[0]))
                                        : fmt::format("\"{}\" → {} beads, {} to {}", item, beads.size(),
                                                      bead_text(topology, beads.front()),
                                                      bead_text(topology, beads.back())));
    }
    log_lines.push_back(fmt::format("{}: {}", key, fmt::join(shown, "; ")));
  }
  // The parser's checks, now on the resolved lists too.
  check_bead_lists(spec, &topology);
  return log_lines;
}

}  // namespace ermak
