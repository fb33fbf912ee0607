// The analytic integrator statistics of rung 2 (DESIGN.md §5, docs/validation.md#rung-2)
// on the CUDA engine, once per kernel family: the checks of
// tests/support/integrator_statistics_checks.h, written once and run on every backend
// (the CPU engine runs them in tests/physics/integrator_statistics_test.cpp) with the
// same seeds, sample sizes and tolerances.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cuda/cuda_test_support.h"
#include "support/integrator_statistics_checks.h"

namespace {

using namespace ermak;

class CudaIntegratorStatistics : public ::testing::TestWithParam<CudaKernelFamily> {
 protected:
  // Every test skips without a GPU (a skip in SetUp skips the body).
  void SetUp() override { ERMAK_REQUIRE_GPU(); }
  // The CUDA engine of the kernel family under test.
  test::EngineFactory gpu() const {
    const CudaKernelFamily family = GetParam();
    return [family](const EngineSetup& setup) { return cudatest::make_gpu(setup, family); };
  }
};

TEST_P(CudaIntegratorStatistics, FreeDiffusionMeanSquareDisplacementAndGaussianSteps) {
  test::check_free_diffusion_msd_and_gaussian_steps(gpu());
}

TEST_P(CudaIntegratorStatistics, EveryBeadDrawsItsOwnDocumentedNoise) {
  test::check_every_bead_draws_its_own_documented_noise(gpu());
}

TEST_P(CudaIntegratorStatistics, FreeBeadsAmongFixedOnesDrawTheirOwnDocumentedNoise) {
  test::check_free_beads_among_fixed_ones_draw_their_own_documented_noise(gpu());
}

// The stateful generators of run.rng through the device noise (docs/rng.md#gpu), every
// generator and layout in turn.
TEST_P(CudaIntegratorStatistics, NoiseSourceGeneratorsMoveEveryFreeBeadByTheirFill) {
  for (const auto& [generator, layout] : test::noise_source_generator_layouts()) {
    SCOPED_TRACE(generator + "/" + layout);
    test::check_noise_source_moves_every_free_bead_by_its_fill(gpu(), generator, layout);
  }
}

TEST_P(CudaIntegratorStatistics, NoiseSourceGeneratorsFreeDiffusion) {
  for (const auto& [generator, layout] : test::noise_source_generator_layouts()) {
    SCOPED_TRACE(generator + "/" + layout);
    test::check_free_diffusion_with_noise_source(gpu(), generator, layout);
  }
}

TEST_P(CudaIntegratorStatistics, OrnsteinUhlenbeckRelaxationOfTheMean) {
  test::check_ou_relaxation_of_the_mean(gpu());
}

TEST_P(CudaIntegratorStatistics, OrnsteinUhlenbeckStationaryAutocorrelation) {
  test::check_ou_stationary_autocorrelation(gpu());
}

TEST_P(CudaIntegratorStatistics, EquipartitionOfATetheredBead) {
  test::check_equipartition_of_a_tethered_bead(gpu());
}

TEST_P(CudaIntegratorStatistics, StationaryVarianceFollowsTheHeatingSchedule) {
  test::check_stationary_variance_follows_the_heating_schedule(gpu());
}

TEST_P(CudaIntegratorStatistics, EachStepUsesTheTemperatureOfItsOwnStep) {
  test::check_each_step_uses_the_temperature_of_its_own_step(gpu());
}

TEST_P(CudaIntegratorStatistics, ForceRampMeanPositionAndStokesDrag) {
  test::check_force_ramp_mean_position_and_stokes_drag(gpu());
}

TEST_P(CudaIntegratorStatistics, ProtocolItemsOfOneReplicaActOnItAlone) {
  test::check_protocol_items_of_one_replica_act_on_it_alone(gpu());
}

INSTANTIATE_TEST_SUITE_P(Families, CudaIntegratorStatistics,
                         ::testing::Values(CudaKernelFamily::kBlock, CudaKernelFamily::kPerBead),
                         [](const ::testing::TestParamInfo<CudaKernelFamily>& info) {
                           return std::string(cudatest::family_name(info.param));
                         });

}  // namespace
