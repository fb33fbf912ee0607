// The device generators (docs/rng.md#gpu) against the CPU's: the same generator, seed and
// layout give the same state words bit for bit and the same Gaussians up to the last
// bits of Box–Muller (CUDA's and glibc's logf/sinf/cosf differ by ≤ a few ulp); the CUDA
// engine with a stateful generator agrees with the CPU engine and resumes bit for bit;
// `rng ou --backend cuda` passes. Label cuda; skips without a GPU.
#include <cmath>
#include <tuple>

#include "cuda_test_support.h"
#include "ermak/backend/cuda_rng.h"
#include "ermak/rng/noise_source.h"
#include "ermak/rng/ou_application.h"

namespace ermak::cudatest {
namespace {

struct NoiseCase {
  const char* generator;
  const char* layout;
  std::int32_t replicas, beads, steps, chunk;
};

class DeviceNoiseVsCpu : public ::testing::TestWithParam<NoiseCase> {};

TEST_P(DeviceNoiseVsCpu, SameStateWordsAndGaussians) {
  ERMAK_REQUIRE_GPU();
  const NoiseCase c = GetParam();
  const std::uint64_t seed = 20110524;
  const CudaNoiseDraw gpu = cuda_draw_noise(c.generator, c.layout, seed, c.replicas, c.beads, c.steps, c.chunk);
  auto cpu = rng::make_noise_source(c.generator, c.layout, seed, c.replicas, c.beads);
  std::vector<float> gx(c.beads), gy(c.beads), gz(c.beads);
  double worst = 0;
  std::size_t bit_equal = 0, count = 0;
  for (std::int32_t step = 0; step < c.steps; ++step)
    for (std::int32_t r = 0; r < c.replicas; ++r) {
      cpu->fill(r, step, gx.data(), gy.data(), gz.data());
      for (std::int32_t i = 0; i < c.beads; ++i) {
        const float* g = &gpu.gaussians[((std::size_t(step) * c.replicas + r) * c.beads + i) * 3];
        for (int k = 0; k < 3; ++k) {
          const float want = k == 0 ? gx[i] : k == 1 ? gy[i] : gz[i];
          // Box–Muller of identical words: a few ulp of logf/sinf/cosf, relative to the
          // radius (≤ 6 for 24-bit uniforms).
          const double d = std::abs(double(g[k]) - want);
          worst = std::max(worst, d);
          ASSERT_LE(d, 2e-6 * (1.0 + std::abs(want))) << "step " << step << " replica " << r << " bead " << i;
          bit_equal += g[k] == want;
          ++count;
        }
      }
    }
  // The words themselves, and so the whole state after the draws, are identical.
  EXPECT_EQ(gpu.state, cpu->save_state());
  std::printf("[ %s/%s ] %d x %d beads, %d steps: max |g_gpu - g_cpu| = %.3g, %.1f %% bit-identical\n", c.generator,
              c.layout, c.replicas, c.beads, c.steps, worst, 100.0 * double(bit_equal) / double(count));
}

INSTANTIATE_TEST_SUITE_P(
    Generators, DeviceNoiseVsCpu,
    ::testing::Values(NoiseCase{"philox", "per_thread", 3, 37, 6, 4}, NoiseCase{"lcg", "per_thread", 3, 37, 6, 4},
                      NoiseCase{"ran2", "per_thread", 3, 1000, 6, 4},
                      NoiseCase{"hybrid_taus", "per_thread", 3, 1000, 6, 4},
                      NoiseCase{"mt19937", "per_thread", 2, 300, 200, 64},  // wraps the 624-word state
                      NoiseCase{"mt19937", "shared", 3, 1000, 6, 4},        // 18 windows of 227 per step
                      NoiseCase{"lagged_fibonacci", "shared", 3, 1000, 6, 4},
                      NoiseCase{"lagged_fibonacci", "shared", 1, 300000, 2, 1}),  // 2 windows per step
    [](const auto& info) {
      return std::string(info.param.generator) + "_" + info.param.layout + "_" + std::to_string(info.param.beads);
    });

using EngineCase = std::tuple<const char*, const char*, CudaKernelFamily>;
class CudaEngineNoise : public ::testing::TestWithParam<EngineCase> {
 protected:
  void SetUp() override {
    ERMAK_REQUIRE_GPU();
    system_ = load_test_system("ww");
    if (!system_) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  }
  EngineSetup setup(std::int32_t replicas) const {
    EngineSetup s = base_setup(system_->system.topology, replicas, 777);
    s.rng = std::get<0>(GetParam());
    s.rng_layout = std::get<1>(GetParam());
    s.fixed_beads = {3};
    return s;
  }
  std::optional<TestSystem> system_;
};

// The trajectory follows the CPU's within the backends' tolerance, and the generator has
// consumed exactly the same words (identical state bytes).
TEST_P(CudaEngineNoise, AgreesWithCpuEngine) {
  const EngineSetup s = setup(4);
  auto cpu = make_cpu_engine(s);
  auto gpu = make_gpu(s, std::get<2>(GetParam()));
  EXPECT_EQ(gpu->noise_name(), cpu->noise_name());
  const State start = start_state(system_->system, 4);
  cpu->set_state(start);
  gpu->set_state(start);
  for (std::int64_t chunk : {137, 300, 63}) {
    cpu->advance(chunk);
    gpu->advance(chunk);
    ASSERT_LE(max_abs_difference(cpu->state(), gpu->state()), 2e-3) << "at step " << cpu->state().step;
  }
  EXPECT_EQ(gpu->noise_state(), cpu->noise_state());
}

// Save after 200 steps, continue in a new engine: the same bits as 500 at once; the
// saved bytes also resume on the CPU engine (one format for both backends).
TEST_P(CudaEngineNoise, ResumesBitForBit) {
  const EngineSetup s = setup(3);
  const CudaKernelFamily family = std::get<2>(GetParam());
  const State start = start_state(system_->system, 3);
  auto whole = make_gpu(s, family);
  whole->set_state(start);
  whole->advance(500);
  auto first = make_gpu(s, family);
  first->set_state(start);
  first->advance(200);
  const State at = first->state();
  const State reference = first->neighbor_reference();
  const std::vector<std::uint8_t> noise = first->noise_state();
  first.reset();
  auto resumed = make_gpu(s, family);
  resumed->set_state(at);
  resumed->restore_neighbor_reference(reference);
  resumed->restore_noise_state(noise);
  resumed->advance(300);
  EXPECT_TRUE(bit_identical(whole->state(), resumed->state()));
  auto cpu = make_cpu_engine(s);
  cpu->set_state(at);
  EXPECT_NO_THROW(cpu->restore_noise_state(noise));
}

INSTANTIATE_TEST_SUITE_P(
    Generators, CudaEngineNoise,
    ::testing::Values(EngineCase{"hybrid_taus", "per_thread", CudaKernelFamily::kBlock},
                      EngineCase{"hybrid_taus", "per_thread", CudaKernelFamily::kPerBead},
                      EngineCase{"lagged_fibonacci", "shared", CudaKernelFamily::kBlock},
                      EngineCase{"lagged_fibonacci", "shared", CudaKernelFamily::kPerBead},
                      EngineCase{"mt19937", "shared", CudaKernelFamily::kPerBead}),
    [](const auto& info) {
      return std::string(std::get<0>(info.param)) + "_" + family_name(std::get<2>(info.param));
    });

// The application test on the GPU (the fast setting of tests/physics/rng_ou_test.cpp).
TEST(CudaRngOu, PassesOnTheGpu) {
  ERMAK_REQUIRE_GPU();
  for (const auto& [generator, layout] : {std::pair{"hybrid_taus", ""}, {"lagged_fibonacci", ""}, {"philox", ""},
                                          {"mt19937", "shared"}, {"ran2", ""}}) {
    rng::OuOptions o;
    o.generator = generator;
    o.layout = layout;
    o.oscillators = 2000;
    o.dt_ps = 10000;
    o.samples = 50;
    o.seed = 61;
    o.backend = "cuda";
    const rng::OuResult r = rng::run_ou_application(o);
    EXPECT_TRUE(r.pass) << r.verdict();
    EXPECT_FALSE(r.device.empty());
    std::printf("%s\n", r.verdict().c_str());
  }
}

}  // namespace
}  // namespace ermak::cudatest
