#include "ermak/run/protocol_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "ermak/core/error.h"
#include "ermak/run/protocol_setup_detail.h"

namespace ermak {
namespace {

using protocol_setup_detail::default_ends;

void check_beads(const RunSpec& spec, const std::string& key, const std::vector<std::int32_t>& beads,
                 std::int32_t n) {
  for (std::size_t k = 0; k < beads.size(); ++k) {
    const std::int32_t b = beads[k];
    if (b >= 0 && b < n) continue;
    // An item with a source of its own (a .sop file's fixedEnd and pulledEnd) is named by it.
    const std::string item = fmt::format("{}[{}]", key, k);
    throw key_error(spec, spec.key_sources.count(item) ? item : key,
                    fmt::format("bead {} is out of range: the model has {} beads (0..{})", b, n, n - 1));
  }
}

}  // namespace

void validate_protocols(const RunSpec& spec, const Topology& topology) {
  const std::int32_t n = topology.bead_count();
  if (spec.pulling.enabled) {
    check_beads(spec, "pulling.pulled_beads", spec.pulling.pulled_beads, n);
    check_beads(spec, "pulling.ends", spec.pulling.ends, n);
  }
  if (spec.force_clamp.enabled) {
    check_beads(spec, "force_clamp.pulled_beads", spec.force_clamp.pulled_beads, n);
    check_beads(spec, "force_clamp.ends", spec.force_clamp.ends, n);
  }
  if (spec.plane_pulling.enabled)
    for (std::size_t i = 0; i < spec.plane_pulling.planes.size(); ++i)
      check_beads(spec, fmt::format("plane_pulling.plane[{}].beads", i), spec.plane_pulling.planes[i].beads, n);
}

std::vector<std::int32_t> protocol_reference_beads(const RunSpec& spec, std::int32_t bead_count) {
  std::vector<std::int32_t> beads;
  auto add_pulled = [&](const std::vector<std::int32_t>& pulled, const std::vector<std::int32_t>& ends) {
    beads.insert(beads.end(), pulled.begin(), pulled.end());
    std::int32_t e[2];
    default_ends(spec, ends, pulled, e);
    beads.push_back(e[0]);
    beads.push_back(e[1]);
  };
  if (spec.pulling.enabled) add_pulled(spec.pulling.pulled_beads, spec.pulling.ends);
  if (spec.force_clamp.enabled) add_pulled(spec.force_clamp.pulled_beads, spec.force_clamp.ends);
  if (spec.plane_pulling.enabled)
    for (const PlaneSpec& p : spec.plane_pulling.planes) beads.insert(beads.end(), p.beads.begin(), p.beads.end());
  std::sort(beads.begin(), beads.end());
  beads.erase(std::unique(beads.begin(), beads.end()), beads.end());
  beads.erase(std::remove_if(beads.begin(), beads.end(), [&](std::int32_t b) { return b < 0 || b >= bead_count; }),
              beads.end());
  return beads;
}

}  // namespace ermak
