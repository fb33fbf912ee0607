#pragma once
// The adaptive step of both engines' steepest-descent minimisation
// (docs/config.md#minimize--energy-minimisation-before-the-dynamics): a trial moves every free
// bead by scale·F, scale = step/max|F|, so that the largest move is the step; the step grows
// by 1.2 (up to max_displacement_A) after a trial that lowers the energy, halves after one
// that does not, and the replica gives up once it is below 10⁻⁷ Å (the float precision of
// positions of tens of Å: smaller moves change nothing). One policy, so that the CPU engine
// and the CUDA engine's host loop take the same trials.
#include <algorithm>

namespace ermak {

inline constexpr double kSmallestDescentStep_A = 1e-7;

// The factor on the forces of a trial whose largest move is step_A.
inline float descent_scale(double step_A, double max_force_kcal_per_mol_A) {
  return float(step_A / max_force_kcal_per_mol_A);
}

inline double descent_step_after_success(double step_A, double max_displacement_A) {
  return std::min(step_A * 1.2, max_displacement_A);
}

inline double descent_step_after_failure(double step_A) { return step_A * 0.5; }

inline bool descent_step_exhausted(double step_A) { return step_A < kSmallestDescentStep_A; }

}  // namespace ermak
