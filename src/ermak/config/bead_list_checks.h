#pragma once
// The rules every bead list of a run configuration keeps (docs/config.md#bead-selections),
// in one place for the parser (lists of indices) and for run/bead_lists.h (lists with
// residue selections, once the model resolves them).
#include <cstdint>
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/model/topology.h"

namespace ermak {

// No bead twice in a list, pulled and plane beads not fixed, no bead on two planes, two
// different ends. Lists still waiting for the model (empty) pass. Errors name the key's
// file and line (RunSpec::key_sources) and, with `topology`, the bead's residue.
void check_bead_lists(const RunSpec& spec, const Topology* topology = nullptr);

}  // namespace ermak
