#pragma once
// Checks of the protocol sections of a RunSpec ([pulling], [force_clamp], [plane_pulling];
// docs/protocols.md) against the model, and the beads whose start positions the protocols
// depend on (what a checkpoint keeps so that a resumed run resolves its protocols again
// to the identical EngineSetup: run/protocol_setup.h).
#include <cstdint>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/model/topology.h"

namespace ermak {

// Checks of the protocol keys against the model: bead indices in range. Throws
// ermak::Error naming the configuration file, line and key.
void validate_protocols(const RunSpec& spec, const Topology& topology);

// Beads whose start positions the protocols depend on (pulled beads, ends, plane beads),
// sorted, without repeats. Their positions are what a checkpoint keeps.
std::vector<std::int32_t> protocol_reference_beads(const RunSpec& spec, std::int32_t bead_count);

}  // namespace ermak
