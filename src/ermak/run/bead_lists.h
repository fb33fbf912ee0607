#pragma once
// The configuration's bead lists with their residue selections resolved against the model
// (docs/config.md#bead-selections).
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/model/topology.h"

namespace ermak {

// Fills the index lists of spec.bead_selections' keys from the model's chains, residue
// numbers and atom names (and the beads' positions), and checks every list as the parser checks lists of indices: no
// bead twice in a list, pulled and plane beads not fixed, no bead on two planes, two
// different ends (one bead each). Errors name the key's file and line. Returns one line per
// resolved list for the run log: `pulling.pulled_beads: "A:76" → bead 75 (chain A residue 76 CA)`.
// Position selections ("z<-131.5") select by `positions_A`, the input coordinates.
std::vector<std::string> resolve_bead_selections(RunSpec& spec, const Topology& topology,
                                                 const std::vector<Vec3d>& positions_A = {});

}  // namespace ermak
