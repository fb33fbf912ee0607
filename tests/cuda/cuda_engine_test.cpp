// Rung 4 of the correctness ladder (DESIGN.md §5): the CUDA engine against the CPU engine
// on real systems, both kernel families, plus the GPU's own guarantees (determinism,
// bit-for-bit resume) and its error messages. Every test skips without a GPU.
//
// Tolerances: both engines evaluate the same physics/ functions on the same floats, so a
// pair's contribution is the same up to fused multiply-adds; forces differ only by the
// summation order (relative ~1e-7). Trajectories use the same Philox noise and diverge
// only through those roundings, amplified at most like exp(h·|λ|·t/ζ) with |λ| a few
// kcal/mol/Å² (native-contact curvature): over 10³ steps a few 1e-6 Å. A bug (a missing
// pair, a wrong noise counter, a step out of order) moves beads by ≥ 1e-2 Å within tens
// of steps, so 2e-3 Å separates the two cleanly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "cuda/cuda_test_support.h"
#include "support/lone_bead_pairs.h"
#include "ermak/backend/pair_tiles.h"
#include "ermak/core/error.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/run/engine_choice.h"
#include <spdlog/logger.h>
#include "ermak/run/stability_checks.h"
#include "ermak/backend/protocol_reports.h"

namespace ermak::cudatest {
namespace {

constexpr double kTrajectoryTolerance_A = 2e-3;

struct Case {
  const char* system;
  CudaKernelFamily family;
  std::int32_t replicas;
};

class CudaVsCpu : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    ERMAK_REQUIRE_GPU();
    system_ = load_test_system(GetParam().system);
    if (!system_) FAIL() << "test data for " << GetParam().system << " not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  }
  std::optional<TestSystem> system_;
};

// Energies and forces of one start state on both engines, to float rounding.
void expect_energies_and_forces_agree(const EngineSetup& setup, CudaKernelFamily family, const State& start) {
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family);
  EXPECT_EQ(cuda_kernel_family(*gpu), family_name(family));
  cpu->set_state(start);
  gpu->set_state(start);
  const auto e_cpu = cpu->energies();
  const auto e_gpu = gpu->energies();
  ASSERT_EQ(e_gpu.size(), e_cpu.size());
  for (std::int32_t r = 0; r < setup.replicas; ++r) {
    SCOPED_TRACE("replica " + std::to_string(r));
    EXPECT_NEAR(e_gpu[r].fene, e_cpu[r].fene, 1e-5 * (std::abs(e_cpu[r].fene) + 1));
    EXPECT_NEAR(e_gpu[r].native, e_cpu[r].native, 1e-5 * (std::abs(e_cpu[r].native) + 1));
    EXPECT_NEAR(e_gpu[r].repulsive, e_cpu[r].repulsive, 1e-5 * (std::abs(e_cpu[r].repulsive) + 1));
    EXPECT_NEAR(e_gpu[r].total(), e_cpu[r].total(), 1e-5 * (std::abs(e_cpu[r].total()) + 1));
  }
  const State f_cpu = cpu->forces();
  const State f_gpu = gpu->forces();
  double largest = 0.0;
  for (float v : f_cpu.x) largest = std::max(largest, double(std::abs(v)));
  const double diff = max_abs_difference(f_cpu, f_gpu);
  ::testing::Test::RecordProperty("max_force_difference", std::to_string(diff));
  EXPECT_LE(diff, 1e-4 + 1e-5 * largest) << "largest force component " << largest;
  // The state is untouched by evaluation.
  EXPECT_TRUE(bit_identical(gpu->state(), start));
}

TEST_P(CudaVsCpu, EnergiesAndForcesAgree) {
  const Case c = GetParam();
  expect_energies_and_forces_agree(base_setup(system_->system.topology, c.replicas, 5), c.family,
                                   start_state(system_->system, c.replicas));
}

// The same, and 300 steps, with every SOP parameter away from its default (k, R0, ε_l, σ and
// the pair cutoff, which also sets the lists' radius): a kernel that used a default in place
// of the model's value would pass every other test (a test-quality audit).
TEST_P(CudaVsCpu, OtherSopParametersAgree) {
  const Case c = GetParam();
  EngineSetup setup = base_setup(system_->system.topology, c.replicas, 77);
  setup.sop.fene_k_kcal_per_mol_A2 = 14.0f;
  setup.sop.fene_R0_A = 2.4f;
  setup.sop.repulsion_eps_kcal_per_mol = 1.7f;
  setup.sop.repulsion_sigma_A = 4.3f;
  setup.sop.pair_cutoff_A = 16.0f;
  const State start = start_state(system_->system, c.replicas);
  expect_energies_and_forces_agree(setup, c.family, start);
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, c.family);
  cpu->set_state(start);
  gpu->set_state(start);
  cpu->advance(300);
  gpu->advance(300);
  EXPECT_LE(max_abs_difference(cpu->state(), gpu->state()), kTrajectoryTolerance_A);
  // The moves are not those of the default parameters (the step kernels read these).
  EngineSetup defaults = base_setup(system_->system.topology, c.replicas, 77);
  auto cpu_defaults = make_cpu_engine(defaults);
  cpu_defaults->set_state(start);
  cpu_defaults->advance(300);
  EXPECT_GT(max_abs_difference(cpu_defaults->state(), gpu->state()), 10 * kTrajectoryTolerance_A);
}

TEST_P(CudaVsCpu, TrajectoryAgreesFor1000Steps) {
  const Case c = GetParam();
  const Topology& topology = system_->system.topology;
  const EngineSetup setup = base_setup(topology, c.replicas, 20240611);
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, c.family);
  const State start = start_state(system_->system, c.replicas);
  cpu->set_state(start);
  gpu->set_state(start);
  double worst = 0.0;
  // Uneven chunks: launches start mid-way between list builds.
  for (std::int64_t chunk : {137, 263, 350, 250}) {
    cpu->advance(chunk);
    gpu->advance(chunk);
    const State& a = cpu->state();
    const State& b = gpu->state();
    ASSERT_EQ(a.step, b.step);
    const double d = max_abs_difference(a, b);
    worst = std::max(worst, d);
    ASSERT_LE(d, kTrajectoryTolerance_A) << "at step " << a.step;
  }
  // (The block family needs no list for systems of ≤ 128 beads: no rebuilds there.)
  EXPECT_GT(gpu->stats().neighbor_pairs, 0);
  RecordProperty("max_position_difference_A", std::to_string(worst));
  std::printf("[ %s ] %s: max |x_cuda - x_cpu| after 1000 steps = %.3g A, rebuilds %lld\n", family_name(c.family),
              c.system, worst, (long long)gpu->stats().neighbor_rebuilds);
  // Energies of the final states agree too (the same positions up to the deviation).
  const auto e_cpu = cpu->energies();
  const auto e_gpu = gpu->energies();
  for (std::int32_t r = 0; r < c.replicas; ++r)
    EXPECT_NEAR(e_gpu[r].total(), e_cpu[r].total(), 1e-2 * (std::abs(e_cpu[r].total()) + 1));
}

INSTANTIATE_TEST_SUITE_P(Systems, CudaVsCpu,
                         ::testing::Values(Case{"ww", CudaKernelFamily::kBlock, 4},
                                           Case{"ww", CudaKernelFamily::kPerBead, 4},
                                           Case{"ubq", CudaKernelFamily::kBlock, 3},
                                           Case{"ubq", CudaKernelFamily::kPerBead, 3},
                                           Case{"fab", CudaKernelFamily::kBlock, 2},
                                           Case{"fab", CudaKernelFamily::kPerBead, 2},
                                           Case{"pf8", CudaKernelFamily::kPerBead, 1},
                                           Case{"pf8", CudaKernelFamily::kPerBead, 2}),
                         system_family_replicas_name<Case>);

// ---------------------------------------------------------------------------------------

// Each kernel family; the per-bead family twice: with its automatic list layout (rows per
// bead at these sizes) and with cluster rows forced (read by the step kernel as tiles);
// the block family three times: with its automatic layout (lanes per bead at these sizes)
// and with the tiles layout forced (each pair once in tiles of 4 × 4 beads,
// docs/gpu.md#tiles; indentation keeps the lanes kernels), its bead threads apart from the
// tile threads (automatic at these sizes) and on them (forced).
struct FamilyVariant {
  CudaKernelFamily family;
  bool cluster_rows = false;
  bool tiles = false;
  bool tile_beads_shared = false;
};

class CudaFamily : public ::testing::TestWithParam<FamilyVariant> {
 protected:
  void SetUp() override {
    ERMAK_REQUIRE_GPU();
    system_ = load_test_system("ww");
    if (!system_) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
    // Read whenever an engine configures itself.
    if (GetParam().cluster_rows) setenv("ERMAK_CUDA_CLUSTER_ROWS", "1", 1);
    if (GetParam().tiles) setenv("ERMAK_CUDA_BLOCK_TILES", "1", 1);
    if (GetParam().tile_beads_shared) setenv("ERMAK_CUDA_TILE_BEADS_APART", "0", 1);
  }
  void TearDown() override {
    if (GetParam().cluster_rows) unsetenv("ERMAK_CUDA_CLUSTER_ROWS");
    if (GetParam().tiles) unsetenv("ERMAK_CUDA_BLOCK_TILES");
    if (GetParam().tile_beads_shared) unsetenv("ERMAK_CUDA_TILE_BEADS_APART");
  }
  CudaKernelFamily family() const { return GetParam().family; }
  const Topology& topology() const { return system_->system.topology; }
  std::optional<TestSystem> system_;
};

std::string family_param_name(const ::testing::TestParamInfo<FamilyVariant>& info) {
  return std::string(family_name(info.param.family)) + (info.param.cluster_rows ? "_cluster_rows" : "") +
         (info.param.tiles ? "_tiles" : "") + (info.param.tile_beads_shared ? "_shared" : "");
}

TEST_P(CudaFamily, SameSeedSameBitsAndSplitAdvance) {
  const EngineSetup setup = base_setup(topology(), 3, 77);
  const State start = start_state(system_->system, 3);
  auto run = [&](std::vector<std::int64_t> chunks) {
    auto gpu = make_gpu(setup, family());
    const std::string layout = cuda_kernel_layout(*gpu);
    EXPECT_EQ(layout.rfind("block/tiles/", 0) == 0, GetParam().tiles) << layout;
    if (GetParam().tiles)
      EXPECT_EQ(layout.rfind("block/tiles/apart/", 0) == 0, !GetParam().tile_beads_shared) << layout;
    gpu->set_state(start);
    for (auto c : chunks) gpu->advance(c);
    return gpu->state();
  };
  const State whole = run({1000});
  EXPECT_TRUE(bit_identical(whole, run({1000}))) << "two identical runs differ";
  EXPECT_TRUE(bit_identical(whole, run({300, 700}))) << "advance(300)+advance(700) differs from advance(1000)";
  EXPECT_TRUE(bit_identical(whole, run({1, 499, 17, 483}))) << "uneven advances differ";
  // Another seed gives another trajectory.
  EngineSetup other = setup;
  other.seed = 78;
  auto gpu = make_gpu(other, family());
  gpu->set_state(start);
  gpu->advance(1000);
  EXPECT_FALSE(bit_identical(whole, gpu->state()));
}

TEST_P(CudaFamily, ResumeFromStateAndNeighbourReferenceIsBitForBit) {
  const EngineSetup setup = base_setup(topology(), 3, 4242);
  const State start = start_state(system_->system, 3);
  auto whole = make_gpu(setup, family());
  whole->set_state(start);
  whole->advance(1500);
  auto first = make_gpu(setup, family());
  first->set_state(start);
  first->advance(640);
  const State at = first->state();
  const State reference = first->neighbor_reference();
  ASSERT_EQ(reference.bead_count, at.bead_count);
  auto resumed = make_gpu(setup, family());
  resumed->set_state(at);
  resumed->restore_neighbor_reference(reference);
  resumed->advance(860);
  EXPECT_TRUE(bit_identical(whole->state(), resumed->state()));
}

TEST_P(CudaFamily, AgreesWithCpuUnderHeatingAndFixedBeads) {
  EngineSetup setup = base_setup(topology(), 2, 99);
  setup.temperature.start_kcal_per_mol = 0.6;
  setup.temperature.increment_kcal_per_mol = 0.05;
  setup.temperature.every_steps = 90;
  setup.temperature.stop_kcal_per_mol = 0.85;
  setup.fixed_beads = {0, 7, 33};
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family());
  const State start = start_state(system_->system, 2);
  cpu->set_state(start);
  gpu->set_state(start);
  cpu->advance(700);
  gpu->advance(700);
  const State& g = gpu->state();
  EXPECT_LE(max_abs_difference(cpu->state(), g), kTrajectoryTolerance_A);
  for (std::int32_t r = 0; r < 2; ++r)
    for (std::int32_t b : setup.fixed_beads) {
      const Vec3f p = g.position(r, b), q = start.position(r, b);
      EXPECT_EQ(p.x, q.x); EXPECT_EQ(p.y, q.y); EXPECT_EQ(p.z, q.z);
    }
}

TEST_P(CudaFamily, MinimisationAgreesWithCpu) {
  const EngineSetup setup = base_setup(topology(), 2, 3);
  State start = start_state(system_->system, 2);
  // Strain the structure so that there is something to relax.
  for (std::size_t k = 0; k < start.x.size(); ++k) start.x[k] *= 1.03f;
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family());
  cpu->set_state(start);
  gpu->set_state(start);
  const MinimizeResult a = cpu->minimize(400, 0.05, 0.1, {});
  const MinimizeResult b = gpu->minimize(400, 0.05, 0.1, {});
  EXPECT_EQ(a.converged, b.converged);
  EXPECT_NEAR(double(b.iterations), double(a.iterations), 0.05 * a.iterations + 2);
  const auto ea = cpu->energies();
  const auto eb = gpu->energies();
  for (std::int32_t r = 0; r < 2; ++r) EXPECT_NEAR(eb[r].total(), ea[r].total(), 1e-3 * std::abs(ea[r].total()) + 1e-2);
  EXPECT_EQ(gpu->state().step, 0);
  // The GPU's energies at its own final state are what the CPU computes there.
  auto check = make_cpu_engine(setup);
  check->set_state(gpu->state());
  const auto ec = check->energies();
  for (std::int32_t r = 0; r < 2; ++r) EXPECT_NEAR(eb[r].total(), ec[r].total(), 1e-5 * std::abs(ec[r].total()) + 1e-4);
}

// A stop request ends the GPU's minimisation as it does the CPU's: after as many
// iterations as it was asked and said no, every replica interrupted.
TEST_P(CudaFamily, AStopRequestEndsTheMinimisation) {
  const EngineSetup setup = base_setup(topology(), 2, 3);
  State start = start_state(system_->system, 2);
  for (std::size_t k = 0; k < start.x.size(); ++k) start.x[k] *= 1.03f;
  auto gpu = make_gpu(setup, family());
  gpu->set_state(start);
  int asked = 0;
  const MinimizeResult m = gpu->minimize(400, 1e-9, 0.1, [&] { return ++asked > 7; });
  EXPECT_TRUE(m.interrupted);
  EXPECT_FALSE(m.converged);
  EXPECT_EQ(m.iterations, 7);
  EXPECT_EQ(asked, 8);
}

// The two engines' positions (to float rounding), tether forces and plane forces agree.
void expect_positions_and_protocol_forces_agree(Engine& cpu, Engine& gpu) {
  EXPECT_LE(max_abs_difference(cpu.state(), gpu.state()), kTrajectoryTolerance_A) << "step " << cpu.state().step;
  const auto ta = cpu.tether_forces_kcal_per_mol_A(), tb = gpu.tether_forces_kcal_per_mol_A();
  ASSERT_EQ(ta.size(), tb.size());
  for (std::size_t k = 0; k < ta.size(); ++k) {
    EXPECT_NEAR(tb[k].x, ta[k].x, 5e-3); EXPECT_NEAR(tb[k].y, ta[k].y, 5e-3); EXPECT_NEAR(tb[k].z, ta[k].z, 5e-3);
  }
  const auto pa = cpu.plane_forces_kcal_per_mol_A(), pb = gpu.plane_forces_kcal_per_mol_A();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t k = 0; k < pa.size(); ++k) EXPECT_NEAR(pb[k], pa[k], 1e-2);
}

// A tether of `bead` whose anchor starts at `anchor` at `start_step` and moves at `velocity`.
HarmonicTether make_tether(std::int32_t bead, Vec3d anchor, Vec3d velocity, double spring, std::int64_t start_step,
                           std::int32_t replica = -1) {
  HarmonicTether t;
  t.bead = bead;
  t.replica = replica;
  t.anchor_start_A = anchor;
  t.anchor_velocity_A_per_tau = velocity;
  t.spring_kcal_per_mol_A2 = spring;
  t.start_step = start_step;
  return t;
}

// `bead` on a spring of 2 kcal/mol/Å² to a plane normal to y through its start position,
// moving at 0.3 Å/τ from `start_step`.
PlaneTether make_y_plane_tether(std::int32_t bead, const std::vector<Vec3d>& start_A, std::int64_t start_step,
                                std::int32_t group) {
  PlaneTether plane;
  plane.bead = bead;
  plane.normal = {0.0, 1.0, 0.0};
  plane.plane_start_A = start_A[bead].y;
  plane.speed_A_per_tau = 0.3;
  plane.spring_kcal_per_mol_A2 = 2.0;
  plane.start_step = start_step;
  plane.group = group;
  return plane;
}

// Three replicas with every per-bead protocol item: tethers (one per replica, a cantilever
// moving from step 50 in replica 1), force clamps (one in replica 2 only) on a ramped
// schedule, and plane tethers in two groups.
EngineSetup setup_with_every_protocol_item(const LoadedSystem& system, std::uint64_t seed) {
  const Topology& t = system.topology;
  const std::int32_t n = t.bead_count();
  EngineSetup setup = base_setup(t, 3, seed);
  const auto& p0 = system.initial_positions_A;
  setup.tethers = {make_tether(0, p0[0], {}, 1.0, 0), make_tether(n - 1, p0[n - 1], {0.2, 0.0, -0.1}, 0.5, 50, 1)};
  ExternalForce clamp;
  clamp.bead = 5;
  clamp.direction = {0.6, 0.0, 0.8};
  ExternalForce clamp2;
  clamp2.bead = 20;
  clamp2.replica = 2;
  clamp2.direction = {0.0, -1.0, 0.0};
  setup.external_forces = {clamp, clamp2};
  setup.force_schedule.points = {{0, 0.0}, {300, 3.0}, {500, 1.0}};
  setup.plane_tethers = {make_y_plane_tether(12, p0, 0, 0), make_y_plane_tether(13, p0, 0, 1)};
  setup.plane_groups = 2;
  return setup;
}

TEST_P(CudaFamily, ProtocolsAgreeWithCpu) {
  const EngineSetup setup = setup_with_every_protocol_item(system_->system, 2718);
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family());
  const State start = start_state(system_->system, 3);
  cpu->set_state(start);
  gpu->set_state(start);
  for (std::int64_t chunk : {200, 400}) {
    cpu->advance(chunk);
    gpu->advance(chunk);
    expect_positions_and_protocol_forces_agree(*cpu, *gpu);
    const auto ea = cpu->energies(), eb = gpu->energies();
    for (std::int32_t r = 0; r < 3; ++r) EXPECT_NEAR(eb[r].protocol, ea[r].protocol, 1e-2 * std::abs(ea[r].protocol) + 1e-2);
  }
}

// Pulling at experimental speeds takes 10⁸–10¹⁰ steps, past 2³² = 4.3·10⁹. The noise
// counter, the anchors, the force schedule and the plane must follow the 64-bit step
// there: a 32-bit step anywhere would repeat old noise or move a protocol back in time.
// Both engines start 250 steps before 2³² and cross it inside one advance (the block
// family: inside one launch).
TEST_P(CudaFamily, StepsPast2To32AgreeWithCpu) {
  constexpr std::int64_t kStart = (std::int64_t(1) << 32) - 250;
  const Topology& t = topology();
  const std::int32_t n = t.bead_count();
  EngineSetup setup = base_setup(t, 2, 31337);
  const auto& p0 = system_->system.initial_positions_A;
  // The cantilever's anchor starts behind its start position, then passes it.
  const HarmonicTether cantilever = make_tether(n - 1, p0[n - 1], {0.2, 0.0, -0.1}, 0.5, kStart + 50);
  setup.tethers = {make_tether(0, p0[0], {}, 1.0, kStart), cantilever};
  ExternalForce clamp;
  clamp.bead = 5;
  clamp.direction = {0.6, 0.0, 0.8};
  setup.external_forces = {clamp};
  setup.force_schedule.points = {{kStart + 100, 0.0}, {kStart + 300, 3.0}, {kStart + 450, 1.0}};
  setup.plane_tethers = {make_y_plane_tether(12, p0, kStart, 0)};
  setup.plane_groups = 1;
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family());
  State start = start_state(system_->system, 2);
  start.step = kStart;
  cpu->set_state(start);
  gpu->set_state(start);
  for (std::int64_t chunk : {200, 300}) {
    cpu->advance(chunk);
    gpu->advance(chunk);
    ASSERT_EQ(gpu->state().step, cpu->state().step);
    expect_positions_and_protocol_forces_agree(*cpu, *gpu);
  }
  EXPECT_EQ(gpu->state().step, kStart + 500);
  // The cantilever (replica 0's second tether) pulls with κ·(anchor − x), its anchor 450
  // steps of travel past its start at step 2³² + 250: several kcal/mol/Å, not the pull of
  // an anchor that wrapped around to 2³² steps before.
  const double h = setup.langevin.timestep_tau;
  const Vec3d anchor = cantilever.anchor_start_A + (450.0 * h) * cantilever.anchor_velocity_A_per_tau;
  const Vec3d want = cantilever.spring_kcal_per_mol_A2 * (anchor - vec_cast<double>(gpu->state().position(0, n - 1)));
  const Vec3d got = gpu->tether_forces_kcal_per_mol_A()[1];
  EXPECT_NEAR(got.x, want.x, 1e-3); EXPECT_NEAR(got.y, want.y, 1e-3); EXPECT_NEAR(got.z, want.z, 1e-3);
  EXPECT_GT(std::sqrt(norm2(want)), 1.0);
}

Indentation make_indentation(const LoadedSystem& s, bool discrete, bool move_surface) {
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
  ind.tip_start_A = {mean.x, mean.y, hi.z + 15.0 + 4.0};
  ind.base_start_A = ind.tip_start_A;
  ind.direction = {0, 0, -1};
  ind.speed_A_per_tau = 0.25;
  ind.spring_kcal_per_mol_A2 = 0.5;
  ind.tip_zeta = 5000.0;
  ind.retraction = RetractionTrigger::kStep;
  ind.retract_step = 350;
  ind.move_surface = move_surface;
  ind.surface.enabled = true;
  ind.surface.discrete = discrete;
  ind.surface.normal = {0, 0, 1};
  if (discrete) {
    ind.surface.point_A = {mean.x, mean.y, lo.z - 6.0};
    ind.surface.grid_size = 6;
    ind.surface.spacing_A = 8.0;
    ind.surface.wall = {1.0, -2.0, 5.0, 0.2, 0.0};
  } else {
    ind.surface.point_A = {mean.x, mean.y, lo.z - 8.0};
    ind.surface.wall = {1.0, -2.0, 8.0, 0.2, 0.0};
  }
  return ind;
}

// Tethers (a restraint in every replica, a moving cantilever in replica 1, another bead
// in replica 3) and two groups of plane tethers (the second in replica 2 only): what the
// report stops' protocol forces are tested with.
void add_report_protocols(EngineSetup& setup, const LoadedSystem& system) {
  const std::int32_t n = system.topology.bead_count();
  const auto& p0 = system.initial_positions_A;
  HarmonicTether restraint;  // every replica
  restraint.bead = 0;
  restraint.anchor_start_A = p0[0];
  restraint.spring_kcal_per_mol_A2 = 1.0;
  HarmonicTether cantilever;  // replica 1 only, moving
  cantilever.bead = n - 1;
  cantilever.replica = 1;
  cantilever.anchor_start_A = p0[n - 1];
  cantilever.anchor_velocity_A_per_tau = {0.2, 0.0, -0.1};
  cantilever.spring_kcal_per_mol_A2 = 0.5;
  HarmonicTether third = restraint;  // replica 3 only, another bead
  third.bead = 7;
  third.replica = 3;
  third.anchor_start_A = p0[7];
  setup.tethers = {restraint, cantilever, third};
  PlaneTether plane;  // two groups of plane tethers, the second in replica 2 only
  plane.bead = 12;
  plane.normal = {0.0, 1.0, 0.0};
  plane.plane_start_A = p0[12].y;
  plane.speed_A_per_tau = 0.3;
  plane.spring_kcal_per_mol_A2 = 2.0;
  PlaneTether plane2 = plane;
  plane2.bead = 13;
  plane2.replica = 2;
  plane2.group = 1;
  setup.plane_tethers = {plane, plane2};
  setup.plane_groups = 2;
}

// A report stop without a trajectory frame copies no positions back
// (docs/gpu.md#what-overlaps-the-steps): the gathered beads and the tether and plane
// forces from them must equal what the full state shows, and the stability screen on the GPU must
// flag every state the run's exact checks reject (run/stability_checks.h) and pass a
// healthy one.
TEST_P(CudaFamily, StopsWithoutAllPositionsSeeWhatTheStateShows) {
  const Topology& t = topology();
  const std::int32_t n = t.bead_count(), replicas = 5;
  EngineSetup setup = base_setup(t, replicas, 4242);
  add_report_protocols(setup, system_->system);
  auto gpu = make_gpu(setup, family());
  gpu->set_state(start_state(system_->system, replicas));
  gpu->advance(300);
  // The device paths first: state() makes the host copy current, which later calls use.
  const std::vector<std::int32_t> beads = {n - 1, 0, 7, 7};
  const std::vector<Vec3f> gathered = gpu->bead_positions(beads);
  const std::vector<Vec3d> forces = gpu->tether_forces_kcal_per_mol_A();
  const std::vector<double> planes = gpu->plane_forces_kcal_per_mol_A();
  const bool flagged = gpu->may_be_unstable();
  const State s = gpu->state();
  ASSERT_EQ(gathered.size(), beads.size() * replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::size_t k = 0; k < beads.size(); ++k) {
      const Vec3f a = gathered[std::size_t(r) * beads.size() + k], b = s.position(r, beads[k]);
      EXPECT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z) << "replica " << r << " bead " << beads[k];
    }
  const std::vector<Vec3d> expected = report_tether_forces(setup, s);
  ASSERT_EQ(forces.size(), expected.size());
  ASSERT_EQ(forces.size(), std::size_t(replicas + 2));
  for (std::size_t k = 0; k < forces.size(); ++k)
    EXPECT_TRUE(forces[k].x == expected[k].x && forces[k].y == expected[k].y && forces[k].z == expected[k].z) << k;
  EXPECT_EQ(planes, report_plane_forces(setup, s));
  EXPECT_NE(planes[2 * 2 + 1], 0.0);
  EXPECT_FALSE(flagged) << "300 steps of WW at the native state";
  EXPECT_THROW(gpu->bead_positions({n}), Error);
  // Later stops gather again (not the cached positions of an earlier step), also for a
  // bead not asked for before.
  gpu->advance(10);
  const std::vector<Vec3f> same_beads = gpu->bead_positions({7, n - 1});
  const std::vector<Vec3f> new_bead = gpu->bead_positions({3});
  const State s2 = gpu->state();
  ASSERT_EQ(s2.step, s.step + 10);
  for (std::int32_t r = 0; r < replicas; ++r) {
    const Vec3f got[] = {same_beads[2 * r], same_beads[2 * r + 1], new_bead[r]};
    const Vec3f want[] = {s2.position(r, 7), s2.position(r, n - 1), s2.position(r, 3)};
    for (int k = 0; k < 3; ++k)
      EXPECT_TRUE(got[k].x == want[k].x && got[k].y == want[k].y && got[k].z == want[k].z)
          << "10 steps later: replica " << r << " item " << k;
  }

  // The last bond of the chain (its end bead has no other bond) stretched in replica 3,
  // just beyond R0 and just within; a non-finite coordinate in the last replica.
  const float R0 = setup.sop.fene_R0_A;
  const auto last = std::find_if(t.bonds.begin(), t.bonds.end(), [&](const Bond& b) {
    return std::min(b.i, b.j) == n - 2 && std::max(b.i, b.j) == n - 1;
  });
  ASSERT_NE(last, t.bonds.end());
  const BondStretchCheck exact(t, R0);
  auto stretched = [&](double factor) {
    State u = s;
    const Vec3f from = s.position(3, n - 2), to = s.position(3, n - 1);
    const Vec3f d = to - from;
    u.set_position(3, n - 1, from + d * float((last->r0_A + R0 * factor) / norm(d)));
    return u;
  };
  std::vector<std::pair<std::string, State>> broken;
  for (const double factor : {1.001, 1.01, 1.5}) broken.emplace_back("r0 + R0·" + std::to_string(factor), stretched(factor));
  broken.emplace_back("beads on top of each other", s);  // too short: r0 = 3.8 Å > R0
  broken.back().second.set_position(3, n - 1, s.position(3, n - 2));
  for (const auto& [what, u] : broken) {
    EXPECT_THROW(exact(u, 0), Error) << what;
    gpu->set_state(u);
    EXPECT_TRUE(gpu->may_be_unstable()) << what;
  }
  for (const double factor : {0.99, 0.5, -0.5}) {  // −0.5: 1 Å short, within R0
    const State u = stretched(factor);
    EXPECT_NO_THROW(exact(u, 0)) << factor;
    gpu->set_state(u);
    EXPECT_FALSE(gpu->may_be_unstable()) << "bond at r0 + R0·" << factor;
  }
  for (const float bad : {NAN, INFINITY, -INFINITY}) {
    State u = s;
    u.z[u.index(replicas - 1, n / 2)] = bad;
    gpu->set_state(u);
    EXPECT_TRUE(gpu->may_be_unstable()) << bad;
  }
}

// A stop overlapped with the next steps (Engine::stop_and_advance, docs/gpu.md#what-
// overlaps-the-steps) gives the values of the stop taken first and the steps after it,
// bit for bit, also when the stop comes while earlier steps are still under way; a stop
// the screen flags returns the stop's positions, which the engine has moved past; a stop
// in turn in one go (Engine::take_stop) gives the values of the single calls. The
// block family overlaps (all pairs, tiles, lists; not under indentation, whose stops read
// the tip the next steps move); the per-bead family takes the stop and the steps in turn.
TEST_P(CudaFamily, OverlappedStopsGiveTheValuesOfStopsInTurn) {
  const Topology& t = topology();
  const std::int32_t n = t.bead_count(), replicas = 4;
  EngineSetup setup = base_setup(t, replicas, 2024);
  add_report_protocols(setup, system_->system);
  auto in_turn = make_gpu(setup, family());
  auto overlapped = make_gpu(setup, family());
  EXPECT_EQ(overlapped->overlaps_stops(), family() == CudaKernelFamily::kBlock);
  const State start = start_state(system_->system, replicas);
  in_turn->set_state(start);
  overlapped->set_state(start);
  in_turn->advance(200);
  overlapped->advance(200);
  StopRequest request;
  request.energies = true;
  request.end_first = 0;
  request.end_last = n - 1;
  request.beads = {n - 1, 0, 5};
  request.tether_forces = request.plane_forces = true;
  auto same_vec = [](const auto& a, const auto& b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
  auto expect_same = [&](const StopValues& a, const StopValues& b) {
    EXPECT_EQ(a.may_be_unstable, b.may_be_unstable);
    ASSERT_EQ(a.energies.size(), std::size_t(replicas));
    ASSERT_EQ(b.energies.size(), a.energies.size());
    ASSERT_EQ(b.structure.size(), a.structure.size());
    for (std::int32_t r = 0; r < replicas; ++r) {
      const EnergyTerms &x = a.energies[r], &y = b.energies[r];
      EXPECT_TRUE(x.fene == y.fene && x.native == y.native && x.repulsive == y.repulsive && x.protocol == y.protocol);
      EXPECT_NE(x.protocol, 0.0);
      const StructureObservables &u = a.structure[r], &v = b.structure[r];
      EXPECT_TRUE(u.native_fraction == v.native_fraction && u.radius_of_gyration_A == v.radius_of_gyration_A &&
                  u.end_to_end_A == v.end_to_end_A);
    }
    ASSERT_EQ(b.bead_positions.size(), request.beads.size() * replicas);
    for (std::size_t k = 0; k < a.bead_positions.size(); ++k)
      EXPECT_TRUE(same_vec(a.bead_positions[k], b.bead_positions[k])) << k;
    ASSERT_EQ(b.tether_forces_kcal_per_mol_A.size(), std::size_t(replicas + 2));
    for (std::size_t k = 0; k < a.tether_forces_kcal_per_mol_A.size(); ++k)
      EXPECT_TRUE(same_vec(a.tether_forces_kcal_per_mol_A[k], b.tether_forces_kcal_per_mol_A[k])) << k;
    EXPECT_EQ(a.plane_forces_kcal_per_mol_A, b.plane_forces_kcal_per_mol_A);
    if (request.positions) EXPECT_TRUE(bit_identical(a.positions, b.positions));
    else EXPECT_TRUE(b.positions.x.empty());
  };
  for (int stop = 0; stop < 5; ++stop) {
    SCOPED_TRACE("stop " + std::to_string(stop));
    request.positions = stop % 2 == 1;
    const std::int64_t next = 150 + 7 * stop;
    const StopValues a = take_stop_values(*in_turn, request);
    {
      SCOPED_TRACE("the engine's own take_stop against the single calls");
      expect_same(a, in_turn->take_stop(request));
    }
    in_turn->advance(next);
    const StopValues b = overlapped->stop_and_advance(request, next);
    EXPECT_FALSE(b.may_be_unstable);
    expect_same(a, b);
  }
  // The single calls after an overlapped stop see the steps since, not the stop.
  const std::vector<Vec3f> ends = in_turn->bead_positions({n - 1, 0});
  const std::vector<Vec3f> ends_after = overlapped->bead_positions({n - 1, 0});
  const std::vector<Vec3d> forces = in_turn->tether_forces_kcal_per_mol_A(),
                           forces_after = overlapped->tether_forces_kcal_per_mol_A();
  ASSERT_EQ(ends_after.size(), ends.size());
  for (std::size_t k = 0; k < ends.size(); ++k) EXPECT_TRUE(same_vec(ends[k], ends_after[k])) << k;
  ASSERT_EQ(forces_after.size(), forces.size());
  for (std::size_t k = 0; k < forces.size(); ++k) EXPECT_TRUE(same_vec(forces[k], forces_after[k])) << k;
  EXPECT_EQ(in_turn->plane_forces_kcal_per_mol_A(), overlapped->plane_forces_kcal_per_mol_A());
  const State at = in_turn->state();
  EXPECT_TRUE(bit_identical(at, overlapped->state()));
  // A non-finite coordinate: the screen flags the stop, and the values carry its positions.
  State broken = at;
  broken.z[broken.index(replicas - 1, n / 2)] = NAN;
  overlapped->set_state(broken);
  request.positions = false;
  const StopValues flagged = overlapped->stop_and_advance(request, 5);
  EXPECT_TRUE(flagged.may_be_unstable);
  EXPECT_TRUE(bit_identical(flagged.positions, broken));
  EXPECT_EQ(overlapped->state().step, broken.step + 5);
  in_turn->set_state(broken);
  const StopValues flagged_in_turn = in_turn->take_stop(request);
  EXPECT_TRUE(flagged_in_turn.may_be_unstable);
  if (!flagged_in_turn.positions.x.empty()) EXPECT_TRUE(bit_identical(flagged_in_turn.positions, broken));
  if (family() == CudaKernelFamily::kBlock && !GetParam().tiles) {
    EngineSetup indented = setup;
    indented.indentation = make_indentation(system_->system, false, false);
    EXPECT_FALSE(make_gpu(indented, family())->overlaps_stops()) << "all pairs under indentation: in turn";
    setenv("ERMAK_CUDA_BLOCK_ALLPAIRS", "0", 1);
    EXPECT_TRUE(make_gpu(setup, family())->overlaps_stops());
    EngineSetup indenting = setup;
    indenting.indentation = make_indentation(system_->system, false, false);
    EXPECT_FALSE(make_gpu(indenting, family())->overlaps_stops()) << "lists under indentation: in turn";
    unsetenv("ERMAK_CUDA_BLOCK_ALLPAIRS");
    setenv("ERMAK_OVERLAP_STOPS", "0", 1);
    EXPECT_FALSE(make_gpu(setup, family())->overlaps_stops());
    unsetenv("ERMAK_OVERLAP_STOPS");
  }
}

// The block family with lists runs its launches ahead too: where a launch's rows
// overflow (forced here by rows of 8 slots, ERMAK_CUDA_BLOCK_SLOTS), its blocks stop
// short, and the launches behind them start from there. A settle (advance) runs them on
// to the end; an overlapped stop takes back the steps launched behind it, runs on to the
// stop and takes it in turn — in both cases the same bits as rows that never overflow,
// across the segments of a heating schedule.
TEST(CudaEngine, BlockListsThatOverflowInLaunchesRunAheadGiveTheSameBits) {
  ERMAK_REQUIRE_GPU();
  const auto sys = load_test_system("ww");
  if (!sys) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const Topology& t = sys->system.topology;
  const std::int32_t n = t.bead_count(), replicas = 6;
  EngineSetup setup = base_setup(t, replicas, 777);
  setup.temperature.increment_kcal_per_mol = 0.01;
  setup.temperature.every_steps = 64;
  setup.temperature.stop_kcal_per_mol = 2.0;
  add_report_protocols(setup, sys->system);
  // Engines read these whenever they configure themselves (rows that grow reconfigure), so
  // they stay set while the engines run.
  struct ListsForced {
    ListsForced() { setenv("ERMAK_CUDA_BLOCK_ALLPAIRS", "0", 1); }
    ~ListsForced() { unsetenv("ERMAK_CUDA_BLOCK_ALLPAIRS"); unsetenv("ERMAK_CUDA_BLOCK_SLOTS"); }
  } lists_forced;
  setenv("ERMAK_OVERLAP_STOPS", "0", 1);
  auto in_turn = make_gpu(setup, CudaKernelFamily::kBlock);  // rows of all n − 1 partners: no overflow
  unsetenv("ERMAK_OVERLAP_STOPS");
  setenv("ERMAK_CUDA_BLOCK_SLOTS", "8", 1);
  auto settled = make_gpu(setup, CudaKernelFamily::kBlock);
  auto overlapped = make_gpu(setup, CudaKernelFamily::kBlock);
  ASSERT_EQ(cuda_kernel_layout(*overlapped).substr(0, 11), "block/list/") << cuda_kernel_layout(*overlapped);
  EXPECT_FALSE(in_turn->overlaps_stops());
  ASSERT_TRUE(overlapped->overlaps_stops());
  const State start = start_state(sys->system, replicas);
  for (auto* e : {in_turn.get(), settled.get(), overlapped.get()}) e->set_state(start);

  // Through settle(): the launch overflows at its first build (step 0).
  in_turn->advance(200);
  settled->advance(200);
  EXPECT_TRUE(bit_identical(in_turn->state(), settled->state()));
  EXPECT_EQ(in_turn->stats().neighbor_pairs, settled->stats().neighbor_pairs);
  EXPECT_GT(settled->stats().neighbor_rebuilds, 0);

  // Through a stop: the first stop launches the steps that overflow, the second finds
  // them stopped short.
  in_turn->set_state(start);
  StopRequest request;
  request.energies = true;
  request.end_first = 0;
  request.end_last = n - 1;
  request.beads = {n - 1, 0};
  request.tether_forces = true;
  for (int stop = 0; stop < 4; ++stop) {
    SCOPED_TRACE("stop " + std::to_string(stop));
    request.positions = stop == 1;
    const std::int64_t next = 150 + 13 * stop;
    const StopValues a = take_stop_values(*in_turn, request);
    in_turn->advance(next);
    const StopValues b = overlapped->stop_and_advance(request, next);
    ASSERT_EQ(b.energies.size(), a.energies.size());
    for (std::int32_t r = 0; r < replicas; ++r) {
      const EnergyTerms &x = a.energies[r], &y = b.energies[r];
      EXPECT_TRUE(x.fene == y.fene && x.native == y.native && x.repulsive == y.repulsive && x.protocol == y.protocol)
          << r;
      EXPECT_EQ(a.structure[r].radius_of_gyration_A, b.structure[r].radius_of_gyration_A) << r;
    }
    ASSERT_EQ(b.bead_positions.size(), a.bead_positions.size());
    for (std::size_t k = 0; k < a.bead_positions.size(); ++k)
      EXPECT_TRUE(a.bead_positions[k].x == b.bead_positions[k].x && a.bead_positions[k].y == b.bead_positions[k].y &&
                  a.bead_positions[k].z == b.bead_positions[k].z)
          << k;
    if (request.positions) EXPECT_TRUE(bit_identical(a.positions, b.positions));
  }
  EXPECT_TRUE(bit_identical(in_turn->state(), overlapped->state()));
  EXPECT_EQ(in_turn->stats().neighbor_pairs, overlapped->stats().neighbor_pairs);
}

// A generator whose noise is drawn ahead into the device's ring (docs/gpu.md#noise) and
// read by the step kernels, with a fixed bead, against the CPU.
TEST_P(CudaFamily, StoredNoiseAgreesWithCpu) {
  EngineSetup setup = base_setup(topology(), 3, 1357);
  setup.rng = "lagged_fibonacci";
  setup.rng_layout = "shared";
  setup.fixed_beads = {9};
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family());
  const State start = start_state(system_->system, 3);
  cpu->set_state(start);
  gpu->set_state(start);
  for (std::int64_t chunk : {137, 300, 63}) {
    cpu->advance(chunk);
    gpu->advance(chunk);
    ASSERT_LE(max_abs_difference(cpu->state(), gpu->state()), kTrajectoryTolerance_A) << "at step " << cpu->state().step;
  }
  EXPECT_GT(max_abs_difference(start, gpu->state()), 0.1);  // the beads did move
  EXPECT_EQ(gpu->noise_state(), cpu->noise_state());
}

// The per-bead family does the tip's work in a kernel of its own before the step kernel
// (the default), or in its step kernel (ERMAK_CUDA_TIP_KERNEL=0): both against the CPU.
// With the tip kernel, the step kernel without other protocol code (runs 3–5) and the one
// with per-bead items too (runs 6–7: a restraint on bead 0). With cluster rows, the
// step kernel's tiles split each cluster over 4, 1 or 2 warps by turns.
TEST_P(CudaFamily, IndentationAgreesWithCpu) {
  for (int run = 0; run < 8; ++run) {
    const int variant = run % 3;
    const bool tip_kernel = run >= 3, tethered = run >= 6;
    const char* const splits[] = {"4", "1", "2"};
    const char* split = splits[(run / 2) % 3];
    setenv("ERMAK_CUDA_TIP_KERNEL", tip_kernel ? "1" : "0", 1);  // read whenever the engine configures itself
    setenv("ERMAK_CUDA_CLUSTER_SPLIT", split, 1);
    SCOPED_TRACE("variant " + std::to_string(variant) + (tip_kernel ? ", tip kernel" : "") +
                 (tethered ? ", tethered" : "") + ", cluster split " + split);
    EngineSetup setup = base_setup(topology(), 2, 31415);
    setup.indentation = make_indentation(system_->system, variant == 1, variant == 2);
    if (tethered) {
      HarmonicTether restraint;
      restraint.bead = 0;
      restraint.anchor_start_A = system_->system.initial_positions_A[0];
      restraint.spring_kcal_per_mol_A2 = 1.0;
      setup.tethers = {restraint};
    }
    auto cpu = make_cpu_engine(setup);
    auto gpu = make_gpu(setup, family());
    const State start = start_state(system_->system, 2);
    cpu->set_state(start);
    gpu->set_state(start);
    for (std::int64_t chunk : {300, 300}) {
      cpu->advance(chunk);
      gpu->advance(chunk);
      EXPECT_LE(max_abs_difference(cpu->state(), gpu->state()), kTrajectoryTolerance_A) << "step " << cpu->state().step;
      const auto a = cpu->indentation_status(), b = gpu->indentation_status();
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t r = 0; r < a.size(); ++r) {
        EXPECT_EQ(b[r].turnaround_step, a[r].turnaround_step);
        EXPECT_NEAR(b[r].tip_A.z, a[r].tip_A.z, 1e-4);
        EXPECT_NEAR(b[r].base_A.z, a[r].base_A.z, 1e-9);
        EXPECT_NEAR(b[r].molecule_force_kcal_per_mol_A.z, a[r].molecule_force_kcal_per_mol_A.z, 1e-3 * std::abs(a[r].molecule_force_kcal_per_mol_A.z) + 1e-3);
        EXPECT_NEAR(b[r].spring_force_kcal_per_mol_A.z, a[r].spring_force_kcal_per_mol_A.z, 1e-3);
      }
      const auto ea = cpu->energies(), eb = gpu->energies();
      for (std::size_t r = 0; r < ea.size(); ++r)
        EXPECT_NEAR(eb[r].protocol, ea[r].protocol, 1e-3 * std::abs(ea[r].protocol) + 1e-3);
    }
    EXPECT_EQ(cpu->indentation_status()[0].turnaround_step, 350);
    // Protocol state round trip (checkpoints).
    const auto saved = gpu->protocol_state();
    const auto cpu_saved = cpu->protocol_state();
    ASSERT_EQ(saved.size(), cpu_saved.size());
    for (std::size_t k = 0; k < saved.size(); ++k) EXPECT_NEAR(saved[k], cpu_saved[k], 1e-4);
    auto other = make_gpu(setup, family());
    other->set_state(gpu->state());
    other->restore_protocol_state(saved);
    EXPECT_EQ(other->protocol_state(), saved);
    other.reset();
    gpu.reset();
    unsetenv("ERMAK_CUDA_TIP_KERNEL");
    unsetenv("ERMAK_CUDA_CLUSTER_SPLIT");
  }
}

// Forces and energies at one state, every protocol term included: the CPU engine is set to the
// GPU's state (and protocol state) after a stretch of dynamics, so that the comparison sees
// only the arithmetic, not trajectories apart. Same physics/ functions on the same floats: a
// term differs by fused multiply-adds and the summation order (relative ~1e-6), so 1e-4 +
// 1e-5·max|F| and 1e-5 in the energies; a missing or doubled protocol term is ≥ 1e-2.
void expect_forces_and_energies_agree_at_the_gpus_state(Engine& gpu, Engine& cpu) {
  cpu.set_state(gpu.state());
  cpu.restore_protocol_state(gpu.protocol_state());
  const State f_gpu = gpu.forces(), f_cpu = cpu.forces();
  double largest = 0.0;
  for (const auto* c : {&f_cpu.x, &f_cpu.y, &f_cpu.z})
    for (float v : *c) largest = std::max(largest, double(std::abs(v)));
  EXPECT_LE(max_abs_difference(f_cpu, f_gpu), 1e-4 + 1e-5 * largest)
      << "step " << gpu.state().step << ", largest force component " << largest;
  const auto e_gpu = gpu.energies(), e_cpu = cpu.energies();
  ASSERT_EQ(e_gpu.size(), e_cpu.size());
  for (std::size_t r = 0; r < e_cpu.size(); ++r) {
    SCOPED_TRACE("replica " + std::to_string(r) + ", step " + std::to_string(gpu.state().step));
    EXPECT_NEAR(e_gpu[r].fene, e_cpu[r].fene, 1e-5 * (std::abs(e_cpu[r].fene) + 1));
    EXPECT_NEAR(e_gpu[r].native, e_cpu[r].native, 1e-5 * (std::abs(e_cpu[r].native) + 1));
    EXPECT_NEAR(e_gpu[r].repulsive, e_cpu[r].repulsive, 1e-5 * (std::abs(e_cpu[r].repulsive) + 1));
    EXPECT_NEAR(e_gpu[r].protocol, e_cpu[r].protocol, 1e-5 * (std::abs(e_cpu[r].protocol) + 1));
  }
  const auto s_gpu = gpu.indentation_status(), s_cpu = cpu.indentation_status();
  ASSERT_EQ(s_gpu.size(), s_cpu.size());
  for (std::size_t r = 0; r < s_cpu.size(); ++r) {
    SCOPED_TRACE("indentation, replica " + std::to_string(r));
    const auto near = [](const Vec3d& a, const Vec3d& b, double tolerance) {
      EXPECT_NEAR(a.x, b.x, tolerance); EXPECT_NEAR(a.y, b.y, tolerance); EXPECT_NEAR(a.z, b.z, tolerance);
    };
    near(s_gpu[r].tip_A, s_cpu[r].tip_A, 1e-9);
    near(s_gpu[r].base_A, s_cpu[r].base_A, 1e-9);
    const double molecule = std::sqrt(norm2(s_cpu[r].molecule_force_kcal_per_mol_A));
    near(s_gpu[r].molecule_force_kcal_per_mol_A, s_cpu[r].molecule_force_kcal_per_mol_A, 1e-4 + 1e-5 * molecule);
    near(s_gpu[r].spring_force_kcal_per_mol_A, s_cpu[r].spring_force_kcal_per_mol_A, 1e-6);
    near(s_gpu[r].surface_force_kcal_per_mol_A, s_cpu[r].surface_force_kcal_per_mol_A, 1e-4);
    EXPECT_EQ(s_gpu[r].turnaround_step, s_cpu[r].turnaround_step);
  }
}

// Every per-bead protocol item (setup_with_every_protocol_item): at the start (the clamp's
// schedule at 0) and after 400 steps (at 8/3 of its unit force), forces and energies at the
// GPU's state.
TEST_P(CudaFamily, ForcesWithProtocolsAgreeWithCpuAtTheGpusState) {
  const EngineSetup setup = setup_with_every_protocol_item(system_->system, 1618);
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, family());
  gpu->set_state(start_state(system_->system, 3));
  expect_forces_and_energies_agree_at_the_gpus_state(*gpu, *cpu);
  gpu->advance(400);
  expect_forces_and_energies_agree_at_the_gpus_state(*gpu, *cpu);
}

// The evaluation kernel's two layouts (eight rounds of four beads per warp, a bead per lane
// after them, or one round: eval_kernels.cu, chosen by the run's size) give each bead the
// very same sums: forces and energies with every protocol item, and with an indentation tip
// (the molecule's force on it), bit for bit.
TEST_P(CudaFamily, EvaluationLayoutsGiveTheSameBits) {
  EngineSetup indented = base_setup(topology(), 3, 31);
  indented.indentation = make_indentation(system_->system, false, false);
  for (const EngineSetup& setup : {setup_with_every_protocol_item(system_->system, 1618), indented}) {
    SCOPED_TRACE(setup.indentation.enabled ? "indentation" : "every protocol item");
    struct Evaluated {
      State forces;
      std::vector<EnergyTerms> energies;
      std::vector<IndentationStatus> tips;
    };
    auto evaluate = [&](const char* rounds) {
      setenv("ERMAK_CUDA_EVAL_ROUNDS", rounds, 1);
      auto gpu = make_gpu(setup, family());
      gpu->set_state(start_state(system_->system, 3));
      gpu->advance(300);
      Evaluated e{gpu->forces(), gpu->energies(), gpu->indentation_status()};
      unsetenv("ERMAK_CUDA_EVAL_ROUNDS");
      return e;
    };
    const Evaluated one = evaluate("1"), eight = evaluate("8");
    EXPECT_TRUE(bit_identical(one.forces, eight.forces));
    ASSERT_EQ(one.energies.size(), eight.energies.size());
    for (std::size_t r = 0; r < one.energies.size(); ++r) {
      EXPECT_EQ(one.energies[r].fene, eight.energies[r].fene);
      EXPECT_EQ(one.energies[r].native, eight.energies[r].native);
      EXPECT_EQ(one.energies[r].repulsive, eight.energies[r].repulsive);
      EXPECT_EQ(one.energies[r].protocol, eight.energies[r].protocol);
      EXPECT_NE(one.energies[r].repulsive, 0.0);
    }
    ASSERT_EQ(one.tips.size(), eight.tips.size());
    for (std::size_t r = 0; r < one.tips.size(); ++r) {
      EXPECT_EQ(one.tips[r].tip_A.x, eight.tips[r].tip_A.x);
      EXPECT_EQ(one.tips[r].molecule_force_kcal_per_mol_A.z, eight.tips[r].molecule_force_kcal_per_mol_A.z);
    }
  }
  setenv("ERMAK_CUDA_EVAL_ROUNDS", "2", 1);
  EXPECT_THROW(
      {
        auto gpu = make_gpu(base_setup(topology(), 1, 1), family());
        gpu->set_state(start_state(system_->system, 1));
        gpu->energies();
      },
      Error);
  unsetenv("ERMAK_CUDA_EVAL_ROUNDS");
}

// The tip in contact: make_indentation's tip starts 4 Å above the molecule with the default
// friction (ζ_tip = 5000), so its tip–bead force stays below 1e-3 kcal/mol/Å; here it starts
// 1 Å above with ζ_tip = 10, lags ζ_tip·v/κ = 5 Å behind its base and presses the molecule
// onto the surface with several kcal/mol/Å. Free in space (tip_along_direction_only false) as
// well as on its line; trajectories to kTrajectoryTolerance_A, every status component, and
// forces and energies at the GPU's state to float rounding.
TEST_P(CudaFamily, IndentationInContactAgreesWithCpu) {
  for (const bool along_only : {true, false}) {
    SCOPED_TRACE(along_only ? "tip on its line" : "tip free in space");
    EngineSetup setup = base_setup(topology(), 2, 27182);
    Indentation ind = make_indentation(system_->system, false, false);
    ind.tip_zeta = 10.0;
    ind.tip_start_A.z -= 3.0;
    ind.base_start_A = ind.tip_start_A;
    ind.tip_along_direction_only = along_only;
    ind.retract_step = 450;
    setup.indentation = ind;
    auto cpu = make_cpu_engine(setup);
    auto gpu = make_gpu(setup, family());
    const State start = start_state(system_->system, 2);
    cpu->set_state(start);
    gpu->set_state(start);
    double largest_contact = 0.0;
    for (std::int64_t chunk : {200, 200, 200}) {
      cpu->advance(chunk);
      gpu->advance(chunk);
      EXPECT_LE(max_abs_difference(cpu->state(), gpu->state()), kTrajectoryTolerance_A) << "step " << cpu->state().step;
      const auto a = cpu->indentation_status(), b = gpu->indentation_status();
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t r = 0; r < a.size(); ++r) {
        EXPECT_EQ(b[r].turnaround_step, a[r].turnaround_step);
        const double molecule = std::sqrt(norm2(a[r].molecule_force_kcal_per_mol_A));
        largest_contact = std::max(largest_contact, molecule);
        for (int k = 0; k < 3; ++k) {
          const auto c = [k](const Vec3d& v) { return k == 0 ? v.x : k == 1 ? v.y : v.z; };
          EXPECT_NEAR(c(b[r].tip_A), c(a[r].tip_A), 1e-3) << "component " << k;
          EXPECT_NEAR(c(b[r].base_A), c(a[r].base_A), 1e-9) << "component " << k;
          EXPECT_NEAR(c(b[r].molecule_force_kcal_per_mol_A), c(a[r].molecule_force_kcal_per_mol_A), 1e-2 * molecule + 1e-3)
              << "component " << k;
          EXPECT_NEAR(c(b[r].spring_force_kcal_per_mol_A), c(a[r].spring_force_kcal_per_mol_A), 1e-3)
              << "component " << k;
        }
        // On its line the tip moves along z only; free, the contact pushes it sideways too.
        if (along_only) {
          EXPECT_EQ(b[r].tip_A.x, ind.tip_start_A.x);
          EXPECT_EQ(b[r].tip_A.y, ind.tip_start_A.y);
        }
      }
      expect_forces_and_energies_agree_at_the_gpus_state(*gpu, *cpu);
    }
    EXPECT_GT(largest_contact, 1.0) << "the tip never pressed on the molecule: the test would not see its terms";
    EXPECT_EQ(cpu->indentation_status()[0].turnaround_step, 450);
  }
}

INSTANTIATE_TEST_SUITE_P(Families, CudaFamily,
                         ::testing::Values(FamilyVariant{CudaKernelFamily::kBlock},
                                           FamilyVariant{CudaKernelFamily::kBlock, false, true},
                                           FamilyVariant{CudaKernelFamily::kBlock, false, true, true},
                                           FamilyVariant{CudaKernelFamily::kPerBead},
                                           FamilyVariant{CudaKernelFamily::kPerBead, true}),
                         family_param_name);

// ---------------------------------------------------------------------------------------

TEST(CudaEngine, BlockFamilyIsIndependentOfReplicaCountAndGrouping) {
  ERMAK_REQUIRE_GPU();
  const auto s = load_test_system("ww");
  if (!s) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  // Rows are canonical: replica 0 of a 20-replica run has the bits of a 1-replica run
  // (both at 8 lanes per bead; many replicas per block: the next test).
  auto run = [&](std::int32_t replicas) {
    auto gpu = make_gpu(base_setup(s->system.topology, replicas, 9), CudaKernelFamily::kBlock);
    State start(s->system.topology.bead_count(), replicas);
    for (std::int32_t r = 0; r < replicas; ++r)
      for (std::int32_t i = 0; i < start.bead_count; ++i)
        start.set_position(r, i, vec_cast<float>(s->system.initial_positions_A[i]));
    gpu->set_state(start);
    gpu->advance(800);
    return gpu->state();
  };
  const State one = run(1), many = run(20);
  const std::size_t n = std::size_t(one.bead_count);
  EXPECT_EQ(std::memcmp(one.x.data(), many.x.data(), n * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(one.z.data(), many.z.data(), n * sizeof(float)), 0);
}

// At one lane per bead the all-pairs mode (fixed rows packed per lane, bonds and contacts
// as records in shared memory) and the list mode (rows built on the GPU, bonded lists read
// from global memory) sum the same terms in the same order — pairs beyond the cutoff add
// exact zeros — so they must give the same bits (docs/benchmarks.md#packed-repulsive-rows).
TEST(CudaEngine, BlockFamilyAllPairsAndListModesGiveTheSameBits) {
  ERMAK_REQUIRE_GPU();
  // λ repressor (179 beads): the all-pairs mode above 128 beads (16-bit offsets of partners
  // beyond bead 127).
  for (const char* name : {"ww", "ubq", "lmb"}) {
    const auto s = load_test_system(name);
    if (!s) FAIL() << name << " test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
    SCOPED_TRACE(name);
    const std::int32_t replicas = 20;
    const EngineSetup setup = base_setup(s->system.topology, replicas, 77);
    const State start = start_state(s->system, replicas);
    auto run = [&](const char* all_pairs) {
      setenv("ERMAK_CUDA_BLOCK_LANES", "1", 1);  // read whenever the engine configures itself
      setenv("ERMAK_CUDA_BLOCK_ALLPAIRS", all_pairs, 1);
      setenv("ERMAK_CUDA_ALLPAIRS_MAX_BEADS", "255", 1);
      auto gpu = make_gpu(setup, CudaKernelFamily::kBlock);
      const std::string layout = cuda_kernel_layout(*gpu);
      EXPECT_EQ(layout.substr(0, layout.find('/', 6)), all_pairs[0] == '1' ? "block/ap" : "block/list") << layout;
      gpu->set_state(start);
      gpu->advance(1000);
      unsetenv("ERMAK_CUDA_BLOCK_LANES");
      unsetenv("ERMAK_CUDA_BLOCK_ALLPAIRS");
      unsetenv("ERMAK_CUDA_ALLPAIRS_MAX_BEADS");
      return gpu->state();
    };
    const State all_pairs = run("1"), list = run("0");
    EXPECT_TRUE(bit_identical(all_pairs, list));
    EXPECT_GT(max_abs_difference(start, all_pairs), 0.1);  // the beads did move
  }
}

// One replica of 179 beads (λ repressor) at two or four lanes per bead needs a block of
// 576 or 928 threads: the variants compiled for 1024 (docs/gpu.md#kernel-families), in the
// list mode and in the all-pairs mode (each forced), against the CPU.
TEST(CudaEngine, BlockFamilyLanesInBlocksOfMoreThan512ThreadsAgreeWithCpu) {
  ERMAK_REQUIRE_GPU();
  const auto s = load_test_system("lmb");
  if (!s) FAIL() << "1LMB test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const EngineSetup setup = base_setup(s->system.topology, 1, 515);
  const State start = start_state(s->system, 1);
  const State reference = cpu_reference(setup, start, 1000);
  for (const std::string lanes : {"2", "4"})
    for (const std::string limit : {"0", "255"}) {
      SCOPED_TRACE("ERMAK_CUDA_BLOCK_LANES=" + lanes + " ERMAK_CUDA_ALLPAIRS_MAX_BEADS=" + limit);
      setenv("ERMAK_CUDA_BLOCK_LANES", lanes.c_str(), 1);  // read whenever the engine configures itself
      setenv("ERMAK_CUDA_ALLPAIRS_MAX_BEADS", limit.c_str(), 1);
      auto gpu = make_gpu(setup, CudaKernelFamily::kBlock);
      EXPECT_EQ(cuda_kernel_layout(*gpu), (limit == "0" ? "block/list/S" : "block/ap/S") + lanes + "/g1");
      gpu->set_state(start);
      gpu->advance(1000);
      unsetenv("ERMAK_CUDA_BLOCK_LANES");
      unsetenv("ERMAK_CUDA_ALLPAIRS_MAX_BEADS");
      EXPECT_LE(max_abs_difference(reference, gpu->state()), kTrajectoryTolerance_A);
      EXPECT_GT(max_abs_difference(start, gpu->state()), 0.1);  // the beads did move
    }
}

// The lanes per bead follow the run's size, with the edges of the lane rule
// (docs/benchmarks.md#lanes-per-bead-between-100-and-1000-replicas), which scale with the
// threads the GPU holds at once (budget: SMs × 2048 on an H100): S = 8 while beads × 8 ≤
// budget / 8, S = 4 while beads × 4 ≤ 0.275 · budget, S = 2 while beads × 2 ≤ budget / 2,
// else 1 (WW: 34 beads; on an H100 the edges are 124, 546 and 1987 replicas).
TEST(CudaEngine, BlockFamilyLanesPerBeadFollowTheRunSize) {
  ERMAK_REQUIRE_GPU();
  const auto s = load_test_system("ww");
  if (!s) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const long long n = s->system.topology.bead_count();
  const long long budget = cuda_resident_threads();
  ASSERT_GT(budget, 0);
  setenv("ERMAK_CUDA_BLOCK_TILES", "0", 1);  // the lanes kernels only (the tiles: the next test)
  auto lanes_at = [&](long long replicas) {
    auto gpu = make_gpu(base_setup(s->system.topology, std::int32_t(replicas), 3), CudaKernelFamily::kBlock);
    const std::string layout = cuda_kernel_layout(*gpu);
    const std::size_t at = layout.find("/S");
    EXPECT_NE(at, std::string::npos) << layout;
    return at == std::string::npos ? 0 : std::atoi(layout.c_str() + at + 2);
  };
  const struct { long long last_replicas; int lanes, next; } edges[] = {
      {budget / 8 / (8 * n), 8, 4}, {budget * 55 / 200 / (4 * n), 4, 2}, {budget / 2 / (2 * n), 2, 1}};
  EXPECT_EQ(lanes_at(1), 8);
  for (const auto& e : edges) {
    SCOPED_TRACE("replicas " + std::to_string(e.last_replicas));
    EXPECT_EQ(lanes_at(e.last_replicas), e.lanes);
    EXPECT_EQ(lanes_at(e.last_replicas + 1), e.next);
  }
  unsetenv("ERMAK_CUDA_BLOCK_TILES");
}

// The tiles layout replaces the lanes kernels where those would run 2 lanes per bead, or 4
// with at least thread_budget / 32 beads in the run (WW on an H100: 249 to 1987 replicas),
// for replicas of 8 to 64 beads, not under indentation; its bead threads are apart from
// the tile threads while T + n threads per replica stay within thread_budget / 3 (WW:
// 1140 replicas) (docs/gpu.md#tiles). ERMAK_CUDA_BLOCK_TILES=1 forces it wherever it
// applies, ERMAK_CUDA_TILE_BEADS_APART=0|1 the bead threads' place.
TEST(CudaEngine, BlockFamilyTilesWhereTheyWereMeasuredFaster) {
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  const auto ubq = load_test_system("ubq");
  if (!ww || !ubq) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const long long n = ww->system.topology.bead_count();
  const long long budget = cuda_resident_threads();
  // (The lane rule gives 4 lanes from budget / 8 / (8 n) + 1 replicas: 125 WW on an H100.)
  const long long first = std::max(budget / 8 / (8 * n) + 1, (budget / 32 + n - 1) / n);
  const long long last = budget / 2 / (2 * n);
  const long long last_apart = budget / 3 / (pair_tile_count(int(n)) + n);
  ASSERT_LT(first, last_apart);
  ASSERT_LT(last_apart, last);
  auto layout_of = [](const EngineSetup& setup) {
    return cuda_kernel_layout(*make_gpu(setup, CudaKernelFamily::kBlock));
  };
  auto is_tiles = [](const std::string& layout) { return layout.rfind("block/tiles/", 0) == 0; };
  auto is_apart = [](const std::string& layout) { return layout.rfind("block/tiles/apart/", 0) == 0; };
  const Topology& t = ww->system.topology;
  auto ww_layout = [&](long long replicas) { return layout_of(base_setup(t, std::int32_t(replicas), 3)); };
  EXPECT_EQ(ww_layout(first - 1).substr(0, 11), "block/ap/S4");
  EXPECT_TRUE(is_apart(ww_layout(first)));
  EXPECT_TRUE(is_apart(ww_layout(last_apart)));
  const std::string shared = ww_layout(last_apart + 1);
  EXPECT_TRUE(is_tiles(shared) && !is_apart(shared)) << shared;
  EXPECT_TRUE(is_tiles(ww_layout(last)));
  EXPECT_EQ(ww_layout(last + 1).substr(0, 11), "block/ap/S1");
  // Ubiquitin's 76 beads: 2 lanes per bead at 300 replicas, but no tiles.
  EXPECT_EQ(layout_of(base_setup(ubq->system.topology, 300, 3)).substr(0, 11), "block/ap/S2");
  EngineSetup indented = base_setup(t, std::int32_t(first), 3);
  indented.indentation = make_indentation(ww->system, false, false);
  EXPECT_FALSE(is_tiles(layout_of(indented)));
  setenv("ERMAK_CUDA_BLOCK_TILES", "1", 1);  // read whenever the engine configures itself
  EXPECT_TRUE(is_apart(ww_layout(1)));
  EXPECT_FALSE(is_tiles(layout_of(indented)));
  setenv("ERMAK_CUDA_TILE_BEADS_APART", "0", 1);
  const std::string forced_shared = ww_layout(1);
  EXPECT_TRUE(is_tiles(forced_shared) && !is_apart(forced_shared)) << forced_shared;
  setenv("ERMAK_CUDA_TILE_BEADS_APART", "1", 1);
  EXPECT_TRUE(is_apart(ww_layout(last)));
  setenv("ERMAK_CUDA_TILE_BEADS_APART", "2", 1);
  EXPECT_THROW(ww_layout(1), Error);
  unsetenv("ERMAK_CUDA_TILE_BEADS_APART");
  setenv("ERMAK_CUDA_BLOCK_TILES", "0", 1);
  EXPECT_FALSE(is_tiles(ww_layout(first)));
  setenv("ERMAK_CUDA_BLOCK_TILES", "2", 1);
  EXPECT_THROW(ww_layout(1), Error);
  unsetenv("ERMAK_CUDA_BLOCK_TILES");
}

// Many replicas per block, in every lane count the block family uses at that size and in
// the tiles layout it chooses there: the bead-major, sorted thread order (slot b serves
// bead slot_bead[b / group] of replica b mod group), the noise warps, the tile-major
// threads, partial last blocks and a fixed bead, against the CPU.
TEST(CudaEngine, BlockFamilyWithManyReplicasPerBlockAgreesWithCpu) {
  ERMAK_REQUIRE_GPU();
  const auto s = load_test_system("ww");
  if (!s) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const std::int32_t replicas = 999;  // 7, 4 or 2 per block: the last block is partial
  EngineSetup setup = base_setup(s->system.topology, replicas, 31);
  setup.fixed_beads = {0};
  // start_state's displacements grow with the replica index (they would tear 999
  // replicas apart): here every replica starts at the structure; the noise differs.
  State start(s->system.topology.bead_count(), replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < start.bead_count; ++i)
      start.set_position(r, i, vec_cast<float>(s->system.initial_positions_A[i]));
  const State reference = cpu_reference(setup, start, 400);
  // "tiles": no forced lane count, the automatic layout at 999 WW replicas (bead threads
  // apart); "tiles-shared": the tiles with the bead threads on the tile threads — the same
  // arithmetic in the same order on other threads, so the same bits.
  State tiles_apart;
  for (const std::string lanes : {"1", "2", "4", "tiles", "tiles-shared"}) {
    const bool tiles = lanes.rfind("tiles", 0) == 0;
    // Read whenever the engine configures itself.
    if (!tiles) setenv("ERMAK_CUDA_BLOCK_LANES", lanes.c_str(), 1);
    if (lanes == "tiles-shared") setenv("ERMAK_CUDA_TILE_BEADS_APART", "0", 1);
    auto gpu = make_gpu(setup, CudaKernelFamily::kBlock);
    const std::string layout = cuda_kernel_layout(*gpu);
    EXPECT_EQ(layout.rfind(lanes == "tiles" ? "block/tiles/apart/" : "block/tiles/g", 0) == 0, tiles) << layout;
    gpu->set_state(start);
    gpu->advance(150);
    gpu->advance(250);
    unsetenv("ERMAK_CUDA_BLOCK_LANES");
    unsetenv("ERMAK_CUDA_TILE_BEADS_APART");
    const double d = max_abs_difference(reference, gpu->state());
    EXPECT_LE(d, kTrajectoryTolerance_A) << "lanes per bead " << lanes;
    for (std::int32_t r : {0, replicas - 1}) {  // the fixed bead stays put in every replica
      const std::size_t k = gpu->state().index(r, 0);
      EXPECT_EQ(gpu->state().x[k], start.x[k]) << "replica " << r;
    }
    if (lanes == "tiles") tiles_apart = gpu->state();
    if (lanes == "tiles-shared") EXPECT_TRUE(bit_identical(tiles_apart, gpu->state()));
  }
}

TEST(CudaEngine, PerBeadRowWidthDoesNotChangeTheTrajectory) {
  ERMAK_REQUIRE_GPU();
  const auto s = load_test_system("ww");
  if (!s) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  // 16- and 32-bit rows hold the same partners in the same order: the same bits, through
  // several list builds.
  auto run = [&](std::int32_t replicas, std::int64_t* rebuilds) {
    auto gpu = make_gpu(base_setup(s->system.topology, replicas, 9), CudaKernelFamily::kPerBead);
    gpu->set_state(start_state(s->system, replicas));
    gpu->advance(1500);
    if (rebuilds) *rebuilds = gpu->stats().neighbor_rebuilds;
    return gpu->state();
  };
  std::int64_t rebuilds = 0;
  const State many = run(5, &rebuilds);
  // Rebuilds are counted per replica: more than the first build (else the test would not
  // exercise list builds at all).
  EXPECT_GT(rebuilds, 5);
  setenv("ERMAK_CUDA_ROWS32", "1", 1);
  const State many32 = run(5, nullptr);
  unsetenv("ERMAK_CUDA_ROWS32");
  EXPECT_TRUE(bit_identical(many, many32)) << "32-bit rows changed the trajectory";
}

TEST(CudaEngine, FamiliesAgreeWithEachOther) {
  ERMAK_REQUIRE_GPU();
  const auto s = load_test_system("ubq");
  if (!s) FAIL() << "ubiquitin test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const EngineSetup setup = base_setup(s->system.topology, 2, 11);
  auto a = make_gpu(setup, CudaKernelFamily::kBlock);
  auto b = make_gpu(setup, CudaKernelFamily::kPerBead);
  const State start = start_state(s->system, 2);
  a->set_state(start);
  b->set_state(start);
  a->advance(1000);
  b->advance(1000);
  EXPECT_LE(max_abs_difference(a->state(), b->state()), kTrajectoryTolerance_A);
}

TEST(CudaEngine, AutomaticFamilyChoiceAndOverride) {
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  const auto pf8 = load_test_system("pf8");
  if (!ww || !pf8) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  unsetenv("ERMAK_CUDA_KERNEL");
  EXPECT_EQ(cuda_kernel_family(*make_cuda_engine(base_setup(ww->system.topology, 1, 1))), "block");
  EXPECT_EQ(cuda_kernel_family(*make_cuda_engine(base_setup(pf8->system.topology, 1, 1))), "perbead");
  setenv("ERMAK_CUDA_KERNEL", "perbead", 1);
  EXPECT_EQ(cuda_kernel_family(*make_cuda_engine(base_setup(ww->system.topology, 1, 1))), "perbead");
  setenv("ERMAK_CUDA_KERNEL", "nonsense", 1);
  EXPECT_THROW(make_cuda_engine(base_setup(ww->system.topology, 1, 1)), Error);
  unsetenv("ERMAK_CUDA_KERNEL");
  // Through the run driver's factory, as `backend = "cuda"` does.
  EXPECT_EQ(make_engine("cuda", base_setup(ww->system.topology, 2, 1))->name(), "cuda");
}

TEST(CudaEngine, ClearErrors) {
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  const auto pf8 = load_test_system("pf8");
  if (!ww || !pf8) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  auto message_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EngineSetup bad_device = base_setup(ww->system.topology, 1, 1);
  bad_device.device = 97;
  const std::string device_msg = message_of([&] { make_cuda_engine(bad_device, bad_device.device); });
  EXPECT_NE(device_msg.find("does not exist"), std::string::npos) << device_msg;
  const std::string block_msg =
      message_of([&] { make_gpu(base_setup(pf8->system.topology, 1, 1), CudaKernelFamily::kBlock); });
  EXPECT_NE(block_msg.find("at most"), std::string::npos) << block_msg;
  // 50 million WW replicas need far more than any GPU has: the message says how much.
  const std::string memory_msg = message_of([&] { make_cuda_engine(base_setup(ww->system.topology, 50000000, 1)); });
  EXPECT_NE(memory_msg.find("needs"), std::string::npos) << memory_msg;
  EXPECT_NE(memory_msg.find("GiB"), std::string::npos) << memory_msg;
  // …and what it may use, so that "needs 138.6 of 139.3 GiB available" is not a puzzle.
  EXPECT_NE(memory_msg.find("uses at most 97 %"), std::string::npos) << memory_msg;
  EXPECT_NE(memory_msg.find("such replicas"), std::string::npos) << memory_msg;
  std::printf("%s\n%s\n%s\n", device_msg.c_str(), block_msg.c_str(), memory_msg.c_str());
  EngineSetup bad_bead = base_setup(ww->system.topology, 1, 1);
  bad_bead.fixed_beads = {1000};
  EXPECT_THROW(make_cuda_engine(bad_bead), Error);
}

// backend = "auto" runs on the CPU only where there is no GPU: a GPU named in run.device or
// $ERMAK_CUDA_DEVICE that this machine lacks is refused with the GPUs it has.
TEST(CudaEngine, AutoRefusesANamedGpuThatDoesNotExist) {
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  spdlog::logger quiet("quiet");  // no sinks
  RunSpec spec;
  spec.backend = "auto";
  EngineSetup setup = base_setup(ww->system.topology, 1, 1);
  EXPECT_EQ(choose_backend(spec, setup, quiet), "cuda");  // the default GPU
  setup.device = 97;
  try {
    choose_backend(spec, setup, quiet);
    ADD_FAILURE() << "GPU 97 was not refused";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("run.device"), std::string::npos) << what;
    EXPECT_NE(what.find("GPU 97 does not exist"), std::string::npos) << what;
    EXPECT_NE(what.find("run.backend = \"cpu\""), std::string::npos) << what;
  }
  setup.device = -1;
  setenv("ERMAK_CUDA_DEVICE", "97", 1);
  try {
    choose_backend(spec, setup, quiet);
    ADD_FAILURE() << "ERMAK_CUDA_DEVICE=97 was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ERMAK_CUDA_DEVICE=97"), std::string::npos) << e.what();
  }
  unsetenv("ERMAK_CUDA_DEVICE");
  spec.backend = "cpu";  // asked for the CPU: the device does not matter
  setup.device = 97;
  EXPECT_EQ(choose_backend(spec, setup, quiet), "cpu");
}

// The diagnostic variables of docs/gpu.md: a value out of range or not a number is
// refused with the variable's name, not taken as a default.
TEST(CudaEngine, DiagnosticVariablesWithBadValuesAreRefusedByName) {
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  const auto pf8 = load_test_system("pf8");
  if (!ww || !pf8) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  struct BadValue {
    const char* variable;
    const char* value;
    const char* message;  // part of the expected message
    CudaKernelFamily family;
    const TestSystem* system;
  };
  const BadValue cases[] = {
      {"ERMAK_CUDA_BLOCK_SLOTS", "-8", "ERMAK_CUDA_BLOCK_SLOTS must be 0 or positive", CudaKernelFamily::kBlock, &*ww},
      {"ERMAK_CUDA_BLOCK_SLOTS", "8x", "ERMAK_CUDA_BLOCK_SLOTS=\"8x\" is not an integer", CudaKernelFamily::kBlock,
       &*ww},
      {"ERMAK_CUDA_BLOCK_LANES", "3", "ERMAK_CUDA_BLOCK_LANES must be 1, 2, 4 or 8", CudaKernelFamily::kBlock, &*ww},
      {"ERMAK_CUDA_CHUNK_STEPS", "0", "ERMAK_CUDA_CHUNK_STEPS must be between 1 and 256", CudaKernelFamily::kPerBead,
       &*ww},
      {"ERMAK_CUDA_CLUSTER_SPLIT", "3", "ERMAK_CUDA_CLUSTER_SPLIT must be 1, 2 or 4", CudaKernelFamily::kPerBead,
       &*pf8},
      {"ERMAK_CUDA_LANES", "3", "ERMAK_CUDA_LANES must be 2, 4, 8 or 16", CudaKernelFamily::kPerBead, &*ww},
      {"ERMAK_CUDA_WIDE_MOVES", "2", "ERMAK_CUDA_WIDE_MOVES must be 0 or 1", CudaKernelFamily::kPerBead, &*ww},
      {"ERMAK_CUDA_CLUSTER_ORDER", "-1", "ERMAK_CUDA_CLUSTER_ORDER must be 0 (chain order) to 1024 blocks",
       CudaKernelFamily::kPerBead, &*ww},
      {"ERMAK_CUDA_BLOCK_WARPS", "3", "ERMAK_CUDA_BLOCK_WARPS must be 2, 4 or 8", CudaKernelFamily::kPerBead, &*ww},
      {"ERMAK_CUDA_KERNEL", "fast", "ERMAK_CUDA_KERNEL=\"fast\": must be block, perbead or auto",
       CudaKernelFamily::kAuto, &*ww},
  };
  for (const BadValue& c : cases) {
    SCOPED_TRACE(std::string(c.variable) + "=" + c.value);
    setenv(c.variable, c.value, 1);
    std::string message = "(no error)";
    try {
      auto engine = make_gpu(base_setup(c.system->system.topology, 2, 1), c.family);
      engine->set_state(start_state(c.system->system, 2));
      engine->advance(4);
    } catch (const Error& e) {
      message = e.what();
    }
    unsetenv(c.variable);
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
  }
}

// The repulsion's cutoff in every kernel layout (tests/unit/cpu_engine_forces_test.cpp's
// RepulsionStopsAtThePairCutoff on the GPU): twelve lone beads — no bonds or contacts, so
// every pair is repulsive — beads 0–9 on a grid of 40 Å, bead 10 at 19.99 Å from bead 1 and
// bead 11 at 20.01 Å from bead 6 along (2, 3, 6)/7 in replica 0, the other way round in
// replica 1; every other pair is beyond the cutoff + skin (23 Å). Both pairs are within
// the lists' cutoff + skin (and in the all-pairs rows and tiles), so only the kernels' own
// cutoff test tells them apart. Evaluation (forces(), energies(): the report kernels) must
// give ε_l(σ/r)⁶ for the near pair alone (1e-5: float), its force −dU/dr along the pair
// (1e-4) and exactly zero on every other bead; one step at T = 0 with h/ζ = 1000 Å²·mol/kcal
// (the step kernels: lanes, lists, tiles, cluster rows) must move the near pair's beads by
// h/ζ·F (1.4e-2 Å; to 1e-4 of it plus 1e-5 Å, a few float ulps of coordinates below 64 Å)
// and leave every other bead exactly where it was (the far pair's force would move its
// beads by 1.4e-2 Å). No test data needed.
TEST(CudaEngine, RepulsionStopsAtThePairCutoffInEveryLayout) {
  ERMAK_REQUIRE_GPU();
  constexpr std::int32_t n = test::kLoneBeads;
  const Topology topology = test::lone_beads();
  const std::vector<Vec3f> replica[2] = {test::lone_bead_pairs(19.99, 20.01), test::lone_bead_pairs(20.01, 19.99)};
  const std::pair<std::int32_t, std::int32_t> near[2] = {{1, 10}, {6, 11}};
  const SopParameters sop;
  ASSERT_EQ(sop.pair_cutoff_A, 20.0f);
  for (int r = 0; r < 2; ++r)
    for (std::int32_t i = 0; i < n; ++i)
      for (std::int32_t j = i + 1; j < n; ++j) {
        const double d = norm(vec_cast<double>(replica[r][i]) - vec_cast<double>(replica[r][j]));
        if ((i == 1 && j == 10) || (i == 6 && j == 11)) ASSERT_NEAR(d, (std::pair{i, j} == near[r] ? 19.99 : 20.01), 1e-5);
        else ASSERT_GT(d, sop.pair_cutoff_A + EngineSetup{}.neighbor_skin_A) << "beads " << i << ", " << j;
      }
  // ε_l(σ/r)⁶ of the near pair and its force on the pair's first bead, (6 ε_l σ⁶/r⁸)(x_i − x_j).
  struct PairTerm {
    double energy;
    Vec3d force_on_i;
  };
  PairTerm expected[2];
  for (int r = 0; r < 2; ++r) {
    const Vec3d d = vec_cast<double>(replica[r][near[r].first]) - vec_cast<double>(replica[r][near[r].second]);
    const double r2 = norm2(d), s6 = std::pow(double(sop.repulsion_sigma_A) * sop.repulsion_sigma_A / r2, 3);
    expected[r] = {sop.repulsion_eps_kcal_per_mol * s6, (6 * sop.repulsion_eps_kcal_per_mol * s6 / r2) * d};
  }
  State start(n, 2);
  for (int r = 0; r < 2; ++r)
    for (std::int32_t i = 0; i < n; ++i) start.set_position(r, i, replica[r][i]);

  EngineSetup setup = base_setup(topology, 2, 3);
  setup.temperature.start_kcal_per_mol = 0.0;  // no noise: the step is h/ζ·F alone
  setup.langevin.temperature_kcal_per_mol = 0.0;
  setup.langevin.zeta = setup.langevin.timestep_tau / 1000.0;
  const double mobility = double(physics::langevin_mobility_step(setup.langevin.timestep_tau, setup.langevin.zeta));

  struct Variant {
    const char* layout;  // the start of cuda_kernel_layout
    CudaKernelFamily family;
    std::vector<std::pair<const char*, const char*>> environment;
  };
  const Variant variants[] = {
      {"block/ap/S2", CudaKernelFamily::kBlock, {{"ERMAK_CUDA_BLOCK_TILES", "0"}}},
      {"block/ap/S1", CudaKernelFamily::kBlock, {{"ERMAK_CUDA_BLOCK_LANES", "1"}}},
      {"block/list", CudaKernelFamily::kBlock, {{"ERMAK_CUDA_BLOCK_ALLPAIRS", "0"}}},
      {"block/tiles/apart", CudaKernelFamily::kBlock,
       {{"ERMAK_CUDA_BLOCK_TILES", "1"}, {"ERMAK_CUDA_TILE_BEADS_APART", "1"}}},
      {"block/tiles/g", CudaKernelFamily::kBlock,
       {{"ERMAK_CUDA_BLOCK_TILES", "1"}, {"ERMAK_CUDA_TILE_BEADS_APART", "0"}}},
      {"perbead/rows", CudaKernelFamily::kPerBead, {{"ERMAK_CUDA_CLUSTER_ROWS", "0"}}},
      {"perbead/clusters", CudaKernelFamily::kPerBead, {{"ERMAK_CUDA_CLUSTER_ROWS", "1"}}},
  };
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.layout);
    struct Environment {  // read whenever an engine configures itself; unset however the loop ends
      const std::vector<std::pair<const char*, const char*>>& vars;
      ~Environment() {
        for (const auto& [name, value] : vars) unsetenv(name);
      }
    } environment{v.environment};
    for (const auto& [name, value] : v.environment) setenv(name, value, 1);
    auto gpu = make_gpu(setup, v.family);
    const std::string layout = cuda_kernel_layout(*gpu);
    EXPECT_EQ(layout.rfind(v.layout, 0), 0u) << layout;
    gpu->set_state(start);
    const auto energies = gpu->energies();
    const State forces = gpu->forces();
    ASSERT_EQ(energies.size(), 2u);
    gpu->advance(1);
    const State moved = gpu->state();
    for (int r = 0; r < 2; ++r) {
      SCOPED_TRACE("replica " + std::to_string(r));
      EXPECT_EQ(energies[r].fene, 0.0);
      EXPECT_EQ(energies[r].native, 0.0);
      EXPECT_NEAR(energies[r].repulsive, expected[r].energy, 1e-5 * expected[r].energy);
      for (std::int32_t i = 0; i < n; ++i) {
        const Vec3d f = vec_cast<double>(forces.position(r, i));
        const Vec3d step = vec_cast<double>(moved.position(r, i)) - vec_cast<double>(start.position(r, i));
        if (i == near[r].first || i == near[r].second) {
          const Vec3d want = i == near[r].first ? expected[r].force_on_i : -expected[r].force_on_i;
          EXPECT_LE(norm(f - want), 1e-4 * norm(want)) << "bead " << i << ": " << f.x << " " << f.y << " " << f.z;
          EXPECT_LE(norm(step - mobility * want), 1e-4 * mobility * norm(want) + 1e-5)
              << "bead " << i << " moved by " << step.x << " " << step.y << " " << step.z;
        } else {
          EXPECT_EQ(f.x, 0.0) << "bead " << i;
          EXPECT_EQ(f.y, 0.0) << "bead " << i;
          EXPECT_EQ(f.z, 0.0) << "bead " << i;
          EXPECT_EQ(moved.position(r, i).x, start.position(r, i).x) << "bead " << i;
          EXPECT_EQ(moved.position(r, i).y, start.position(r, i).y) << "bead " << i;
          EXPECT_EQ(moved.position(r, i).z, start.position(r, i).z) << "bead " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ermak::cudatest

namespace ermak::cudatest {
namespace {

// Kernel variants that the automatic choice uses only for large runs, forced on small ones.
TEST(CudaEngineVariants, PerBeadMultiRoundAndBlockLaneCountsAgreeWithCpu) {
  ERMAK_REQUIRE_GPU();
  const auto s = load_test_system("ww");
  if (!s) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const EngineSetup setup = base_setup(s->system.topology, 3, 606);
  const State start = start_state(s->system, 3);
  const State reference = cpu_reference(setup, start, 1000);
  struct Variant {
    std::vector<std::pair<const char*, const char*>> environment;
    CudaKernelFamily family;
  };
  const Variant variants[] = {
      {{{"ERMAK_CUDA_ROUNDS", "multi"}}, CudaKernelFamily::kPerBead},
      {{{"ERMAK_CUDA_LANES", "8"}}, CudaKernelFamily::kPerBead},
      {{{"ERMAK_CUDA_ROWS32", "1"}, {"ERMAK_CUDA_CHUNK_STEPS", "5"}}, CudaKernelFamily::kPerBead},
      // Cluster rows (WW's 34 beads: four full clusters and one of two beads), their tiles
      // by 1, 2 and 4 warps per cluster (with 4, the last block holds 4 warps past the end).
      {{{"ERMAK_CUDA_CLUSTER_ROWS", "1"}, {"ERMAK_CUDA_CLUSTER_SPLIT", "1"}}, CudaKernelFamily::kPerBead},
      {{{"ERMAK_CUDA_CLUSTER_ROWS", "1"}, {"ERMAK_CUDA_CLUSTER_SPLIT", "2"}}, CudaKernelFamily::kPerBead},
      {{{"ERMAK_CUDA_CLUSTER_ROWS", "1"}, {"ERMAK_CUDA_CLUSTER_SPLIT", "4"}}, CudaKernelFamily::kPerBead},
      {{{"ERMAK_CUDA_CLUSTER_ROWS", "1"}, {"ERMAK_CUDA_ROUNDS", "multi"}, {"ERMAK_CUDA_CHUNK_STEPS", "5"}},
       CudaKernelFamily::kPerBead},
      {{{"ERMAK_CUDA_BLOCK_LANES", "1"}}, CudaKernelFamily::kBlock},
      {{{"ERMAK_CUDA_BLOCK_LANES", "2"}}, CudaKernelFamily::kBlock},
      {{{"ERMAK_CUDA_BLOCK_LANES", "1"}, {"ERMAK_CUDA_BLOCK_ALLPAIRS", "0"}}, CudaKernelFamily::kBlock},
      {{{"ERMAK_CUDA_BLOCK_LANES", "4"}, {"ERMAK_CUDA_BLOCK_ALLPAIRS", "0"}}, CudaKernelFamily::kBlock},
      {{{"ERMAK_CUDA_BLOCK_LANES", "8"}, {"ERMAK_CUDA_BLOCK_ALLPAIRS", "0"}}, CudaKernelFamily::kBlock}};
  for (const Variant& v : variants) {
    std::string name;
    for (const auto& [variable, value] : v.environment) {
      setenv(variable, value, 1);
      name += std::string(variable) + "=" + value + " ";
    }
    SCOPED_TRACE(name);
    State whole;
    for (int attempt = 0; attempt < 2; ++attempt) {
      // Twice: in one launch, and split (the block family's lists are rebuilt at every
      // launch; its rows are canonical per lane, so the bits must not change).
      auto engine = make_gpu(setup, v.family);
      engine->set_state(start);
      if (attempt == 0) engine->advance(1000);
      else { engine->advance(333); engine->advance(1); engine->advance(666); }
      if (attempt == 0) whole = engine->state();
      else if (v.family == CudaKernelFamily::kBlock) EXPECT_TRUE(bit_identical(whole, engine->state()));
    }
    for (const auto& [variable, value] : v.environment) unsetenv(variable);
    EXPECT_LE(max_abs_difference(reference, whole), kTrajectoryTolerance_A);
  }
}

// Cluster rows (one row per 8 consecutive beads, a bit per bead) hold exactly the pairs of
// the rows per bead: PF8 (bonded and native exclusions through the build's table), the
// same pair count and energies at the start, and the same trajectory to float rounding
// through list builds; also with the step kernel's tiles split over 1, 2 and 4 warps per
// cluster.
TEST(CudaEngineVariants, ClusterRowsHoldTheSamePairsAsRowsPerBead) {
  ERMAK_REQUIRE_GPU();
  const auto pf8 = load_test_system("pf8");
  if (!pf8) FAIL() << "PF8 test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const EngineSetup setup = base_setup(pf8->system.topology, 2, 4242);
  const State start = start_state(pf8->system, 2);
  struct Result {
    std::int64_t pairs = 0, rebuilds = 0;
    std::vector<EnergyTerms> energies;
    State end;
  };
  auto run = [&](const char* cluster_rows, const char* split = "2") {
    setenv("ERMAK_CUDA_CLUSTER_ROWS", cluster_rows, 1);
    setenv("ERMAK_CUDA_CLUSTER_SPLIT", split, 1);
    auto engine = make_gpu(setup, CudaKernelFamily::kPerBead);
    unsetenv("ERMAK_CUDA_CLUSTER_ROWS");
    unsetenv("ERMAK_CUDA_CLUSTER_SPLIT");
    engine->set_state(start);
    Result out;
    out.energies = engine->energies();
    engine->advance(1);
    out.pairs = engine->stats().neighbor_pairs;
    engine->advance(599);
    out.rebuilds = engine->stats().neighbor_rebuilds;
    out.end = engine->state();
    return out;
  };
  const Result rows = run("0"), clusters = run("1");
  EXPECT_GT(rows.pairs, 100000);
  EXPECT_EQ(rows.pairs, clusters.pairs);
  EXPECT_GT(clusters.rebuilds, 2) << "the run should rebuild its list";
  for (std::size_t r = 0; r < rows.energies.size(); ++r) {
    EXPECT_NEAR(rows.energies[r].repulsive, clusters.energies[r].repulsive, 1e-4 * std::abs(rows.energies[r].repulsive));
    EXPECT_NEAR(rows.energies[r].total(), clusters.energies[r].total(), 1e-4 * std::abs(rows.energies[r].total()));
  }
  EXPECT_LE(max_abs_difference(rows.end, clusters.end), kTrajectoryTolerance_A);
  for (const char* split : {"1", "4"}) {
    SCOPED_TRACE(std::string("cluster split ") + split);
    const Result other = run("1", split);
    EXPECT_EQ(other.pairs, clusters.pairs);
    EXPECT_LE(max_abs_difference(other.end, clusters.end), kTrajectoryTolerance_A);
  }
}

// With cluster tiles, the block's first threads move its beads a bead per lane after a
// barrier (ERMAK_CUDA_WIDE_MOVES=1, the default there) instead of one lane in 4 of each
// cluster's first warp: the same functions in the same order, so the same bits — PF8 × 2
// plain, and with a fixed bead, a tether on one replica and a force clamp (the kernel
// variant with per-bead protocol items), with each cluster on 1, 2 and 4 warps, through
// list builds. So do blocks that take their clusters in the order of their row lengths
// (ERMAK_CUDA_CLUSTER_ORDER; by default where a cluster has one warp) and blocks of 4 and
// 2 warps for clusters split over 2 warps, of 4 for clusters of one (ERMAK_CUDA_BLOCK_WARPS).
TEST(CudaEngineVariants, WideMovesAndClusterOrderGiveTheSameBitsAsMovesInTheClusterWarps) {
  ERMAK_REQUIRE_GPU();
  const auto pf8 = load_test_system("pf8");
  if (!pf8) FAIL() << "PF8 test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const auto& p0 = pf8->system.initial_positions_A;
  const State start = start_state(pf8->system, 2);
  EngineSetup plain = base_setup(pf8->system.topology, 2, 2718);
  EngineSetup with_protocol = plain;
  with_protocol.fixed_beads = {0};
  HarmonicTether cantilever;
  cantilever.bead = 6927;
  cantilever.replica = 1;
  cantilever.anchor_start_A = p0[6927];
  cantilever.anchor_velocity_A_per_tau = {0.0, 0.0, 0.5};
  cantilever.spring_kcal_per_mol_A2 = 0.5;
  with_protocol.tethers = {cantilever};
  ExternalForce clamp;
  clamp.bead = 3000;
  clamp.direction = {1.0, 0.0, 0.0};
  with_protocol.external_forces = {clamp};
  with_protocol.force_schedule.points = {{0, 2.0}};
  for (const char* split : {"1", "2", "4"})
  for (const EngineSetup* setup : {&plain, &with_protocol}) {
    SCOPED_TRACE(std::string(setup == &plain ? "plain" : "fixed bead, tether, clamp") + ", cluster split " + split);
    auto run = [&](const char* wide, const char* order, const char* block_warps = "8") {
      setenv("ERMAK_CUDA_CLUSTER_ROWS", "1", 1);
      setenv("ERMAK_CUDA_CLUSTER_SPLIT", split, 1);
      setenv("ERMAK_CUDA_WIDE_MOVES", wide, 1);
      setenv("ERMAK_CUDA_CLUSTER_ORDER", order, 1);
      setenv("ERMAK_CUDA_BLOCK_WARPS", block_warps, 1);
      auto engine = make_gpu(*setup, CudaKernelFamily::kPerBead);
      unsetenv("ERMAK_CUDA_CLUSTER_ROWS");
      unsetenv("ERMAK_CUDA_CLUSTER_SPLIT");
      unsetenv("ERMAK_CUDA_WIDE_MOVES");
      unsetenv("ERMAK_CUDA_CLUSTER_ORDER");
      unsetenv("ERMAK_CUDA_BLOCK_WARPS");
      // The bench's kernel column names what ran: warps per cluster and per block, the order.
      const bool wide_run = std::string(wide) == "1";
      const std::string expected_layout =
          std::string("perbead/clusters/k") + split + "/w" +
          (wide_run && (std::string(split) == "2" || (std::string(split) == "1" && std::string(block_warps) == "4"))
               ? block_warps
               : "8") +
          (wide_run && std::string(order) != "0" ? std::string("/o") + order : std::string());
      EXPECT_EQ(cuda_kernel_layout(*engine), expected_layout);
      engine->set_state(start);
      engine->advance(400);
      EXPECT_GT(engine->stats().neighbor_rebuilds, 1) << "the run should rebuild its list";
      return engine->state();
    };
    const State narrow = run("0", "0"), wide = run("1", "0");
    EXPECT_TRUE(bit_identical(narrow, wide));
    EXPECT_GT(max_abs_difference(narrow, start), 0.1) << "the beads should have moved";
    // The clusters in the order of their row lengths (docs/gpu.md#cluster-order): windows
    // of 1 block, of 3 (PF8's last window part empty) and the default of 16.
    for (const char* order : {"1", "3", "16"}) {
      SCOPED_TRACE(std::string("cluster order window ") + order);
      EXPECT_TRUE(bit_identical(narrow, run("1", order)));
    }
    // Blocks of 4 and 2 warps (split over 2 warps; clusters of one warp take 4, not 2).
    for (const char* block_warps : {"4", "2"})
      for (const char* order : {"0", "3"}) {
        SCOPED_TRACE(std::string("warps per block ") + block_warps + ", cluster order window " + order);
        EXPECT_TRUE(bit_identical(narrow, run("1", order, block_warps)));
      }
  }
}

// The cell sort by one cooperative grid over all replicas gives the cells of one block
// per replica exactly (ascending bead index within a cell), hence the same rows and the
// same bits: PF8 × 2 (many blocks share a replica) and 300 WW replicas (more replicas
// than resident blocks: a block sorts several), through list builds.
TEST(CudaEngineVariants, GridCellSortEqualsOneBlockPerReplica) {
  ERMAK_REQUIRE_GPU();
  struct Case {
    const char* system;
    std::int32_t replicas;
    long long steps;
  };
  for (const Case c : {Case{"pf8", 2, 600}, Case{"ww", 300, 800}}) {
    const auto loaded = load_test_system(c.system);
    if (!loaded) FAIL() << c.system << " test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
    const EngineSetup setup = base_setup(loaded->system.topology, c.replicas, 5151);
    const State start = start_state(loaded->system, c.replicas);
    auto run = [&](const char* sort, std::int64_t& pairs, std::int64_t& rebuilds) {
      setenv("ERMAK_CUDA_CELL_SORT", sort, 1);
      auto engine = make_gpu(setup, CudaKernelFamily::kPerBead);
      unsetenv("ERMAK_CUDA_CELL_SORT");
      engine->set_state(start);
      engine->advance(1);
      pairs = engine->stats().neighbor_pairs;
      engine->advance(c.steps - 1);
      rebuilds = engine->stats().neighbor_rebuilds;
      return engine->state();
    };
    std::int64_t block_pairs = 0, block_rebuilds = 0, grid_pairs = 0, grid_rebuilds = 0;
    const State by_block = run("block", block_pairs, block_rebuilds);
    const State by_grid = run("grid", grid_pairs, grid_rebuilds);
    SCOPED_TRACE(c.system);
    EXPECT_GT(block_pairs, 0);
    EXPECT_EQ(block_pairs, grid_pairs);
    EXPECT_GT(grid_rebuilds, 2) << "the run should rebuild its list";
    EXPECT_EQ(block_rebuilds, grid_rebuilds);
    EXPECT_EQ(max_abs_difference(by_block, by_grid), 0.0);
  }
}

// The list build (cell sort, then the scan of the cells within the list cutoff) misses
// no pair and adds none: at the start structure, the pairs of the first list equal a
// brute-force count on the host (pairs within the list cutoff, neither bonded nor
// native; pairs within a relative 1e-6 of the cutoff may go either way), for cells of
// the whole list cutoff, a half and a third, rows per bead and cluster rows.
TEST(CudaEngineVariants, ListHoldsExactlyThePairsWithinTheListCutoff) {
  ERMAK_REQUIRE_GPU();
  const auto pf8 = load_test_system("pf8");
  if (!pf8) FAIL() << "PF8 test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const Topology& top = pf8->system.topology;
  const std::int32_t n = top.bead_count(), replicas = 2;
  const EngineSetup setup = base_setup(top, replicas, 99);
  const State start = start_state(pf8->system, replicas);
  std::unordered_set<std::uint64_t> excluded;
  auto key = [](std::int32_t i, std::int32_t j) {
    return (std::uint64_t(std::min(i, j)) << 32) | std::uint64_t(std::max(i, j));
  };
  for (const auto& b : top.bonds) excluded.insert(key(b.i, b.j));
  for (const auto& c : top.native_contacts) excluded.insert(key(c.i, c.j));
  const float list_cutoff = float(setup.sop.pair_cutoff_A + setup.neighbor_skin_A);
  const float cutoff2 = list_cutoff * list_cutoff;
  std::int64_t surely_in = 0, maybe_in = 0;
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < n; ++i)
      for (std::int32_t j = i + 1; j < n; ++j) {
        const std::size_t a = start.index(r, i), b = start.index(r, j);
        const float dx = start.x[a] - start.x[b], dy = start.y[a] - start.y[b], dz = start.z[a] - start.z[b];
        const float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 >= cutoff2 * (1.0f + 1e-6f) || excluded.count(key(i, j))) continue;
        ++maybe_in;
        if (d2 < cutoff2 * (1.0f - 1e-6f)) ++surely_in;
      }
  ASSERT_GT(surely_in, 500000);
  for (const char* divisions : {"1", "2", "3"})
    for (const char* cluster_rows : {"0", "1"}) {
      setenv("ERMAK_CUDA_CELL_DIVISIONS", divisions, 1);
      setenv("ERMAK_CUDA_CLUSTER_ROWS", cluster_rows, 1);
      auto engine = make_gpu(setup, CudaKernelFamily::kPerBead);
      unsetenv("ERMAK_CUDA_CELL_DIVISIONS");
      unsetenv("ERMAK_CUDA_CLUSTER_ROWS");
      engine->set_state(start);
      engine->advance(1);  // one list build, at the start structure
      const std::int64_t pairs = engine->stats().neighbor_pairs;
      SCOPED_TRACE(std::string("cells of the list cutoff / ") + divisions + ", cluster rows " + cluster_rows);
      EXPECT_GE(pairs, surely_in);
      EXPECT_LE(pairs, maybe_in);
    }
}

// A replica too large for one thread per bead and for rows on chip: five copies of the
// two-chain Fab (2080 beads, 4 beads per thread, rows in global memory).
TEST(CudaEngineVariants, LargeBlockReplicaAgreesWithCpu) {
  ERMAK_REQUIRE_GPU();
  const auto fab = load_test_system("fab");
  if (!fab) FAIL() << "1A0Q not found" << " (the Debian package freesasa: scripts/setup.sh installs it)";
  const Topology& one = fab->system.topology;
  const std::int32_t n1 = one.bead_count();
  Topology big;
  big.name = "5 × 1A0Q";
  std::vector<Vec3d> positions;
  for (int copy = 0; copy < 5; ++copy) {
    const std::int32_t o = copy * n1;
    for (const auto& b : one.beads) big.beads.push_back(b);
    for (auto b : one.bonds) { b.i += o; b.j += o; big.bonds.push_back(b); }
    for (auto c : one.native_contacts) { c.i += o; c.j += o; big.native_contacts.push_back(c); }
    for (const auto& p : fab->system.initial_positions_A) positions.push_back(p + Vec3d{60.0 * copy, 0.0, 0.0});
  }
  big.native_positions_A = positions;
  const EngineSetup setup = base_setup(big, 2, 8080);
  State start(big.bead_count(), 2);
  for (std::int32_t r = 0; r < 2; ++r)
    for (std::int32_t i = 0; i < big.bead_count(); ++i)
      start.set_position(r, i, vec_cast<float>(positions[i] + Vec3d{0.01 * r, 0.0, -0.01 * r}));
  auto cpu = make_cpu_engine(setup);
  auto gpu = make_gpu(setup, CudaKernelFamily::kBlock);
  cpu->set_state(start);
  gpu->set_state(start);
  const auto ec = cpu->energies(), eg = gpu->energies();
  for (std::int32_t r = 0; r < 2; ++r) EXPECT_NEAR(eg[r].total(), ec[r].total(), 1e-5 * std::abs(ec[r].total()) + 1e-3);
  cpu->advance(500);
  gpu->advance(500);
  EXPECT_LE(max_abs_difference(cpu->state(), gpu->state()), kTrajectoryTolerance_A);
  EXPECT_GT(gpu->stats().neighbor_pairs, 0);
}

// More replicas than a grid has rows (65535): the evaluation runs them along the grid's
// first dimension, so the last replica, given replica 1's positions, has replica 1's
// energies (and not replica 0's); the per-bead family, whose grids hold a replica per
// row, refuses them by name.
TEST(CudaEngine, MoreReplicasThanAGridHasRows) {
  ERMAK_REQUIRE_GPU();
  const auto sys = load_test_system("ww");
  if (!sys) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const Topology& t = sys->system.topology;
  const std::int32_t replicas = 65537;
  const EngineSetup setup = base_setup(t, replicas, 31);
  auto gpu = make_gpu(setup, CudaKernelFamily::kBlock);
  const State two = start_state(sys->system, 2);
  State start(t.bead_count(), replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < t.bead_count(); ++i) {
      const std::int32_t from = r == 0 ? 0 : 1;
      start.set_position(r, i, two.position(from, i));
    }
  gpu->set_state(start);
  StopRequest request;
  request.energies = true;
  const StopValues values = gpu->take_stop(request);
  ASSERT_EQ(values.energies.size(), std::size_t(replicas));
  const EnergyTerms &zero = values.energies[0], &one = values.energies[1], &last = values.energies.back();
  EXPECT_NE(one.native, 0.0);
  EXPECT_TRUE(one.fene == last.fene && one.native == last.native && one.repulsive == last.repulsive);
  EXPECT_NE(zero.repulsive, last.repulsive);
  try {
    make_gpu(setup, CudaKernelFamily::kPerBead);
    ADD_FAILURE() << "the per-bead family took 65537 replicas";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the per-bead kernel family takes at most 65535 replicas per GPU"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ermak::cudatest

