// Hydrodynamic interactions (docs/model.md#hydrodynamic-interactions): the RPY tensor and
// TEA pieces of physics/hydrodynamic_tensor.h against their defining properties, and the
// CPU engine's moves against the exactly solvable two-bead checks and the one-step dense
// reference of tests/support/hydrodynamics_checks.h (also run on the CUDA engine).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ermak/backend/engine.h"
#include "ermak/backend/hydrodynamic_step.h"
#include "ermak/physics/hydrodynamic_tensor.h"
#include "support/hydrodynamics_checks.h"
#include "support/test_systems.h"

namespace {

using namespace ermak;

const test::EngineFactory kCpu = [](const EngineSetup& setup) { return make_cpu_engine(setup); };

// The full 3M×3M tensor D/D0 of `positions` (row-major, double).
std::vector<double> tensor_of(const std::vector<Vec3d>& positions, double radius_A) {
  const int n = 3 * int(positions.size());
  std::vector<double> out(std::size_t(n) * n);
  for (std::size_t i = 0; i < positions.size(); ++i)
    for (std::size_t j = 0; j < positions.size(); ++j) {
      const auto d = physics::rpy_block(positions[j] - positions[i], radius_A);
      const double b[3][3] = {{d.xx, d.xy, d.xz}, {d.xy, d.yy, d.yz}, {d.xz, d.yz, d.zz}};
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) out[(3 * i + a) * n + 3 * j + c] = b[a][c];
    }
  return out;
}

// A random chain of `beads` beads 3.8 Å apart (a C-alpha trace's spacing), from `seed`.
std::vector<Vec3d> random_chain(int beads, unsigned seed) {
  std::vector<Vec3d> p;
  std::mt19937_64 random(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  Vec3d at{0, 0, 0};
  for (int i = 0; i < beads; ++i) {
    p.push_back(at);
    Vec3d step{g(random), g(random), g(random)};
    at += step * (3.8 / std::sqrt(norm2(step)));
  }
  return p;
}

TEST(RpyTensor, FarBlockIsTheTextbookFormAndItsTraceIsThreeAOverR) {
  // r ≥ 2a: D/D0 = (3a/4r)[(1 + 2a²/3r²)I + (1 − 2a²/r²) r̂r̂]; tr/3 = a/r exactly.
  const double a = 1.9;
  for (const Vec3d r : {Vec3d{3.8, 0, 0}, Vec3d{1.0, -4.0, 2.5}, Vec3d{-12.0, 7.0, 0.3}}) {
    const double d = std::sqrt(norm2(r));
    const auto block = physics::rpy_block(r, a);
    const double u[3] = {r.x / d, r.y / d, r.z / d};
    const double got[3][3] = {{block.xx, block.xy, block.xz}, {block.xy, block.yy, block.yz},
                              {block.xz, block.yz, block.zz}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double want = 3 * a / (4 * d) * ((i == j ? 1 + 2 * a * a / (3 * d * d) : 0) + (1 - 2 * a * a / (d * d)) * u[i] * u[j]);
        EXPECT_NEAR(got[i][j], want, 1e-14) << i << j;
      }
    EXPECT_NEAR((block.xx + block.yy + block.zz) / 3.0, a / d, 1e-14);
  }
}

TEST(RpyTensor, BranchesMeetAtTwoRadiiAndTheBlockOfOneSphereIsTheIdentity) {
  const double a = 1.9;
  const Vec3d axis = Vec3d{0.3, -0.5, 0.8} * (1.0 / std::sqrt(0.98));
  const auto inside = physics::rpy_block(axis * (2 * a * (1 - 1e-12)), a);
  const auto outside = physics::rpy_block(axis * (2 * a * (1 + 1e-12)), a);
  EXPECT_NEAR(inside.xx, outside.xx, 1e-10);
  EXPECT_NEAR(inside.xy, outside.xy, 1e-10);
  EXPECT_NEAR(inside.yz, outside.yz, 1e-10);
  EXPECT_NEAR(inside.zz, outside.zz, 1e-10);
  const auto self = physics::rpy_block(Vec3d{0, 0, 0}, a);
  EXPECT_EQ(self.xx, 1.0);
  EXPECT_EQ(self.yy, 1.0);
  EXPECT_EQ(self.zz, 1.0);
  EXPECT_EQ(self.xy, 0.0);
  // Overlapping spheres: (1 − 9r/32a) across, (1 − 9r/32a + 3r/32a) along.
  const auto close = physics::rpy_block(Vec3d{0, 0, 1.0}, a);
  EXPECT_NEAR(close.xx, 1 - 9.0 / (32 * a), 1e-14);
  EXPECT_NEAR(close.zz, 1 - 6.0 / (32 * a), 1e-14);
  // D_ij = D_ji: the block depends on r only through r rᵀ.
  const auto forward = physics::rpy_block(Vec3f{1.0f, 2.0f, -3.0f}, 1.9f);
  const auto backward = physics::rpy_block(Vec3f{-1.0f, -2.0f, 3.0f}, 1.9f);
  EXPECT_EQ(forward.xy, backward.xy);
  EXPECT_EQ(forward.xz, backward.xz);
  EXPECT_EQ(forward.zz, backward.zz);
}

TEST(RpyTensor, TheWholeTensorIsPositiveDefiniteEvenWithOverlappingBeads) {
  // The point of the RPY form (and of its overlap branch): D is a valid covariance for every
  // configuration. 200 random clouds of 12 beads in a 6 Å box (most pairs overlap at a = 1.9)
  // and 200 in a 40 Å box: each tensor factors, and its smallest Cholesky pivot stays > 0.
  std::mt19937_64 random(11);
  for (const double box : {6.0, 40.0})
    for (int trial = 0; trial < 200; ++trial) {
      std::uniform_real_distribution<double> coordinate(0.0, box);
      std::vector<Vec3d> p(12);
      for (auto& x : p) x = {coordinate(random), coordinate(random), coordinate(random)};
      std::vector<double> d = tensor_of(p, 1.9);
      ASSERT_TRUE(physics::cholesky_factor_in_place(d.data(), 36)) << "box " << box << " trial " << trial;
    }
}

TEST(RpyTensor, CholeskyFactorRebuildsTheTensorInFloat) {
  // L Lᵀ = D/D0 for a 20-bead chain (consecutive beads 3.8 Å apart), factored in float as the
  // engines do: every element back to 2e-5 (float rounding of sums of ~60 products ≤ 1).
  const std::vector<double> d = tensor_of(random_chain(20, 3), 1.9);
  std::vector<float> l(d.begin(), d.end());
  const int n = 60;
  ASSERT_TRUE(physics::cholesky_factor_in_place(l.data(), n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      double sum = 0.0;
      for (int k = 0; k <= j; ++k)
        sum += double(physics::cholesky_element(l.data(), n, i, k)) * physics::cholesky_element(l.data(), n, j, k);
      EXPECT_NEAR(sum, d[i * n + j], 2e-5) << i << "," << j;
    }
}

// The CPU's factor (right-looking, along contiguous memory) and the GPU block's (element by
// element: cholesky_pivot, then cholesky_below for each element below the pivot) perform on
// every element the same operations in the same order — here on a 30-bead chain's tensor
// (n = 90) in float. A compiler may fuse a multiply and a subtraction in one form and not in
// the other (GCC with -march=native fuses the vectorised loop, not the element's loop-carried
// sum), so they agree to float rounding (2.1e-7 at most on elements up to 1, x86-64, GCC 12;
// the same bits without fusing); and a matrix that is not positive definite fails in both.
TEST(RpyTensor, CpuFactorMatchesTheElementByElementFormOfTheGpu) {
  const std::vector<double> d = tensor_of(random_chain(30, 5), 1.9);
  const std::size_t n = 90;
  auto element_by_element = [n](std::vector<float>& a) {
    for (std::size_t j = 0; j < n; ++j) {
      if (!physics::cholesky_pivot(a.data(), n, j)) return false;
      for (std::size_t i = j + 1; i < n; ++i) physics::cholesky_below(a.data(), n, i, j);
    }
    return true;
  };
  std::vector<float> cpu(d.begin(), d.end()), gpu_form = cpu;
  ASSERT_TRUE(physics::cholesky_factor_in_place(cpu.data(), int(n)));
  ASSERT_TRUE(element_by_element(gpu_form));
  std::size_t compared = 0;
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = j; i < n; ++i, ++compared)
      ASSERT_NEAR(physics::cholesky_element(cpu.data(), n, i, j), physics::cholesky_element(gpu_form.data(), n, i, j),
                  2e-6)
          << i << "," << j;
  EXPECT_EQ(compared, n * (n + 1) / 2);
  EXPECT_NE(physics::cholesky_element(cpu.data(), n, std::size_t(89), std::size_t(0)), 0.0f);  // a chain's far beads still couple
  // The strict lower triangle keeps the tensor in both (the drift has read it before).
  EXPECT_EQ(cpu[89 * n + 0], float(d[89 * n + 0]));
  EXPECT_EQ(gpu_form[89 * n + 0], float(d[89 * n + 0]));
  // Not positive definite (one diagonal element made negative): both fail.
  std::vector<float> broken(d.begin(), d.end());
  broken[40 * n + 40] = -1.0f;
  std::vector<float> broken_gpu_form = broken;
  EXPECT_FALSE(physics::cholesky_factor_in_place(broken.data(), int(n)));
  EXPECT_FALSE(element_by_element(broken_gpu_form));
}

TEST(TeaCoefficients, BetaIsTheRootOfGeyerAndWintersQuadratic) {
  // β' = (1 − sqrt(1 − q))/q is the root of q β² − 2β + 1 = 0 near 1/2 (eqs. 25–26), with
  // q = (3M − 1)ε² − (3M − 2)ε; and β → 1/2 as the coupling vanishes.
  for (const int beads : {2, 34, 1000})
    for (const double epsilon : {1e-9, 1e-4, 0.01, 0.1, 0.3}) {
      const double n = 3.0 * beads;
      const double q = (n - 1) * epsilon * epsilon - (n - 2) * epsilon;
      const double beta = physics::tea_beta(epsilon, beads);
      EXPECT_NEAR(q * beta * beta - 2 * beta + 1, 0.0, 1e-6) << beads << " " << epsilon;
      EXPECT_GT(beta, 0.0);
      EXPECT_LE(beta, 0.5 + 1e-12);
    }
  EXPECT_NEAR(physics::tea_beta(1e-12, 34), 0.5, 1e-9);
  EXPECT_EQ(physics::tea_epsilon(1e9, 10), 1.0);  // held at 1
  EXPECT_EQ(physics::tea_epsilon(5.0, 1), 0.0);   // one mobile bead: nothing to couple
}

// ‖B Bᵀ − D/D0‖ over all elements, and the largest |(B Bᵀ)_ii − 1|, for TEA's B on `p`.
struct TeaError {
  double off_diagonal = 0.0, diagonal = 0.0;
};
TeaError tea_error(const std::vector<Vec3d>& p, double radius_A) {
  const int beads = int(p.size()), n = 3 * beads;
  const std::vector<double> d = tensor_of(p, radius_A);
  double element_sum = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i / 3 != j / 3) element_sum += d[i * n + j];
  const double beta = physics::tea_beta(physics::tea_epsilon(element_sum, beads), beads);
  std::vector<double> b(std::size_t(n) * n);
  for (int i = 0; i < n; ++i) {
    double squares = 0.0;
    for (int j = 0; j < n; ++j)
      if (i / 3 != j / 3) squares += d[i * n + j] * d[i * n + j];
    const double c = 1.0 / std::sqrt(1.0 + beta * beta * squares);
    for (int j = 0; j < n; ++j) b[i * n + j] = i == j ? c : (i / 3 != j / 3 ? c * beta * d[i * n + j] : 0.0);
  }
  TeaError e;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += b[i * n + k] * b[j * n + k];
      if (i == j) e.diagonal = std::max(e.diagonal, std::abs(s - 1.0));
      else e.off_diagonal += (s - d[i * n + j]) * (s - d[i * n + j]);
    }
  e.off_diagonal = std::sqrt(e.off_diagonal);
  return e;
}

TEST(TeaCoefficients, DiagonalIsExactAndTheErrorIsSecondOrderInTheCoupling) {
  // With B_ii = C_i and B_ij = C_i β D_ij, (B Bᵀ)_ii = C_i²(1 + β² Σ D_ij²) = 1 exactly (eq. 19).
  // The off-diagonal error is second order in the coupling: B Bᵀ − D = (2β − 1)D' + β²D'² +
  // (C − 1) terms, each O(D'²) with β = 1/2 − O(ε). Halving a halves D' (a/r ≪ 1 here: beads
  // 10 Å apart and more; the RPY's a³/r³ term bends it a little), so the error must fall ~4×:
  // between 3.5× and 4.5×.
  std::vector<Vec3d> p;
  for (int i = 0; i < 12; ++i) p.push_back({10.0 * i, 4.0 * std::sin(i), 3.0 * std::cos(1.7 * i)});
  const TeaError full = tea_error(p, 0.5), half = tea_error(p, 0.25);  // 3.86× measured in numpy
  EXPECT_LT(full.diagonal, 1e-12);
  EXPECT_LT(half.diagonal, 1e-12);
  ASSERT_GT(half.off_diagonal, 0.0);
  const double ratio = full.off_diagonal / half.off_diagonal;
  EXPECT_GT(ratio, 3.5);
  EXPECT_LT(ratio, 4.5);
  ::testing::Test::RecordProperty("error_ratio", std::to_string(ratio));
}

TEST(HydrodynamicsCpu, TwoTrappedBeadsRelaxAsTheCoupledRecursionTea) {
  test::check_hydrodynamic_relaxation_of_two_trapped_beads(kCpu, HydrodynamicMethod::kTea);
}
TEST(HydrodynamicsCpu, TwoTrappedBeadsRelaxAsTheCoupledRecursionCholesky) {
  test::check_hydrodynamic_relaxation_of_two_trapped_beads(kCpu, HydrodynamicMethod::kCholesky);
}
TEST(HydrodynamicsCpu, DumbbellBondLengthIsBoltzmannsWithTheExactFactor) {
  test::check_hydrodynamic_dumbbell_bond_length_is_boltzmanns(kCpu, HydrodynamicMethod::kCholesky);
}

// The same measurement with TEA shows the bias docs/model.md#tea states: its bond noise
// ~1.3× the exact tensor's for two beads (tea_bond_noise), so ⟨(r − r0)²⟩ is too large by
// far more than the check's tolerance. Asserted, so that the documented limitation stays true.
TEST(HydrodynamicsCpu, TeaRunsADumbbellsBondHot) {
  ::testing::TestPartResultArray failures;
  double ratio = 0.0;
  {
    ::testing::ScopedFakeTestPartResultReporter capture(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                                                        &failures);
    ratio = test::check_hydrodynamic_dumbbell_bond_length_is_boltzmanns(kCpu, HydrodynamicMethod::kTea);
  }
  EXPECT_EQ(failures.size(), 1) << "TEA's dumbbell bond met Boltzmann's variance (ratio " << ratio << ")";
  EXPECT_GT(ratio, 1.15);
}

TEST(HydrodynamicsCpu, DumbbellCentreDiffusesAsItsNoiseCovarianceTea) {
  test::check_hydrodynamic_dumbbell_centre_diffusion(kCpu, HydrodynamicMethod::kTea);
}
TEST(HydrodynamicsCpu, DumbbellCentreDiffusesAsItsNoiseCovarianceCholesky) {
  test::check_hydrodynamic_dumbbell_centre_diffusion(kCpu, HydrodynamicMethod::kCholesky);
}
TEST(HydrodynamicsCpu, OneStepMatchesADenseReferenceTea) {
  test::check_hydrodynamic_step_against_a_dense_reference(kCpu, HydrodynamicMethod::kTea);
}
TEST(HydrodynamicsCpu, OneStepMatchesADenseReferenceCholesky) {
  test::check_hydrodynamic_step_against_a_dense_reference(kCpu, HydrodynamicMethod::kCholesky);
}
TEST(HydrodynamicsCpu, OneStepOfManyBeadsMatchesADenseReferenceTea) {
  test::check_hydrodynamic_step_of_many_beads_against_a_dense_reference(kCpu, HydrodynamicMethod::kTea);
}
TEST(HydrodynamicsCpu, OneStepOfManyBeadsMatchesADenseReferenceCholesky) {
  test::check_hydrodynamic_step_of_many_beads_against_a_dense_reference(kCpu, HydrodynamicMethod::kCholesky);
}
TEST(HydrodynamicsCpu, OneMobileBeadMovesAsWithoutAndNoneMovesTea) {
  test::check_hydrodynamics_with_one_or_no_mobile_beads(kCpu, HydrodynamicMethod::kTea);
}
TEST(HydrodynamicsCpu, OneMobileBeadMovesAsWithoutAndNoneMovesCholesky) {
  test::check_hydrodynamics_with_one_or_no_mobile_beads(kCpu, HydrodynamicMethod::kCholesky);
}

// The thread count changes no bit (DESIGN.md §3): a 40-bead chain (one replica per thread)
// with both methods and fixed beads, and a 600-bead chain alone on three threads (the
// replica's forces split into chunks and its TEA sums shared among the threads).
TEST(HydrodynamicsCpu, ThreadCountChangesNoBit) {
  struct Case {
    int beads;
    std::int32_t replicas;
    HydrodynamicMethod method;
  };
  // 40 × 3: replicas on threads; 150 × 1 (one force chunk, 148 mobile beads) and 600 × 1:
  // the threads on the one replica's moves.
  for (const Case c : {Case{40, 3, HydrodynamicMethod::kTea}, Case{40, 3, HydrodynamicMethod::kCholesky},
                       Case{150, 1, HydrodynamicMethod::kTea}, Case{150, 1, HydrodynamicMethod::kCholesky},
                       Case{600, 1, HydrodynamicMethod::kTea}}) {
    const Topology chain = test::linear_chain(c.beads, 3.8f);
    State start(c.beads, c.replicas);
    for (std::int32_t r = 0; r < c.replicas; ++r)
      for (int i = 0; i < c.beads; ++i) start.set_position(r, i, {3.8f * i, 0.3f * float(i % 3), 0.0f});
    State result[2];
    for (const int threads : {1, 3}) {
      EngineSetup s = test::integrator_test_setup(chain, c.replicas, 99);
      s.threads = threads;
      s.fixed_beads = {0, 7};
      s.langevin.hydrodynamics.method = c.method;
      auto engine = make_cpu_engine(s);
      engine->set_state(start);
      engine->advance(c.beads > 100 ? 5 : 50);
      result[threads == 1 ? 0 : 1] = engine->state();
    }
    SCOPED_TRACE(std::to_string(c.beads) + " beads, " + hydrodynamic_method_name(c.method));
    EXPECT_EQ(result[0].x, result[1].x);
    EXPECT_EQ(result[0].y, result[1].y);
    EXPECT_EQ(result[0].z, result[1].z);
    for (std::int32_t r = 0; r < c.replicas; ++r) {  // fixed beads kept, the others moved
      EXPECT_EQ(result[0].position(r, 0).x, 0.0f);
      EXPECT_EQ(result[0].position(r, 7).x, 3.8f * 7);
      EXPECT_NE(result[0].position(r, 1).x, 3.8f);
    }
  }
}

}  // namespace

namespace {

// Hydrodynamics keeps no state of its own (TEA's ε is taken from every step's positions), so
// a run resumed from a checkpoint's positions and step continues bit for bit.
TEST(HydrodynamicsCpu, APositionHandedToANewEngineContinuesBitForBit) {
  const Topology chain = test::linear_chain(20, 3.8f);
  State start(20, 2);
  for (std::int32_t r = 0; r < 2; ++r)
    for (int i = 0; i < 20; ++i) start.set_position(r, i, {3.8f * i, 0.5f * float(i % 2), 0.1f * float(r)});
  for (const HydrodynamicMethod method : {HydrodynamicMethod::kTea, HydrodynamicMethod::kCholesky}) {
    EngineSetup s = test::integrator_test_setup(chain, 2, 5);
    s.langevin.hydrodynamics.method = method;
    auto straight = make_cpu_engine(s);
    straight->set_state(start);
    straight->advance(100);
    auto first = make_cpu_engine(s);
    first->set_state(start);
    first->advance(50);
    auto second = make_cpu_engine(s);
    second->set_state(first->state());
    second->advance(50);
    SCOPED_TRACE(hydrodynamic_method_name(method));
    EXPECT_EQ(second->state().step, 100);
    EXPECT_EQ(second->state().x, straight->state().x);
    EXPECT_EQ(second->state().y, straight->state().y);
    EXPECT_EQ(second->state().z, straight->state().z);
  }
}

}  // namespace
