// The CUDA engine's steps in the per-bead family (docs/gpu.md#kernel-families): chunks of
// step kernels in a CUDA graph, the list checked and rebuilt on the device between them.
#include "ermak/backend/cuda/cuda_engine.cuh"

namespace ermak {
namespace cuda {

Control CudaEngine::fetch_control() {
  Control c;
  ERMAK_CUDA(cudaMemcpyAsync(&c, ctrl_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_));
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  return c;
}

void CudaEngine::reset_control() {
  Control c = fetch_control();
  c.step = step_;
  c.target = step_;
  c.stale_since = step_;  // build at the first step
  c.needed_slots = 0;
  ERMAK_CUDA(cudaMemcpyAsync(ctrl_.get(), &c, sizeof c, cudaMemcpyHostToDevice, stream_));
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
}

void CudaEngine::advance_perbead(std::int64_t s, std::int64_t e, physics::LangevinCoefficients coeff, double kT) {
  launch_set_segment(ctrl_.get(), e, coeff, kT, stream_);
  const std::int64_t kGraphSteps = std::int64_t(chunk_steps_) * kChunksPerGraph;
  std::int64_t at = s;
  int stalls = 0;
  // ERMAK_CUDA_TRACE=1: one line per host round (for diagnosing slow runs, docs/gpu.md).
  static const bool trace = env_int("ERMAK_CUDA_TRACE", 0) != 0;
  const auto round_start = std::chrono::steady_clock::now();
  while (at < e) {
    const std::int64_t launches = std::max<std::int64_t>(1, (e - at + kGraphSteps - 1) / kGraphSteps);
    for (std::int64_t k = 0; k < launches; ++k) ERMAK_CUDA(cudaGraphLaunch(graph_exec_, stream_));
    const Control c = fetch_control();
    if (trace)
      std::fprintf(stderr, "[ermak cuda] %.3f s: graphs %lld, step %lld -> %lld, builds %lld, needed slots %d of %d\n",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - round_start).count(),
                   (long long)launches, (long long)at, c.step, c.rebuilds, c.needed_slots, slots_);
    if (c.needed_slots > slots_) {
      grow_slots(c.needed_slots);  // re-captures the graph, marks the list stale
      launch_set_segment(ctrl_.get(), e, coeff, kT, stream_);
    }
    stalls = c.step == at ? stalls + 1 : 0;
    if (stalls > 8) throw Error("CUDA per-bead family: the run stopped advancing at step " + std::to_string(c.step));
    at = c.step;
    perbead_rebuilds_ = c.rebuilds;  // the last round's read is after the last step
  }
  // The list's pairs, for stats(): counted behind the steps and read there (no wait here:
  // a report stop follows most advances).
  if (perbead_.cluster_rows) launch_count_cluster_pairs(perbead_, pairs_.get(), stream_);
  else launch_count_pairs(row_count_.get(), (long long)n_ * R_, pairs_.get(), stream_);
  pairs_.download(pairs_host_.data(), 1, stream_);
  ERMAK_CUDA(cudaEventRecord(pairs_counted_, stream_));
}

// Makes sure the list (per-bead family) holds the current positions' pairs.
void CudaEngine::ensure_perbead_list() {
  for (int attempt = 0;; ++attempt) {
    launch_rebuild(perbead_, stream_);  // no-op unless stale
    const Control c = fetch_control();
    if (c.needed_slots <= slots_) return;
    if (attempt > 4) throw Error("CUDA: the neighbour list could not be built (rows keep overflowing)");
    grow_slots(c.needed_slots);  // marks the list stale
  }
}

}  // namespace cuda
}  // namespace ermak
