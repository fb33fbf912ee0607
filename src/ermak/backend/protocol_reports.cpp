#include "ermak/backend/protocol_reports.h"

#include "ermak/physics/plane_tether.h"
#include "ermak/protocol/replica_index.h"

namespace ermak {

std::vector<Vec3d> report_tether_forces(const EngineSetup& setup, const State& state) {
  std::vector<Vec3d> out;
  const ReplicaIndex index = index_by_replica(setup.tethers, state.replica_count);
  out.reserve(index.items.size());
  for (std::int32_t r = 0; r < state.replica_count; ++r)
    for (const std::int32_t k : index.of(r)) {
      const HarmonicTether& t = setup.tethers[std::size_t(k)];
      const Vec3d anchor = tether_anchor_at(t, state.step, setup.langevin.timestep_tau);
      out.push_back(t.spring_kcal_per_mol_A2 * (anchor - vec_cast<double>(state.position(r, t.bead))));
    }
  return out;
}

std::vector<double> report_plane_forces(const EngineSetup& setup, const State& state) {
  std::vector<double> out(std::size_t(state.replica_count) * setup.plane_groups, 0.0);
  const ReplicaIndex index = index_by_replica(setup.plane_tethers, state.replica_count);
  for (std::int32_t r = 0; r < state.replica_count; ++r)
    for (const std::int32_t k : index.of(r)) {
      const PlaneTether& t = setup.plane_tethers[std::size_t(k)];
      double f = 0, unused = 0;
      const double coordinate = dot(vec_cast<double>(state.position(r, t.bead)), t.normal);
      physics::plane_tether<false>(coordinate, plane_position_at(t, state.step, setup.langevin.timestep_tau),
                                   t.spring_kcal_per_mol_A2, f, unused);
      out[std::size_t(r) * setup.plane_groups + t.group] += f;
    }
  return out;
}

}  // namespace ermak
