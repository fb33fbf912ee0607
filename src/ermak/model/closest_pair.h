#pragma once
// The closest two beads of a structure: what `ermak energy` and a run's start checks name
// when beads on top of each other leave the SOP energy without a value.
#include <limits>
#include <vector>

#include "ermak/core/vec3.h"

namespace ermak {

struct ClosestPair {
  int i = 0, j = 0;  // i < j
  double distance_A = std::numeric_limits<double>::infinity();
};

// By a sweep along x: n log n for a protein, up to n² for beads that share one x (a flat
// sheet in the y-z plane).
ClosestPair closest_pair(const std::vector<Vec3d>& positions_A);

}  // namespace ermak
