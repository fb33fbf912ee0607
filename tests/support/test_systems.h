#pragma once
// Models the tests load from the shared data (tests/support/test_paths.h).
#include <optional>

#include "ermak/io/load_system.h"
#include "ermak/model/topology.h"

namespace ermak::test {

// SOP-GPU's WW domain (reference ww.top and ww_cg.pdb, 34 beads); none without the data.
std::optional<LoadedSystem> load_ww_reference();

// One chain of `beads` beads on a line, bead k bonded to k + 1 at r0_A: a model.etop for
// run directories the tests make (its contour length is (beads − 1)·r0).
Topology linear_chain(int beads, float r0_A);

}  // namespace ermak::test
