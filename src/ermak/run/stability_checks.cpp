#include "ermak/run/stability_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ermak/backend/stability_screen.h"
#include "ermak/core/error.h"

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

BondStretchCheck::BondStretchCheck(const Topology& topology, float max_stretch_A)
    : bonds_(topology.bonds), max_stretch_A_(max_stretch_A) {
  std::int32_t beads = 0;
  for (const Bond& b : bonds_) beads = std::max({beads, b.i + 1, b.j + 1});
  next_near2_.assign(std::size_t(std::max(beads - 1, 0)), -1.0f);
  next_far2_.assign(next_near2_.size(), std::numeric_limits<float>::infinity());
  const std::vector<BondScreen> screen = make_bond_screen(bonds_, max_stretch_A);
  for (std::size_t k = 0; k < bonds_.size(); ++k) {
    const BondScreen& b = screen[k];
    const std::size_t first = std::size_t(std::min(b.i, b.j));
    if (std::abs(b.j - b.i) == 1 && std::isinf(next_far2_[first])) {
      next_near2_[first] = b.near2_A2;
      next_far2_[first] = b.far2_A2;
    } else {
      other_bonds_.push_back(k);
      other_near2_.push_back(b.near2_A2);
      other_far2_.push_back(b.far2_A2);
    }
  }
}

void BondStretchCheck::operator()(const State& state, std::int64_t since_step) const {
  const std::size_t n = std::size_t(state.bead_count);
  const std::size_t consecutive = std::min(next_far2_.size(), n > 0 ? n - 1 : 0);
  for (std::int32_t r = 0; r < state.replica_count; ++r) {
    const float* x = state.x.data() + std::size_t(r) * n;
    const float* y = state.y.data() + std::size_t(r) * n;
    const float* z = state.z.data() + std::size_t(r) * n;
    std::uint32_t suspect = 0;
    for (std::size_t k = 0; k < consecutive; ++k) {
      const float dx = x[k + 1] - x[k], dy = y[k + 1] - y[k], dz = z[k + 1] - z[k];
      const float d2 = dx * dx + dy * dy + dz * dz;
      suspect |= std::uint32_t(d2 >= next_far2_[k]) | std::uint32_t(d2 <= next_near2_[k]);
    }
    for (std::size_t m = 0; m < other_bonds_.size(); ++m) {
      const Bond& b = bonds_[other_bonds_[m]];
      const float dx = x[b.j] - x[b.i], dy = y[b.j] - y[b.i], dz = z[b.j] - z[b.i];
      const float d2 = dx * dx + dy * dy + dz * dz;
      suspect |= std::uint32_t(d2 >= other_far2_[m]) | std::uint32_t(d2 <= other_near2_[m]);
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
                  std::to_string(max_stretch_A_) + " Å); the forces are too large for the time step: pull more "
                  "slowly, use a softer spring or a smaller force, or a smaller timestep");
  }
}

}  // namespace ermak
