// Hydrodynamic interactions on the CUDA engine (docs/gpu.md#hydrodynamic-interactions),
// once per kernel family: the exactly solvable two-bead checks and the one-step dense
// reference of tests/support/hydrodynamics_checks.h (the CPU engine runs them in
// tests/physics/hydrodynamics_test.cpp), and the CUDA engine against the CPU engine on
// SOP-GPU's WW domain with fixed beads and protocols, for TEA and the exact square root.
//
// Tolerances: as tests/cuda/cuda_engine_test.cpp. Both engines run the same ERMAK_HD code
// (physics/hydrodynamic_tensor.h, backend/hydrodynamic_step.h) on the same floats; the
// tensor's elements, TEA's sums and the Cholesky factor differ by fused multiply-adds and
// the GPU's approximate square roots and divisions (a few ulps), the Gaussians by ~1e-6
// (docs/gpu.md#numerics), the forces by their summation order. Trajectories diverge only
// through those roundings: over 10³ steps a few 1e-6 Å to 1e-5 Å, while a bug (a missing
// coupling, a wrong noise counter, a force of the wrong step) moves beads by ≥ 1e-2 Å
// within tens of steps, so kTrajectoryTolerance_A = 2e-3 Å separates the two; energies of
// the final states to 1e-2 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "cuda/cuda_test_support.h"
#include "ermak/core/error.h"
#include "support/hydrodynamics_checks.h"

namespace ermak::cudatest {
namespace {

constexpr double kTrajectoryTolerance_A = 2e-3;

const char* method_label(HydrodynamicMethod m) { return hydrodynamic_method_name(m); }

class CudaHydrodynamics : public ::testing::TestWithParam<CudaKernelFamily> {
 protected:
  // Every test skips without a GPU (a skip in SetUp skips the body).
  void SetUp() override { ERMAK_REQUIRE_GPU(); }
  CudaKernelFamily family() const { return GetParam(); }
  // The CUDA engine of the kernel family under test.
  test::EngineFactory gpu() const {
    const CudaKernelFamily f = GetParam();
    return [f](const EngineSetup& setup) { return make_gpu(setup, f); };
  }
  // SOP-GPU's WW domain (the files of test::load_ww_reference()).
  const LoadedSystem& ww() {
    if (!ww_) ww_ = load_test_system("ww");
    if (!ww_) throw Error("WW test data not found (the shared test data: set ERMAK_SHARED_DATA)");
    return ww_->system;
  }
  std::optional<TestSystem> ww_;
};

TEST_P(CudaHydrodynamics, TeaRelaxationOfTwoTrappedBeads) {
  test::check_hydrodynamic_relaxation_of_two_trapped_beads(gpu(), HydrodynamicMethod::kTea);
}

TEST_P(CudaHydrodynamics, CholeskyRelaxationOfTwoTrappedBeads) {
  test::check_hydrodynamic_relaxation_of_two_trapped_beads(gpu(), HydrodynamicMethod::kCholesky);
}

TEST_P(CudaHydrodynamics, TeaDumbbellCentreDiffusion) {
  test::check_hydrodynamic_dumbbell_centre_diffusion(gpu(), HydrodynamicMethod::kTea);
}

TEST_P(CudaHydrodynamics, CholeskyDumbbellCentreDiffusion) {
  test::check_hydrodynamic_dumbbell_centre_diffusion(gpu(), HydrodynamicMethod::kCholesky);
}

TEST_P(CudaHydrodynamics, TeaOneStepMatchesADenseReference) {
  test::check_hydrodynamic_step_against_a_dense_reference(gpu(), HydrodynamicMethod::kTea);
}

TEST_P(CudaHydrodynamics, CholeskyOneStepMatchesADenseReference) {
  test::check_hydrodynamic_step_against_a_dense_reference(gpu(), HydrodynamicMethod::kCholesky);
}

TEST_P(CudaHydrodynamics, TeaOneStepOfManyBeadsMatchesADenseReference) {
  test::check_hydrodynamic_step_of_many_beads_against_a_dense_reference(gpu(), HydrodynamicMethod::kTea);
}

TEST_P(CudaHydrodynamics, CholeskyOneStepOfManyBeadsMatchesADenseReference) {
  test::check_hydrodynamic_step_of_many_beads_against_a_dense_reference(gpu(), HydrodynamicMethod::kCholesky);
}

TEST_P(CudaHydrodynamics, TeaWithOneOrNoMobileBeads) {
  test::check_hydrodynamics_with_one_or_no_mobile_beads(gpu(), HydrodynamicMethod::kTea);
}

TEST_P(CudaHydrodynamics, CholeskyWithOneOrNoMobileBeads) {
  test::check_hydrodynamics_with_one_or_no_mobile_beads(gpu(), HydrodynamicMethod::kCholesky);
}

// "auto" handed straight to the engine (as a library user might, without `ermak run`'s
// resolution) is resolved there as by resolve_hydrodynamic_method: the exact factor for WW's
// 34 beads, TEA for λ-repressor's 179 — each bit for bit the engine of the method named.
TEST_P(CudaHydrodynamics, AutoIsResolvedByTheEngineByItsMobileBeads) {
  const auto lmb = load_test_system("lmb");
  if (!lmb) GTEST_SKIP() << "no 1LMB in the shared data";
  for (const auto* system : {&ww(), &lmb->system}) {
    const bool small = system->topology.bead_count() <= kAutoCholeskyMobileBeads;
    SCOPED_TRACE(std::to_string(system->topology.bead_count()) + " beads");
    EngineSetup setup = base_setup(system->topology, 2, 31337);
    setup.langevin.hydrodynamics.method = HydrodynamicMethod::kAuto;
    EngineSetup named = setup;
    named.langevin.hydrodynamics.method = small ? HydrodynamicMethod::kCholesky : HydrodynamicMethod::kTea;
    auto automatic = make_gpu(setup, family());
    auto explicit_engine = make_gpu(named, family());
    const State start = start_state(*system, 2);
    automatic->set_state(start);
    explicit_engine->set_state(start);
    automatic->advance(40);
    explicit_engine->advance(40);
    EXPECT_TRUE(bit_identical(automatic->state(), explicit_engine->state()));
    EXPECT_GT(max_abs_difference(start, automatic->state()), 0.01);
  }
}

TEST_P(CudaHydrodynamics, DumbbellBondLengthIsBoltzmannsWithTheExactFactor) {
  test::check_hydrodynamic_dumbbell_bond_length_is_boltzmanns(gpu(), HydrodynamicMethod::kCholesky);
}

// WW × 3 with beads 0 and 1 fixed and bead 33 pulled by a moving cantilever (a different
// spring in replica 2), 1000 steps in uneven advances: positions after each advance,
// tether forces, the fixed beads' positions (exactly unchanged) and the final energies
// against the CPU engine; and the run is not the one without hydrodynamics.
void expect_ww_pulling_agrees_with_cpu(const LoadedSystem& ww, CudaKernelFamily family, HydrodynamicMethod method) {
  SCOPED_TRACE(std::string("hydrodynamics = ") + method_label(method));
  const Topology& topology = ww.topology;
  const std::int32_t n = topology.bead_count();
  EngineSetup setup = base_setup(topology, 3, 8128);
  setup.langevin.hydrodynamics.method = method;
  setup.langevin.hydrodynamics.radius_A = 1.9;
  setup.fixed_beads = {0, 1};
  HarmonicTether pull;
  pull.bead = n - 1;
  pull.anchor_start_A = ww.initial_positions_A[n - 1];
  const Vec3d axis = ww.initial_positions_A[n - 1] - ww.initial_positions_A[0];
  pull.anchor_velocity_A_per_tau = (0.05 / std::sqrt(norm2(axis))) * axis;
  pull.spring_kcal_per_mol_A2 = 1.0;
  HarmonicTether stiffer = pull;
  stiffer.replica = 2;
  stiffer.spring_kcal_per_mol_A2 = 2.0;
  stiffer.start_step = 100;
  setup.tethers = {pull, stiffer};
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family);
  EXPECT_FALSE(gpu->overlaps_stops()) << "the hydrodynamic steps take their stops in turn";
  const State start = start_state(ww, 3);
  cpu->set_state(start);
  gpu->set_state(start);
  double worst = 0.0;
  // Uneven advances: the per-bead family's list check carries over between them.
  for (std::int64_t chunk : {137, 263, 350, 250}) {
    cpu->advance(chunk);
    gpu->advance(chunk);
    const State& a = cpu->state();
    const State& b = gpu->state();
    ASSERT_EQ(a.step, b.step);
    const double d = max_abs_difference(a, b);
    worst = std::max(worst, d);
    ASSERT_LE(d, kTrajectoryTolerance_A) << "at step " << a.step;
    const auto ta = cpu->tether_forces_kcal_per_mol_A(), tb = gpu->tether_forces_kcal_per_mol_A();
    ASSERT_EQ(ta.size(), tb.size());
    for (std::size_t k = 0; k < ta.size(); ++k) {
      EXPECT_NEAR(tb[k].x, ta[k].x, 5e-3); EXPECT_NEAR(tb[k].y, ta[k].y, 5e-3); EXPECT_NEAR(tb[k].z, ta[k].z, 5e-3);
    }
  }
  const State& g = gpu->state();
  for (std::int32_t r = 0; r < 3; ++r)
    for (std::int32_t b : setup.fixed_beads) {
      const Vec3f p = g.position(r, b), q = start.position(r, b);
      EXPECT_EQ(p.x, q.x); EXPECT_EQ(p.y, q.y); EXPECT_EQ(p.z, q.z);
    }
  EXPECT_GT(max_abs_difference(start, g), 0.1);  // the beads did move
  const auto e_cpu = cpu->energies();
  const auto e_gpu = gpu->energies();
  double worst_energy = 0.0;
  for (std::int32_t r = 0; r < 3; ++r) {
    SCOPED_TRACE("replica " + std::to_string(r));
    EXPECT_NEAR(e_gpu[r].total(), e_cpu[r].total(), 1e-2 * (std::abs(e_cpu[r].total()) + 1));
    EXPECT_NEAR(e_gpu[r].protocol, e_cpu[r].protocol, 1e-2 * (std::abs(e_cpu[r].protocol) + 1));
    worst_energy = std::max(worst_energy, std::abs(e_gpu[r].total() - e_cpu[r].total()));
  }
  // Hydrodynamics changed the run: the CPU's run without them is elsewhere.
  EngineSetup plain = setup;
  plain.langevin.hydrodynamics.method = HydrodynamicMethod::kNone;
  auto cpu_plain = make_cpu_engine(plain);
  cpu_plain->set_state(start);
  cpu_plain->advance(1000);
  EXPECT_GT(max_abs_difference(cpu_plain->state(), g), 10 * kTrajectoryTolerance_A);
  ::testing::Test::RecordProperty(std::string("max_position_difference_A_") + method_label(method), std::to_string(worst));
  std::printf("[ %s %s ] WW x3, 2 fixed, pulled: max |x_cuda - x_cpu| after 1000 steps = %.3g A, max |E_cuda - "
              "E_cpu| = %.3g kcal/mol, rebuilds %lld\n",
              family_name(family), method_label(method), worst, worst_energy,
              (long long)gpu->stats().neighbor_rebuilds);
}

TEST_P(CudaHydrodynamics, TeaAgreesWithCpuOnWwWithFixedBeadsAndPulling) {
  expect_ww_pulling_agrees_with_cpu(ww(), family(), HydrodynamicMethod::kTea);
}

TEST_P(CudaHydrodynamics, CholeskyAgreesWithCpuOnWwWithFixedBeadsAndPulling) {
  expect_ww_pulling_agrees_with_cpu(ww(), family(), HydrodynamicMethod::kCholesky);
}

// The indentation tip in contact (as CudaFamily.IndentationInContactAgreesWithCpu in
// cuda_engine_test.cpp: ζ_tip = 10, started 1 Å above the molecule, a surface below) with
// TEA: the tip moves from the molecule's force at each step's positions.
TEST_P(CudaHydrodynamics, IndentationWithTeaAgreesWithCpu) {
  const LoadedSystem& s = ww();
  Vec3d lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30}, mean{};
  for (const auto& p : s.initial_positions_A) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    mean += p;
  }
  mean = (1.0 / double(s.initial_positions_A.size())) * mean;
  Indentation ind;
  ind.enabled = true;
  ind.tip = {0.0, 1.0, 1.0, 1.0, 15.0};  // purely repulsive (σ/ρ)^6, R_tip = 15 Å
  ind.tip_start_A = {mean.x, mean.y, hi.z + 15.0 + 1.0};
  ind.base_start_A = ind.tip_start_A;
  ind.direction = {0, 0, -1};
  ind.speed_A_per_tau = 0.25;
  ind.spring_kcal_per_mol_A2 = 0.5;
  ind.tip_zeta = 10.0;
  ind.retraction = RetractionTrigger::kStep;
  ind.retract_step = 450;
  ind.surface.enabled = true;
  ind.surface.normal = {0, 0, 1};
  ind.surface.point_A = {mean.x, mean.y, lo.z - 8.0};
  ind.surface.wall = {1.0, -2.0, 8.0, 0.2, 0.0};
  EngineSetup setup = base_setup(s.topology, 2, 27182);
  setup.indentation = ind;
  setup.langevin.hydrodynamics.method = HydrodynamicMethod::kTea;
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family());
  const State start = start_state(s, 2);
  cpu->set_state(start);
  gpu->set_state(start);
  for (std::int64_t chunk : {200, 200, 200}) {
    cpu->advance(chunk);
    gpu->advance(chunk);
    EXPECT_LE(max_abs_difference(cpu->state(), gpu->state()), kTrajectoryTolerance_A) << "step " << cpu->state().step;
    const auto a = cpu->indentation_status(), b = gpu->indentation_status();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t r = 0; r < a.size(); ++r) {
      EXPECT_EQ(b[r].turnaround_step, a[r].turnaround_step);
      EXPECT_NEAR(b[r].tip_A.x, a[r].tip_A.x, 1e-3);
      EXPECT_NEAR(b[r].tip_A.y, a[r].tip_A.y, 1e-3);
      EXPECT_NEAR(b[r].tip_A.z, a[r].tip_A.z, 1e-3);
      EXPECT_NEAR(b[r].base_A.z, a[r].base_A.z, 1e-9);
      const double molecule = std::abs(a[r].molecule_force_kcal_per_mol_A.z);
      EXPECT_NEAR(b[r].molecule_force_kcal_per_mol_A.z, a[r].molecule_force_kcal_per_mol_A.z, 1e-2 * molecule + 1e-3);
    }
  }
  EXPECT_GT(max_abs_difference(start, gpu->state()), 0.1);
}

// A stateful generator (its noise drawn ahead into the device's ring, docs/gpu.md#noise)
// with the exact square root and a fixed bead, against the CPU.
TEST_P(CudaHydrodynamics, StoredNoiseWithCholeskyAgreesWithCpu) {
  EngineSetup setup = base_setup(ww().topology, 3, 1357);
  setup.rng = "lagged_fibonacci";
  setup.rng_layout = "shared";
  setup.fixed_beads = {9};
  setup.langevin.hydrodynamics.method = HydrodynamicMethod::kCholesky;
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family());
  const State start = start_state(ww(), 3);
  cpu->set_state(start);
  gpu->set_state(start);
  for (std::int64_t chunk : {137, 300, 63}) {
    cpu->advance(chunk);
    gpu->advance(chunk);
    ASSERT_LE(max_abs_difference(cpu->state(), gpu->state()), kTrajectoryTolerance_A) << "at step " << cpu->state().step;
  }
  EXPECT_GT(max_abs_difference(start, gpu->state()), 0.1);
  EXPECT_EQ(gpu->noise_state(), cpu->noise_state());
}

// A run stopped and resumed from its state and neighbour-list reference continues
// bit for bit (TEA, a temperature schedule: the coefficients of each step).
TEST_P(CudaHydrodynamics, ResumeFromStateAndNeighbourReferenceIsBitForBit) {
  EngineSetup setup = base_setup(ww().topology, 2, 4711);
  setup.langevin.hydrodynamics.method = HydrodynamicMethod::kTea;
  setup.temperature.start_kcal_per_mol = 0.6;
  setup.temperature.increment_kcal_per_mol = 0.05;
  setup.temperature.every_steps = 90;
  setup.temperature.stop_kcal_per_mol = 0.85;
  const State start = start_state(ww(), 2);
  auto whole = make_gpu(setup, family());
  whole->set_state(start);
  whole->advance(500);
  auto first = make_gpu(setup, family());
  first->set_state(start);
  first->advance(230);
  const State half = first->state();
  const State reference = first->neighbor_reference();
  auto resumed = make_gpu(setup, family());
  resumed->set_state(half);
  resumed->restore_neighbor_reference(reference);
  resumed->advance(270);
  EXPECT_TRUE(bit_identical(whole->state(), resumed->state()));
  auto cpu = make_cpu_engine(setup);
  cpu->set_state(start);
  cpu->advance(500);
  EXPECT_LE(max_abs_difference(cpu->state(), whole->state()), kTrajectoryTolerance_A);
}

// The step's forces from the evaluation kernel in one round per warp or in eight
// (ERMAK_CUDA_EVAL_ROUNDS, eval_kernels.cu): each bead's sums are the same operations, so
// the exact method's trajectories have the same bits.
TEST_P(CudaHydrodynamics, EvaluationInOneRoundOrEightGivesTheSameBits) {
  EngineSetup setup = base_setup(ww().topology, 3, 2024);
  setup.langevin.hydrodynamics.method = HydrodynamicMethod::kCholesky;
  setup.fixed_beads = {0, 17};
  const State start = start_state(ww(), 3);
  auto run = [&](const char* rounds) {
    setenv("ERMAK_CUDA_EVAL_ROUNDS", rounds, 1);
    auto gpu = make_gpu(setup, family());
    gpu->set_state(start);
    gpu->advance(300);
    unsetenv("ERMAK_CUDA_EVAL_ROUNDS");
    return gpu->state();
  };
  const State one_round = run("1"), eight_rounds = run("8");
  EXPECT_TRUE(bit_identical(one_round, eight_rounds));
  EXPECT_GT(max_abs_difference(start, one_round), 0.1);  // the beads did move
}

// The exact method's tensor in each block's shared memory (where it fits, the default) or in
// global memory (ERMAK_CUDA_CHOLESKY_GLOBAL=1): every item the same operations in the same
// order, so the trajectories have the same bits — with two fixed beads (WW, 32 mobile beads)
// and with every bead mobile. The shared path leaves the replicas' tensors out of device memory.
TEST_P(CudaHydrodynamics, CholeskyInSharedOrGlobalMemoryGivesTheSameBits) {
  for (const bool fixed : {true, false}) {
    SCOPED_TRACE(fixed ? "two fixed beads" : "every bead mobile");
    EngineSetup setup = base_setup(ww().topology, 3, 2025);
    setup.langevin.hydrodynamics.method = HydrodynamicMethod::kCholesky;
    if (fixed) setup.fixed_beads = {0, 17};
    const State start = start_state(ww(), 3);
    long long bytes[2] = {0, 0};
    auto run = [&](bool global) {
      if (global) setenv("ERMAK_CUDA_CHOLESKY_GLOBAL", "1", 1);
      auto gpu = make_gpu(setup, family());
      unsetenv("ERMAK_CUDA_CHOLESKY_GLOBAL");
      bytes[global] = cuda_engine_device_bytes(*gpu);
      gpu->set_state(start);
      gpu->advance(300);
      return gpu->state();
    };
    const State in_shared = run(false), in_global = run(true);
    EXPECT_TRUE(bit_identical(in_shared, in_global));
    EXPECT_GT(max_abs_difference(start, in_shared), 0.1);  // the beads did move
    const long long mobile = fixed ? 32 : 34, tensors = 3 * 9 * mobile * mobile * long(sizeof(float));
    EXPECT_GE(bytes[1] - bytes[0], tensors - 64) << bytes[0] << " " << bytes[1];
  }
}

INSTANTIATE_TEST_SUITE_P(Families, CudaHydrodynamics,
                         ::testing::Values(CudaKernelFamily::kBlock, CudaKernelFamily::kPerBead),
                         [](const ::testing::TestParamInfo<CudaKernelFamily>& info) {
                           return std::string(family_name(info.param));
                         });

// The exact method beyond kMaxCholeskyMobileBeads (its (3M)³/3 per step) is refused when the
// engine is made, before any memory is taken, naming TEA.
TEST(CudaHydrodynamicsRefusal, CholeskyBeyondItsSizeIsRefusedWithTheAlternative) {
  ERMAK_REQUIRE_GPU();
  Topology topology;
  topology.name = "many beads";
  topology.beads.resize(kMaxCholeskyMobileBeads + 1);
  EngineSetup setup = base_setup(topology, 1, 1);
  setup.langevin.hydrodynamics.method = HydrodynamicMethod::kCholesky;
  try {
    make_gpu(setup, CudaKernelFamily::kPerBead);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cholesky"), std::string::npos) << what;
    EXPECT_NE(what.find("\"tea\""), std::string::npos) << what;
  }
}

// The layout overrides for measurements take only the values their kernels are built for;
// another is refused by name when the engine is made, not ignored.
TEST(CudaHydrodynamicsRefusal, LayoutOverridesOutsideTheirValuesAreRefusedByName) {
  ERMAK_REQUIRE_GPU();
  Topology topology;
  topology.name = "ten beads";
  topology.beads.resize(10);
  EngineSetup setup = base_setup(topology, 1, 1);
  setup.langevin.hydrodynamics.method = HydrodynamicMethod::kTea;
  for (const auto& [name, bad] : {std::pair{"ERMAK_TEA_LANES", "12"}, std::pair{"ERMAK_TEA_BEADS_PER_WARP", "3"},
                                  std::pair{"ERMAK_CUDA_EVAL_ROUNDS", "2"}, std::pair{"ERMAK_CUDA_CHOLESKY_GLOBAL", "2"}}) {
    SCOPED_TRACE(name);
    setenv(name, bad, 1);
    try {
      make_gpu(setup, CudaKernelFamily::kBlock);
      ADD_FAILURE() << "expected a refusal";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    unsetenv(name);
  }
  EXPECT_NO_THROW(make_gpu(setup, CudaKernelFamily::kBlock));
}

}  // namespace
}  // namespace ermak::cudatest
