#pragma once
// Whether the pulled beads of a pulling or force-clamp run hang on the fixed beads through
// bonds. A chain break (a missing residue, a skipped hetero residue: docs/topology.md)
// splits a chain into pieces that only native contacts hold together; pulling one end
// against the other then pulls the pieces apart, and the force–extension curve is their
// separation, not the chain's unfolding.
#include <cstdint>
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/model/topology.h"

namespace ermak {

// A warning naming each pulled bead whose bonded piece (model/topology.h bonded_pieces)
// holds no fixed bead but whose chain has one (pulling across a break; a bead of another
// chain than every fixed bead pulls a complex apart, as meant), in a run with fixed beads
// and a pulling or force-clamp protocol; "" otherwise.
std::string pulled_apart_warning(const RunSpec& spec, const Topology& topology,
                                 const std::vector<std::int32_t>& pieces);

}  // namespace ermak
