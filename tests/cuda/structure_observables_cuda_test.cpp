// The CUDA engine's structure observables (docs/gpu.md#observables), reduced on the GPU,
// against the host's measure_structure on the positions the engine hands back, for both
// kernel families, several replicas and a large system, after some dynamics.
//
// Tolerances: the reduction reads the same float positions and calls the same
// model/structure_observables.h functions. The contact test squares float differences in
// double, which is exact, so Q must be equal. Rg and the end-to-end distance differ only
// by the summation order of ≤ 10⁴ double terms (and fused multiply-adds): relative
// ~1e-15; 1e-12 leaves margin and still catches any wrong term (a missing bead changes
// Rg by ~1/n relative).
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/cuda_test_support.h"
#include "ermak/core/error.h"
#include "ermak/model/measure_structure.h"

namespace ermak::cudatest {
namespace {

constexpr double kRelativeTolerance = 1e-12;

struct Case {
  const char* system;
  CudaKernelFamily family;
  std::int32_t replicas;
  std::int64_t steps;
};

class CudaStructureObservables : public ::testing::TestWithParam<Case> {};

TEST_P(CudaStructureObservables, MatchMeasureStructureOfTheDownloadedState) {
  ERMAK_REQUIRE_GPU();
  const Case c = GetParam();
  const auto system = load_test_system(c.system);
  if (!system) FAIL() << "test data for " << c.system << " not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const Topology& topology = system->system.topology;
  const std::int32_t n = topology.bead_count();
  auto gpu = make_gpu(base_setup(topology, c.replicas, 31), c.family);
  ASSERT_EQ(cuda_kernel_family(*gpu), family_name(c.family));
  gpu->set_state(start_state(system->system, c.replicas));
  gpu->advance(c.steps);
  const State& state = gpu->state();
  ASSERT_EQ(state.step, c.steps);

  struct Query {
    double ratio;
    std::int32_t first, last;
  };
  bool some_partial_q = false;
  for (const Query q : {Query{1.5, 0, n - 1}, Query{1.0, 3, n / 2}}) {
    const auto got = gpu->structure_observables(q.ratio, q.first, q.last);
    ASSERT_EQ(got.size(), std::size_t(c.replicas));
    for (std::int32_t r = 0; r < c.replicas; ++r) {
      SCOPED_TRACE("replica " + std::to_string(r) + ", ratio " + std::to_string(q.ratio));
      const std::size_t o = state.index(r, 0);
      const StructureObservables want =
          measure_structure(topology, &state.x[o], &state.y[o], &state.z[o], q.ratio, q.first, q.last);
      EXPECT_EQ(got[r].native_fraction, want.native_fraction);
      EXPECT_NEAR(got[r].radius_of_gyration_A, want.radius_of_gyration_A,
                  kRelativeTolerance * want.radius_of_gyration_A);
      EXPECT_NEAR(got[r].end_to_end_A, want.end_to_end_A, kRelativeTolerance * want.end_to_end_A);
      some_partial_q = some_partial_q || (want.native_fraction > 0.0 && want.native_fraction < 1.0);
    }
  }
  EXPECT_TRUE(some_partial_q) << "the comparison should see formed and broken contacts";
  EXPECT_THROW(gpu->structure_observables(1.5, 0, n), Error);
}

INSTANTIATE_TEST_SUITE_P(Systems, CudaStructureObservables,
                         ::testing::Values(Case{"ww", CudaKernelFamily::kBlock, 5, 500},
                                           Case{"ww", CudaKernelFamily::kPerBead, 5, 500},
                                           Case{"ubq", CudaKernelFamily::kBlock, 2, 300},
                                           Case{"pf8", CudaKernelFamily::kPerBead, 2, 200}),
                         system_family_replicas_name<Case>);

}  // namespace
}  // namespace ermak::cudatest
