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

// A warning when a pulling or force-clamp run has nothing that holds the molecule: no
// [fixed] bead, no static plane of [plane_pulling] (speed 0), no indentation surface. The
// cantilever (or the clamp force) then drags the whole molecule through the solvent, and the
// force it measures is mostly that drag. Not an error: a free molecule may be meant. ""
// otherwise (docs/protocols.md#checks-before-the-run).
std::string nothing_holds_warning(const RunSpec& spec);

}  // namespace ermak
