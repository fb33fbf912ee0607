// The CUDA engine's steps in the block family (docs/gpu.md#kernel-families): launches of
// many steps, run ahead of the host where they can, and the recovery of list rows that
// overflowed in them (docs/gpu.md#what-overlaps-the-steps).
#include "ermak/backend/cuda/cuda_engine.cuh"

namespace ermak {
namespace cuda {

// Launches `steps` steps; the block family with Philox noise returns before they are
// done (settle() waits for them), the others when they are.
void CudaEngine::launch_steps(std::int64_t steps) {
  if (steps <= 0) return;
  new_status_array_ = true;
  std::int64_t s = step_;
  const std::int64_t end = step_ + steps;
  while (s < end) {
    const std::int64_t e = temperature_segment_end(s, end);
    const double kT = setup_.temperature.at_step(s);
    const auto coeff = physics::langevin_coefficients(setup_.langevin.timestep_tau, setup_.langevin.zeta, kT);
    // A stateful generator draws the noise of up to noise_ring steps ahead, then the
    // step kernels run those steps (docs/gpu.md#noise).
    const std::int64_t window = model_.noise ? model_.noise_ring : e - s;
    for (std::int64_t w = s; w < e; w += window) {
      const std::int64_t w_end = std::min(e, w + window);
      if (model_.noise) noise_->generate(w, int(w_end - w), 0, R_, noise_ring_.get(), model_.noise_ring);
      if (hydrodynamic()) advance_hydrodynamic(w, w_end);  // either family (cuda_engine_hydrodynamics.cu)
      else if (family_ == CudaKernelFamily::kBlock) advance_block(w, w_end, coeff, kT);
      else advance_perbead(w, w_end, coeff, kT);
    }
    if (model_.noise) noise_last_step_ = e - 1;
    s = e;
    step_ = s;
  }
  host_valid_ = false;
  ++positions_version_;
  ERMAK_CUDA(cudaGetLastError());
}

// Temperature is constant within a segment.
std::int64_t CudaEngine::temperature_segment_end(std::int64_t s, std::int64_t end) const {
  return std::min(end, setup_.temperature.next_change_after(s));
}

// Waits for steps still under way and checks that every block reached them; blocks whose
// list rows overflowed on the way are run on to them now.
void CudaEngine::settle() {
  if (!steps_in_flight_) return;
  steps_in_flight_ = false;
  block_status_[status_parity_].download(status_host_.data(), status_host_.size(), stream_);
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  note_list_status(status_host_.data(), status_host_.size());
  if (lists_overflowed(status_host_.data(), status_host_.size(), step_)) {
    finish_overflowed_blocks(pos_[step_ & 1].get(), step_);
    return;
  }
  check_block_status(status_host_.data(), status_host_.size(), step_);
}

// A block whose list rows overflowed stops there and says how many it needs.
bool CudaEngine::lists_overflowed(const BlockStatus* status, std::size_t blocks, std::int64_t step) {
  for (std::size_t b = 0; b < blocks; ++b)
    if (status[b].done < step && status[b].needed_slots > 0) return true;
  return false;
}

// The list statistics of launches run ahead (their status counts the rebuilds since the
// status was last uploaded, async_rebuilds_base_ those before).
void CudaEngine::note_list_status(const BlockStatus* status, std::size_t blocks) {
  if (block_.all_pairs) return;
  block_rebuilds_ = async_rebuilds_base_;
  block_pairs_ = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    block_rebuilds_ += status[b].rebuilds;
    block_pairs_ += status[b].pairs;
  }
}

// An overflow in the steps before an overlapped stop: the stop's values are not of one
// step, and the steps launched behind it started from them. Both are taken back: the
// positions return to the stop's copy (the overflowed blocks' at the step where they
// stopped), the rows grow, those blocks run on to the stop in turn (the noise is a
// function of replica, bead and step, and rows are canonical: the same bits), and the
// stop is taken in turn before the next steps are launched again.
StopValues CudaEngine::retake_stop_after_overflow(const StopRequest& request, std::int64_t next_steps,
                                                  std::int64_t stop_step) {
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  steps_in_flight_ = false;
  step_ = stop_step;
  const std::size_t beads = std::size_t(n_) * R_;
  ERMAK_CUDA(cudaMemcpyAsync(pos_[step_ & 1].get(), stop_positions_.get(), beads * sizeof(float4),
                             cudaMemcpyDeviceToDevice, stream_));
  status_host_.assign(stop_status_.data(), stop_status_.data() + stop_status_.size());
  note_list_status(status_host_.data(), status_host_.size());
  finish_overflowed_blocks(pos_[step_ & 1].get(), step_);  // marks the positions changed
  // The stop's copy becomes the stop's positions again (last_stop_positions hands it on).
  ERMAK_CUDA(cudaMemcpyAsync(stop_positions_.get(), pos_[step_ & 1].get(), beads * sizeof(float4),
                             cudaMemcpyDeviceToDevice, stream_));
  ERMAK_CUDA(cudaEventRecord(stop_copied_, stream_));
  return Engine::stop_and_advance(request, next_steps);
}

// Blocks that stopped short of `end` (status_host_) run on to it in turn, segment by
// segment of the temperature schedule, their positions read from and written to `pos`.
void CudaEngine::finish_overflowed_blocks(float4* pos, std::int64_t end) {
  std::int64_t from = end;
  int needed = 0;
  for (const auto& x : status_host_) {
    from = std::min<std::int64_t>(from, x.done);
    if (x.done < end) needed = std::max(needed, x.needed_slots);
  }
  if (needed > slots_) grow_slots(needed);  // reconfigures; positions are kept
  while (from < end) {
    const std::int64_t e = temperature_segment_end(from, end);
    run_block_in_turn(from, e, pos, pos);
    from = e;
  }
  status_step_ = -1;  // the next launch run ahead starts from a fresh status
  host_valid_ = false;
  ++positions_version_;
}

// Every block reached `step` (a launch never runs a block past its end step).
void CudaEngine::check_block_status(const BlockStatus* status, std::size_t blocks, std::int64_t step) const {
  for (std::size_t b = 0; b < blocks; ++b)
    if (status[b].done != step)
      throw Error("CUDA block family: a block stopped at step " + std::to_string(status[b].done) + " before " +
                  std::to_string(step) + " without a reason");
}

void CudaEngine::advance_block(std::int64_t s, std::int64_t e, physics::LangevinCoefficients coeff, double kT) {
  if (!async_steps_) {
    status_host_.assign(std::size_t(block_count(block_launch(block_, block_.rows_in_shared))), BlockStatus{});
    for (auto& x : status_host_) x.done = s;
    run_block_in_turn(e, pos_[s & 1].get(), pos_[e & 1].get(), coeff, kT);
    return;
  }
  // The launch goes behind the work before it, every block continuing from its status
  // (`done`) left by the launch before; settle() or the next stop checks that they got
  // there (and runs on the blocks whose list rows overflowed).
  BlockLaunch L = block_launch(block_, block_.rows_in_shared);
  if (status_step_ != s) {
    status_host_.assign(std::size_t(block_count(L)), BlockStatus{});
    for (auto& x : status_host_) x.done = s;
    block_status_[status_parity_].upload(status_host_.data(), status_host_.size(), stream_);
    async_rebuilds_base_ = block_rebuilds_;
  }
  L.in = pos_[s & 1].get();
  L.out = pos_[e & 1].get();
  L.global_rows = block_rows_.get();
  L.end_step = e;
  L.coeff = coeff;
  L.kT = kT;
  // The first launch of an advance writes the other status array, which a stop taken
  // before it may still be reading from; later ones read and write that one.
  L.status_in = block_status_[status_parity_].get();
  if (new_status_array_) status_parity_ ^= 1;
  new_status_array_ = false;
  L.status = block_status_[status_parity_].get();
  launch_block_steps(L, stream_);
  status_step_ = e;
  steps_in_flight_ = true;
  if (block_.all_pairs) block_pairs_ = all_pairs_count();
}

// No list: every pair that is neither bonded nor native.
std::int64_t CudaEngine::all_pairs_count() const {
  return std::int64_t(R_) * (std::int64_t(n_) * (n_ - 1) / 2 - std::int64_t(topology_.bonds.size()) -
                             std::int64_t(topology_.native_contacts.size()));
}

// The same at the temperature of step s.
void CudaEngine::run_block_in_turn(std::int64_t s, std::int64_t e, const float4* in, float4* out) {
  const double kT = setup_.temperature.at_step(s);
  run_block_in_turn(e, in, out, physics::langevin_coefficients(setup_.langevin.timestep_tau, setup_.langevin.zeta, kT),
                    kT);
}

// Runs every block from its status in status_host_ (`done`) to e, waiting for each
// launch; where list rows overflow, they grow and the blocks go on from where they stopped.
void CudaEngine::run_block_in_turn(std::int64_t e, const float4* in, float4* out, physics::LangevinCoefficients coeff,
                                   double kT) {
  for (int attempt = 0;; ++attempt) {
    BlockLaunch L = block_launch(block_, block_.rows_in_shared);
    for (auto& x : status_host_) { x.rebuilds = 0; x.needed_slots = 0; }
    block_status_[0].upload(status_host_.data(), status_host_.size(), stream_);
    L.in = attempt == 0 ? in : out;
    L.out = out;
    L.global_rows = block_rows_.get();
    L.end_step = e;
    L.coeff = coeff;
    L.kT = kT;
    L.status = block_status_[0].get();
    launch_block_steps(L, stream_);
    block_status_[0].download(status_host_.data(), status_host_.size(), stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    int needed = 0;
    for (const auto& x : status_host_) {
      block_rebuilds_ += x.rebuilds;
      if (x.done < e) needed = std::max(needed, x.needed_slots);
    }
    block_pairs_ = 0;
    for (const auto& x : status_host_) block_pairs_ += x.pairs;
    if (block_.all_pairs) block_pairs_ = all_pairs_count();
    if (needed == 0) {
      check_block_status(status_host_.data(), status_host_.size(), e);
      return;
    }
    if (attempt > 8) throw Error("CUDA block family: the neighbour list keeps overflowing");
    grow_slots(needed);  // reconfigures; positions are kept
  }
}

}  // namespace cuda
}  // namespace ermak
