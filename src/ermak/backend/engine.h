#pragma once
// The interface both backends implement (DESIGN.md §3). An Engine owns the working
// copy of all replicas' positions (host or device memory) and advances them; it never
// writes files. Reporters ask for state and energies at report intervals only.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ermak/model/force_field.h"
#include "ermak/model/state.h"
#include "ermak/model/structure_observables.h"
#include "ermak/model/topology.h"
#include "ermak/protocol/external_force.h"
#include "ermak/protocol/harmonic_tether.h"
#include "ermak/protocol/indentation.h"
#include "ermak/protocol/plane_tether.h"
#include "ermak/protocol/temperature_schedule.h"

namespace ermak {

// Energies of one replica, kcal/mol, accumulated in double.
struct EnergyTerms {
  double fene = 0.0;
  double native = 0.0;
  double repulsive = 0.0;
  double protocol = 0.0;  // external springs, tips, surfaces
  double total() const { return fene + native + repulsive + protocol; }
};

// Everything an engine needs to know, resolved into internal units.
struct EngineSetup {
  const Topology* topology = nullptr;   // must outlive the engine
  SopParameters sop;
  LangevinParameters langevin;
  TemperatureSchedule temperature;
  std::uint64_t seed = 1;
  // Generator of the beads' noise (docs/rng.md#choosing-the-generator-of-a-run): "philox"
  // draws rng::gaussian3 in the step itself; any other goes through an rng::NoiseSource
  // (CPU) or its device twin (CUDA). The indentation tip's noise is always Philox.
  std::string rng = "philox";
  std::string rng_layout;  // "" = the generator's default
  std::int32_t replicas = 1;
  // The run's index of this engine's replica 0, where the engine runs a slice of a run's
  // replicas (several GPUs, backend/split_engine.h): replica r's noise is drawn with the
  // counters of replica replica_offset + r, so that a slice moves exactly as those
  // replicas of the whole run. Philox only (a stateful generator's streams are per run).
  std::int32_t replica_offset = 0;
  std::vector<std::int32_t> fixed_beads;
  // Protocols (docs/protocols.md): data that every backend evaluates with physics/.
  std::vector<HarmonicTether> tethers;       // cantilever springs, restraints
  std::vector<ExternalForce> external_forces;  // force clamp, magnitude from force_schedule
  ForceSchedule force_schedule;
  std::vector<PlaneTether> plane_tethers;
  std::int32_t plane_groups = 0;             // number of distinct PlaneTether::group values
  Indentation indentation;
  double neighbor_skin_A = 3.0;
  int threads = 0;                      // CPU backend: 0 = all available
  int device = -1;                      // CUDA backend: GPU index, −1 = $ERMAK_CUDA_DEVICE or 0
  // CUDA backend: several GPUs sharing the replicas (make_engine splits the run over
  // them, backend/split_engine.h); empty or one entry: `device` alone.
  std::vector<int> devices;
};

// The Verlet lists of every engine: pairs within the pair cutoff + skin, rebuilt once a bead
// has moved more than half the skin from where its list was built (docs/model.md).
inline float list_cutoff_A(const EngineSetup& setup) {
  return float(setup.sop.pair_cutoff_A + setup.neighbor_skin_A);
}
inline float half_skin_squared_A2(const EngineSetup& setup) {
  return float(0.25 * setup.neighbor_skin_A * setup.neighbor_skin_A);
}

// The GPU an engine of `setup` runs on first: the first of `devices`, else `device`.
inline int first_device(const EngineSetup& setup) { return setup.devices.empty() ? setup.device : setup.devices.front(); }

struct MinimizeResult {
  std::int64_t iterations = 0;
  double max_force_kcal_per_mol_A = 0.0;  // over all replicas, at the end
  bool converged = false;
  bool interrupted = false;  // stopped early because stop_requested() said so
};

// Asked between minimisation iterations (a signal during a run's start,
// docs/outputs.md#stopping-a-run): true ends the minimisation there. Empty: never.
// May be called from several threads at once.
using StopRequested = std::function<bool()>;

// Why a slice of a run's replicas (EngineSetup::replica_offset, several GPUs) cannot draw
// the noise of generator `rng`: only Philox is a function of the replica's index; a
// stateful generator keeps one stream per replica of the whole run.
inline std::string sliced_noise_refusal(const std::string& rng) {
  return "a run split over several GPUs needs the counter-based \"philox\" noise (run.rng = \"" + rng +
         "\" keeps one stream per replica of the whole run): give one GPU, or run.rng = \"philox\"";
}

// Replicas (or slices of them) minimised independently, as one result: the most
// iterations, the largest remaining force, converged when every one converged.
inline MinimizeResult combined(const std::vector<MinimizeResult>& results) {
  MinimizeResult out;
  out.converged = true;
  for (const MinimizeResult& r : results) {
    out.iterations = std::max(out.iterations, r.iterations);
    out.max_force_kcal_per_mol_A = std::max(out.max_force_kcal_per_mol_A, r.max_force_kcal_per_mol_A);
    out.converged = out.converged && r.converged;
    out.interrupted = out.interrupted || r.interrupted;
  }
  return out;
}

// Counters reported by engines, for logs and benchmarks.
struct EngineStats {
  std::int64_t neighbor_rebuilds = 0;
  std::int64_t neighbor_pairs = 0;  // pairs in the current list, summed over replicas
};

// What a report stop takes from the engine (docs/gpu.md#what-overlaps-the-steps): the
// run driver asks for it in one call so that an engine may take it in stream order and
// go on stepping while the values come back.
struct StopRequest {
  bool positions = false;   // every position (a trajectory frame)
  bool energies = false;    // EnergyTerms and StructureObservables of every replica
  double formed_ratio = kDefaultContactFormedRatio;  // [output] contact_formed_ratio (the run passes its own)
  std::int32_t end_first = 0, end_last = 0;
  std::vector<std::int32_t> beads;  // these beads' positions in every replica (pulled ends)
  bool tether_forces = false, plane_forces = false, indentation = false;
};

// The values at one stop; what was not asked for stays empty. `positions` also holds
// every position when the screen flags the stop and the engine has moved on since
// (Engine::stop_and_advance), so that the exact checks see the stop's positions.
struct StopValues {
  bool may_be_unstable = false;
  State positions;
  std::vector<EnergyTerms> energies;
  std::vector<StructureObservables> structure;
  std::vector<Vec3f> bead_positions;  // [replica · beads.size() + k]
  std::vector<Vec3d> tether_forces_kcal_per_mol_A;
  std::vector<double> plane_forces_kcal_per_mol_A;
  std::vector<IndentationStatus> indentation;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;

  // Replace all positions and the step counter (initial upload, resume).
  virtual void set_state(const State& state) = 0;
  // Current positions and step (synchronises with the device where there is one).
  virtual const State& state() = 0;

  // Advance every replica by `steps` Langevin steps.
  virtual void advance(std::int64_t steps) = 0;

  // Positions (Å) of the listed beads in every replica, [replica · beads.size() + k], at
  // the current step: what protocol rows and tether forces need, without copying every
  // position back (the CUDA engine gathers them on the GPU).
  virtual std::vector<Vec3f> bead_positions(const std::vector<std::int32_t>& beads) = 0;
  // The screen of backend/stability_screen.h over every replica, waiting for the steps so
  // far: false when every coordinate is finite and every FENE bond lies well within
  // r0 ± R0; true means "look closer" (run/stability_checks.h on state()). The CUDA engine
  // screens on the GPU; the CPU engine, whose positions are on the host, answers true.
  virtual bool may_be_unstable() = 0;

  // Energies of each replica at the current positions.
  virtual std::vector<EnergyTerms> energies() = 0;
  // Q, radius of gyration and end-to-end distance of each replica at the current
  // positions (model/structure_observables.h; a contact is formed when r < formed_ratio·r0,
  // the ends are beads end_first and end_last). The CUDA engine reduces them on the GPU
  // and copies back three doubles per replica (docs/gpu.md#observables).
  virtual std::vector<StructureObservables> structure_observables(double formed_ratio, std::int32_t end_first,
                                                                  std::int32_t end_last) = 0;
  // Forces (kcal/mol/Å) on every bead of every replica at the current positions, in a
  // State-shaped container (x/y/z hold the force components).
  virtual State forces() = 0;

  // Steepest descent on every replica (fixed beads stay), until each converges, reaches
  // max_iterations or can no longer lower its energy, or stop_requested() is true.
  virtual MinimizeResult minimize(std::int64_t max_iterations, double force_tolerance_kcal_per_mol_A,
                                  double max_displacement_A, const StopRequested& stop_requested) = 0;

  // Positions at which the current neighbour lists were built; stored in checkpoints
  // so that a resumed run rebuilds the identical list and continues bit for bit.
  virtual State neighbor_reference() = 0;
  virtual void restore_neighbor_reference(const State& reference) = 0;

  // Force (kcal/mol/Å) that each tether's spring exerts on its bead at the current
  // positions: replica by replica, the tethers that apply to that replica in setup
  // order (backend/protocol_reports.h).
  virtual std::vector<Vec3d> tether_forces_kcal_per_mol_A() = 0;
  // Total spring force along each plane's normal, [replica * plane_groups + group].
  virtual std::vector<double> plane_forces_kcal_per_mol_A() = 0;
  // Tip, base and forces of the indentation, one per replica (empty without indentation).
  virtual std::vector<IndentationStatus> indentation_status() = 0;

  // Dynamic protocol state (tip positions, retraction steps) for checkpoints.
  virtual std::vector<double> protocol_state() = 0;
  virtual void restore_protocol_state(const std::vector<double>& state) = 0;

  // The noise generator's exact state for checkpoints, in the format of
  // rng::NoiseSource::save_state (the same bytes on both backends, so a checkpoint may
  // resume on the other one); restore throws ermak::Error on a mismatch.
  virtual std::vector<std::uint8_t> noise_state() = 0;
  virtual void restore_noise_state(const std::vector<std::uint8_t>& bytes) = 0;
  // "generator/layout" (rng::NoiseSource::name()).
  virtual std::string noise_name() const = 0;

  virtual EngineStats stats() const = 0;

  // A report stop's values at the current step, in turn. The default takes them through
  // the single calls above (take_stop_values); an engine may take them in one go. A stop
  // the screen flags may carry its positions although not asked for.
  virtual StopValues take_stop(const StopRequest& request);

  // Report stops overlapped with the next steps: true where stop_and_advance returns
  // before the `next_steps` are done (the CUDA engine's block family with Philox noise,
  // the fast runs whose stops would otherwise idle the GPU). The driver then calls it instead
  // of take_stop() followed by advance().
  virtual bool overlaps_stops() const { return false; }
  // The stop's values at the current step, then `next_steps` more steps; every other
  // call waits for those steps. Same values and same trajectory as take_stop() followed
  // by advance(next_steps).
  virtual StopValues stop_and_advance(const StopRequest& request, std::int64_t next_steps);
  // The positions at the stop of the last stop_and_advance, where the engine kept them
  // (the CUDA engine's overlapped stops keep them on the GPU until its next stop); false
  // where it keeps none. A run split over several engines needs them when one part's
  // screen flagged a stop and another's passed it (backend/split_engine.h): the exact
  // checks look at every replica at the stop.
  virtual bool last_stop_positions(State& out) {
    (void)out;
    return false;
  }
};

// The stop's values from the calls above, at the current step (positions only when
// asked for: where the screen flags a stop, the caller looks at state()).
StopValues take_stop_values(Engine& engine, const StopRequest& request);

// $ERMAK_OVERLAP_STOPS (docs/gpu.md#what-overlaps-the-steps): "0" never overlaps stops
// (the CUDA engine's steps then end in advance(), as before overlapping, for measurements);
// unset or "1" where the engine does (overlaps_stops()); "always" has the driver call
// stop_and_advance on every engine (tests of the driver's overlapped path on the CPU).
enum class OverlapStops { kNever, kWhereTheEngineDoes, kAlways };
OverlapStops overlap_stops_setting();

std::unique_ptr<Engine> make_cpu_engine(const EngineSetup& setup);

}  // namespace ermak
