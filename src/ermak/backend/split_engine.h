#pragma once
// One run's replicas split over several engines — one per GPU (docs/gpu.md#several-gpus).
// Each part runs a contiguous slice of the replicas with the run's protocols for those
// replicas, and draws the Philox noise of their indices in the whole run
// (EngineSetup::replica_offset), so that every replica moves as it would in one engine
// (to float rounding where the parts' kernel layouts differ from the whole run's). The
// parts step side by side, one host thread each; everything the Engine interface returns
// is the parts' answers put back in replica order, so checkpoints, reports and stops have
// the format of a single engine's and a run may resume on another number of GPUs.
#include <functional>
#include <future>
#include <memory>
#include <vector>

#include "ermak/backend/engine.h"

namespace ermak {

struct ReplicaSlice {
  std::int32_t first = 0;  // the slice's first replica in the whole run
  std::int32_t count = 0;
};

// `replicas` in `parts` contiguous slices whose sizes differ by at most one (the larger
// first); parts must be between 1 and replicas.
std::vector<ReplicaSlice> split_replicas(std::int32_t replicas, int parts);

// The setup of the engine that runs `slice` of a run: its replica count and offset, and
// the protocols that apply to its replicas, renumbered from 0 (those for every replica
// stay as they are), in the run's order.
EngineSetup slice_setup(const EngineSetup& run, ReplicaSlice slice);

class SplitEngine final : public Engine {
 public:
  // Makes part k's engine from slice_setup(setup, slices[k]); `parts` ≤ setup.replicas.
  using MakePart = std::function<std::unique_ptr<Engine>(const EngineSetup& part_setup, int part)>;
  SplitEngine(const EngineSetup& setup, int parts, const MakePart& make_part);
  ~SplitEngine() override;

  const std::vector<std::unique_ptr<Engine>>& parts() const { return parts_; }
  const std::vector<ReplicaSlice>& slices() const { return slices_; }

  std::string name() const override { return parts_.front()->name(); }
  void set_state(const State& state) override;
  const State& state() override;
  void advance(std::int64_t steps) override;
  std::vector<Vec3f> bead_positions(const std::vector<std::int32_t>& beads) override;
  bool may_be_unstable() override;
  std::vector<EnergyTerms> energies() override;
  std::vector<StructureObservables> structure_observables(double formed_ratio, std::int32_t end_first,
                                                          std::int32_t end_last) override;
  State forces() override;
  MinimizeResult minimize(std::int64_t max_iterations, double force_tolerance_kcal_per_mol_A, double max_displacement_A,
                          const StopRequested& stop_requested) override;
  State neighbor_reference() override;
  void restore_neighbor_reference(const State& reference) override;
  std::vector<Vec3d> tether_forces_kcal_per_mol_A() override;
  std::vector<double> plane_forces_kcal_per_mol_A() override;
  std::vector<IndentationStatus> indentation_status() override;
  std::vector<double> protocol_state() override;
  void restore_protocol_state(const std::vector<double>& state) override;
  std::vector<std::uint8_t> noise_state() override;
  void restore_noise_state(const std::vector<std::uint8_t>& bytes) override;
  std::string noise_name() const override { return parts_.front()->noise_name(); }
  EngineStats stats() const override;
  StopValues take_stop(const StopRequest& request) override;
  // The parts' stops side by side, each beside its own next steps where every part's
  // engine overlaps its stops (the CUDA block family), else taken in turn and followed
  // by the next steps on the parts' threads while the caller writes the stop's values
  // (every other call waits for those steps first).
  bool overlaps_stops() const override { return true; }
  StopValues stop_and_advance(const StopRequest& request, std::int64_t next_steps) override;

 private:
  // Runs work(k) for every part, part 0 on this thread and the others on their own, and
  // rethrows the first part's error once all have ended.
  void each_part(const std::function<void(std::size_t)>& work);
  void wait_for_steps() const;  // the steps that stop_and_advance left under way
  // Every part's answer to `ask`, put one after the other in replica order.
  template <class T, class Ask>
  std::vector<T> joined(const Ask& ask);
  // Every part's positions-shaped answer to `ask`, as one State of the run.
  template <class Ask>
  State joined_state(const Ask& ask);
  State join_states(const std::vector<State>& parts) const;
  StopValues join_stops(std::vector<StopValues>& parts) const;

  EngineSetup setup_;
  std::int32_t beads_ = 0;
  std::vector<ReplicaSlice> slices_;
  std::vector<std::unique_ptr<Engine>> parts_;
  mutable std::vector<std::future<void>> steps_under_way_;
  State state_;  // the parts' positions put together (state())
};

// The SplitEngine behind `engine`, or null.
const SplitEngine* as_split_engine(const Engine& engine);

}  // namespace ermak
