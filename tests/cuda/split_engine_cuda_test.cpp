// A run split over several GPUs (backend/split_engine.h, docs/gpu.md#several-gpus): the
// CUDA engines of the slices against one CUDA engine of the whole run, both kernel
// families, with protocols for every replica and for single ones. The parts draw the
// noise of their replicas' indices in the run, so the trajectories agree to float rounding
// (a slice's replica count may pick another kernel layout than the whole run's, as the
// CPU and the GPU agree: tolerances of cuda_engine_test.cpp). On a machine with one GPU
// both slices run on it (the same code, two engines); with two or more, on GPUs 0 and 1.
// The CPU engines' split is checked bit for bit in tests/unit/split_engine_test.cpp.
#include <gtest/gtest.h>

#include "cuda/cuda_test_support.h"
#include "ermak/backend/split_engine.h"

namespace ermak::cudatest {
namespace {

std::vector<int> two_gpus() { return cuda_device_count() >= 2 ? std::vector<int>{0, 1} : std::vector<int>{0, 0}; }

class CudaSplit : public ::testing::TestWithParam<CudaKernelFamily> {};

TEST_P(CudaSplit, ReplicasOnTwoGpusMoveAsOnOne) {
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const Topology& t = ww->system.topology;
  const std::int32_t n = t.bead_count();
  const auto& p0 = ww->system.initial_positions_A;
  EngineSetup setup = base_setup(t, 5, 99);
  HarmonicTether restraint;  // every replica
  restraint.bead = 0;
  restraint.anchor_start_A = p0[0];
  restraint.spring_kcal_per_mol_A2 = 1.0;
  HarmonicTether cantilever;  // replica 3 only (the second slice), moving
  cantilever.bead = n - 1;
  cantilever.replica = 3;
  cantilever.anchor_start_A = p0[n - 1];
  cantilever.anchor_velocity_A_per_tau = {0.2, 0.0, -0.1};
  cantilever.spring_kcal_per_mol_A2 = 0.5;
  setup.tethers = {restraint, cantilever};
  setup.fixed_beads = {7};
  const std::vector<int> gpus = two_gpus();
  SplitEngine split(setup, 2, [&](const EngineSetup& part, int k) {
    CudaEngineOptions options;
    options.device = gpus[std::size_t(k)];
    options.family = GetParam();
    return make_cuda_engine(part, options);
  });
  auto whole = make_gpu(setup, GetParam());
  const State start = start_state(ww->system, 5);
  split.set_state(start);
  whole->set_state(start);
  split.advance(400);
  whole->advance(400);
  StopRequest request;
  request.energies = true;
  request.tether_forces = true;
  request.beads = {n - 1};
  const State at_stop = whole->state();  // waits for the steps: the stop below is at step 400
  const StopValues a = whole->stop_and_advance(request, 600);
  const StopValues b = split.stop_and_advance(request, 600);
  // An engine that overlaps its stops keeps the stop's positions (for a part whose screen
  // passed a stop another part's flagged).
  State kept;
  const bool keeps = whole->last_stop_positions(kept);
  EXPECT_EQ(keeps, whole->overlaps_stops());
  if (keeps) EXPECT_TRUE(bit_identical(kept, at_stop));
  ASSERT_EQ(a.energies.size(), b.energies.size());
  for (std::size_t r = 0; r < a.energies.size(); ++r)
    EXPECT_NEAR(b.energies[r].total(), a.energies[r].total(), 1e-4 * std::abs(a.energies[r].total()) + 1e-3);
  ASSERT_EQ(a.tether_forces_kcal_per_mol_A.size(), b.tether_forces_kcal_per_mol_A.size());
  for (std::size_t k = 0; k < a.tether_forces_kcal_per_mol_A.size(); ++k)
    EXPECT_NEAR(b.tether_forces_kcal_per_mol_A[k].x, a.tether_forces_kcal_per_mol_A[k].x, 5e-3);
  ASSERT_EQ(b.bead_positions.size(), 5u);
  EXPECT_LE(max_abs_difference(whole->state(), split.state()), 2e-3);
  EXPECT_EQ(split.state().step, 1000);
  EXPECT_EQ(whole->protocol_state().size(), split.protocol_state().size());
  const std::string layout = cuda_kernel_layout(split);
  EXPECT_NE(layout.find(" + "), std::string::npos) << layout;
  EXPECT_EQ(cuda_kernel_family(split).substr(0, 5), cuda_kernel_family(*whole).substr(0, 5));
  EXPECT_GT(cuda_engine_device_bytes(split), 0);
}

INSTANTIATE_TEST_SUITE_P(Families, CudaSplit, ::testing::Values(CudaKernelFamily::kBlock, CudaKernelFamily::kPerBead),
                         [](const auto& info) { return std::string(family_name(info.param)); });

}  // namespace
}  // namespace ermak::cudatest
