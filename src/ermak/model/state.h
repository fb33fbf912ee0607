#pragma once
#include <cstdint>
#include <vector>

#include "ermak/core/vec3.h"

namespace ermak {

// Positions of R replicas × N beads, replica-major, one float array per coordinate
// (DESIGN.md §3): bead i of replica r is at index r·N + i. Float64 is kept only for
// quantities that accumulate over long times (the step counter; protocol positions are
// computed from it).
struct State {
  std::int32_t bead_count = 0;
  std::int32_t replica_count = 0;
  std::int64_t step = 0;
  std::vector<float> x, y, z;

  State() = default;
  State(std::int32_t beads, std::int32_t replicas)
      : bead_count(beads), replica_count(replicas),
        x(std::size_t(beads) * replicas), y(x.size()), z(x.size()) {}

  std::size_t index(std::int32_t replica, std::int32_t bead) const {
    return std::size_t(replica) * bead_count + bead;
  }
  Vec3f position(std::int32_t replica, std::int32_t bead) const {
    const std::size_t k = index(replica, bead);
    return {x[k], y[k], z[k]};
  }
  void set_position(std::int32_t replica, std::int32_t bead, Vec3f p) {
    const std::size_t k = index(replica, bead);
    x[k] = p.x; y[k] = p.y; z[k] = p.z;
  }
  std::size_t bytes() const { return (x.size() + y.size() + z.size()) * sizeof(float); }
  // The listed beads of every replica, [replica · beads.size() + k] (Engine::bead_positions).
  std::vector<Vec3f> positions_of(const std::vector<std::int32_t>& beads) const {
    std::vector<Vec3f> out;
    out.reserve(beads.size() * std::size_t(replica_count));
    for (std::int32_t r = 0; r < replica_count; ++r)
      for (const std::int32_t b : beads) out.push_back(position(r, b));
    return out;
  }
};

}  // namespace ermak
