#pragma once
// The device twin of rng::NoiseSource (docs/rng.md#gpu): the same generators, seeds and
// layouts, with their state in GPU memory, drawing exactly the words the CPU draws (the
// step functions of rng/*.h are ERMAK_HD: one definition for both). It writes the
// Gaussian triples of a run of steps into a ring of float4 noise buffers that the step
// kernels read (ModelData::noise); Philox needs none of this (the step kernels draw it
// themselves) but is supported here too, for `ermak rng ou --backend cuda` and
// `ermak bench --rng`.
//
//   per_thread  state words strided: word k of thread t = replica·beads + bead at
//               [k·T + t], T = replicas·beads (coalesced); a kernel thread loads its state
//               once, draws the steps asked for, stores it once (mt19937: in place)
//   shared      lagged_fibonacci: a ring of l words per replica; each step is one kernel
//               in which thread i makes the elements i, N+i, 2N+i, 3N+i of the step's
//               window (race-free while 4N ≤ min(s, l−s)); larger steps go window by
//               window through a word buffer. mt19937: one block per replica with the
//               625-word state in shared memory, windows of 227 words with a barrier
//               between reading and writing
// The host keeps an rng::NoiseSource of the same generator: it seeds the states and
// (de)serialises them, so checkpoints have the CPU's format.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/rng/lagged_fibonacci.h"
#include "ermak/rng/noise_source.h"

namespace ermak::cuda {

class DeviceNoise {
 public:
  DeviceNoise(const std::string& generator, const std::string& layout, std::uint64_t seed, int replicas, int beads,
              cudaStream_t stream);

  std::string name() const { return host_->name(); }
  bool is_philox() const { return generator_ == "philox"; }
  int replicas() const { return replicas_; }
  int beads() const { return beads_; }
  std::size_t device_bytes() const;

  // Noise of steps [first_step, first_step + steps) for replicas [replica0, replica0 +
  // count): the triple of (step, replica r, bead i) goes to
  // out[(step mod ring)·replicas·beads + r·beads + i] (w = 0). Steps must continue where
  // the previous call for those replicas stopped (stateful generators only move forward;
  // not checked here, the engine guarantees it). Asynchronous on the stream.
  void generate(long long first_step, int steps, int replica0, int count, float4* out, int ring);

  // The state in rng::NoiseSource::save_state's format; last_step ≥ 0 is recorded as every
  // replica's last filled step (else the one of the last restore / none).
  std::vector<std::uint8_t> save_state(long long last_step);
  void restore_state(const std::vector<std::uint8_t>& bytes);  // throws ermak::Error on mismatch

 private:
  void upload_words(const std::vector<std::uint32_t>& words);
  std::vector<std::uint32_t> download_words();

  std::string generator_, layout_;
  std::uint64_t seed_;
  int replicas_, beads_;
  cudaStream_t stream_;
  std::unique_ptr<rng::NoiseSource> host_;
  int words_per_thread_ = 0;             // per_thread
  rng::LagPair lags_{};                  // lagged_fibonacci
  std::vector<int> heads_;               // lagged_fibonacci: ring position per replica (host copy)
  DeviceBuffer<std::uint32_t> state_;    // per_thread: strided words; shared: per replica
  DeviceBuffer<std::uint32_t> words_;    // shared layouts: a step's 4·beads words per replica
};

}  // namespace ermak::cuda
