// The step-size check of a run's start (run/step_size_check.h, docs/model.md#dynamics): the
// noise amplitude sqrt(2 k_B T h/ζ) at the schedule's highest temperature.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/run/step_size_check.h"

namespace ermak {
namespace {

// check_step_size's refusal, or "no error".
std::string refusal_of(const RunSpec& spec) {
  try {
    check_step_size(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

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

// A stop the run's steps never reach does not count: 20000 steps of +0.1 kcal/mol every 1000
// end at 2.5 kcal/mol whatever the stop.
TEST(StepSizeCheck, AHeatingStopTheRunNeverReachesDoesNotCount) {
  RunSpec spec;
  spec.steps = 20000;
  spec.temperature.every_steps = 1000;
  spec.temperature.increment_kcal_per_mol = 0.1;
  spec.temperature.stop_kcal_per_mol = 1e6;
  EXPECT_NEAR(largest_noise_amplitude_A(spec), 0.04382 * std::sqrt(2.5 / 0.6), 1e-5);
  EXPECT_EQ(check_step_size(spec), "");
}

// A temperature given with --set that makes the steps too large is named, not the time step.
TEST(StepSizeCheck, TheOverrideThatMadeTheStepsTooLargeIsNamed) {
  RunSpec spec;
  spec.config_path = "run.toml";
  spec.temperature.start_kcal_per_mol = 1e9;
  spec.key_sources["run.temperature_K"] = {"--set", 0, {}};
  const std::string what = refusal_of(spec);
  EXPECT_EQ(what.rfind("--set: run.temperature_K: a time step of", 0), 0u) << what;
}

// Without a --set, the key furthest above SOP-GPU's defaults where the file gives it: a
// temperature of 2·10⁹ K is named, not the time step on another line.
TEST(StepSizeCheck, TheSettingFurthestFromTheDefaultsIsNamed) {
  RunSpec spec;
  spec.config_path = "run.toml";
  spec.key_sources["run.timestep_ps"] = {"run.toml", 5, ""};
  spec.key_sources["run.temperature_K"] = {"run.toml", 6, ""};
  spec.key_sources["run.friction"] = {"run.toml", 7, ""};
  auto named = [&] {
    const std::string what = refusal_of(spec);
    return what.substr(0, what.find(": a time step"));
  };
  spec.temperature.start_kcal_per_mol = 1e9;
  EXPECT_EQ(named(), "run.toml:6: run.temperature_K");
  spec.temperature.start_kcal_per_mol = 0.6;
  spec.langevin.zeta = 1e-9;
  EXPECT_EQ(named(), "run.toml:7: run.friction");
  spec.langevin.zeta = 50;
  spec.langevin.timestep_tau = 100;
  EXPECT_EQ(named(), "run.toml:5: run.timestep_ps");
  // R0 far below SOP-GPU's 2 Å (an audit's R_limit 0.05 was blamed on a temperature 0.6 %
  // above 300 K): named, and its key in the advice.
  spec.langevin.timestep_tau = 0.08;
  spec.temperature.start_kcal_per_mol = 0.6;
  spec.sop.fene_R0_A = 0.05f;
  spec.key_sources["model.fene_max_stretch_A"] = {"run.toml", 9, ""};
  EXPECT_EQ(named(), "run.toml:9: model.fene_max_stretch_A");
  EXPECT_NE(refusal_of(spec).find("half the bonds' R0 (0.025 Å)"), std::string::npos) << refusal_of(spec);
  EXPECT_NE(refusal_of(spec).find("or R0 (model.fene_max_stretch_A 0.05 Å, below SOP-GPU's 2 Å)"), std::string::npos)
      << refusal_of(spec);
  // A SOP-GPU configuration is advised in its own keys.
  spec.config_path = "equil.sop";
  EXPECT_NE(refusal_of(spec).find("lower timestep or the temperature, or raise zeta or R0 (R_limit 0.05 Å"),
            std::string::npos)
      << refusal_of(spec);
}

// An indentation tip of tiny friction (derived from a tiny radius, or given) is named for a
// spring of the usual range that it cannot follow.
TEST(StepSizeCheck, ATipTooLightForItsSpringNamesItsFriction) {
  RunSpec spec;
  spec.config_path = "run.toml";
  spec.indentation.enabled = true;
  spec.indentation.spring_kcal_per_mol_A2 = 0.3;  // 208 pN/nm
  spec.indentation.tip_friction = 1e-28;
  spec.key_sources["indentation.tip_radius_nm"] = {"run.toml", 9, ""};
  spec.key_sources["indentation.spring_pN_per_nm"] = {"run.toml", 10, ""};
  const std::string what = refusal_of(spec);
  EXPECT_EQ(what.rfind("run.toml:9: indentation.tip_radius_nm: a spring of", 0), 0u) << what;
  EXPECT_NE(what.find("give the tip more friction"), std::string::npos) << what;
}

TEST(StepSizeCheck, HalfR0OrMoreIsRefusedAndTinyStepsWarned) {
  RunSpec spec;
  spec.config_path = "run.toml";
  // sqrt(2 · 0.6 · h / 50) = 1 Å at h = 41.67 τ_H.
  // Below it, such a step is not refused but warned: h·2k/ζ ≥ 2 makes a FENE bond at rest
  // unstable (docs/model.md#dynamics).
  spec.langevin.timestep_tau = 41.0;
  EXPECT_NE(check_step_size(spec).find("h·2k/ζ = 32.8 for the FENE bonds (2 or more: unstable"), std::string::npos);
  spec.langevin.timestep_tau = 42.0;
  EXPECT_THROW(check_step_size(spec), Error);
  // Named at the time step's key as the configuration gave it, with its line (or --set).
  spec.key_sources["run.timestep_tau"] = {"run.toml", 7, ""};
  {
    const std::string what = refusal_of(spec);
    EXPECT_NE(what.find("run.toml:7: run.timestep_tau: a time step of"), std::string::npos) << what;
    EXPECT_NE(what.find("lower run.timestep_tau or the temperature"), std::string::npos) << what;
  }
  spec.langevin.timestep_tau = 0.08;
  spec.temperature.start_kcal_per_mol = std::nan("");
  EXPECT_THROW(check_step_size(spec), Error);
  spec.temperature.start_kcal_per_mol = 0.6;
  spec.langevin.zeta = 1e10;
  EXPECT_NE(check_step_size(spec).find("the beads barely move"), std::string::npos);
}

// From h·2k/ζ = 0.2 (0.25 τ_H at k = 20, ζ = 50) the bond lengths' O(h) excess passes 10 %
// and long runs may break bonds (the audits: WW at 300 K broke some at 0.6–0.8 τ_H).
TEST(StepSizeCheck, AStepNearTheBondsStabilityLimitIsWarned) {
  RunSpec spec;
  spec.langevin.timestep_tau = 0.2;
  EXPECT_EQ(check_step_size(spec), "");
  spec.langevin.timestep_tau = 0.3;
  const std::string warning = check_step_size(spec);
  EXPECT_NE(warning.find("warning: a time step of 0.3 τ_H gives h·2k/ζ = 0.24 for the FENE bonds (the scheme is "
                         "stable below 2; SOP-GPU's 0.08 τ_H gives 0.064): the bond lengths fluctuate about 12 % more"),
            std::string::npos)
      << warning;
  spec.langevin.zeta = 500.0;  // ten times the friction: 0.024
  EXPECT_EQ(check_step_size(spec), "");
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
    // The force as given, with its sign: −700 kcal/mol/Å = −4.863e4 pN.
    EXPECT_NE(std::string(e.what()).find("a force of -4.863e+04 pN"), std::string::npos) << e.what();
  }
}

// Caught at the start instead of as a broken bond after the first steps.
TEST(StepSizeCheck, SpringsThatOvershootAndBasesThatOutrunTheBondsAreRefused) {
  const auto message = [](const RunSpec& spec) -> std::string {
    try {
      check_step_size(spec);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  RunSpec spec;
  spec.config_path = "pull.toml";
  spec.pulling.enabled = true;
  spec.pulling.spring_kcal_per_mol_A2 = 0.072;  // SOP-GPU's 50 pN/nm
  spec.pulling.speed_A_per_tau = 2.48e-6;       // 1 µm/s
  EXPECT_EQ(message(spec), "");
  // (h/ζ)·κ = 0.0016 · κ: 1 at κ = 625 kcal/mol/Å².
  spec.pulling.spring_kcal_per_mol_A2 = 620.0;
  EXPECT_EQ(message(spec), "");
  spec.pulling.spring_kcal_per_mol_A2 = 630.0;
  std::string m = message(spec);
  EXPECT_NE(m.find("pull.toml: pulling.spring_pN_per_nm: a spring of 4.377e+05 pN/nm relaxes by 1.01 of its stretch per step"),
            std::string::npos)
      << m;
  // v·h ≥ R0/2 = 1 Å: v ≥ 12.5 Å/τ_H (5.04·10⁶ µm/s).
  spec.pulling.spring_kcal_per_mol_A2 = 0.072;
  spec.pulling.speed_A_per_tau = 12.4;
  EXPECT_EQ(message(spec), "");
  spec.pulling.speed_A_per_tau = -12.6;
  m = message(spec);
  EXPECT_NE(m.find("pulling.speed_um_per_s: a speed of -5.081e+06 µm/s moves the spring's base by 1.01 Å per step"), std::string::npos)
      << m;
  spec.pulling.speed_A_per_tau = std::nan("");
  EXPECT_NE(message(spec), "");
  // Where the value was given, the error names that key and line.
  spec.key_sources["pulling.speed_A_per_tau"] = {"--set", 0, {}};
  EXPECT_EQ(message(spec).rfind("--set: pulling.speed_A_per_tau: a speed of", 0), 0u) << message(spec);

  // Planes are named by their index; the indentation tip uses its own friction.
  spec.pulling.enabled = false;
  spec.plane_pulling.enabled = true;
  spec.plane_pulling.planes.resize(2);
  spec.plane_pulling.planes[0].spring_kcal_per_mol_A2 = 1.0;
  spec.plane_pulling.planes[1].spring_kcal_per_mol_A2 = 700.0;
  EXPECT_NE(message(spec).find("plane_pulling.plane[1].spring_pN_per_nm: a spring of"), std::string::npos) << message(spec);
  spec.plane_pulling.enabled = false;
  spec.indentation.enabled = true;
  spec.indentation.spring_kcal_per_mol_A2 = 700.0;
  spec.indentation.tip_friction = 1000.0;  // (h/ζ_tip)·κ = 0.056
  EXPECT_EQ(message(spec), "");
  spec.indentation.tip_friction = 50.0;
  EXPECT_NE(message(spec).find("indentation.spring_pN_per_nm: a spring of"), std::string::npos) << message(spec);
}

// A clamp force that holds the FENE bonds at 70 % of R0 or more: k·0.7·R0/(1 − 0.49) =
// 54.90 kcal/mol/Å ≈ 3814 pN with the defaults (k = 20, R0 = 2); 4000 pN stretches them by
// Δ with 20Δ/(1 − Δ²/4) = 57.6: Δ = 1.42 Å.
TEST(StepSize, AClampThatStretchesTheBondsNearR0IsWarned) {
  RunSpec spec;
  spec.force_clamp.enabled = true;
  spec.force_clamp.schedule = {{0, units::pN_to_internal_force(3000.0)}};
  EXPECT_EQ(clamp_tension_warning(spec), "");
  spec.force_clamp.schedule = {{0, 0.0}, {1000, units::pN_to_internal_force(4000.0)}};  // a schedule's largest
  const std::string w = clamp_tension_warning(spec);
  EXPECT_NE(w.find("4000 pN holds the bonds along the clamped chain stretched by 1.42 Å of their R0 = 2 Å"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("a clamp below ~3814 pN"), std::string::npos) << w;
  // Beyond the run's steps a schedule's point is never reached: at 500 of its 1000 steps it
  // ends at 2000 pN, no warning.
  spec.steps = 500;
  EXPECT_EQ(clamp_tension_warning(spec), "") << clamp_tension_warning(spec);
  spec.steps = 100000;
  // Three pulled beads of one chain load the bonds by the fixed end with 3 × 1700 pN.
  spec.force_clamp.schedule = {{0, units::pN_to_internal_force(1700.0)}};
  spec.force_clamp.pulled_beads = {31, 32, 33};
  const std::string three = clamp_tension_warning(spec);
  EXPECT_NE(three.find("5100 pN (3 pulled beads × 1700 pN, all on one chain at most)"), std::string::npos) << three;
  EXPECT_NE(three.find("a clamp below ~1271 pN per bead"), std::string::npos) << three;
  spec.force_clamp.enabled = false;
  EXPECT_EQ(clamp_tension_warning(spec), "");
}

}  // namespace
}  // namespace ermak
