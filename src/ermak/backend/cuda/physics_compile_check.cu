// Proves under nvcc that every physics/ and rng/ header compiles as device code
// (docs/model.md: one physics definition for both backends). The kernel is also a
// tiny smoke test the CUDA tests can launch.
#include "ermak/physics/fene.h"
#include "ermak/physics/harmonic.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/physics/native_contact.h"
#include "ermak/physics/repulsion.h"
#include "ermak/rng/philox_gaussian.h"

namespace ermak::cuda {

__global__ void physics_compile_check_kernel(float* out) {
  using namespace ermak::physics;
  const float r2 = 14.0f + threadIdx.x;
  out[0] = fene<true>(r2, 3.8f, {20.0f, 2.0f}).energy;
  out[1] = native_contact<true>(r2, 4.0f, 1.5f).energy;
  out[2] = repulsion<true>(r2, {1.0f, 3.8f * 3.8f, 400.0f}).energy;
  out[3] = harmonic_tether<true>({1, 2, 3}, {0, 0, 0}, 1.0f).energy;
  const auto g = ermak::rng::gaussian3(1, ermak::rng::Stream::kBeadLangevin, 0, threadIdx.x, 0);
  out[4] = langevin_displacement({1, 1, 1}, g, langevin_coefficients(0.08, 50, 0.6)).x;
}

}  // namespace ermak::cuda
