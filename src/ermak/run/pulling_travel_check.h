#pragma once
// Whether a pulling run's cantilever base travels far beyond what the chain can follow. Past
// the chain's contour length the spring stretches a fully extended chain, its force rising
// by κ per nm of travel until a FENE bond breaks (a few nN in the SOP model): the rest of the
// run measures nothing, and the break's advice ("pull more slowly") would only make the same
// travel take longer. Planning: docs/protocols.md#planning-a-pulling-run-at-experimental-speeds.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/core/vec3.h"
#include "ermak/model/topology.h"

namespace ermak {

// Both of the below from one search of the bonds (what a run's start needs).
struct PullingTravel {
  std::string warning;                       // pulling_travel_warning
  std::optional<std::int64_t> overload_step;  // pulling_overload_step
};
PullingTravel assess_pulling_travel(const RunSpec& spec, const Topology& topology,
                                    const std::vector<Vec3d>& start_positions_A);

// The first step at which the base or a moving plane has travelled far enough to load the
// fully extended chain between a pulled and an anchored bead with 1000 pN (its slack, then
// 1000 pN/κ of spring); unset without such a chain (no pulling or moving plane, no anchored
// bead on a pulled bead's chain, a plane moving towards its anchors).
std::optional<std::int64_t> pulling_overload_step(const RunSpec& spec, const Topology& topology,
                                                  const std::vector<Vec3d>& start_positions_A);

// A warning when the travel over the run's steps of the cantilever base, or of a moving plane,
// would load the fully extended chain between a pulled bead and its nearest anchored bead
// along the bonds (fixed beads; for a plane also the static planes' beads) beyond 1000 pN: it
// names the travel, the contour length, the force the spring would reach and the step count
// that keeps below 1000 pN (one line per spring that does); "" otherwise.
std::string pulling_travel_warning(const RunSpec& spec, const Topology& topology,
                                   const std::vector<Vec3d>& start_positions_A);

}  // namespace ermak
