#pragma once
// A stop's rows and frame in two halves (docs/gpu.md#what-overlaps-the-steps): the driver
// copies what is due from the engine into a StopSnapshot (the calls that synchronise with
// the GPU), and the report writer's thread formats and writes it while the engine goes on.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ermak/backend/engine.h"
#include "ermak/model/topology.h"

namespace ermak {

struct RunSpec;
class ProtocolSetup;
class ReplicaFiles;

// Which rows and frame are due at a stop.
struct StopsDue {
  bool energies = false, frame = false, pulling = false, planes = false, indentation = false;
};

// What a stop asks of the engine (backend/engine.h): every position only for a frame
// (from the GPU: 16 bytes per bead, ~0.5 ms at 10⁴ WW replicas); the pulling rows need the
// protocol's two ends, the energy rows the chain's (model/topology.h: chain_ends).
StopRequest stop_request(const StopsDue& due, const RunSpec& spec, const ProtocolSetup* protocol,
                         ChainEnds chain);

struct StopSnapshot {
  std::int64_t step = 0;
  StopsDue due;
  State state;                     // every position: only when a frame is due
  std::vector<Vec3d> end_to_end;   // per replica, for the pulling rows
  std::vector<EnergyTerms> energy_terms;
  std::vector<StructureObservables> structure;  // Q, Rg, end-to-end, with energy_terms
  std::vector<Vec3d> tether_forces_kcal_per_mol_A;
  std::vector<double> plane_forces_kcal_per_mol_A;
  std::vector<IndentationStatus> indentation_status;
  // What it holds until written, for the report writer's memory budget.
  std::size_t bytes() const;
};

// The snapshot of the values the engine returned for `request` at `step`.
StopSnapshot take_stop_snapshot(std::int64_t step, const StopsDue& due, StopValues&& values);

// Writes the snapshot's rows and frame into every replica's files, replicas side by side
// on `threads` threads (run/replica_loop.h).
void write_stop_snapshot(const StopSnapshot& snapshot, ReplicaFiles& files, const RunSpec& spec,
                         const ProtocolSetup* protocol, int threads);

}  // namespace ermak
