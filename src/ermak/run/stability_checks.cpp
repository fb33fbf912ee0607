#include "ermak/run/stability_checks.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "ermak/backend/stability_screen.h"
#include "ermak/core/error.h"
#include "ermak/model/residue_selection.h"

namespace ermak {
namespace {

bool all_finite(const std::vector<float>& values) {
  std::uint32_t bad = 0;
  for (const float v : values) bad |= static_cast<std::uint32_t>(non_finite(v));
  return bad == 0;
}

}  // namespace

void check_finite(const State& state, std::int64_t since_step) {
  if (all_finite(state.x) && all_finite(state.y) && all_finite(state.z)) return;
  for (std::size_t k = 0; k < state.x.size(); ++k) {
    if (!std::isfinite(state.x[k]) || !std::isfinite(state.y[k]) || !std::isfinite(state.z[k])) {
      const auto replica = std::int32_t(k / std::size_t(state.bead_count));
      const auto bead = std::int32_t(k % std::size_t(state.bead_count));
      throw Error("the simulation became unstable between steps " + std::to_string(since_step) +
                  " and " + std::to_string(state.step) + ": bead " + std::to_string(bead) +
                  " of replica " + std::to_string(replica) +
                  " has non-finite coordinates (a FENE bond was probably stretched beyond R0; "
                  "use a smaller timestep, minimise first, or check the input structure)");
    }
  }
}

BondStretchCheck::BondStretchCheck(const Topology& topology, float max_stretch_A, std::string remedy)
    : bonds_(topology.bonds),
      screen_(make_bond_screen(bonds_, max_stretch_A)),
      max_stretch_A_(max_stretch_A),
      remedy_(std::move(remedy)) {}

void BondStretchCheck::operator()(const State& state, std::int64_t since_step) const {
  for (std::int32_t r = 0; r < state.replica_count; ++r) {
    bool suspect = false;
    for (const BondScreen& b : screen_) {
      const Vec3f d = state.position(r, b.j) - state.position(r, b.i);
      suspect |= outside_bond_screen(b, d.x, d.y, d.z);
    }
    if (suspect) check_replica_exactly(state, r, since_step);
  }
}

// A FENE bond stretched beyond R0 has no finite energy and its force changes sign: the
// bond has broken, which the SOP model does not allow. Overdamped steps overshoot the
// singularity when the force on the chain is far too large for the time step (pulling
// too fast or with too stiff a spring), so stop with a message saying so.
void BondStretchCheck::check_replica_exactly(const State& state, std::int32_t r, std::int64_t since_step) const {
  for (const Bond& b : bonds_) {
    const float stretch = norm(state.position(r, b.j) - state.position(r, b.i)) - b.r0_A;
    if (std::abs(stretch) >= max_stretch_A_)
      throw Error("a FENE bond broke between steps " + std::to_string(since_step) + " and " +
                  std::to_string(state.step) + ": beads " + std::to_string(b.i) + "–" + std::to_string(b.j) +
                  " of replica " + std::to_string(r) + " are " + std::to_string(b.r0_A + stretch) +
                  " Å apart (native " + std::to_string(b.r0_A) + " Å, maximum stretch R0 = " +
                  std::to_string(max_stretch_A_) + " Å); the forces are too large for the time step: " +
                      (state.step >= later_from_step_ ? later_remedy_ : remedy_));
  }
}

void check_coordinates_fit_pdb(const Topology& topology, const std::vector<Vec3d>& positions_A,
                               const std::string& source) {
  // The model and final PDBs write a coordinate in 8 columns (fewer decimals for large ones).
  constexpr double kLargestCoordinate_A = 1e7;
  for (std::size_t i = 0; i < positions_A.size(); ++i)
    for (const double v : {positions_A[i].x, positions_A[i].y, positions_A[i].z})
      if (!(std::abs(v) < kLargestCoordinate_A))
        throw Error(source, 0, "",
                    fmt::format("bead {} ({}) has the coordinate {} Å, beyond the ±10⁷ Å a PDB file can hold",
                                i, describe_bead(topology, std::int32_t(i)), v));
}

void check_start_coordinates(const Topology& topology, const std::vector<Vec3d>& positions_A, double max_stretch_A,
                             const std::string& source) {
  check_coordinates_fit_pdb(topology, positions_A, source);
  for (const Bond& b : topology.bonds) {
    const double length = norm(positions_A[std::size_t(b.j)] - positions_A[std::size_t(b.i)]);
    if (!(std::abs(length - b.r0_A) < max_stretch_A))
      throw Error(source, 0, "",
                  fmt::format("the bond of beads {} ({}) and {} ({}) is {:.3f} Å long, but the topology's r0 is "
                              "{:.3f} Å: beyond r0 ± R0 "
                              "({} Å), where the FENE energy is undefined (docs/model.md#fene); these coordinates "
                              "do not fit the topology's bonds",
                              b.i, describe_bead(topology, b.i), b.j, describe_bead(topology, b.j), length, b.r0_A,
                              max_stretch_A));
  }
}

}  // namespace ermak
