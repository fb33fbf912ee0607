// `ermak run --dry-run` end to end (docs/outputs.md#dry-run): it estimates the run's
// duration, stops with the errors the run itself would stop with, and writes nothing —
// no output directory for a new run, not a byte of an existing run's files on --resume.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "support/sopgpu_directories.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::files_under;
using ermak::test::run_ermak_in;
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
  // What a crash would cost: the time between checkpoints.
  EXPECT_NE(out.find("dry run: a checkpoint every 1000 steps: about every second or more often"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_EQ(files_under(dir), before);
  // A run of hours with a checkpoint only at its end is warned (WW × 3 runs ~10⁶ steps/s here).
  const std::string none = run_ermak("run --dry-run " + config.string() +
                                         " --set run.backend=\"cpu\" --set run.steps=100000000000"
                                         " --set output.checkpoint_every=0",
                                     &status);
  ASSERT_EQ(status, 0) << none;
  EXPECT_NE(none.find("dry run: warning: output.checkpoint_every = 0 writes checkpoints only at the start and the end"),
            std::string::npos)
      << none;
  // An interval at or past the run's end is the same as 0.
  const std::string beyond = run_ermak("run --dry-run " + config.string() +
                                           " --set run.backend=\"cpu\" --set run.steps=100000000000"
                                           " --set output.checkpoint_every=200000000000",
                                       &status);
  EXPECT_NE(beyond.find("dry run: warning: output.checkpoint_every = 200000000000 writes checkpoints only at the start and the end"),
            std::string::npos)
      << beyond;
  // A frame interval the DCD header cannot hold.
  const std::string sparse = run_ermak("run --dry-run " + config.string() +
                                           " --set run.backend=\"cpu\" --set run.steps=6000000000"
                                           " --set output.trajectory_every=3000000000",
                                       &status);
  ASSERT_EQ(status, 0) << sparse;
  EXPECT_NE(sparse.find("output.trajectory_every = 3000000000 is beyond the DCD header's 32-bit frame interval: VMD "
                        "and MDAnalysis will read 2147483647 "
                        "steps between frames (dt 28.4 % short)"),
            std::string::npos)
      << sparse;
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
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("already holds a run"), std::string::npos) << out;
  // …after every other check, so that one call shows every problem: a bad fixed bead first.
  EXPECT_NE(out.find("every other check of the run's start passed"), std::string::npos) << out;
  out = run_ermak("run --dry-run " + config.string() + cpu + " --set fixed.beads=[500]", &status);
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("fixed.beads"), std::string::npos) << out;
  EXPECT_EQ(out.find("already holds a run"), std::string::npos) << out;
  // Resuming with another seed: refused as the run would be.
  out = run_ermak("run --dry-run --resume " + config.string() + cpu + " --set run.seed=6", &status);
  EXPECT_EQ(status, 1);
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
  const int status = run_ermak_in(dir,
                                  "run ww_equil.sop --dry-run --backend cpu --threads 2 --set runnum=3 "
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
  // Under /proc (which passes access() for root): refused by the dry run as by the run.
  if (fs::is_directory("/proc/self"))
    for (const std::string dry : {"", " --dry-run"}) {
      int status = 0;
      const std::string out =
          run_ermak("run" + dry + " " + config.string() + " --set 'output.directory=\"/proc/ermak-nope/out\"'", &status);
      EXPECT_EQ(status, 1) << out;
      EXPECT_NE(out.find("output.directory: /proc/ermak-nope/out: /proc is on the kernel's proc file system, where no "
                         "run can write its files"),
                std::string::npos)
          << out;
    }
}

// "SOP-GPU files 53.2 KiB" in a run log → bytes.
double logged_size(const std::string& log, const std::string& what) {
  const std::size_t at = log.find(what + " ");
  if (at == std::string::npos) return -1;
  std::istringstream in(log.substr(at + what.size() + 1));
  double value = 0;
  std::string unit;
  in >> value >> unit;
  const std::map<std::string, double> scale = {{"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  const auto it = scale.find(unit.substr(0, unit.find_first_of(",)")));
  return it == scale.end() ? -1 : value * it->second;
}
// Over a SOP-GPU run's existing files, as over a TOML run's: every other check first, the
// refusal of the files last (an audit's bead out of range was hidden behind "exists").
TEST(RunDryRun, OverASopgpuRunsFilesEveryOtherCheckComesFirst) {
  const fs::path dir = ermak::test::sopgpu_ww_directory("dry-run-sop-exists");
  const std::string run = "run ww_pull.sop --backend cpu --threads 2 --set runnum=1 --set numsteps=200 "
                          "--set pullFreq=100 --set coordinates=structures/ww.pdb";
  std::string out;
  ASSERT_EQ(run_ermak_in(dir, run + " --quiet", &out), 0) << out;
  const auto before = files_under(dir);
  EXPECT_EQ(run_ermak_in(dir, run + " --dry-run", &out), 1) << out;
  EXPECT_NE(out.find("already holds a run; pass --force"), std::string::npos) << out;
  EXPECT_NE(out.find("every other check of the run's start passed"), std::string::npos) << out;
  EXPECT_EQ(run_ermak_in(dir, run + " --dry-run --set fixed=100", &out), 1) << out;
  EXPECT_NE(out.find("bead 100 is out of range"), std::string::npos) << out;
  EXPECT_EQ(out.find("pass --force"), std::string::npos) << out;
  EXPECT_EQ(files_under(dir), before);
}


TEST(RunDryRun, TheDiskEstimateOfASopgpuRunMatchesItsFiles) {
  const fs::path dir = ermak::test::sopgpu_ww_directory("disk-sop");
  const auto inputs = files_under(dir);
  std::string out;
  const int status = run_ermak_in(dir,
                                  "run ww_equil.sop --backend cpu --threads 2 --quiet --set runnum=3 "
                                  "--set numsteps=20000 --set outputtiming=200 --set dcdfreq=1000",
                                  &out);
  ASSERT_EQ(status, 0) << out;
  // The files the run wrote (the inputs left aside; ermak's checkpoint and log apart).
  double written = 0;
  std::string log;
  for (const auto& [name, bytes] : files_under(dir)) {
    if (inputs.count(name)) continue;
    if (name.ends_with(".ermak.log")) log = bytes;
    if (name.ends_with(".ermak.log") || name.ends_with(".ckpt")) continue;
    written += double(bytes.size());
  }
  const double estimated = logged_size(log, "SOP-GPU files");
  ASSERT_GT(estimated, 0) << log;
  EXPECT_NEAR(estimated, written, 0.15 * written);
}

TEST(RunDryRun, AResumeFindsTheFilesItWouldContinue) {
  const auto dir = ermak::test::fresh_directory("dry-run-resume-files");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5);
  const std::string cpu = " --set run.backend=\"cpu\" --set run.steps=3000";
  int status = 0;
  ASSERT_EQ((run_ermak("run --quiet " + config.string() + cpu + " --set run.steps=2000", &status), status), 0);
  // A table cut short, then one gone: the dry run stops where the resume would.
  const fs::path table = dir / "out/replica_001/energies.tsv";
  const std::string bytes = ermak::test::read_file(table);
  { std::ofstream(table, std::ios::binary) << bytes.substr(0, bytes.size() / 2); }
  std::string out = run_ermak("run --dry-run --resume " + config.string() + cpu, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("replica_001/energies.tsv: holds "), std::string::npos) << out;
  EXPECT_NE(out.find("fewer than the"), std::string::npos) << out;
  fs::remove(table);
  out = run_ermak("run --dry-run --resume " + config.string() + cpu, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("replica_001/energies.tsv: missing"), std::string::npos) << out;
  // The real resume refuses too.
  out = run_ermak("run --quiet --resume " + config.string() + cpu, &status);
  EXPECT_EQ(status, 1) << out;
}

TEST(RunDryRun, ASopgpuOutputDirectoryThroughAFileIsFoundBeforeAnythingIsMade) {
  const fs::path dir = ermak::test::sopgpu_ww_directory("dry-run-sop-dat");
  { std::ofstream(dir / "dat") << "a file where SOP-GPU's dat/ would go\n"; }
  const auto before = files_under(dir);
  for (const std::string dry : {" --dry-run", ""}) {
    std::string out;
    const int status = run_ermak_in(dir, "run ww_equil.sop" + dry + " --backend cpu --set runnum=2 --set numsteps=100", &out);
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find("dat exists and is not a directory"), std::string::npos) << out;
    // Neither made output/ or any other directory first.
    EXPECT_EQ(files_under(dir), before) << dry;
  }
}

// A heating schedule is stated in words, and a run that ends before its stop temperature is
// warned about (an audit's run ended at 325 K of a 300 → 400 K schedule without a word).
TEST(RunDryRun, AHeatingScheduleIsStatedAndAShortRunWarned) {
  const auto dir = ermak::test::fresh_directory("dry-run-heating");
  const fs::path config = ermak::test::write_ww_run_config(
      dir, 5, "[heating]\nstart_K = 300\nstop_K = 400\nincrement_K = 5\nevery_steps = 20000\n");
  int status = 0;
  std::string out = run_ermak("run --dry-run " + config.string() + " --set run.backend=\"cpu\" --set run.steps=500000",
                              &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("heating: 300 K to 400 K by +5 K every 20000 steps; at 400 K from step 400000"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("warning: heating"), std::string::npos) << out;
  // The last step of a 100000-step run runs at 320 K (steps 80000 to 99999).
  out = run_ermak("run --dry-run " + config.string() + " --set run.backend=\"cpu\" --set run.steps=100000", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("warning: heating: the last of the run's 100000 steps runs at 320 K, before the schedule's stop temperature "
                     "400 K (steps 400000 to 420000); give run.steps ≥ 420000 to hold it for a whole stair"),
            std::string::npos)
      << out;
  // Ending at the step the stop temperature begins is ending before it; part of its stair, a part.
  out = run_ermak("run --dry-run " + config.string() + " --set run.backend=\"cpu\" --set run.steps=400000", &status);
  EXPECT_NE(out.find("steps runs at 395 K, before the schedule's stop temperature"), std::string::npos) << out;
  out = run_ermak("run --dry-run " + config.string() + " --set run.backend=\"cpu\" --set run.steps=410000", &status);
  EXPECT_NE(out.find("steps runs at 400 K, during a part stair at the schedule's stop temperature"), std::string::npos)
      << out;
  // A stop later than any run may go (2^48 steps) is never reached: no step count to give that
  // run.steps would refuse (an audit was told run.steps ≥ 54000000000060000).
  out = run_ermak("run --dry-run " + config.string() + " --set run.backend=\"cpu\" --set heating.increment_K=1e-9",
                  &status);
  EXPECT_NE(out.find("the stop is never reached"), std::string::npos) << out;
  EXPECT_NE(out.find("is too small for any run to reach the stop temperature 400 K (later than the 281474976710656 "
                     "steps a run may take)"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("give run.steps ≥"), std::string::npos) << out;
  // An increment that spans the whole range is one jump (a unit slip, mostly).
  out = run_ermak("run --dry-run " + config.string() + " --set run.backend=\"cpu\" --set heating.increment_K=150",
                  &status);
  EXPECT_NE(out.find("spans the whole range from 300 to 400 K: one jump"), std::string::npos) << out;
  // An increment exactly the range (each converted to kcal/mol: they differ in the last digit).
  out = run_ermak("run --dry-run " + config.string() + " --set run.backend=\"cpu\" --set heating.increment_K=100",
                  &status);
  EXPECT_NE(out.find("spans the whole range from 300 to 400 K: one jump"), std::string::npos) << out;
}

// A pulling or force-clamp run with nothing holding the molecule (no [fixed] bead, no static
// plane, no indentation surface) drags the whole protein through the solvent: the start warns,
// in the run log and the dry run alike (an audit's pulling of bead 33 at 2000 µm/s with no
// anchor ran without a word, and `ermak analyze` reported unfolding peaks of the drag).
TEST(RunDryRun, APullWithNothingHoldingTheMoleculeIsWarned) {
  const auto dir = ermak::test::fresh_directory("dry-run-unanchored");
  const std::string pulling = "[pulling]\npulled_beads = [33]\nspeed_um_per_s = 2000\nspring_pN_per_nm = 34.7\n";
  const std::string cpu = " --set run.backend=\"cpu\"";
  const std::string warning = "warning: [pulling]: the cantilever pulls bead 33 at 2000 µm/s but nothing holds the "
                              "molecule (no [fixed] beads, no static plane of [plane_pulling], no indentation surface)";
  int status = 0;
  fs::path config = ermak::test::write_ww_run_config(dir, 5, pulling);
  std::string out = run_ermak("run --dry-run " + config.string() + cpu, &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find(warning), std::string::npos) << out;
  EXPECT_NE(out.find("Fix a bead at the other end ([fixed] beads = [0], the usual AFM set-up)"), std::string::npos)
      << out;
  // The run itself writes it to its log.
  out = run_ermak("run --quiet " + config.string() + cpu + " --set run.steps=1000", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(ermak::test::read_file(dir / "out/run.log").find(warning), std::string::npos);
  // A fixed bead, or a static plane, holds it.
  fs::remove_all(dir / "out");
  config = ermak::test::write_ww_run_config(dir, 5, "[fixed]\nbeads = [0]\n" + pulling);
  out = run_ermak("run --dry-run " + config.string() + cpu, &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(out.find("nothing holds the molecule"), std::string::npos) << out;
  config = ermak::test::write_ww_run_config(
      dir, 5, pulling + "[[plane_pulling.plane]]\nbeads = [0]\nnormal = [0, 0, 1]\nspring_pN_per_nm = 34.7\n");
  out = run_ermak("run --dry-run " + config.string() + cpu, &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(out.find("nothing holds the molecule"), std::string::npos) << out;
  // A force clamp alone accelerates the molecule through the solvent just the same.
  config = ermak::test::write_ww_run_config(dir, 5, "[force_clamp]\npulled_beads = [33]\nforce_pN = 100\n");
  out = run_ermak("run --dry-run " + config.string() + cpu, &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("warning: [force_clamp]: the clamp force pulls bead 33 but nothing holds the molecule"),
            std::string::npos)
      << out;
}
