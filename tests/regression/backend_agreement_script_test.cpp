// scripts/backend_agreement.py (docs/validation.md#backend-agreement-sweep) on the CPU:
// random configurations run with one and with two threads, and stopped half way and
// resumed, must give the same bytes; a real difference (another seed) must be found; bad
// arguments are named. On a GPU the same script compares the CUDA backend with the CPU
// (tests/cuda/backend_agreement_cuda_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_command;

namespace {

std::string run_sweep(const fs::path& out, const std::string& arguments, int* status) {
  std::string output;
  *status = run_command(ermak::test::python() + " " + (ermak::test::source_dir() / "scripts/backend_agreement.py").string() +
                            " --ermak " + ermak::test::ermak_binary().string() + " --data " +
                            ermak::test::shared_data().string() + " --out " + out.string() + " --force " + arguments,
                        &output);
  return output;
}

}  // namespace

TEST(BackendAgreementScript, ThreadCountsGiveTheSameBytes) {
  const auto dir = ermak::test::fresh_directory("agreement-threads");
  int status = 0;
  // Up to 100 beads and 40 replicas, so that a 2-core CI machine runs the 10 cases in
  // seconds; seed 59 draws heating, minimisation, fixed beads, stateful generators,
  // pulling, scheduled force clamps, two planes and indentation with each kind of surface.
  const std::string text = run_sweep(dir / "sweep", "--a cpu:threads=1 --b cpu:threads=2 --bitwise --cases 10 "
                                                    "--max-beads 100 --max-replicas 40 --seed 59", &status);
  EXPECT_EQ(status, 0) << text;
  EXPECT_NE(text.find("# 10 of 10 cases agree"), std::string::npos) << text;
  const std::string table = read_file(dir / "sweep/agreement.tsv");
  EXPECT_EQ(table.rfind("case\tsystem\tbeads\treplicas\tsteps\tfeatures\t", 0), 0u) << table;
  for (const char* feature :
       {"minimize", "heating", "pulling", "clamp schedule", "2 plane(s)", "surface beads", "surface plane"})
    EXPECT_NE(table.find(feature), std::string::npos) << feature;
}

// SOP-GPU configurations (`ermak run FILE.sop`) drawn the same way: their SOP-GPU tables,
// DCDs and PDBs, whole and stopped half way and resumed. Seed 1's first six are WW
// equilibrations and pullings, one with a constant force and one along a vector.
TEST(BackendAgreementScript, SopgpuConfigurationsGiveTheSameBytes) {
  const auto dir = ermak::test::fresh_directory("agreement-sop");
  int status = 0;
  const std::string text = run_sweep(dir / "sweep",
                                     "--a cpu:threads=1 --b cpu:threads=2 --bitwise --cases 6 --sop-share 1 "
                                     "--max-beads 100 --max-replicas 40 --seed 1",
                                     &status);
  EXPECT_EQ(status, 0) << text;
  EXPECT_NE(text.find("# 6 of 6 cases agree"), std::string::npos) << text;
  const std::string table = read_file(dir / "sweep/agreement.tsv");
  for (const char* feature : {"ww.sop", "fconst", "pulling", "pullVector"})
    EXPECT_NE(table.find(feature), std::string::npos) << feature << "\n" << table;
  // A different seed in one way is found in the SOP-GPU files too.
  const std::string differs = run_sweep(dir / "differs", "--a cpu --b cpu:set=seed=424242 --cases 1 --sop-share 1 "
                                                         "--max-beads 100 --max-replicas 4 --seed 1", &status);
  EXPECT_EQ(status, 1) << differs;
  EXPECT_NE(differs.find("# 0 of 1 cases agree"), std::string::npos) << differs;
}

TEST(BackendAgreementScript, ADifferentRunIsFound) {
  const auto dir = ermak::test::fresh_directory("agreement-differs");
  int status = 0;
  const std::string text =
      run_sweep(dir / "sweep", "--a cpu --b cpu:set=run.seed=424242 --cases 2 --max-beads 40 --max-replicas 4", &status);
  EXPECT_EQ(status, 1) << text;
  EXPECT_NE(text.find("FAIL"), std::string::npos) << text;
  EXPECT_NE(text.find("# 0 of 2 cases agree"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(dir / "sweep/case_000/run.toml")) << "a failed case is kept to look at";
}

// A drawn configuration may be too harsh for its time step. Then both ways must stop with
// the same error (the same steps, beads and replica; lengths to rounding) and the same
// files up to there; one way stopping alone is a difference.
TEST(BackendAgreementScript, RunsThatStopWithTheSameErrorAgree) {
  const auto dir = ermak::test::fresh_directory("agreement-stopped");
  const std::string harsh = "cpu:set=run.timestep_tau=20";
  int status = 0;
  // Seed 1's first four cases: two stop in their steps; case 1 (pulling, its base moving
  // more than 1 Å a step; with hydrodynamics) and case 3 (a minimisation, then a force clamp that moves beads
  // 1.4 Å a step) are refused at the start by both.
  std::string text = run_sweep(dir / "both", "--a " + harsh + " --b " + harsh + ":threads=2 --cases 4 "
                                             "--max-beads 40 --max-replicas 4", &status);
  EXPECT_EQ(status, 0) << text;
  EXPECT_NE(text.find("# 4 of 4 cases agree"), std::string::npos) << text;
  EXPECT_NE(text.find("(both stopped: a FENE bond broke between steps 0 and"), std::string::npos) << text;
  EXPECT_NE(text.find("minimize clamp schedule (both stopped: "), std::string::npos) << text;
  EXPECT_NE(text.find("pulling[13, 30] hydrodynamics cholesky a=1.0A (both stopped: "), std::string::npos) << text;
  text = run_sweep(dir / "one", "--a " + harsh + " --b cpu --cases 4 --max-beads 40 --max-replicas 4", &status);
  EXPECT_EQ(status, 1) << text;
  EXPECT_NE(text.find("# 0 of 4 cases agree"), std::string::npos) << text;
  EXPECT_NE(text.find("exit status A 1"), std::string::npos) << text;
  EXPECT_NE(text.find("minimisation: exit status A 1"), std::string::npos) << text;
}

TEST(BackendAgreementScript, BadArgumentsAreNamed) {
  const auto dir = ermak::test::fresh_directory("agreement-bad");
  int status = 0;
  std::string text = run_sweep(dir / "sweep", "--a gpu", &status);
  EXPECT_EQ(status, 2) << text;
  EXPECT_NE(text.find("the backend must be cpu or cuda"), std::string::npos) << text;
  text = run_sweep(dir / "sweep", "--b cpu:speed=9", &status);
  EXPECT_EQ(status, 2) << text;
  EXPECT_NE(text.find("unknown option 'speed=9'"), std::string::npos) << text;
}
