// One run's replicas over several engines (split_engine.h, docs/gpu.md#several-gpus).
#include "ermak/backend/split_engine.h"

#include <algorithm>
#include <exception>
#include <string>

#include "ermak/core/error.h"
#include "ermak/rng/noise_source.h"

namespace ermak {

std::vector<ReplicaSlice> split_replicas(std::int32_t replicas, int parts) {
  if (parts < 1 || parts > replicas)
    throw Error("split_replicas: " + std::to_string(parts) + " parts for " + std::to_string(replicas) + " replicas");
  std::vector<ReplicaSlice> out;
  const std::int32_t base = replicas / parts, larger = replicas % parts;
  std::int32_t first = 0;
  for (int k = 0; k < parts; ++k) {
    const std::int32_t count = base + (k < larger ? 1 : 0);
    out.push_back({first, count});
    first += count;
  }
  return out;
}

namespace {

// The items of a run that apply to the slice's replicas, renumbered from the slice's first.
template <class Item>
std::vector<Item> items_of_slice(const std::vector<Item>& items, ReplicaSlice slice) {
  std::vector<Item> out;
  for (Item item : items) {
    if (item.replica >= 0) {
      if (item.replica < slice.first || item.replica >= slice.first + slice.count) continue;
      item.replica -= slice.first;
    }
    out.push_back(item);
  }
  return out;
}

// The slice's part of values that hold `per_replica` values per replica, replica-major.
template <class T>
std::vector<T> values_of_slice(const std::vector<T>& values, std::size_t per_replica, ReplicaSlice slice) {
  const auto begin = values.begin() + std::ptrdiff_t(per_replica * std::size_t(slice.first));
  return std::vector<T>(begin, begin + std::ptrdiff_t(per_replica * std::size_t(slice.count)));
}

State state_of_slice(const State& whole, ReplicaSlice slice) {
  State out(whole.bead_count, slice.count);
  out.step = whole.step;
  const std::size_t n = std::size_t(whole.bead_count);
  out.x = values_of_slice(whole.x, n, slice);
  out.y = values_of_slice(whole.y, n, slice);
  out.z = values_of_slice(whole.z, n, slice);
  return out;
}

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

EngineSetup slice_setup(const EngineSetup& run, ReplicaSlice slice) {
  EngineSetup out = run;
  out.replicas = slice.count;
  out.replica_offset = run.replica_offset + slice.first;
  out.devices.clear();
  out.tethers = items_of_slice(run.tethers, slice);
  out.external_forces = items_of_slice(run.external_forces, slice);
  out.plane_tethers = items_of_slice(run.plane_tethers, slice);
  return out;
}

SplitEngine::SplitEngine(const EngineSetup& setup, int parts, const MakePart& make_part)
    : setup_(setup), beads_(setup.topology ? setup.topology->bead_count() : 0) {
  if (!setup.topology) throw Error("SplitEngine: no topology");
  if (setup.rng != "philox") throw Error(sliced_noise_refusal(setup.rng));
  slices_ = split_replicas(setup.replicas, parts);
  parts_.resize(slices_.size());
  // One after the other: each checks its GPU's memory before allocating. A part's refusal
  // speaks of its own replicas ("this run needs … 2500 replicas"): say which share it is.
  for (std::size_t k = 0; k < slices_.size(); ++k) {
    try {
      parts_[k] = make_part(slice_setup(setup, slices_[k]), int(k));
    } catch (const Error& e) {
      throw Error("part " + std::to_string(k + 1) + " of " + std::to_string(slices_.size()) + " (replicas " +
                  std::to_string(slices_[k].first) + " to " +
                  std::to_string(slices_[k].first + slices_[k].count - 1) + " of " + std::to_string(setup.replicas) +
                  "): " + e.what());
    }
  }
}

SplitEngine::~SplitEngine() {
  for (auto& f : steps_under_way_)
    if (f.valid()) f.wait();
}

void SplitEngine::each_part(const std::function<void(std::size_t)>& work) {
  std::vector<std::future<void>> others;
  for (std::size_t k = 1; k < parts_.size(); ++k) others.push_back(std::async(std::launch::async, work, k));
  std::exception_ptr first_error;
  try {
    work(0);
  } catch (...) {
    first_error = std::current_exception();
  }
  for (auto& f : others) {
    try {
      f.get();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

void SplitEngine::wait_for_steps() const {
  std::exception_ptr first_error;
  for (auto& f : steps_under_way_) {
    try {
      f.get();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  steps_under_way_.clear();
  if (first_error) std::rethrow_exception(first_error);
}

template <class T, class Ask>
std::vector<T> SplitEngine::joined(const Ask& ask) {
  wait_for_steps();
  std::vector<std::vector<T>> parts(parts_.size());
  each_part([&](std::size_t k) { parts[k] = ask(*parts_[k]); });
  std::vector<T> out;
  for (const auto& p : parts) append(out, p);
  return out;
}

template <class Ask>
State SplitEngine::joined_state(const Ask& ask) {
  wait_for_steps();
  std::vector<State> parts(parts_.size());
  each_part([&](std::size_t k) { parts[k] = ask(*parts_[k]); });
  return join_states(parts);
}

State SplitEngine::join_states(const std::vector<State>& parts) const {
  State out(beads_, setup_.replicas);
  out.step = parts.front().step;
  out.x.clear(); out.y.clear(); out.z.clear();
  for (const State& p : parts) {
    append(out.x, p.x); append(out.y, p.y); append(out.z, p.z);
  }
  return out;
}

StopValues SplitEngine::join_stops(std::vector<StopValues>& parts) const {
  StopValues out;
  bool every_position = true;
  std::vector<State> positions;
  for (StopValues& p : parts) {
    out.may_be_unstable = out.may_be_unstable || p.may_be_unstable;
    every_position = every_position && !p.positions.x.empty();
    positions.push_back(std::move(p.positions));
    append(out.energies, p.energies);
    append(out.structure, p.structure);
    append(out.bead_positions, p.bead_positions);
    append(out.tether_forces_kcal_per_mol_A, p.tether_forces_kcal_per_mol_A);
    append(out.plane_forces_kcal_per_mol_A, p.plane_forces_kcal_per_mol_A);
    append(out.indentation, p.indentation);
  }
  // A part may add its positions to a stop its screen flags; the run's are all or none.
  if (every_position) out.positions = join_states(positions);
  return out;
}

void SplitEngine::set_state(const State& state) {
  wait_for_steps();
  if (state.bead_count != beads_ || state.replica_count != setup_.replicas)
    throw Error("SplitEngine::set_state: shape mismatch (" + std::to_string(state.replica_count) + "×" +
                std::to_string(state.bead_count) + " for " + std::to_string(setup_.replicas) + "×" +
                std::to_string(beads_) + ")");
  each_part([&](std::size_t k) { parts_[k]->set_state(state_of_slice(state, slices_[k])); });
}

const State& SplitEngine::state() {
  state_ = joined_state([](Engine& e) { return e.state(); });
  return state_;
}

void SplitEngine::advance(std::int64_t steps) {
  wait_for_steps();
  each_part([&](std::size_t k) { parts_[k]->advance(steps); });
}

std::vector<Vec3f> SplitEngine::bead_positions(const std::vector<std::int32_t>& beads) {
  return joined<Vec3f>([&](Engine& e) { return e.bead_positions(beads); });
}

bool SplitEngine::may_be_unstable() {
  wait_for_steps();
  std::vector<char> flagged(parts_.size(), 0);
  each_part([&](std::size_t k) { flagged[k] = parts_[k]->may_be_unstable(); });
  return std::any_of(flagged.begin(), flagged.end(), [](char f) { return f != 0; });
}

std::vector<EnergyTerms> SplitEngine::energies() {
  return joined<EnergyTerms>([](Engine& e) { return e.energies(); });
}

std::vector<StructureObservables> SplitEngine::structure_observables(double formed_ratio, std::int32_t end_first,
                                                                     std::int32_t end_last) {
  return joined<StructureObservables>(
      [&](Engine& e) { return e.structure_observables(formed_ratio, end_first, end_last); });
}

State SplitEngine::forces() {
  return joined_state([](Engine& e) { return e.forces(); });
}

MinimizeResult SplitEngine::minimize(std::int64_t max_iterations, double force_tolerance_kcal_per_mol_A,
                                     double max_displacement_A, const StopRequested& stop_requested) {
  wait_for_steps();
  std::vector<MinimizeResult> parts(parts_.size());
  each_part([&](std::size_t k) {
    parts[k] = parts_[k]->minimize(max_iterations, force_tolerance_kcal_per_mol_A, max_displacement_A, stop_requested);
  });
  return combined(parts);
}

State SplitEngine::neighbor_reference() {
  return joined_state([](Engine& e) { return e.neighbor_reference(); });
}

void SplitEngine::restore_neighbor_reference(const State& reference) {
  wait_for_steps();
  if (reference.bead_count != beads_ || reference.replica_count != setup_.replicas)
    throw Error("checkpoint: the neighbour-list reference has " + std::to_string(reference.replica_count) + "×" +
                std::to_string(reference.bead_count) + " positions, expected " + std::to_string(setup_.replicas) +
                "×" + std::to_string(beads_));
  each_part([&](std::size_t k) { parts_[k]->restore_neighbor_reference(state_of_slice(reference, slices_[k])); });
}

std::vector<Vec3d> SplitEngine::tether_forces_kcal_per_mol_A() {
  return joined<Vec3d>([](Engine& e) { return e.tether_forces_kcal_per_mol_A(); });
}

std::vector<double> SplitEngine::plane_forces_kcal_per_mol_A() {
  return joined<double>([](Engine& e) { return e.plane_forces_kcal_per_mol_A(); });
}

std::vector<IndentationStatus> SplitEngine::indentation_status() {
  return joined<IndentationStatus>([](Engine& e) { return e.indentation_status(); });
}

std::vector<double> SplitEngine::protocol_state() {
  return joined<double>([](Engine& e) { return e.protocol_state(); });
}

void SplitEngine::restore_protocol_state(const std::vector<double>& state) {
  wait_for_steps();
  // The engines keep the same number of values per replica (the tip and its turnaround).
  const std::size_t R = std::size_t(setup_.replicas);
  if (state.size() % R != 0)
    throw Error("checkpoint: protocol state has " + std::to_string(state.size()) + " values, not a multiple of the " +
                std::to_string(R) + " replicas");
  for (std::size_t k = 0; k < parts_.size(); ++k)
    parts_[k]->restore_protocol_state(values_of_slice(state, state.size() / R, slices_[k]));
}

// Philox has no state beyond the seed (the constructor refuses other generators): the
// bytes are those of the whole run's source, in rng::NoiseSource's format.
std::vector<std::uint8_t> SplitEngine::noise_state() {
  wait_for_steps();
  return rng::make_noise_source(setup_.rng, setup_.rng_layout, setup_.seed, setup_.replicas, beads_)->save_state();
}

void SplitEngine::restore_noise_state(const std::vector<std::uint8_t>& bytes) {
  wait_for_steps();
  rng::make_noise_source(setup_.rng, setup_.rng_layout, setup_.seed, setup_.replicas, beads_)->restore_state(bytes);
}

EngineStats SplitEngine::stats() const {
  wait_for_steps();
  EngineStats out;
  for (const auto& part : parts_) {
    const EngineStats s = part->stats();
    out.neighbor_rebuilds += s.neighbor_rebuilds;
    out.neighbor_pairs += s.neighbor_pairs;
  }
  return out;
}

StopValues SplitEngine::take_stop(const StopRequest& request) {
  wait_for_steps();
  std::vector<StopValues> parts(parts_.size());
  each_part([&](std::size_t k) { parts[k] = parts_[k]->take_stop(request); });
  return join_stops(parts);
}

StopValues SplitEngine::stop_and_advance(const StopRequest& request, std::int64_t next_steps) {
  wait_for_steps();
  const bool parts_overlap =
      std::all_of(parts_.begin(), parts_.end(), [](const auto& part) { return part->overlaps_stops(); });
  if (!parts_overlap) {
    // The stop from every part at once, then the next steps on the parts' threads.
    StopValues values = take_stop(request);
    if (values.may_be_unstable && values.positions.x.empty()) values.positions = state();
    for (auto& part : parts_) {
      Engine* engine = part.get();
      steps_under_way_.push_back(std::async(std::launch::async, [engine, next_steps] { engine->advance(next_steps); }));
    }
    return values;
  }
  // Each part's stop beside its own next steps (docs/gpu.md#what-overlaps-the-steps).
  std::vector<StopValues> parts(parts_.size());
  each_part([&](std::size_t k) { parts[k] = parts_[k]->stop_and_advance(request, next_steps); });
  // A part's screen flagged the stop: its values hold its positions, and the exact checks
  // need the others' at the stop too, which they kept.
  const bool flagged = std::any_of(parts.begin(), parts.end(), [](const StopValues& v) { return v.may_be_unstable; });
  if (flagged)
    for (std::size_t k = 0; k < parts.size(); ++k)
      if (parts[k].positions.x.empty() && !parts_[k]->last_stop_positions(parts[k].positions))
        throw Error("internal: part " + std::to_string(k) + " of a run split over several GPUs kept no positions of "
                    "a stop that another part's screen flagged");
  return join_stops(parts);
}

const SplitEngine* as_split_engine(const Engine& engine) { return dynamic_cast<const SplitEngine*>(&engine); }

}  // namespace ermak
