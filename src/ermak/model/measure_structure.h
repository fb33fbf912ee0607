#pragma once
// Structural observables of one replica at report time (docs/outputs.md#tsv-time-series):
// fraction of native contacts Q, radius of gyration, end-to-end distance — the CPU engine's
// loop over a replica. The per-item math lives in structure_observables.h, shared with the
// CUDA engine's reduction.
#include <cstdint>

#include "ermak/model/structure_observables.h"
#include "ermak/model/topology.h"

namespace ermak {

// A contact counts as formed when r < formed_ratio · r0 (SOP convention, default 1.5).
StructureObservables measure_structure(const Topology& topology, const float* x, const float* y,
                                       const float* z, double formed_ratio,
                                       std::int32_t end_first, std::int32_t end_last);

}  // namespace ermak
