// `ermak run --dry-run` end to end (docs/outputs.md#dry-run): it estimates the run's
// duration, stops with the errors the run itself would stop with, and writes nothing —
// no output directory for a new run, not a byte of an existing run's files on --resume.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/sopgpu_directories.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::files_under;
using ermak::test::run_command;
using ermak::test::run_ermak;

TEST(RunDryRun, EstimatesTheRunAndWritesNothing) {
  const auto dir = ermak::test::fresh_directory("dry-run-new");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "[minimize]\nsteps = 50\n");
  const auto before = files_under(dir);
  int status = 0;
  const std::string out =
      run_ermak("run --dry-run " + config.string() + " --set run.backend=\"cpu\" --set run.steps=100000000", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("dry run of"), std::string::npos) << out;
  EXPECT_NE(out.find("the minimisation ([minimize] steps = 50) is not run"), std::string::npos) << out;
  EXPECT_NE(out.find("steps/s"), std::string::npos) << out;
  EXPECT_NE(out.find("steps 0 .. 100000000 (100000000 steps) at that rate: about "), std::string::npos) << out;
  EXPECT_NE(out.find("nothing was written"), std::string::npos) << out;
  EXPECT_EQ(out.find("outputs in"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_EQ(files_under(dir), before);
}

TEST(RunDryRun, StopsWhereTheRunWouldAndLeavesAnExistingRunAlone) {
  const auto dir = ermak::test::fresh_directory("dry-run-resume");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5);
  const std::string cpu = " --set run.backend=\"cpu\"";
  int status = 0;
  std::string out = run_ermak("run --quiet " + config.string() + cpu + " --set run.steps=2000", &status);
  ASSERT_EQ(status, 0) << out;
  const auto before = files_under(dir);
  // A new run over it: refused as the run would be.
  out = run_ermak("run --dry-run " + config.string() + cpu, &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("already holds a run"), std::string::npos) << out;
  // Resuming with another seed: refused as the run would be.
  out = run_ermak("run --dry-run --resume " + config.string() + cpu + " --set run.seed=6", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("differs from the one this checkpoint was written with"), std::string::npos) << out;
  // Resuming to 10⁶ steps: from the checkpoint's step.
  out = run_ermak("run --dry-run --resume " + config.string() + cpu + " --set run.steps=1000000", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("would resume at step 2000"), std::string::npos) << out;
  EXPECT_NE(out.find("steps 2000 .. 1000000 (998000 steps)"), std::string::npos) << out;
  // --force on a dry run overwrites nothing either.
  out = run_ermak("run --dry-run --force " + config.string() + cpu, &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(files_under(dir), before) << "a dry run changed the run's files";
}

TEST(RunDryRun, ASopgpuConfigurationWritesNothingEither) {
  const fs::path dir = ermak::test::sopgpu_ww_directory("dry-run-sop");
  const auto before = files_under(dir);
  std::string out;
  const int status = run_command("cd '" + dir.string() + "' && '" + ermak::test::ermak_binary().string() +
                                     "' run ww_equil.sop --dry-run --backend cpu --threads 2 --set runnum=3 "
                                     "--set numsteps=100000000",
                                 &out);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("steps 0 .. 100000000 (100000000 steps) at that rate: about "), std::string::npos) << out;
  EXPECT_NE(out.find("nothing was written"), std::string::npos) << out;
  // SOP-GPU's dat/, dcd/, output/ … are not even created.
  EXPECT_EQ(files_under(dir), before);
  for (const char* sub : {"dat", "dcd", "output"}) EXPECT_FALSE(fs::exists(dir / sub)) << sub;
}

TEST(RunDryRun, AnOutputDirectoryThroughAFileIsAnErrorOfTheKey) {
  const auto dir = ermak::test::fresh_directory("dry-run-not-a-directory");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5);
  { std::ofstream(dir / "afile") << "not a directory\n"; }
  // Absolute paths: --set paths are relative to the working directory (docs/config.md).
  for (const std::string dry : {"", " --dry-run"}) {
    int status = 0;
    std::string out =
        run_ermak("run" + dry + " " + config.string() + " --set 'output.directory=\"" + (dir / "afile/out").string() + "\"'",
                  &status);
    EXPECT_EQ(status, 1) << out;  // a user's error, not an internal one
    EXPECT_NE(out.find("output.directory: "), std::string::npos) << out;
    EXPECT_NE(out.find("afile is a file, not a directory"), std::string::npos) << out;
    out = run_ermak("run" + dry + " " + config.string() + " --set 'output.directory=\"" + (dir / "afile").string() + "\"'",
                    &status);
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find("afile exists and is not a directory"), std::string::npos) << out;
  }
  EXPECT_EQ(ermak::test::read_file(dir / "afile"), "not a directory\n");
}
