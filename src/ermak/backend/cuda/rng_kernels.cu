// The device generators (device_noise.cuh) and the GPU random-number tools (cuda_rng.h):
// kernels that run the step functions of rng/*.h on the GPU, one definition shared with
// the CPU (docs/rng.md#gpu).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "ermak/backend/cuda/device_noise.cuh"
#include "ermak/backend/cuda_engine.h"
#include "ermak/backend/cuda_rng.h"
#include "ermak/core/error.h"
#include "ermak/rng/gaussian.h"
#include "ermak/rng/hybrid_taus.h"
#include "ermak/rng/lcg.h"
#include "ermak/rng/mt19937.h"
#include "ermak/rng/philox_gaussian.h"
#include "ermak/rng/ran2.h"

namespace ermak::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMtStateWords = sizeof(rng::Mt19937State) / sizeof(std::uint32_t);  // 624 words + index
constexpr int kMtWindow = rng::kMtN - rng::kMtM;                                  // 227: race-free window

int blocks_for(std::size_t threads) { return int((threads + kThreads - 1) / kThreads); }

__device__ __forceinline__ float4 as_noise(Vec3f g) { return make_float4(g.x, g.y, g.z, 0.0f); }

__device__ __forceinline__ std::size_t ring_index(long long step, int ring, std::size_t total, std::size_t t) {
  return std::size_t(step % ring) * total + t;
}

// --- per_thread: the state structs of rng/*.h, loaded from strided words ---

struct LcgDevice {
  using State = rng::LcgState;
  __device__ static std::uint32_t word(State& s) { return rng::lcg_next(s); }
};
struct Ran2Device {
  using State = rng::Ran2State;
  __device__ static std::uint32_t word(State& s) { return rng::ran2_word(s); }
};
struct HybridTausDevice {
  using State = rng::HybridTausState;
  __device__ static std::uint32_t word(State& s) { return rng::hybrid_taus_next(s); }
};

template <class Traits>
__global__ void __launch_bounds__(kThreads)
    per_thread_kernel(std::uint32_t* words, std::size_t total, int beads, int replica0, int count, long long first,
                      int steps, float4* out, int ring) {
  using State = typename Traits::State;
  constexpr int kWords = sizeof(State) / sizeof(std::uint32_t);
  const std::size_t local = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (local >= std::size_t(count) * beads) return;
  const std::size_t t = std::size_t(replica0) * beads + local;
  std::uint32_t raw[kWords];
#pragma unroll
  for (int k = 0; k < kWords; ++k) raw[k] = words[k * total + t];  // loaded once
  State s;
  memcpy(&s, raw, sizeof s);
  for (int k = 0; k < steps; ++k) {
    const std::uint32_t w0 = Traits::word(s), w1 = Traits::word(s), w2 = Traits::word(s), w3 = Traits::word(s);
    out[ring_index(first + k, ring, total, t)] = as_noise(rng::gaussian3_from_words(w0, w1, w2, w3));
  }
  memcpy(raw, &s, sizeof s);
#pragma unroll
  for (int k = 0; k < kWords; ++k) words[k * total + t] = raw[k];  // stored once
}

// MT19937 per thread: 625 words cannot live in registers; the twist reads and writes the
// thread's strided words in place (5 reads and 4 writes per 4 outputs, docs/rng.md#cost).
struct StridedWords {
  std::uint32_t* base;
  std::size_t stride;
  __device__ std::uint32_t& operator[](int k) const { return base[std::size_t(k) * stride]; }
};

__global__ void __launch_bounds__(kThreads)
    mt_per_thread_kernel(std::uint32_t* words, std::size_t total, int beads, int replica0, int count, long long first,
                         int steps, float4* out, int ring) {
  const std::size_t local = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (local >= std::size_t(count) * beads) return;
  const std::size_t t = std::size_t(replica0) * beads + local;
  StridedWords mt{words + t, total};
  std::int32_t index = std::int32_t(mt[rng::kMtN]);
  for (int k = 0; k < steps; ++k) {
    const std::uint32_t w0 = rng::mt19937_next_in(mt, index), w1 = rng::mt19937_next_in(mt, index),
                        w2 = rng::mt19937_next_in(mt, index), w3 = rng::mt19937_next_in(mt, index);
    out[ring_index(first + k, ring, total, t)] = as_noise(rng::gaussian3_from_words(w0, w1, w2, w3));
  }
  mt[rng::kMtN] = std::uint32_t(index);
}

__global__ void __launch_bounds__(kThreads)
    philox_kernel(std::uint64_t seed, std::size_t total, int beads, int replica0, int count, long long first,
                  int steps, float4* out, int ring) {
  const std::size_t local = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (local >= std::size_t(count) * beads) return;
  const std::size_t t = std::size_t(replica0) * beads + local;
  const int r = int(t / beads), i = int(t % beads);
  for (int k = 0; k < steps; ++k)
    out[ring_index(first + k, ring, total, t)] = as_noise(
        rng::gaussian3(seed, rng::Stream::kBeadLangevin, std::uint32_t(r), std::uint32_t(i), std::uint64_t(first + k)));
}

// --- shared: lagged Fibonacci ---

// One step when 4N words fit one race-free window: thread i makes elements i, N+i, 2N+i,
// 3N+i of the window — bead i's words in NoiseSource's order — without synchronisation.
__global__ void __launch_bounds__(kThreads)
    lf_fused_kernel(std::uint32_t* rings, rng::LagPair lags, int head, std::size_t total, int beads, int replica0,
                    int count, long long step, float4* out, int ring) {
  const std::size_t local = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (local >= std::size_t(count) * beads) return;
  const int r = replica0 + int(local / beads), i = int(local % beads);
  std::uint32_t* ring_words = rings + std::size_t(r) * lags.long_lag;
  const std::uint32_t w0 = rng::lagged_fibonacci_element(ring_words, lags, head, i);
  const std::uint32_t w1 = rng::lagged_fibonacci_element(ring_words, lags, head, beads + i);
  const std::uint32_t w2 = rng::lagged_fibonacci_element(ring_words, lags, head, 2 * beads + i);
  const std::uint32_t w3 = rng::lagged_fibonacci_element(ring_words, lags, head, 3 * beads + i);
  out[ring_index(step, ring, total, std::size_t(r) * beads + i)] = as_noise(rng::gaussian3_from_words(w0, w1, w2, w3));
}

// One window of `width` elements (larger steps): element j → words[replica][start + j].
__global__ void __launch_bounds__(kThreads)
    lf_window_kernel(std::uint32_t* rings, rng::LagPair lags, int head, int width, int start, int beads, int replica0,
                     int count, std::uint32_t* words) {
  const std::size_t local = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (local >= std::size_t(count) * width) return;
  const int r = replica0 + int(local / width), j = int(local % width);
  words[std::size_t(r) * 4 * beads + start + j] =
      rng::lagged_fibonacci_element(rings + std::size_t(r) * lags.long_lag, lags, head, j);
}

// A step's 4N words of each replica → the beads' Gaussians (bead i: words i, N+i, 2N+i, 3N+i).
__global__ void __launch_bounds__(kThreads)
    words_to_noise_kernel(const std::uint32_t* words, std::size_t total, int beads, int replica0, int count,
                          long long step, float4* out, int ring) {
  const std::size_t local = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (local >= std::size_t(count) * beads) return;
  const int r = replica0 + int(local / beads), i = int(local % beads);
  const std::uint32_t* w = words + std::size_t(r) * 4 * beads;
  out[ring_index(step, ring, total, std::size_t(r) * beads + i)] =
      as_noise(rng::gaussian3_from_words(w[i], w[beads + i], w[2 * beads + i], w[3 * beads + i]));
}

// --- shared: MT19937, one block per replica ---

// Windows of ≤ 227 consecutive outputs: every thread reads x[i], x[i+1], x[i+397] of its
// output before any thread writes (x[i+1] must be the old word; x[i+397] is not written
// within the window), so a barrier between reading and writing suffices.
__global__ void __launch_bounds__(kThreads)
    mt_shared_kernel(std::uint32_t* states, std::size_t total, int beads, int replica0, long long first, int steps,
                     std::uint32_t* words, float4* out, int ring) {
  __shared__ std::uint32_t mt[kMtStateWords];
  const int r = replica0 + blockIdx.x;
  std::uint32_t* state = states + std::size_t(r) * kMtStateWords;
  for (int k = threadIdx.x; k < kMtStateWords; k += blockDim.x) mt[k] = state[k];
  __syncthreads();
  int index = int(mt[rng::kMtN]);
  std::uint32_t* w = words + std::size_t(r) * 4 * beads;
  const int per_step = 4 * beads;
  for (int k = 0; k < steps; ++k) {
    for (int start = 0; start < per_step; start += kMtWindow) {
      const int width = min(kMtWindow, per_step - start);
      const int j = threadIdx.x;
      int i = index + j;
      if (i >= rng::kMtN) i -= rng::kMtN;
      std::uint32_t v = 0;
      if (j < width) {
        const int i1 = i + 1 == rng::kMtN ? 0 : i + 1;
        const int im = i + rng::kMtM >= rng::kMtN ? i + rng::kMtM - rng::kMtN : i + rng::kMtM;
        v = rng::mt19937_twist(mt[i], mt[i1], mt[im]);
      }
      __syncthreads();
      if (j < width) {
        mt[i] = v;
        w[start + j] = rng::mt19937_temper(v);
      }
      __syncthreads();
      index += width;
      index %= rng::kMtN;
    }
    for (int b = threadIdx.x; b < beads; b += blockDim.x)
      out[ring_index(first + k, ring, total, std::size_t(r) * beads + b)] =
          as_noise(rng::gaussian3_from_words(w[b], w[beads + b], w[2 * beads + b], w[3 * beads + b]));
    __syncthreads();  // the words are rewritten by the next step
  }
  if (threadIdx.x == 0) mt[rng::kMtN] = std::uint32_t(index);
  __syncthreads();
  for (int k = threadIdx.x; k < kMtStateWords; k += blockDim.x) state[k] = mt[k];
}

// --- the oscillators of the application test and the benchmark ---

__global__ void __launch_bounds__(kThreads)
    oscillator_kernel(double* x, double* y, double* z, const float4* noise, std::size_t total, int n, int replica,
                      long long first, int steps, int ring, double a, double s) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const std::size_t t = std::size_t(replica) * n + i;
  double px = x[t], py = y[t], pz = z[t];
  for (int k = 0; k < steps; ++k) {
    const float4 g = noise[ring_index(first + k, ring, total, t)];
    px = a * px + s * double(g.x);
    py = a * py + s * double(g.y);
    pz = a * pz + s * double(g.z);
  }
  x[t] = px; y[t] = py; z[t] = pz;
}

void select_device(int device) {
  std::string why;
  if (!cuda_backend_available(&why)) throw Error("backend \"cuda\": " + why);
  if (device < 0) {
    const char* v = std::getenv("ERMAK_CUDA_DEVICE");
    device = v && *v ? std::atoi(v) : 0;
  }
  int count = 0;
  ERMAK_CUDA(cudaGetDeviceCount(&count));
  if (device < 0 || device >= count)
    throw Error("backend \"cuda\": GPU " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                " present)");
  ERMAK_CUDA(cudaSetDevice(device));
}

}  // namespace

// ---------------------------------------------------------------------------------------
// DeviceNoise

DeviceNoise::DeviceNoise(const std::string& generator, const std::string& layout, std::uint64_t seed, int replicas,
                         int beads, cudaStream_t stream)
    : generator_(generator), seed_(seed), replicas_(replicas), beads_(beads), stream_(stream) {
  host_ = rng::make_noise_source(generator, layout, seed, replicas, beads);  // validates, seeds
  const std::string name = host_->name();
  layout_ = name.substr(name.find('/') + 1);
  if (is_philox()) return;
  if (layout_ == "per_thread") words_per_thread_ = rng::state_words_per_thread(generator_);
  if (generator_ == "lagged_fibonacci") {
    lags_ = rng::choose_lagged_fibonacci_lags(4 * std::int64_t(beads));
    if (4 * std::int64_t(beads) > rng::lagged_fibonacci_window(lags_))
      words_.resize(std::size_t(replicas) * 4 * std::size_t(beads));
  }
  if (generator_ == "mt19937" && layout_ == "shared") words_.resize(std::size_t(replicas) * 4 * std::size_t(beads));
  upload_words(host_->state_words());
}

std::size_t DeviceNoise::device_bytes() const { return state_.bytes() + words_.bytes(); }

void DeviceNoise::upload_words(const std::vector<std::uint32_t>& words) {
  const std::size_t total = std::size_t(replicas_) * beads_;
  std::vector<std::uint32_t> device;
  if (layout_ == "per_thread") {
    const std::size_t w = std::size_t(words_per_thread_);
    device.resize(words.size());
    for (std::size_t t = 0; t < total; ++t)
      for (std::size_t k = 0; k < w; ++k) device[k * total + t] = words[t * w + k];
  } else if (generator_ == "lagged_fibonacci") {
    const std::size_t l = std::size_t(lags_.long_lag);
    heads_.assign(replicas_, 0);
    device.resize(std::size_t(replicas_) * l);
    for (int r = 0; r < replicas_; ++r) {
      const std::uint32_t* at = words.data() + std::size_t(r) * (l + 1);
      heads_[r] = int(at[0]);
      std::copy(at + 1, at + 1 + l, device.begin() + std::ptrdiff_t(r * l));
    }
  } else {
    device = words;  // mt19937/shared: the replica's struct as it is
  }
  state_.upload(device, stream_);
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
}

std::vector<std::uint32_t> DeviceNoise::download_words() {
  std::vector<std::uint32_t> device(state_.size());
  state_.download(device.data(), device.size(), stream_);
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  const std::size_t total = std::size_t(replicas_) * beads_;
  if (layout_ == "per_thread") {
    const std::size_t w = std::size_t(words_per_thread_);
    std::vector<std::uint32_t> words(device.size());
    for (std::size_t t = 0; t < total; ++t)
      for (std::size_t k = 0; k < w; ++k) words[t * w + k] = device[k * total + t];
    return words;
  }
  if (generator_ == "lagged_fibonacci") {
    const std::size_t l = std::size_t(lags_.long_lag);
    std::vector<std::uint32_t> words;
    words.reserve(std::size_t(replicas_) * (l + 1));
    for (int r = 0; r < replicas_; ++r) {
      words.push_back(std::uint32_t(heads_[r]));
      words.insert(words.end(), device.begin() + std::ptrdiff_t(r * l), device.begin() + std::ptrdiff_t((r + 1) * l));
    }
    return words;
  }
  return device;
}

std::vector<std::uint8_t> DeviceNoise::save_state(long long last_step) {
  if (!is_philox()) host_->set_state_words(download_words(), last_step);
  else host_->set_state_words({}, last_step);
  return host_->save_state();
}

void DeviceNoise::restore_state(const std::vector<std::uint8_t>& bytes) {
  host_->restore_state(bytes);
  if (!is_philox()) upload_words(host_->state_words());
}

void DeviceNoise::generate(long long first_step, int steps, int replica0, int count, float4* out, int ring) {
  if (steps <= 0 || count <= 0) return;
  if (replica0 < 0 || replica0 + count > replicas_ || steps > ring)
    throw Error("DeviceNoise::generate: replicas [" + std::to_string(replica0) + ", " + std::to_string(replica0 + count) +
                ") of " + std::to_string(replicas_) + ", " + std::to_string(steps) + " steps in a ring of " +
                std::to_string(ring));
  const std::size_t total = std::size_t(replicas_) * beads_;
  const std::size_t threads = std::size_t(count) * beads_;
  const int blocks = blocks_for(threads);
  std::uint32_t* state = state_.get();
  if (is_philox()) {
    philox_kernel<<<blocks, kThreads, 0, stream_>>>(seed_, total, beads_, replica0, count, first_step, steps, out, ring);
  } else if (layout_ == "per_thread") {
    if (generator_ == "lcg")
      per_thread_kernel<LcgDevice><<<blocks, kThreads, 0, stream_>>>(state, total, beads_, replica0, count, first_step,
                                                                     steps, out, ring);
    else if (generator_ == "ran2")
      per_thread_kernel<Ran2Device><<<blocks, kThreads, 0, stream_>>>(state, total, beads_, replica0, count, first_step,
                                                                      steps, out, ring);
    else if (generator_ == "hybrid_taus")
      per_thread_kernel<HybridTausDevice><<<blocks, kThreads, 0, stream_>>>(state, total, beads_, replica0, count,
                                                                            first_step, steps, out, ring);
    else
      mt_per_thread_kernel<<<blocks, kThreads, 0, stream_>>>(state, total, beads_, replica0, count, first_step, steps,
                                                             out, ring);
  } else if (generator_ == "mt19937") {
    mt_shared_kernel<<<count, kThreads, 0, stream_>>>(state, total, beads_, replica0, first_step, steps, words_.get(),
                                                      out, ring);
  } else {
    // lagged_fibonacci: one kernel per step (or per window); replicas at the same ring
    // position share a launch.
    const int l = lags_.long_lag;
    const int per_step = 4 * beads_;
    const int window = rng::lagged_fibonacci_window(lags_);
    for (int k = 0; k < steps; ++k) {
      const long long step = first_step + k;
      for (int r = replica0; r < replica0 + count;) {
        int same = 1;
        while (r + same < replica0 + count && heads_[r + same] == heads_[r]) ++same;
        const int head = heads_[r];
        if (per_step <= window) {
          lf_fused_kernel<<<blocks_for(std::size_t(same) * beads_), kThreads, 0, stream_>>>(
              state, lags_, head, total, beads_, r, same, step, out, ring);
        } else {
          int h = head;
          for (int start = 0; start < per_step; start += window) {
            const int width = std::min(window, per_step - start);
            lf_window_kernel<<<blocks_for(std::size_t(same) * width), kThreads, 0, stream_>>>(
                state, lags_, h, width, start, beads_, r, same, words_.get());
            h = int((std::int64_t(h) + width) % l);
          }
          words_to_noise_kernel<<<blocks_for(std::size_t(same) * beads_), kThreads, 0, stream_>>>(
              words_.get(), total, beads_, r, same, step, out, ring);
        }
        for (int q = r; q < r + same; ++q) heads_[q] = int((std::int64_t(heads_[q]) + per_step) % l);
        r += same;
      }
    }
  }
  ERMAK_CUDA_LAUNCHED("device noise", stream_);
}

// ---------------------------------------------------------------------------------------
// The tools of cuda_rng.h

namespace {

class Oscillators final : public CudaOscillators {
 public:
  Oscillators(const std::string& generator, const std::string& layout, std::uint64_t seed, int replicas, int n,
              double a, double s, int steps_per_launch, int device)
      : n_(n), replicas_(replicas), a_(a), s_(s) {
    select_device(device);
    int current = 0;
    ERMAK_CUDA(cudaGetDevice(&current));
    cudaDeviceProp prop{};
    ERMAK_CUDA(cudaGetDeviceProperties(&prop, current));
    device_name_ = prop.name;
    ERMAK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    const std::size_t total = std::size_t(replicas) * n;
    // Noise ring: the steps drawn per launch; by default up to 64 within 64 MB.
    ring_ = steps_per_launch > 0
                ? steps_per_launch
                : int(std::clamp<std::size_t>((std::size_t(64) << 20) / (total * sizeof(float4)), 1, 64));
    noise_ = std::make_unique<DeviceNoise>(generator, layout, seed, replicas, n, stream_);
    buffer_.resize(std::size_t(ring_) * total);
    x_.resize(total); y_.resize(total); z_.resize(total);
    x_.fill_zero(stream_); y_.fill_zero(stream_); z_.fill_zero(stream_);
  }
  ~Oscillators() override {
    if (stream_) {
      cudaStreamSynchronize(stream_);
      cudaStreamDestroy(stream_);
    }
  }

  std::string name() const override { return noise_->name(); }
  std::string device_name() const override { return device_name_; }

  void set_positions(std::int32_t r, const double* x, const double* y, const double* z) override {
    check(r);
    const std::size_t o = std::size_t(r) * n_;
    ERMAK_CUDA(cudaMemcpyAsync(x_.get() + o, x, n_ * sizeof(double), cudaMemcpyHostToDevice, stream_));
    ERMAK_CUDA(cudaMemcpyAsync(y_.get() + o, y, n_ * sizeof(double), cudaMemcpyHostToDevice, stream_));
    ERMAK_CUDA(cudaMemcpyAsync(z_.get() + o, z, n_ * sizeof(double), cudaMemcpyHostToDevice, stream_));
    synchronize();
  }
  void positions(std::int32_t r, double* x, double* y, double* z) override {
    check(r);
    const std::size_t o = std::size_t(r) * n_;
    ERMAK_CUDA(cudaMemcpyAsync(x, x_.get() + o, n_ * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    ERMAK_CUDA(cudaMemcpyAsync(y, y_.get() + o, n_ * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    ERMAK_CUDA(cudaMemcpyAsync(z, z_.get() + o, n_ * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    synchronize();
  }
  void advance(std::int32_t r, std::int64_t first, std::int64_t steps) override {
    check(r);
    const std::size_t total = std::size_t(replicas_) * n_;
    for (std::int64_t at = first; at < first + steps;) {
      const int k = int(std::min<std::int64_t>(ring_, first + steps - at));
      noise_->generate(at, k, r, 1, buffer_.get(), ring_);
      oscillator_kernel<<<blocks_for(std::size_t(n_)), kThreads, 0, stream_>>>(
          x_.get(), y_.get(), z_.get(), buffer_.get(), total, n_, r, at, k, ring_, a_, s_);
      ERMAK_CUDA_LAUNCHED("oscillator_kernel", stream_);
      at += k;
    }
  }
  void synchronize() override { ERMAK_CUDA(cudaStreamSynchronize(stream_)); }

 private:
  void check(std::int32_t r) const {
    if (r < 0 || r >= replicas_) throw Error("CudaOscillators: replica " + std::to_string(r) + " out of range");
  }

  int n_, replicas_;
  double a_, s_;
  int ring_ = 1;
  std::string device_name_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<DeviceNoise> noise_;
  DeviceBuffer<float4> buffer_;
  DeviceBuffer<double> x_, y_, z_;
};

}  // namespace
}  // namespace ermak::cuda

namespace ermak {

CudaNoiseDraw cuda_draw_noise(const std::string& generator, const std::string& layout, std::uint64_t seed,
                              std::int32_t replicas, std::int32_t beads, std::int32_t steps, std::int32_t chunk,
                              int device) {
  cuda::select_device(device);
  if (steps < 1 || chunk < 1) throw Error("cuda_draw_noise: steps and chunk must be positive");
  cudaStream_t stream = nullptr;
  ERMAK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CudaNoiseDraw draw;
  try {
    cuda::DeviceNoise noise(generator, layout, seed, replicas, beads, stream);
    const std::size_t total = std::size_t(replicas) * beads;
    cuda::DeviceBuffer<float4> ring(std::size_t(chunk) * total);
    std::vector<float4> host(std::size_t(chunk) * total);
    draw.gaussians.resize(std::size_t(steps) * total * 3);
    for (int at = 0; at < steps; at += chunk) {
      const int k = std::min(chunk, steps - at);
      noise.generate(at, k, 0, replicas, ring.get(), chunk);
      ring.download(host.data(), host.size(), stream);
      ERMAK_CUDA(cudaStreamSynchronize(stream));
      for (int q = 0; q < k; ++q) {
        const int step = at + q;
        const float4* slot = host.data() + std::size_t(step % chunk) * total;
        for (std::size_t t = 0; t < total; ++t) {
          float* g = &draw.gaussians[(std::size_t(step) * total + t) * 3];
          g[0] = slot[t].x; g[1] = slot[t].y; g[2] = slot[t].z;
        }
      }
    }
    draw.state = noise.save_state(steps - 1);
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  cudaStreamDestroy(stream);
  return draw;
}

std::unique_ptr<CudaOscillators> make_cuda_oscillators(const std::string& generator, const std::string& layout,
                                                       std::uint64_t seed, std::int32_t replicas,
                                                       std::int32_t oscillators, double a, double s,
                                                       std::int32_t steps_per_launch, int device) {
  if (replicas < 1 || oscillators < 1) throw Error("make_cuda_oscillators: replicas and oscillators must be positive");
  return std::make_unique<cuda::Oscillators>(generator, layout, seed, replicas, oscillators, a, s, steps_per_launch,
                                             device);
}

}  // namespace ermak
