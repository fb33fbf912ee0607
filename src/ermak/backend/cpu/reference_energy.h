#pragma once
// Double-precision single-point energy and forces of the SOP potential, through the same
// physics/ functions as the dynamics (instantiated with double). Used by `ermak energy`
// to compare ermak with other programs to ~1e-12, beyond what float32 positions allow.
#include <vector>

#include "ermak/backend/engine.h"

namespace ermak {

struct ReferenceEvaluation {
  EnergyTerms energy;            // kcal/mol
  std::vector<Vec3d> forces;     // kcal/mol/Å, one per bead
};

ReferenceEvaluation evaluate_reference(const Topology& topology, const SopParameters& sop,
                                       const std::vector<Vec3d>& positions_A);

}  // namespace ermak
