#include "ermak/run/stop_snapshot.h"

#include <utility>

#include "ermak/config/spec.h"
#include "ermak/core/units.h"
#include "ermak/run/protocol_setup.h"
#include "ermak/run/replica_files.h"
#include "ermak/run/replica_loop.h"

namespace ermak {

StopRequest stop_request(const StopsDue& due, const RunSpec& spec, const ProtocolSetup* protocol,
                         ChainEnds chain) {
  StopRequest request;
  request.positions = due.frame;
  request.energies = due.energies;
  request.formed_ratio = spec.output.contact_formed_ratio;
  request.end_first = chain.first;
  request.end_last = chain.last;
  if (due.pulling) request.beads = {protocol->end_first(), protocol->end_second()};
  request.tether_forces = due.pulling;
  request.plane_forces = due.planes;
  request.indentation = due.indentation;
  return request;
}

std::size_t StopSnapshot::bytes() const {
  return state.bytes() + end_to_end.size() * sizeof(Vec3d) + energy_terms.size() * sizeof(EnergyTerms) +
         structure.size() * sizeof(StructureObservables) + tether_forces_kcal_per_mol_A.size() * sizeof(Vec3d) +
         plane_forces_kcal_per_mol_A.size() * sizeof(double) + indentation_status.size() * sizeof(IndentationStatus);
}

StopSnapshot take_stop_snapshot(std::int64_t step, const StopsDue& due, StopValues&& values) {
  StopSnapshot snapshot;
  snapshot.step = step;
  snapshot.due = due;
  if (due.frame) snapshot.state = std::move(values.positions);
  if (due.pulling) {
    const std::vector<Vec3f>& ends = values.bead_positions;  // two per replica
    snapshot.end_to_end.resize(ends.size() / 2);
    for (std::size_t r = 0; r < snapshot.end_to_end.size(); ++r)
      snapshot.end_to_end[r] = ProtocolSetup::end_to_end(ends[2 * r], ends[2 * r + 1]);
  }
  snapshot.energy_terms = std::move(values.energies);
  snapshot.structure = std::move(values.structure);
  snapshot.tether_forces_kcal_per_mol_A = std::move(values.tether_forces_kcal_per_mol_A);
  snapshot.plane_forces_kcal_per_mol_A = std::move(values.plane_forces_kcal_per_mol_A);
  snapshot.indentation_status = std::move(values.indentation);
  return snapshot;
}

void write_stop_snapshot(const StopSnapshot& snapshot, ReplicaFiles& files, const RunSpec& spec,
                         const ProtocolSetup* protocol, int threads) {
  const std::int64_t step = snapshot.step;
  const std::int32_t replicas = files.replicas();
  if (snapshot.due.energies) {
    const double temperature_K = units::kcal_per_mol_to_kelvin(spec.temperature.at_step(step));
    const double time_ns = units::tau_to_ns(double(step) * spec.langevin.timestep_tau);
    for_each_replica(replicas, threads, [&](std::int32_t r) {
      const StructureObservables& obs = snapshot.structure[r];
      const EnergyTerms& e = snapshot.energy_terms[r];
      const double row[] = {time_ns, temperature_K, e.fene, e.native, e.repulsive, e.protocol, e.total(),
                            obs.native_fraction, obs.radius_of_gyration_A, obs.end_to_end_A};
      files.energies(r).row(step, row);
    });
  }
  if (snapshot.due.pulling)
    for_each_replica(replicas, threads, [&](std::int32_t r) {
      files.table(ProtocolTable::kPulling, r)
          .row(step, protocol->pulling_row(r, step, snapshot.end_to_end[r], snapshot.tether_forces_kcal_per_mol_A));
    });
  if (snapshot.due.planes)
    for_each_replica(replicas, threads, [&](std::int32_t r) {
      files.table(ProtocolTable::kPlane, r)
          .row(step, protocol->plane_row(r, step, snapshot.plane_forces_kcal_per_mol_A));
    });
  if (snapshot.due.indentation)
    for_each_replica(replicas, threads, [&](std::int32_t r) {
      files.table(ProtocolTable::kIndentation, r)
          .row(step, protocol->indentation_row(r, step, snapshot.indentation_status.at(r)));
    });
  if (snapshot.due.frame) {
    const State& s = snapshot.state;
    for_each_replica(replicas, threads, [&](std::int32_t r) {
      const std::size_t o = s.index(r, 0);
      files.trajectory(r).write_frame(&s.x[o], &s.y[o], &s.z[o]);
    });
  }
}

}  // namespace ermak
