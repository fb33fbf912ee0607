#include "ermak/backend/protocol_reports.h"

#include <algorithm>

#include "ermak/physics/harmonic.h"
#include "ermak/physics/plane_tether.h"
#include "ermak/protocol/replica_index.h"

namespace ermak {
namespace {

// Each report is written once, over position_of(r, bead): the bead's position in replica r,
// from a full state or from the listed beads' positions.
template <class PositionOf>
std::vector<Vec3d> tether_forces(const EngineSetup& setup, std::int64_t step, std::int32_t replicas,
                                 PositionOf&& position_of) {
  std::vector<Vec3d> out;
  const ReplicaIndex index = index_by_replica(setup.tethers, replicas);
  out.reserve(index.items.size());
  for (std::int32_t r = 0; r < replicas; ++r)
    for (const std::int32_t k : index.of(r)) {
      const HarmonicTether& t = setup.tethers[std::size_t(k)];
      const Vec3d anchor = tether_anchor_at(t, step, setup.langevin.timestep_tau);
      out.push_back(physics::spring_force(t.spring_kcal_per_mol_A2, anchor, vec_cast<double>(position_of(r, t.bead))));
    }
  return out;
}

template <class PositionOf>
std::vector<double> plane_forces(const EngineSetup& setup, std::int64_t step, std::int32_t replicas,
                                 PositionOf&& position_of) {
  std::vector<double> out(std::size_t(replicas) * setup.plane_groups, 0.0);
  const ReplicaIndex index = index_by_replica(setup.plane_tethers, replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (const std::int32_t k : index.of(r)) {
      const PlaneTether& t = setup.plane_tethers[std::size_t(k)];
      double f = 0, unused = 0;
      const double coordinate = dot(vec_cast<double>(position_of(r, t.bead)), t.normal);
      physics::plane_tether<false>(coordinate, plane_position_at(t, step, setup.langevin.timestep_tau),
                                   t.spring_kcal_per_mol_A2, f, unused);
      out[std::size_t(r) * setup.plane_groups + t.group] += f;
    }
  return out;
}

// The beads of setup items (tethers, plane tethers), each once, ascending.
template <class Items>
std::vector<std::int32_t> beads_of(const Items& items) {
  std::vector<std::int32_t> beads;
  for (const auto& item : items) beads.push_back(item.bead);
  std::sort(beads.begin(), beads.end());
  beads.erase(std::unique(beads.begin(), beads.end()), beads.end());
  return beads;
}

// position_of over a full state.
auto state_positions(const State& state) {
  return [&state](std::int32_t r, std::int32_t bead) { return state.position(r, bead); };
}

// position_of over the positions of the ascending `beads`, replica by replica.
auto listed_positions(std::vector<std::int32_t> beads, const std::vector<Vec3f>& positions) {
  return [beads = std::move(beads), &positions](std::int32_t r, std::int32_t bead) {
    const auto k = std::size_t(std::lower_bound(beads.begin(), beads.end(), bead) - beads.begin());
    return positions[std::size_t(r) * beads.size() + k];
  };
}

}  // namespace

std::vector<Vec3d> report_tether_forces(const EngineSetup& setup, const State& state) {
  return tether_forces(setup, state.step, state.replica_count, state_positions(state));
}

std::vector<Vec3d> report_tether_forces(const EngineSetup& setup, std::int64_t step, std::int32_t replicas,
                                        const std::vector<Vec3f>& positions) {
  return tether_forces(setup, step, replicas, listed_positions(tethered_beads(setup), positions));
}

std::vector<std::int32_t> tethered_beads(const EngineSetup& setup) { return beads_of(setup.tethers); }

std::vector<double> report_plane_forces(const EngineSetup& setup, const State& state) {
  return plane_forces(setup, state.step, state.replica_count, state_positions(state));
}

std::vector<double> report_plane_forces(const EngineSetup& setup, std::int64_t step, std::int32_t replicas,
                                        const std::vector<Vec3f>& positions) {
  return plane_forces(setup, step, replicas, listed_positions(plane_tethered_beads(setup), positions));
}

std::vector<std::int32_t> plane_tethered_beads(const EngineSetup& setup) { return beads_of(setup.plane_tethers); }

}  // namespace ermak
