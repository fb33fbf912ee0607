// Rung 2 of the correctness ladder (DESIGN.md §5, docs/validation.md#rung-2) on the CPU
// engine: the analytic statistics checks of tests/support/integrator_statistics_checks.h
// (written once, also run on the CUDA engine by tests/cuda/integrator_statistics_cuda_test.cpp;
// their tolerances are derived in integrator_statistics_checks.cpp), plus what only the
// CPU engine shows here: fixed beads and the determinism guarantees of DESIGN.md §3
// across threads and chunks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ermak/backend/engine.h"
#include "support/integrator_statistics_checks.h"

namespace {

using namespace ermak;
using test::integrator_test_setup;

const test::EngineFactory kCpu = [](const EngineSetup& setup) { return make_cpu_engine(setup); };

TEST(IntegratorStatistics, FreeDiffusionMeanSquareDisplacementAndGaussianSteps) {
  test::check_free_diffusion_msd_and_gaussian_steps(kCpu);
}

TEST(IntegratorStatistics, EveryBeadDrawsItsOwnDocumentedNoise) {
  test::check_every_bead_draws_its_own_documented_noise(kCpu);
}

TEST(IntegratorStatistics, FreeBeadsAmongFixedOnesDrawTheirOwnDocumentedNoise) {
  test::check_free_beads_among_fixed_ones_draw_their_own_documented_noise(kCpu);
}

// Every generator of run.rng but Philox reaches the beads through a NoiseSource
// (docs/rng.md#choosing-the-generator-of-a-run); one case per generator and layout.
class IntegratorStatisticsNoiseSource : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(IntegratorStatisticsNoiseSource, EveryFreeBeadMovesByItsFill) {
  test::check_noise_source_moves_every_free_bead_by_its_fill(kCpu, GetParam().first, GetParam().second);
}

TEST_P(IntegratorStatisticsNoiseSource, FreeDiffusionMeanSquareDisplacementAndGaussianSteps) {
  test::check_free_diffusion_with_noise_source(kCpu, GetParam().first, GetParam().second);
}

INSTANTIATE_TEST_SUITE_P(Generators, IntegratorStatisticsNoiseSource,
                         ::testing::ValuesIn(test::noise_source_generator_layouts()),
                         [](const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
                           return info.param.first + "_" + info.param.second;
                         });

TEST(IntegratorStatistics, OrnsteinUhlenbeckRelaxationOfTheMean) {
  test::check_ou_relaxation_of_the_mean(kCpu);
}

TEST(IntegratorStatistics, OrnsteinUhlenbeckStationaryAutocorrelation) {
  test::check_ou_stationary_autocorrelation(kCpu);
}

TEST(IntegratorStatistics, EquipartitionOfATetheredBead) {
  test::check_equipartition_of_a_tethered_bead(kCpu);
}

TEST(IntegratorStatistics, StationaryVarianceFollowsTheHeatingSchedule) {
  test::check_stationary_variance_follows_the_heating_schedule(kCpu);
}

TEST(IntegratorStatistics, EachStepUsesTheTemperatureOfItsOwnStep) {
  test::check_each_step_uses_the_temperature_of_its_own_step(kCpu);
}

TEST(IntegratorStatistics, ForceRampMeanPositionAndStokesDrag) {
  test::check_force_ramp_mean_position_and_stokes_drag(kCpu);
}

TEST(IntegratorStatistics, ProtocolItemsOfOneReplicaActOnItAlone) {
  test::check_protocol_items_of_one_replica_act_on_it_alone(kCpu);
}

// ---------------------------------------------------------------------------------------
// (e) Fixed beads

TEST(IntegratorStatistics, FixedBeadsDoNotMove) {
  // A five-bead chain, stretched (spacing 4.2 Å, r0 = 3.8 Å) so that the FENE bonds pull
  // on every bead; beads 0 and 4 fixed. They must keep their exact bits while the others
  // move, although a force acts on them.
  Topology topology;
  topology.name = "five";
  topology.beads.resize(5);
  for (int i = 0; i < 4; ++i) topology.bonds.push_back({i, i + 1, 3.8f});
  EngineSetup setup = integrator_test_setup(topology, 8, 5);
  setup.fixed_beads = {0, 4};
  auto engine = make_cpu_engine(setup);
  State start(5, 8);
  for (int r = 0; r < 8; ++r)
    for (int i = 0; i < 5; ++i) start.set_position(r, i, {4.2f * i + 0.1f, 1.0f, -2.0f});
  engine->set_state(start);
  const State forces = engine->forces();
  EXPECT_GT(std::abs(forces.position(0, 0).x), 1.0f);  // the bond pulls bead 0 ...
  EXPECT_GT(std::abs(forces.position(0, 4).x), 1.0f);  // ... and bead 4
  engine->advance(2000);
  const State& s = engine->state();
  for (int r = 0; r < 8; ++r) {
    for (int i : {0, 4}) {
      const std::size_t k = s.index(r, i);
      EXPECT_EQ(s.x[k], start.x[k]);
      EXPECT_EQ(s.y[k], start.y[k]);
      EXPECT_EQ(s.z[k], start.z[k]);
    }
    for (int i : {1, 2, 3}) EXPECT_GT(norm(s.position(r, i) - start.position(r, i)), 1e-3f);
  }
}

// ---------------------------------------------------------------------------------------
// (f) Determinism: counter-based noise and a thread-independent summation order make a
// trajectory a pure function of (setup, initial state).

// A self-avoiding random C-alpha chain: bonds of 3.8 Å, non-bonded beads ≥ 4.5 Å apart,
// native contacts for |i − j| > 2 within 8 Å (docs/model.md#native-contacts). Built from
// mt19937_64's raw output (portable) with a fixed seed.
Topology random_chain(int beads, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  auto uniform = [&] { return double(gen() >> 11) * 0x1.0p-53; };
  Topology t;
  t.name = "random chain";
  t.beads.resize(beads);
  t.native_positions_A.push_back({0, 0, 0});
  while (int(t.native_positions_A.size()) < beads) {
    const Vec3d last = t.native_positions_A.back();
    const double cz = 2 * uniform() - 1, phi = 2 * std::numbers::pi * uniform(), sz = std::sqrt(1 - cz * cz);
    const Vec3d next = last + 3.8 * Vec3d{sz * std::cos(phi), sz * std::sin(phi), cz};
    bool ok = true;
    for (std::size_t j = 0; j + 1 < t.native_positions_A.size() && ok; ++j)
      ok = norm2(next - t.native_positions_A[j]) >= 4.5 * 4.5;
    if (ok) t.native_positions_A.push_back(next);
  }
  for (int i = 0; i + 1 < beads; ++i)
    t.bonds.push_back({i, i + 1, float(norm(t.native_positions_A[i + 1] - t.native_positions_A[i]))});
  for (int i = 0; i < beads; ++i)
    for (int j = i + 3; j < beads; ++j) {
      const double r = norm(t.native_positions_A[j] - t.native_positions_A[i]);
      if (r < 8.0) t.native_contacts.push_back({i, j, float(r), 1.5f});
    }
  return t;
}

State native_state(const Topology& t, std::int32_t replicas) {
  State s(t.bead_count(), replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < t.bead_count(); ++i)
      s.set_position(r, i, vec_cast<float>(t.native_positions_A[i]));
  return s;
}

State run_chain(const Topology& t, std::int32_t replicas, std::uint64_t seed, int threads,
                std::int64_t steps) {
  EngineSetup setup = integrator_test_setup(t, replicas, seed);
  setup.threads = threads;
  auto engine = make_cpu_engine(setup);
  engine->set_state(native_state(t, replicas));
  engine->advance(steps);
  return engine->state();
}

bool bit_identical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
bool bit_identical(const State& a, const State& b) {
  return a.step == b.step && bit_identical(a.x, b.x) && bit_identical(a.y, b.y) && bit_identical(a.z, b.z);
}
// Replica r of `many` against replica 0 of `one`.
bool replica_identical(const State& many, std::int32_t r, const State& one) {
  const std::size_t n = std::size_t(one.bead_count), o = many.index(r, 0);
  return std::memcmp(&many.x[o], one.x.data(), n * sizeof(float)) == 0 &&
         std::memcmp(&many.y[o], one.y.data(), n * sizeof(float)) == 0 &&
         std::memcmp(&many.z[o], one.z.data(), n * sizeof(float)) == 0;
}

TEST(IntegratorDeterminism, SameSeedSameBitsAcrossThreadsReplicasAndChunks) {
  const Topology chain = random_chain(50, 2024);
  validate_topology(chain, "random chain");
  ASSERT_GT(chain.native_contacts.size(), 10u);
  constexpr std::int64_t kSteps = 2000;  // 160 τ_H: several neighbour-list rebuilds
  const State one_thread = run_chain(chain, 4, 7, 1, kSteps);
  const State two_threads = run_chain(chain, 4, 7, 2, kSteps);
  const State again = run_chain(chain, 4, 7, 2, kSteps);
  EXPECT_TRUE(bit_identical(one_thread, two_threads)) << "threads = 1 and 2 differ";
  EXPECT_TRUE(bit_identical(two_threads, again)) << "two identical runs differ";
  for (float x : one_thread.x) ASSERT_TRUE(std::isfinite(x));
  // Replica 0 of a 4-replica run is the 1-replica run: replicas do not see each other.
  const State single = run_chain(chain, 1, 7, 2, kSteps);
  EXPECT_TRUE(replica_identical(one_thread, 0, single));
  // Replicas get their own noise, and another seed gives another trajectory.
  EXPECT_FALSE(replica_identical(one_thread, 1, single));
  const State other_seed = run_chain(chain, 4, 8, 2, kSteps);
  EXPECT_FALSE(bit_identical(one_thread.x, other_seed.x));
}

TEST(IntegratorDeterminism, LargeReplicaIsThreadIndependent) {
  // 1100 beads → the engine splits one replica's forces into chunks and shares them among
  // threads (replicas < threads); the summation order must not depend on the thread count.
  const Topology chain = random_chain(1100, 11);
  validate_topology(chain, "random chain");
  constexpr std::int64_t kSteps = 300;
  const State t1 = run_chain(chain, 1, 3, 1, kSteps);
  const State t2 = run_chain(chain, 1, 3, 2, kSteps);
  const State t3 = run_chain(chain, 1, 3, 3, kSteps);
  EXPECT_TRUE(bit_identical(t1, t2)) << "threads = 1 and 2 differ";
  EXPECT_TRUE(bit_identical(t1, t3)) << "threads = 1 and 3 differ";
}

TEST(IntegratorDeterminism, SplitAdvanceAndRestartContinueBitForBit) {
  // advance(2000) = advance(700) + advance(1300), and a new engine given the state and
  // the neighbour-list reference at step 700 (what a checkpoint stores) continues with
  // the same bits.
  const Topology chain = random_chain(50, 99);
  EngineSetup setup = integrator_test_setup(chain, 3, 21);
  auto whole = make_cpu_engine(setup);
  whole->set_state(native_state(chain, 3));
  whole->advance(2000);
  auto split = make_cpu_engine(setup);
  split->set_state(native_state(chain, 3));
  split->advance(700);
  const State at700 = split->state();
  const State reference700 = split->neighbor_reference();
  split->advance(1300);
  EXPECT_TRUE(bit_identical(whole->state(), split->state()));
  auto resumed = make_cpu_engine(setup);
  resumed->set_state(at700);
  resumed->restore_neighbor_reference(reference700);
  resumed->advance(1300);
  EXPECT_TRUE(bit_identical(whole->state(), resumed->state()));
}

}  // namespace
