#pragma once
// The one check both backends make on the beads named to Engine::structure_observables
// and Engine::bead_positions.
#include <cstdint>
#include <string>
#include <vector>

#include "ermak/core/error.h"

namespace ermak {

inline void check_structure_ends(std::int32_t beads, std::int32_t end_first, std::int32_t end_last) {
  if (end_first < 0 || end_first >= beads || end_last < 0 || end_last >= beads)
    throw Error("structure observables: end beads " + std::to_string(end_first) + " and " +
                std::to_string(end_last) + " must lie in [0, " + std::to_string(beads) + ")");
}

inline void check_bead_indices(std::int32_t beads, const std::vector<std::int32_t>& listed) {
  for (const std::int32_t b : listed)
    if (b < 0 || b >= beads)
      throw Error("bead positions: bead " + std::to_string(b) + " must lie in [0, " + std::to_string(beads) + ")");
}

}  // namespace ermak
