#pragma once
// The GPU side of ermak's random-number tools (docs/rng.md#gpu), for the tests,
// `ermak rng ou --backend cuda` and `ermak bench --rng`. Plain C++: in a build without
// CUDA every function exists and throws an ermak::Error saying so (cuda_rng_stub.cpp).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ermak {

// What the device generator of rng::make_noise_source(generator, layout, seed, replicas,
// beads) draws for steps [0, steps), `chunk` steps per device call: the Gaussians as
// [step][replica][bead][x, y, z] floats, and its state afterwards in the format of
// rng::NoiseSource::save_state (every replica's last step = steps − 1).
struct CudaNoiseDraw {
  std::vector<float> gaussians;
  std::vector<std::uint8_t> state;
};
CudaNoiseDraw cuda_draw_noise(const std::string& generator, const std::string& layout, std::uint64_t seed,
                              std::int32_t replicas, std::int32_t beads, std::int32_t steps, std::int32_t chunk,
                              int device = -1);

// N independent 3-D oscillators per replica on the GPU, x ← a·x + s·g in double precision
// per component, g from the device generator (the application test and the benchmark of
// docs/rng.md). Each replica advances on its own, steps continuing its previous call.
class CudaOscillators {
 public:
  virtual ~CudaOscillators() = default;
  virtual std::string name() const = 0;         // "generator/layout"
  virtual std::string device_name() const = 0;  // e.g. "NVIDIA H100 80GB HBM3"
  virtual void set_positions(std::int32_t replica, const double* x, const double* y, const double* z) = 0;
  virtual void positions(std::int32_t replica, double* x, double* y, double* z) = 0;  // waits for the GPU
  virtual void advance(std::int32_t replica, std::int64_t first_step, std::int64_t steps) = 0;
  virtual void synchronize() = 0;
};

// steps_per_launch: steps of noise drawn per generator launch (the state is loaded and
// stored once per launch); 1 makes every step pay its state traffic, as in the
// benchmark of the SOP-GPU RNG study. 0 picks a window from the memory it needs.
std::unique_ptr<CudaOscillators> make_cuda_oscillators(const std::string& generator, const std::string& layout,
                                                       std::uint64_t seed, std::int32_t replicas,
                                                       std::int32_t oscillators, double a, double s,
                                                       std::int32_t steps_per_launch, int device = -1);

}  // namespace ermak
