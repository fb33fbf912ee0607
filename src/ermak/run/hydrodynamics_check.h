#pragma once
// A run's hydrodynamic interactions (docs/model.md#hydrodynamic-interactions) against its
// model, before the first step: "auto" resolved by the number of mobile beads, the exact
// method refused beyond its size, and TEA's error along the bonds measured at the start
// structure and warned of where it distorts the ensemble.
#include <cstdint>
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/core/vec3.h"
#include "ermak/model/topology.h"

namespace ermak {

// The beads of a replica that move (not fixed; fixed beads outside the model are refused
// elsewhere and not counted).
std::int64_t mobile_bead_count(const RunSpec& spec, const Topology& topology);

// hydrodynamics.method "auto" becomes "cholesky" or "tea" (resolve_hydrodynamic_method);
// returns a line for the run log saying which and why ("" when the method was given).
std::string resolve_hydrodynamics(RunSpec& spec, const Topology& topology);

// Throws ermak::Error at hydrodynamics.method when "cholesky" meets more mobile beads than
// kMaxCholeskyMobileBeads (model/force_field.h), naming the cost and "tea" as the way on.
void check_hydrodynamics(const RunSpec& spec, const Topology& topology);

// TEA's noise along the bonds of a structure, against the exact tensor's: for each bond i–j
// of two mobile beads, the variance of the bond vector's step noise along the bond,
// ê·(Σ_ii + Σ_jj − Σ_ij − Σ_ji)·ê with Σ = B Bᵀ, over the exact 2(1 − ê·D_ij/D0·ê). A ratio
// above 1 heats the bonds (docs/model.md#tea). At most `max_bonds` bonds, evenly spread.
struct TeaBondNoise {
  std::int64_t bonds = 0;  // bonds measured
  double median_ratio = 1.0, largest_ratio = 1.0;
};
TeaBondNoise tea_bond_noise(const Topology& topology, const std::vector<Vec3d>& positions_A,
                            const std::vector<std::int32_t>& fixed_beads, double radius_A, std::int64_t max_bonds = 400);

// With TEA: a warning when its bond noise at the start structure is 5 % or more above the
// exact tensor's, with the numbers and the ways on that this model has (the exact method
// only up to kMaxCholeskyMobileBeads); "" otherwise, or without TEA. A model too large to
// measure in a moment (more than kTeaNoiseMeasuredMobileBeads mobile beads) is warned that
// it was not measured. `given` is the method the configuration named, so that a TEA chosen
// by "auto" is said to be.
inline constexpr std::int64_t kTeaNoiseMeasuredMobileBeads = 20000;
std::string tea_bond_noise_warning(const RunSpec& spec, HydrodynamicMethod given, const Topology& topology,
                                   const std::vector<Vec3d>& positions_A);

}  // namespace ermak
