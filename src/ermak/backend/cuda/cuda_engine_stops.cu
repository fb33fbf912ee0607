// The CUDA engine's report stops (docs/gpu.md#what-overlaps-the-steps): beside the next steps
// or in turn, the stability screen, energies and structure observables reduced on the
// device, the gathers of a stop's beads, and the evaluation kernels behind them.
#include "ermak/backend/cuda/cuda_engine.cuh"

namespace ermak {
namespace cuda {

// The stop runs beside the next steps (docs/gpu.md#what-overlaps-the-steps): in stream
// order behind the steps so far, the positions are copied on the device (16 B per
// bead) and the next steps launched; on the report stream, once that copy is done, the
// screen, gathers and reductions read the copy and their results go to page-locked
// memory. The host waits only for those. The launch before's block status is read there
// too: the next launch writes the other status array.
StopValues CudaEngine::stop_and_advance(const StopRequest& request, std::int64_t next_steps) {
  if (!async_steps_) return Engine::stop_and_advance(request, next_steps);
  DeviceGuard guard(device_);
  const std::int64_t stop_step = step_;
  const std::size_t beads = std::size_t(n_) * R_;
  // Kept until the next stop (last_stop_positions), also for the stop taken in turn below.
  stop_positions_.resize(beads);
  ERMAK_CUDA(cudaMemcpyAsync(stop_positions_.get(), pos_[step_ & 1].get(), beads * sizeof(float4),
                             cudaMemcpyDeviceToDevice, stream_));
  ERMAK_CUDA(cudaEventRecord(stop_copied_, stream_));
  stop_positions_step_ = stop_step;
  // Under indentation every stop is taken in turn: its evaluation reads the tip and writes
  // the molecule's force on it, which the launch behind the stop would be changing.
  if (request.indentation || setup_.indentation.enabled) return Engine::stop_and_advance(request, next_steps);
  const bool check_steps = steps_in_flight_;
  const BlockStatus* status_at_stop = block_status_[status_parity_].get();
  const std::uint64_t stop_version = positions_version_;
  launch_steps(next_steps);

  cudaStream_t side = report_stream_;
  ERMAK_CUDA(cudaStreamWaitEvent(side, stop_copied_, 0));
  if (check_steps) {
    stop_status_.resize(status_host_.size());
    ERMAK_CUDA(cudaMemcpyAsync(stop_status_.data(), status_at_stop, status_host_.size() * sizeof(BlockStatus),
                               cudaMemcpyDeviceToHost, side));
  }
  enqueue_stop(request, stop_positions_.get(), stop_version, stop_step, side);
  ERMAK_CUDA(cudaEventRecord(stop_taken_, side));
  ERMAK_CUDA(cudaEventSynchronize(stop_taken_));
  if (check_steps) {
    if (lists_overflowed(stop_status_.data(), stop_status_.size(), stop_step))
      return retake_stop_after_overflow(request, next_steps, stop_step);
    note_list_status(stop_status_.data(), stop_status_.size());
    check_block_status(stop_status_.data(), stop_status_.size(), stop_step);
  }
  return stop_values(request, stop_positions_.get(), stop_step, side);
}

bool CudaEngine::last_stop_positions(State& out) {
  if (stop_positions_step_ < 0) return false;
  DeviceGuard guard(device_);
  ERMAK_CUDA(cudaEventSynchronize(stop_copied_));
  const std::size_t beads = std::size_t(n_) * R_;
  stop_positions_host_.resize(beads);
  ERMAK_CUDA(cudaMemcpyAsync(stop_positions_host_.data(), stop_positions_.get(), beads * sizeof(float4),
                             cudaMemcpyDeviceToHost, report_stream_));
  ERMAK_CUDA(cudaStreamSynchronize(report_stream_));
  copy_positions(stop_positions_host_.data(), out);
  out.step = stop_positions_step_;
  return true;
}

// A stop taken in turn: the same work as beside the steps, on the steps' stream over
// the current positions, with one wait for all of it (the single calls wait once each;
// the per-bead family's stop went from ~4 waits to 2, its list check being the other).
StopValues CudaEngine::take_stop(const StopRequest& request) {
  if (request.indentation) return Engine::take_stop(request);
  DeviceGuard guard(device_);
  settle();
  const float4* pos = pos_[step_ & 1].get();
  enqueue_stop(request, pos, positions_version_, step_, stream_);
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  return stop_values(request, pos, step_, stream_);
}

// A stop's work on `stream` over `pos` (the positions at `step`, version `version`): the
// stability screen, the gathers, the energies and structure observables, and the
// positions if asked for, all into page-locked memory. Nothing waits here.
void CudaEngine::enqueue_stop(const StopRequest& request, const float4* pos, std::uint64_t version, std::int64_t step,
                              cudaStream_t stream) {
  enqueue_screen(pos, stream);
  if (request.positions) enqueue_positions_to_host(pos, stream);
  if (!request.beads.empty() || request.tether_forces || request.plane_forces)
    enqueue_gather(request.beads, pos, version, stream);
  if (request.energies) {
    check_structure_ends(n_, request.end_first, request.end_last);
    evaluate(true, pos, step, stream);
    stop_energies_host_.resize(std::size_t(R_) * kReplicaOut);
    replica_out_.download(stop_energies_host_.data(), stop_energies_host_.size(), stream);
    enqueue_structure_observables(request.formed_ratio, request.end_first, request.end_last, pos, stream);
    stop_structure_host_.resize(std::size_t(R_) * kStructureOut);
    structure_out_.download(stop_structure_host_.data(), stop_structure_host_.size(), stream);
  }
}

void CudaEngine::enqueue_positions_to_host(const float4* pos, cudaStream_t stream) {
  const std::size_t beads = std::size_t(n_) * R_;
  stop_positions_host_.resize(beads);
  ERMAK_CUDA(cudaMemcpyAsync(stop_positions_host_.data(), pos, beads * sizeof(float4), cudaMemcpyDeviceToHost,
                             stream));
}

// The values of the stop enqueue_stop() left, once its stream got there; a flagged
// stop's positions (for the exact checks) come from `pos` too.
StopValues CudaEngine::stop_values(const StopRequest& request, const float4* pos, std::int64_t step,
                                   cudaStream_t stream) {
  StopValues values;
  values.may_be_unstable = screen_flag_host_[0] != 0;
  if (request.positions || values.may_be_unstable) {  // flagged: the exact checks need them
    if (!request.positions) {
      enqueue_positions_to_host(pos, stream);
      ERMAK_CUDA(cudaStreamSynchronize(stream));
    }
    copy_positions(stop_positions_host_.data(), values.positions);
    values.positions.step = step;
  }
  if (!request.beads.empty()) values.bead_positions = gathered_from_host(request.beads);
  // On the host from the stop's gathered beads, as tether_forces_kcal_per_mol_A() and plane_forces_kcal_per_mol_A() do.
  if (request.tether_forces)
    values.tether_forces_kcal_per_mol_A = report_tether_forces(setup_, step, R_, gathered_from_host(tethered_beads_));
  if (request.plane_forces)
    values.plane_forces_kcal_per_mol_A =
        report_plane_forces(setup_, step, R_, gathered_from_host(plane_tethered_beads_));
  if (request.energies) {
    values.energies = energy_terms_from(stop_energies_host_.data());
    values.structure = structure_from(stop_structure_host_.data());
  }
  return values;
}

std::vector<EnergyTerms> CudaEngine::energies() {
  DeviceGuard guard(device_);
  settle();
  evaluate(true);
  std::vector<double> out(std::size_t(R_) * kReplicaOut);
  replica_out_.download(out.data(), out.size(), stream_);
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  return energy_terms_from(out.data());
}

std::vector<EnergyTerms> CudaEngine::energy_terms_from(const double* out) const {
  std::vector<EnergyTerms> e(R_);
  for (std::int32_t r = 0; r < R_; ++r) {
    const double* o = &out[std::size_t(r) * kReplicaOut];
    e[r].fene = o[0]; e[r].native = o[1]; e[r].repulsive = o[2]; e[r].protocol = o[3];
  }
  return e;
}

std::vector<StructureObservables> CudaEngine::structure_observables(double formed_ratio, std::int32_t end_first,
                                                                    std::int32_t end_last) {
  check_structure_ends(n_, end_first, end_last);
  DeviceGuard guard(device_);
  settle();
  enqueue_structure_observables(formed_ratio, end_first, end_last, pos_[step_ & 1].get(), stream_);
  std::vector<double> out(std::size_t(R_) * kStructureOut);
  structure_out_.download(out.data(), out.size(), stream_);
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  return structure_from(out.data());
}

void CudaEngine::enqueue_structure_observables(double formed_ratio, std::int32_t end_first, std::int32_t end_last,
                                               const float4* pos, cudaStream_t stream) {
  StructureLaunch L;
  L.m = model_;
  L.pos = pos;
  L.formed_ratio = formed_ratio;
  L.native_contacts = (long long)topology_.native_contacts.size();
  L.end_first = end_first;
  L.end_last = end_last;
  L.out = structure_out_.get();
  launch_structure_observables(L, stream);
}

std::vector<StructureObservables> CudaEngine::structure_from(const double* out) const {
  std::vector<StructureObservables> result(R_);
  for (std::int32_t r = 0; r < R_; ++r) {
    const double* o = &out[std::size_t(r) * kStructureOut];
    result[r] = {o[0], o[1], o[2]};
  }
  return result;
}

bool CudaEngine::may_be_unstable() {
  DeviceGuard guard(device_);
  settle();
  enqueue_screen(pos_[step_ & 1].get(), stream_);
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  return screen_flag_host_[0] != 0;
}

// The screen of `pos`; its flag lands in screen_flag_host_.
void CudaEngine::enqueue_screen(const float4* pos, cudaStream_t stream) {
  if (screen_flag_.size() == 0) {  // first call
    bond_screen_.upload(make_bond_screen(topology_.bonds, setup_.sop.fene_R0_A), stream);
    screen_flag_.resize(1);
    screen_flag_host_.resize(1);
  }
  screen_flag_.fill_zero(stream);
  launch_stability_screen(pos, n_, R_, bond_screen_.get(), int(topology_.bonds.size()), screen_flag_.get(), stream);
  screen_flag_.download(screen_flag_host_.data(), 1, stream);
}

// Positions of `beads` in every replica, [r · beads.size() + k], from one gather of every
// bead a stop has asked for so far and the protocols' beads (a stop's calls for rows,
// tether and plane forces share one launch and one copy per positions version).
std::vector<Vec3f> CudaEngine::gathered_positions(const std::vector<std::int32_t>& beads) {
  DeviceGuard guard(device_);
  settle();
  if (enqueue_gather(beads, pos_[step_ & 1].get(), positions_version_, stream_))
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
  return gathered_from_host(beads);
}

// Gathers the beads of `pos`, positions version `version`, into gather_host_ unless it
// holds them already; true when a copy was enqueued.
bool CudaEngine::enqueue_gather(const std::vector<std::int32_t>& beads, const float4* pos, std::uint64_t version,
                                cudaStream_t stream) {
  // The protocols' beads are in every gather, so that a stop's rows and forces need one.
  for (const auto* list : {&tethered_beads_, &plane_tethered_beads_, &beads})
    for (const std::int32_t b : *list) {
      const auto at = std::lower_bound(gather_list_.begin(), gather_list_.end(), b);
      if (at == gather_list_.end() || *at != b) gather_list_.insert(at, b);
    }
  const std::size_t k = gather_list_.size();
  const bool grew = gather_beads_.size() != k;  // the list only grows; the first call uploads it
  if (!grew && gathered_version_ == version) return false;
  if (grew) {  // from pinned memory: a pageable upload would wait for the steps under way
    gather_beads_host_.resize(k);
    std::copy(gather_list_.begin(), gather_list_.end(), gather_beads_host_.data());
    gather_beads_.resize(k);
    gather_beads_.upload(gather_beads_host_.data(), k, stream);
  }
  gather_out_.resize(k * std::size_t(R_));
  gather_host_.resize(k * std::size_t(R_));
  launch_gather_beads(pos, n_, R_, gather_beads_.get(), int(k), gather_out_.get(), stream);
  gather_out_.download(gather_host_.data(), k * std::size_t(R_), stream);
  gathered_version_ = version;
  return true;
}

// The beads' positions from the last gather, [r · beads.size() + m].
std::vector<Vec3f> CudaEngine::gathered_from_host(const std::vector<std::int32_t>& beads) const {
  const std::size_t k = gather_list_.size();
  std::vector<std::size_t> slot(beads.size());
  for (std::size_t m = 0; m < beads.size(); ++m)
    slot[m] = std::size_t(std::lower_bound(gather_list_.begin(), gather_list_.end(), beads[m]) - gather_list_.begin());
  std::vector<Vec3f> out(beads.size() * std::size_t(R_));
  for (std::size_t r = 0; r < std::size_t(R_); ++r)
    for (std::size_t m = 0; m < beads.size(); ++m) {
      const float4 p = gather_host_[r * k + slot[m]];
      out[r * beads.size() + m] = {p.x, p.y, p.z};
    }
  return out;
}

// Forces (and energies) of `pos` at `step` (the protocols' anchors move with it).
void CudaEngine::evaluate(bool energy, const float4* pos, std::int64_t step, cudaStream_t stream, bool reduce) {
  EvalLaunch L;
  L.m = model_;
  L.pos = pos;
  L.step = step;
  if (family_ == CudaKernelFamily::kPerBead) {
    // The control's step must be the current one (minimisation moves keep the step).
    ensure_perbead_list();
    L.rows = perbead_.rows;
    L.rows16 = perbead_.rows16;
    L.cluster_rows = perbead_.cluster_rows;
    L.row_count = row_count_.get();
    L.slots = slots_;
  }
  L.tips = tips_;
  L.force = force_.get();
  L.bead_energy = bead_energy_.get();
  L.bead_tip = bead_tip_.get();
  L.replica_out = replica_out_.get();
  // One round per warp where the run's beads, kEvalLanes lanes each, fill the GPU at most
  // twice over (eval_kernels.cu; H200 with hydrodynamics, TEA: WW × 100 +54 %, × 1000 +3 %
  // against eight rounds, × 10⁴ −13 %); ERMAK_CUDA_EVAL_ROUNDS (1 or 8) forces either.
  L.rounds = forced_eval_rounds_ ? forced_eval_rounds_
                                 : ((long long)n_ * R_ * kEvalLanes <= 2 * thread_budget() ? 1 : kEvalLanes);
  launch_eval(L, energy, stream);
  if (reduce) launch_reduce_replicas(L, energy, stream);
}

}  // namespace cuda
}  // namespace ermak
