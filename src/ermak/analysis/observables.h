#pragma once
// Structural observables of one replica at report time (docs/outputs.md#energies):
// fraction of native contacts Q, radius of gyration, end-to-end distance.
#include <cstdint>

#include "ermak/model/topology.h"

namespace ermak {

struct StructureObservables {
  double native_fraction = 0.0;       // Q ∈ [0, 1]
  double radius_of_gyration_A = 0.0;  // unweighted (all beads equal)
  double end_to_end_A = 0.0;          // |r_last − r_first| of the chosen ends
};

// A contact counts as formed when r < formed_ratio · r0 (SOP convention, default 1.5).
StructureObservables measure_structure(const Topology& topology, const float* x, const float* y,
                                       const float* z, double formed_ratio,
                                       std::int32_t end_first, std::int32_t end_last);

}  // namespace ermak
