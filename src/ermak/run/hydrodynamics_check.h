#pragma once
// Whether a run's hydrodynamic interactions (docs/model.md#hydrodynamic-interactions) fit
// its model: the exact method factors the 3M×3M tensor of a replica's M mobile beads at
// every step, (3M)³/3 multiply-adds and 9M² floats of scratch per replica, which stops being
// a sensible choice long before memory runs out.
#include "ermak/config/spec.h"
#include "ermak/model/topology.h"

namespace ermak {

// The most mobile beads a replica may have with hydrodynamics.method = "cholesky".
inline constexpr std::int32_t kMaxCholeskyMobileBeads = 1000;

// Throws ermak::Error at hydrodynamics.method when "cholesky" meets more mobile beads than
// kMaxCholeskyMobileBeads, naming the cost and "tea" as the way on.
void check_hydrodynamics(const RunSpec& spec, const Topology& topology);

}  // namespace ermak
