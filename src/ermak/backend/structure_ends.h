#pragma once
// The one check both backends make on Engine::structure_observables' end beads.
#include <cstdint>
#include <string>

#include "ermak/core/error.h"

namespace ermak {

inline void check_structure_ends(std::int32_t beads, std::int32_t end_first, std::int32_t end_last) {
  if (end_first < 0 || end_first >= beads || end_last < 0 || end_last >= beads)
    throw Error("structure observables: end beads " + std::to_string(end_first) + " and " +
                std::to_string(end_last) + " must lie in [0, " + std::to_string(beads) + ")");
}

}  // namespace ermak
