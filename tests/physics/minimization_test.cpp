// Steepest-descent minimisation (Engine::minimize, the `[minimize]` table) against known
// minima: a FENE bond relaxes to its native length r0 (U = 0), a native contact to its r0
// (U = −ε_h), and a strained WW domain ends lower in energy with every free bead's force
// below the tolerance when it reports convergence. Fixed beads keep their coordinates
// bit for bit. The algorithm's own claims (docs/validation.md#minimisation): no bead moves
// by more than the cap in an iteration (a strongly pushed one by exactly the cap), and the
// energy never rises from one iteration to the next. (The CUDA engine is compared with this one in
// tests/cuda/cuda_engine_test.cpp, MinimisationAgreesWithCpu.)
//
// Tolerances: where |F| < f_tol at the end, a minimum of curvature U'' lies within
// f_tol/U'' of the end point (to first order): FENE U''(r0) = k, native contact
// U''(r0) = 72 ε_h/r0² (docs/model.md#native-contacts), plus float rounding of the
// coordinates (≤ 1e-6 Å at |x| < 10 Å).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ermak/backend/descent_step.h"
#include "ermak/backend/engine.h"
#include "support/test_paths.h"
#include "support/test_systems.h"

namespace {

using namespace ermak;

constexpr double kForceTolerance = 1e-3;  // kcal/mol/Å
constexpr double kMaxMove_A = 0.1;

Topology two_beads() {
  Topology t;
  t.name = "two beads";
  t.beads.resize(2);
  return t;
}

// An engine over `topology` with bead 0 fixed and one replica per start of bead 1.
std::unique_ptr<Engine> two_bead_engine(const Topology& topology, const std::vector<Vec3f>& starts) {
  EngineSetup setup;
  setup.topology = &topology;
  setup.replicas = std::int32_t(starts.size());
  setup.fixed_beads = {0};
  setup.threads = 2;
  auto engine = make_cpu_engine(setup);
  State state(2, setup.replicas);
  for (std::int32_t r = 0; r < setup.replicas; ++r) {
    state.set_position(r, 0, {0.25f, -0.5f, 0.125f});
    state.set_position(r, 1, Vec3f{0.25f, -0.5f, 0.125f} + starts[std::size_t(r)]);
  }
  engine->set_state(state);
  return engine;
}

// Bead 0 unmoved, bead 1 on the line of its start at distance `r_min_A` from bead 0 (a
// central force moves it only along that line), within `tolerance_A`.
void expect_relaxed_to(Engine& engine, const std::vector<Vec3f>& starts, double r_min_A, double tolerance_A) {
  const State& s = engine.state();
  for (std::int32_t r = 0; r < s.replica_count; ++r) {
    SCOPED_TRACE("replica " + std::to_string(r));
    const Vec3f fixed = s.position(r, 0);
    EXPECT_EQ(fixed.x, 0.25f);
    EXPECT_EQ(fixed.y, -0.5f);
    EXPECT_EQ(fixed.z, 0.125f);
    const Vec3d d = vec_cast<double>(s.position(r, 1)) - vec_cast<double>(fixed);
    const Vec3d expected = r_min_A / norm(vec_cast<double>(starts[std::size_t(r)])) * vec_cast<double>(starts[std::size_t(r)]);
    EXPECT_NEAR(norm(d), r_min_A, tolerance_A);
    EXPECT_LT(norm(d - expected), tolerance_A + 1e-5) << "moved off the line of the central force";
  }
}

// Half the spacing of floats at x: the largest rounding error of a float coordinate.
double half_ulp(float x) {
  const float a = std::abs(x);
  return 0.5 * (double(std::nextafter(a, std::numeric_limits<float>::infinity())) - double(a));
}

// SOP-GPU's WW domain strained 3 % about its centroid and displaced irregularly by up to
// 0.3 Å per component: no bead at a minimum of its terms.
State strained_ww(const LoadedSystem& ww) {
  const std::int32_t n = ww.topology.bead_count();
  Vec3d centroid{0, 0, 0};
  for (const Vec3d& p : ww.initial_positions_A) centroid += (1.0 / double(n)) * p;
  State state(n, 1);
  for (std::int32_t i = 0; i < n; ++i) {
    const Vec3d p = centroid + 1.03 * (ww.initial_positions_A[i] - centroid) +
                    0.3 * Vec3d{std::sin(1.3 * i), std::cos(0.7 * i), std::sin(2.9 * i + 0.5)};
    state.set_position(0, i, vec_cast<float>(p));
  }
  return state;
}

}  // namespace

// The step policy both engines share (backend/descent_step.h, docs/config.md): the largest
// move of a trial is the step, which grows by 1.2 up to the cap after a success, halves after
// a failure, and ends the replica's descent below 10⁻⁷ Å.
TEST(Minimization, TheDescentStepGrowsToTheCapHalvesAndEndsBelowATenthOfANanoAngstrom) {
  EXPECT_FLOAT_EQ(descent_scale(0.1, 4.0), 0.025f);  // a bead with |F| = 4 moves 0.1 Å
  EXPECT_DOUBLE_EQ(descent_step_after_success(0.05, 0.1), 0.05 * 1.2);
  EXPECT_DOUBLE_EQ(descent_step_after_success(0.09, 0.1), 0.1);  // capped
  EXPECT_DOUBLE_EQ(descent_step_after_failure(0.1), 0.05);
  // From the default cap of 0.1 Å, 20 failures in a row leave 9.5·10⁻⁸ Å: exhausted after
  // the 20th, not the 19th (1.9·10⁻⁷ Å).
  double step_A = 0.1;
  int failures = 0;
  while (!descent_step_exhausted(step_A)) {
    step_A = descent_step_after_failure(step_A);
    ++failures;
  }
  EXPECT_EQ(failures, 20);
  EXPECT_LT(step_A, 1e-7);
  EXPECT_GE(2 * step_A, 1e-7);
}

TEST(Minimization, AFeneBondRelaxesToItsNativeLength) {
  Topology t = two_beads();
  t.bonds.push_back({0, 1, 3.8f});
  // Stretched by 0.81 and 0.70 Å and compressed by 0.6 Å (R0 = 2 Å), in three directions.
  const std::vector<Vec3f> starts = {{4.6f, 0.3f, -0.2f}, {0.0f, -3.2f, 0.0f}, {1.0f, 2.0f, -3.9f}};
  auto engine = two_bead_engine(t, starts);
  const double before = engine->energies()[0].total();
  const MinimizeResult result = engine->minimize(10000, kForceTolerance, kMaxMove_A, {});
  ASSERT_TRUE(result.converged) << result.iterations << " iterations, max force " << result.max_force_kcal_per_mol_A;
  EXPECT_LT(result.max_force_kcal_per_mol_A, kForceTolerance);
  const double k = SopParameters{}.fene_k_kcal_per_mol_A2;
  expect_relaxed_to(*engine, starts, 3.8, kForceTolerance / k + 1e-6);
  for (const EnergyTerms& e : engine->energies()) {
    EXPECT_LT(e.total(), before);
    EXPECT_NEAR(e.fene, 0.0, 0.5 * k * std::pow(kForceTolerance / k + 1e-6, 2) * 1.01);
  }
}

TEST(Minimization, ANativeContactRelaxesToItsNativeDistance) {
  Topology t = two_beads();
  const double r0 = 6.0, eh = 1.5;
  t.native_contacts.push_back({0, 1, float(r0), float(eh)});
  // 1.3 r0 (in the attractive tail) and 0.93 r0 (on the wall).
  const std::vector<Vec3f> starts = {{7.8f, 0.0f, 0.0f}, {-3.0f, 3.0f, 3.6f}};
  auto engine = two_bead_engine(t, starts);
  const MinimizeResult result = engine->minimize(10000, kForceTolerance, kMaxMove_A, {});
  ASSERT_TRUE(result.converged) << result.iterations << " iterations, max force " << result.max_force_kcal_per_mol_A;
  const double curvature = 72 * eh / (r0 * r0);
  expect_relaxed_to(*engine, starts, r0, kForceTolerance / curvature + 1e-6);
  for (const EnergyTerms& e : engine->energies()) {
    EXPECT_NEAR(e.native, -eh, 1e-6);
    EXPECT_EQ(e.repulsive, 0.0) << "a native pair is not repelled";
  }
}

// The move cap (docs/validation.md#minimisation: steepest descent with the largest move
// capped at max_displacement): a FENE bond stretched by 1.5 Å pulls its free bead with
// kΔ/(1 − Δ²/R0²) = 68.6 kcal/mol/Å, far more than a 0.1 Å move needs, so the first
// iteration moves that bead by exactly the cap, along the bond toward the fixed bead (the
// energy falls, so the move is kept). Tolerance 10⁻⁶ Å: the move is formed in float
// (relative 10⁻⁷ of 0.1 Å) and added to coordinates of ~5 Å (half an ulp, 2.4·10⁻⁷ Å, per
// component).
TEST(Minimization, OneIterationMovesTheFreeBeadByExactlyTheCapAlongTheBond) {
  Topology t = two_beads();
  t.bonds.push_back({0, 1, 3.8f});
  const Vec3d along = (1.0 / std::sqrt(1.0 + 4.0 + 4.0)) * Vec3d{2.0, -1.0, 2.0};
  const std::vector<Vec3f> starts = {vec_cast<float>(5.3 * along)};
  auto engine = two_bead_engine(t, starts);
  const Vec3d before = vec_cast<double>(engine->state().position(0, 1));
  const Vec3d bond = before - vec_cast<double>(engine->state().position(0, 0));
  ASSERT_NEAR(norm(bond) - 3.8, 1.5, 1e-6);
  const double energy_before = engine->energies()[0].total();
  const MinimizeResult result = engine->minimize(1, kForceTolerance, kMaxMove_A, {});
  EXPECT_EQ(result.iterations, 1);
  EXPECT_FALSE(result.converged);
  const Vec3d move = vec_cast<double>(engine->state().position(0, 1)) - before;
  EXPECT_NEAR(norm(move), kMaxMove_A, 1e-6) << "the cap, not the force, sets the step";
  EXPECT_NEAR(norm(move + (kMaxMove_A / norm(bond)) * bond), 0.0, 1e-6) << "along the bond, toward the fixed bead";
  EXPECT_LT(engine->energies()[0].total(), energy_before);
  // A smaller cap scales the move with it.
  auto again = two_bead_engine(t, starts);
  again->minimize(1, kForceTolerance, 0.025, {});
  EXPECT_NEAR(norm(vec_cast<double>(again->state().position(0, 1)) - before), 0.025, 1e-6);
}

// The WW domain's engine set-up of the two tests below: its termini fixed, two threads.
EngineSetup ends_fixed_setup(const Topology& topology) {
  EngineSetup setup;
  setup.topology = &topology;
  setup.fixed_beads = {0, topology.bead_count() - 1};
  setup.threads = 2;
  return setup;
}

// Monotone energy and the cap on a real system (docs/validation.md#minimisation): the
// strained WW domain of the test below, minimised once as a run does (the step grows after
// a kept move and halves after a refused one). The stop hook, asked before every
// iteration's move, records the positions there (the CPU engine's state() is its working
// copy, written only by the thread that asks); a second engine evaluates each recorded
// configuration's energy. Between consecutive iterations the energy never rises, and no
// bead moves by more than the cap. Tolerances: energy 10⁻¹² of Σ|terms|, the round-off of
// summing the same terms (in double) in another neighbour list's pair order; the move as
// in the test above, with the rounding of coordinates of up to ~30 Å.
TEST(Minimization, TheEnergyNeverRisesAndNoBeadMovesMoreThanTheCapInAnyIteration) {
  const auto ww = test::load_ww_reference();
  ASSERT_TRUE(ww) << "WW test data not found under " << test::shared_data();
  const std::int32_t n = ww->topology.bead_count();
  const State state = strained_ww(*ww);
  const EngineSetup setup = ends_fixed_setup(ww->topology);
  auto engine = make_cpu_engine(setup);
  engine->set_state(state);
  std::vector<State> visited;
  const MinimizeResult result = engine->minimize(3000, 0.01, kMaxMove_A, [&] {
    visited.push_back(engine->state());
    return false;
  });
  visited.push_back(engine->state());
  ASSERT_EQ(std::int64_t(visited.size()), result.iterations + 1);
  ASSERT_GT(result.iterations, 100);
  auto evaluator = make_cpu_engine(setup);
  std::vector<EnergyTerms> terms;
  for (const State& s : visited) {
    evaluator->set_state(s);
    terms.push_back(evaluator->energies()[0]);
  }
  int rises = 0, moved = 0;
  double largest_move = 0, largest_excess = -1e300;
  for (std::size_t k = 1; k < visited.size(); ++k) {
    const EnergyTerms& e = terms[k];
    const double scale = std::abs(e.fene) + std::abs(e.native) + std::abs(e.repulsive) + std::abs(e.protocol);
    if (e.total() > terms[k - 1].total() + 1e-12 * scale) {
      ++rises;
      ADD_FAILURE() << "iteration " << k - 1 << ": energy " << terms[k - 1].total() << " → " << e.total();
    }
    // A bead's move is formed in float (relative error ~10⁻⁷) and added to coordinates of
    // up to ~30 Å, each rounded by half an ulp (1.9·10⁻⁶ Å at 16–32 Å): the cap is exceeded
    // by at most the length of the half-ulps of the new coordinates plus 10⁻⁶ of the cap.
    double step_move = 0, worst_excess = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      const Vec3f now = visited[k].position(0, i);
      const double move = norm(vec_cast<double>(now) - vec_cast<double>(visited[k - 1].position(0, i)));
      step_move = std::max(step_move, move);
      const Vec3d half_ulps{half_ulp(now.x), half_ulp(now.y), half_ulp(now.z)};
      worst_excess = std::max(worst_excess, (move - kMaxMove_A * (1 + 1e-6)) / norm(half_ulps));
    }
    largest_move = std::max(largest_move, step_move);
    largest_excess = std::max(largest_excess, worst_excess);
    if (step_move > 0) ++moved;
  }
  EXPECT_EQ(rises, 0);
  EXPECT_LE(largest_excess, 1.0) << "a move beyond the cap (in units of the coordinates' rounding)";
  EXPECT_GT(largest_move, kMaxMove_A - 1e-5) << "the first iteration moves the most-pushed bead by the cap";
  EXPECT_LT(terms.back().total(), terms.front().total() - 1.0);
  RecordProperty("iterations", std::to_string(result.iterations));
  RecordProperty("iterations_that_moved", std::to_string(moved));
  RecordProperty("largest_move_A", std::to_string(largest_move));
  RecordProperty("largest_excess_in_half_ulps", std::to_string(largest_excess));
}

// A stop request (a signal during a run's start) ends the minimisation at the iteration it
// comes in, and the result says so; the replicas of a split run stop the same way.
TEST(Minimization, AStopRequestEndsItAtTheNextIteration) {
  Topology t = two_beads();
  t.bonds.push_back({0, 1, 3.8f});
  const std::vector<Vec3f> starts = {{4.6f, 0.3f, -0.2f}};
  auto engine = two_bead_engine(t, starts);
  std::atomic<int> asked{0};
  // True from the sixth question on: five iterations run, the sixth does not.
  const MinimizeResult result = engine->minimize(10000, 1e-12, kMaxMove_A, [&] { return ++asked > 5; });
  EXPECT_TRUE(result.interrupted);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, 5);
  EXPECT_EQ(asked.load(), 6);
  EXPECT_GT(result.max_force_kcal_per_mol_A, 0.0) << "the force where it stopped";
  // Asked before the first iteration: nothing moves.
  auto still = two_bead_engine(t, starts);
  const State before = still->state();
  const MinimizeResult none = still->minimize(10000, 1e-12, kMaxMove_A, [] { return true; });
  EXPECT_TRUE(none.interrupted);
  EXPECT_EQ(none.iterations, 0);
  EXPECT_EQ(still->state().x, before.x);
  EXPECT_EQ(still->state().y, before.y);
  EXPECT_EQ(still->state().z, before.z);
}

// Strained 3 % about the centroid and displaced irregularly by up to 0.3 Å: the energy
// drops, and "converged" means what it says — every free bead's force (the engine's own
// evaluation after the minimisation) below the tolerance; the two fixed beads stay.
TEST(Minimization, AStrainedWwDomainEndsLowerWithEveryForceBelowTheTolerance) {
  const auto ww = test::load_ww_reference();
  ASSERT_TRUE(ww) << "WW test data not found under " << test::shared_data();
  const std::int32_t n = ww->topology.bead_count();
  const State state = strained_ww(*ww);
  const EngineSetup setup = ends_fixed_setup(ww->topology);
  auto engine = make_cpu_engine(setup);
  engine->set_state(state);
  const double before = engine->energies()[0].total();
  const double tolerance = 0.01;
  const MinimizeResult result = engine->minimize(200000, tolerance, kMaxMove_A, {});
  ASSERT_TRUE(result.converged) << result.iterations << " iterations, max force " << result.max_force_kcal_per_mol_A;
  const double after = engine->energies()[0].total();
  EXPECT_LT(after, before - 1.0) << "a strain of 3 % costs kcal/mol";
  const State forces = engine->forces();
  double largest = 0;
  for (std::int32_t i = 1; i < n - 1; ++i)
    largest = std::max(largest, std::sqrt(double(forces.x[i]) * forces.x[i] + double(forces.y[i]) * forces.y[i] +
                                          double(forces.z[i]) * forces.z[i]));
  EXPECT_LT(largest, tolerance);
  EXPECT_NEAR(largest, result.max_force_kcal_per_mol_A, 1e-6) << "the reported force is the engine's";
  for (std::int32_t i : {0, n - 1}) {
    const Vec3f p = engine->state().position(0, i), q = state.position(0, i);
    EXPECT_EQ(p.x, q.x);
    EXPECT_EQ(p.y, q.y);
    EXPECT_EQ(p.z, q.z);
  }
  RecordProperty("iterations", std::to_string(result.iterations));
  RecordProperty("energy_before", std::to_string(before));
  RecordProperty("energy_after", std::to_string(after));
}
