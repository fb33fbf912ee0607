// The step-size check of a run's start (run/step_size_check.h, docs/model.md#dynamics): the
// noise amplitude sqrt(2 k_B T h/ζ) at the schedule's highest temperature.
#include <gtest/gtest.h>

#include <cmath>

#include "ermak/core/error.h"
#include "ermak/run/step_size_check.h"

namespace ermak {
namespace {

TEST(StepSizeCheck, SopGpuDefaultsPassWithTheDocumentedAmplitude) {
  const RunSpec spec;
  EXPECT_NEAR(largest_noise_amplitude_A(spec), 0.04382, 5e-6);  // docs/model.md#dynamics
  EXPECT_EQ(check_step_size(spec), "");
}

TEST(StepSizeCheck, HeatingCountsItsHighestTemperature) {
  RunSpec spec;
  spec.temperature.every_steps = 1000;
  spec.temperature.increment_kcal_per_mol = 0.1;
  spec.temperature.stop_kcal_per_mol = 2.4;  // 4 × the start: twice the amplitude
  EXPECT_NEAR(largest_noise_amplitude_A(spec), 2 * 0.04382, 1e-5);
}

TEST(StepSizeCheck, HalfR0OrMoreIsRefusedAndTinyStepsWarned) {
  RunSpec spec;
  spec.config_path = "run.toml";
  // sqrt(2 · 0.6 · h / 50) = 1 Å at h = 41.67 τ_H.
  spec.langevin.timestep_tau = 41.0;
  EXPECT_EQ(check_step_size(spec), "");
  spec.langevin.timestep_tau = 42.0;
  EXPECT_THROW(check_step_size(spec), Error);
  spec.langevin.timestep_tau = 0.08;
  spec.temperature.start_kcal_per_mol = std::nan("");
  EXPECT_THROW(check_step_size(spec), Error);
  spec.temperature.start_kcal_per_mol = 0.6;
  spec.langevin.zeta = 1e10;
  EXPECT_NE(check_step_size(spec).find("the beads barely move"), std::string::npos);
}

TEST(StepSizeCheck, AClampForceThatWouldBreakEveryBondIsRefused) {
  RunSpec spec;
  spec.force_clamp.enabled = true;
  // (h/ζ)·F = 0.0016 Å²/(kcal/mol) · F: 1 Å at F = 625 kcal/mol/Å (about 43 nN).
  spec.force_clamp.schedule = {{0, 10.0}, {1000, 600.0}};
  EXPECT_EQ(check_step_size(spec), "");
  spec.force_clamp.schedule.push_back({2000, -700.0});
  try {
    check_step_size(spec);
    ADD_FAILURE() << "700 kcal/mol/Å was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("moves the clamped beads by 1.12 Å per step"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ermak
