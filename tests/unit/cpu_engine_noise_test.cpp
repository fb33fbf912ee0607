// The CPU engine with a stateful noise generator (run.rng, docs/rng.md#choosing-the-
// generator-of-a-run): one NoiseSource fill per replica per step, results independent of
// the thread count on both parallel paths, and an exact continuation from saved state.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ermak/backend/engine.h"
#include "ermak/core/error.h"
#include "ermak/io/load_system.h"
#include "ermak/rng/noise_source.h"
#include "support/test_paths.h"

using namespace ermak;

namespace {

LoadedSystem load(const std::string& name) {
  InputSpec input;
  const auto data = test::shared_data() / "sopgpu";
  if (name == "ww") {
    input.topology = data / "ww/reference/ww.top";
    input.coordinates = data / "ww/reference/ww_cg.pdb";
  } else {
    input.topology = data / "pf8/PF8.top";
    input.coordinates = data / "pf8/PF8_sop.pdb";
  }
  return load_system(input, ModelBuildSpec{});
}

EngineSetup setup_for(const LoadedSystem& s, std::int32_t replicas, const std::string& generator,
                      const std::string& layout, int threads) {
  EngineSetup setup;
  setup.topology = &s.topology;
  setup.replicas = replicas;
  setup.seed = 4242;
  setup.rng = generator;
  setup.rng_layout = layout;
  setup.threads = threads;
  setup.fixed_beads = {1};
  return setup;
}

State start(const LoadedSystem& s, std::int32_t replicas) {
  const std::int32_t n = s.topology.bead_count();
  State state(n, replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < n; ++i) state.set_position(r, i, vec_cast<float>(s.initial_positions_A[i]));
  return state;
}

bool same_bits(const State& a, const State& b) {
  return a.step == b.step && a.x.size() == b.x.size() &&
         std::memcmp(a.x.data(), b.x.data(), a.x.size() * sizeof(float)) == 0 &&
         std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(float)) == 0 &&
         std::memcmp(a.z.data(), b.z.data(), a.z.size() * sizeof(float)) == 0;
}

TEST(CpuEngineNoise, PhiloxIsTheDefaultAndOtherGeneratorsChangeTheTrajectory) {
  const LoadedSystem ww = load("ww");
  EngineSetup plain;
  plain.topology = &ww.topology;
  plain.replicas = 2;
  auto philox = make_cpu_engine(plain);
  EXPECT_EQ(philox->noise_name(), "philox/per_thread");
  auto taus = make_cpu_engine(setup_for(ww, 2, "hybrid_taus", "", 1));
  EXPECT_EQ(taus->noise_name(), "hybrid_taus/per_thread");
  EngineSetup same = plain;
  same.rng = "hybrid_taus";
  auto taus_same_seed = make_cpu_engine(same);
  philox->set_state(start(ww, 2));
  taus_same_seed->set_state(start(ww, 2));
  philox->advance(20);
  taus_same_seed->advance(20);
  EXPECT_FALSE(same_bits(philox->state(), taus_same_seed->state()));
  EXPECT_THROW(make_cpu_engine(setup_for(ww, 2, "hybrid_taus", "shared", 1)), Error);
}

// The engine's generator state after k steps is a fresh NoiseSource's after k fills of
// every replica: exactly one fill per replica per step, in step order.
TEST(CpuEngineNoise, OneFillPerReplicaPerStep) {
  const LoadedSystem ww = load("ww");
  const std::int32_t n = ww.topology.bead_count();
  for (const auto& [generator, layout] : {std::pair{"hybrid_taus", "per_thread"}, {"lagged_fibonacci", "shared"},
                                          {"mt19937", "shared"}}) {
    SCOPED_TRACE(generator);
    auto engine = make_cpu_engine(setup_for(ww, 3, generator, layout, 2));
    engine->set_state(start(ww, 3));
    engine->advance(7);
    engine->advance(18);
    auto reference = rng::make_noise_source(generator, layout, 4242, 3, n);
    std::vector<float> gx(n), gy(n), gz(n);
    for (std::int64_t step = 0; step < 25; ++step)
      for (std::int32_t r = 0; r < 3; ++r) reference->fill(r, step, gx.data(), gy.data(), gz.data());
    EXPECT_EQ(engine->noise_state(), reference->save_state());
  }
}

class CpuEngineNoiseThreads : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

// WW with 3 replicas takes the replica-parallel path; PF8 with one replica and two
// threads splits each replica's beads (the fill runs outside that team).
TEST_P(CpuEngineNoiseThreads, IndependentOfThreadCountOnBothPaths) {
  const auto [generator, layout] = GetParam();
  for (const auto& [name, replicas, steps] : {std::tuple{"ww", 3, 60}, {"pf8", 1, 12}}) {
    SCOPED_TRACE(name);
    const LoadedSystem s = load(name);
    auto one = make_cpu_engine(setup_for(s, replicas, generator, layout, 1));
    auto two = make_cpu_engine(setup_for(s, replicas, generator, layout, 2));
    one->set_state(start(s, replicas));
    two->set_state(start(s, replicas));
    one->advance(steps);
    two->advance(steps);
    EXPECT_TRUE(same_bits(one->state(), two->state()));
    EXPECT_EQ(one->noise_state(), two->noise_state());
  }
}

// Save after 25 steps, continue in a new engine: the same bits as 60 steps at once.
TEST_P(CpuEngineNoiseThreads, RestoredStateContinuesBitForBit) {
  const auto [generator, layout] = GetParam();
  const LoadedSystem ww = load("ww");
  auto whole = make_cpu_engine(setup_for(ww, 3, generator, layout, 2));
  whole->set_state(start(ww, 3));
  whole->advance(60);
  auto first = make_cpu_engine(setup_for(ww, 3, generator, layout, 2));
  first->set_state(start(ww, 3));
  first->advance(25);
  const State at25 = first->state();
  const State reference = first->neighbor_reference();
  const std::vector<std::uint8_t> noise = first->noise_state();
  auto resumed = make_cpu_engine(setup_for(ww, 3, generator, layout, 1));
  resumed->set_state(at25);
  resumed->restore_neighbor_reference(reference);
  resumed->restore_noise_state(noise);
  resumed->advance(35);
  EXPECT_TRUE(same_bits(whole->state(), resumed->state()));
  // A state of another generator is refused.
  auto other = make_cpu_engine(setup_for(ww, 3, "lcg", "", 1));
  EXPECT_THROW(other->restore_noise_state(noise), Error);
}

// The default Philox noise is drawn 8 beads at a time in blocks aligned to multiples of 8
// (docs/rng.md#cpu-batch). PF8 with one replica and two threads integrates bead ranges
// 6928·k/14 that are not multiples of 8 (bead 1 fixed): still the same bits as one
// thread, and a continuation in a fresh engine equals the run at once.
TEST(CpuEngineNoise, PhiloxBatchIndependentOfThreadCountAndContinues) {
  for (const auto& [name, replicas, steps] : {std::tuple{"ww", 3, 60}, {"pf8", 1, 12}}) {
    SCOPED_TRACE(name);
    const LoadedSystem s = load(name);
    auto one = make_cpu_engine(setup_for(s, replicas, "philox", "", 1));
    auto two = make_cpu_engine(setup_for(s, replicas, "philox", "", 2));
    one->set_state(start(s, replicas));
    two->set_state(start(s, replicas));
    one->advance(steps);
    two->advance(steps);
    EXPECT_TRUE(same_bits(one->state(), two->state()));
    auto first = make_cpu_engine(setup_for(s, replicas, "philox", "", 2));
    first->set_state(start(s, replicas));
    first->advance(steps / 3);
    auto resumed = make_cpu_engine(setup_for(s, replicas, "philox", "", 1));
    resumed->set_state(first->state());
    resumed->restore_neighbor_reference(first->neighbor_reference());
    resumed->advance(steps - steps / 3);
    EXPECT_TRUE(same_bits(one->state(), resumed->state()));
    // Fixed bead 1 did not move.
    EXPECT_EQ(one->state().position(0, 1).x, float(s.initial_positions_A[1].x));
  }
}

INSTANTIATE_TEST_SUITE_P(Generators, CpuEngineNoiseThreads,
                         ::testing::Values(std::pair{"hybrid_taus", "per_thread"}, std::pair{"ran2", "per_thread"},
                                           std::pair{"lagged_fibonacci", "shared"}, std::pair{"mt19937", "shared"}),
                         [](const auto& info) { return std::string(info.param.first) + "_" + info.param.second; });

}  // namespace
