#pragma once
// Models the tests load from the shared data (tests/support/test_paths.h).
#include <optional>

#include "ermak/io/load_system.h"

namespace ermak::test {

// SOP-GPU's WW domain (reference ww.top and ww_cg.pdb, 34 beads); none without the data.
std::optional<LoadedSystem> load_ww_reference();

}  // namespace ermak::test
