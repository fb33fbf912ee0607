#pragma once
// The checks `ermak run` makes at every stop (report, frame, protocol row, checkpoint):
// coordinates that became non-finite, and FENE bonds stretched to or beyond R0 — both
// mean the run went unstable (docs/model.md#fene), and it stops with a message that says
// why. They run on the driver's thread while the engine waits, so they are written to
// cost little: a stop of 1000 WW replicas checks 34 000 positions and 33 000 bonds, and
// dense pulling rows stop every 1000 steps (docs/gpu.md#what-overlaps-the-steps).
#include <cstdint>
#include <vector>

#include "ermak/model/state.h"
#include "ermak/model/topology.h"

namespace ermak {

// Throws ermak::Error naming the first bead (replica-major order) with a non-finite
// coordinate, and the steps between which it happened.
void check_finite(const State& state, std::int64_t since_step);

// The FENE bonds of a topology, with the squared bond lengths beyond which a bond may have
// broken, computed once per run.
class BondStretchCheck {
 public:
  BondStretchCheck(const Topology& topology, float max_stretch_A);
  // Throws ermak::Error naming the first bond (replica-major, then topology order) whose
  // length differs from its native r0 by R0 or more.
  void operator()(const State& state, std::int64_t since_step) const;

 private:
  void check_replica_exactly(const State& state, std::int32_t replica, std::int64_t since_step) const;

  std::vector<Bond> bonds_;
  // A bond whose squared length lies outside [near2, far2] is checked exactly; the bounds
  // are widened by 10⁻⁴ so that every bond the exact test finds broken lies outside.
  // Bonds between consecutive beads (nearly all of a chain's) are screened by bead over
  // the contiguous coordinates, bead k with k + 1 (bounds that pass anything where there
  // is no such bond); the rest from a list.
  std::vector<float> next_near2_, next_far2_;
  std::vector<std::size_t> other_bonds_;
  std::vector<float> other_near2_, other_far2_;
  float max_stretch_A_;
};

}  // namespace ermak
