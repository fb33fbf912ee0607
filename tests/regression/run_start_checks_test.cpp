// What `ermak run` checks before its first step, and what --force replaces
// (docs/outputs.md#layout-of-an-output-directory, docs/outputs.md#dry-run): start coordinates
// that break a bond name the file; overlapping beads without [minimize] are warned; a dry run whose timed steps go unstable fails; a start
// that failed its checks leaves nothing that blocks the next run; --force removes the
// earlier run's files; command-line mistakes exit with status 1.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/io/checkpoint.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_ermak;

namespace {

// SOP-GPU's WW coordinates with bead `bead` moved by (dx, dy, dz) Å.
fs::path displaced_ww_coordinates(const fs::path& dir, int bead, double dx, double dy, double dz) {
  std::istringstream in(read_file(ermak::test::shared_data() / "sopgpu/ww/reference/ww_cg.pdb"));
  std::ofstream out(dir / "displaced.pdb");
  std::string line;
  int atom = 0;
  while (std::getline(in, line)) {
    if (line.rfind("ATOM", 0) == 0 && atom++ == bead) {
      char xyz[32];
      std::snprintf(xyz, sizeof xyz, "%8.3f%8.3f%8.3f", std::stod(line.substr(30, 8)) + dx,
                    std::stod(line.substr(38, 8)) + dy, std::stod(line.substr(46, 8)) + dz);
      line.replace(30, 24, xyz);
    }
    out << line << "\n";
  }
  return dir / "displaced.pdb";
}

// The same with bead `bead`'s x moved by `dx_A`.
fs::path moved_ww_coordinates(const fs::path& dir, int bead, double dx_A) {
  return displaced_ww_coordinates(dir, bead, dx_A, 0.0, 0.0);
}

}  // namespace

// A start whose bonds fit but whose beads overlap: without [minimize] the first step's forces
// would throw a bead tens of Å. The run says so at its start, naming the bead (then stops at
// its first check with the bond that broke); with [minimize] it runs.
TEST(RunStartChecks, AStartThatOverlapsWithoutMinimisationIsWarned) {
  const auto dir = ermak::test::fresh_directory("start-overlap");
  // Bead 5 moved to 2.2 Å of bead 20, its bonds within r0 ± R0.
  const fs::path moved = displaced_ww_coordinates(dir, 5, -1.69169, -0.81576, -0.88030);
  const fs::path top = ermak::test::shared_data() / "sopgpu/ww/reference/ww.top";
  auto config = [&](const char* name, const char* extra) {
    std::ofstream(dir / name) << "[input]\ntopology = \"" << top.string() << "\"\ncoordinates = \"" << moved.string()
                              << "\"\n[run]\nsteps = 100\n" << extra << "[output]\ndirectory = \"" << name
                              << ".out\"\n";
    return (dir / name).string();
  };
  int status = 0;
  std::string out = run_ermak("run " + config("plain.toml", ""), &status);
  EXPECT_NE(out.find("warning: at the start chain A residue 11 CA feels"), std::string::npos) << out;
  EXPECT_NE(out.find("add a [minimize] section"), std::string::npos) << out;
  EXPECT_EQ(status, 1) << out;  // the bond breaks in the first steps
  out = run_ermak("run " + config("minimised.toml", "[minimize]\nsteps = 2000\n"), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out.find("warning: at the start"), std::string::npos) << out;
  // The native structure feels no such force.
  std::ofstream(dir / "native.toml") << "[input]\ntopology = \"" << top.string() << "\"\ncoordinates = \""
                                     << (ermak::test::shared_data() / "sopgpu/ww/reference/ww_cg.pdb").string()
                                     << "\"\n[run]\nsteps = 100\n[output]\ndirectory = \"native.out\"\n";
  out = run_ermak("run " + (dir / "native.toml").string(), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out.find("warning: at the start"), std::string::npos) << out;
}

TEST(RunStartChecks, CoordinatesThatBreakABondNameTheFile) {
  const auto dir = ermak::test::fresh_directory("start-stretched");
  const fs::path moved = moved_ww_coordinates(dir, 10, 5.0);
  const fs::path top = ermak::test::shared_data() / "sopgpu/ww/reference/ww.top";
  {
    std::ofstream c(dir / "run.toml");
    c << "[input]\ntopology = \"" << top.string() << "\"\ncoordinates = \"" << moved.string()
      << "\"\n[run]\nsteps = 100\n[output]\ndirectory = \"out\"\n";
  }
  int status = 0;
  std::string out = run_ermak("run --quiet " + (dir / "run.toml").string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find(moved.string() + ": the bond of beads 10 (chain A residue 16 CA) and 11"), std::string::npos) << out;
  EXPECT_NE(out.find("do not fit the topology's bonds"), std::string::npos) << out;
  // The run stopped in its start checks: no model files, nothing that needs --force next time.
  EXPECT_FALSE(fs::exists(dir / "out/model.psf"));
  // The start's warnings, logged after its start line, are logged too when a later check
  // fails first (they may explain its error): here the tiny steps of a huge friction.
  out = run_ermak("run --quiet " + (dir / "run.toml").string() + " --set run.friction=1e12", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(read_file(dir / "out/run.log").find("move a bead by only"), std::string::npos)
      << read_file(dir / "out/run.log");
  // A single-point energy says the same instead of printing nan.
  out = run_ermak("energy --topology " + top.string() + " --coordinates " + moved.string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("beyond r0 ± R0"), std::string::npos) << out;
  // A bead moved within the bonds' reach starts.
  const fs::path nudged = moved_ww_coordinates(dir, 10, 0.5);
  out = run_ermak("energy --topology " + top.string() + " --coordinates " + nudged.string(), &status);
  EXPECT_EQ(status, 0) << out;
}

// Bead 0 put on bead 2 (its bonds still fit): the repulsion has no value. The run names the
// pair before any step, with or without [minimize], and in a dry run — it used to run, blame
// a FENE bond for "non-finite coordinates", and its minimisation reported a finite force.
TEST(RunStartChecks, BeadsOnTopOfEachOtherAreRefusedByName) {
  const auto dir = ermak::test::fresh_directory("start-coincident");
  std::istringstream in(read_file(ermak::test::shared_data() / "sopgpu/ww/reference/ww_cg.pdb"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<std::size_t> atoms;
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (lines[k].rfind("ATOM", 0) == 0) atoms.push_back(k);
  ASSERT_GT(atoms.size(), 2u);
  lines[atoms[0]].replace(30, 24, lines[atoms[2]].substr(30, 24));
  {
    std::ofstream out(dir / "coincident.pdb");
    for (const std::string& line : lines) out << line << "\n";
  }
  const fs::path top = ermak::test::shared_data() / "sopgpu/ww/reference/ww.top";
  for (const char* extra : {"", "[minimize]\nsteps = 100\n"})
    for (const char* dry : {"", " --dry-run"}) {
      SCOPED_TRACE(std::string(extra) + dry);
      std::ofstream(dir / "run.toml") << "[input]\ntopology = \"" << top.string() << "\"\ncoordinates = \""
                                      << (dir / "coincident.pdb").string() << "\"\n[run]\nsteps = 100\nreplicas = 2\n"
                                      << extra << "[output]\ndirectory = \"out\"\n";
      int status = 0;
      const std::string out = run_ermak("run --quiet --force " + (dir / "run.toml").string() + dry, &status);
      EXPECT_EQ(status, 1) << out;
      EXPECT_NE(out.find("coincident.pdb: beads 0 and 2 of replica 0 are 0 Å apart at the start"), std::string::npos)
          << out;
      EXPECT_EQ(out.find("FENE"), std::string::npos) << out;
    }
}

// A force that is not finite with no beads close together comes from the model: a native
// contact's ε_h of 3e38 (single precision, accepted) is named at the topology, not blamed on
// the start coordinates as beads on top of each other (a fuzzing audit's).
TEST(RunStartChecks, AForceTooLargeForSinglePrecisionNamesTheTopology) {
  const auto dir = ermak::test::fresh_directory("start-huge-eh");
  const fs::path ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  std::string top = read_file(ww / "ww.top");
  const std::string contact = "    4    22     1    5.46463    1.50000";
  ASSERT_NE(top.find(contact), std::string::npos);
  top.replace(top.find(contact), contact.size(), "    4    22     1    5.46463    3e38");
  std::ofstream(dir / "big.top") << top;
  std::ofstream(dir / "run.toml") << "[input]\ntopology = \"big.top\"\ncoordinates = \"" << (ww / "ww_cg.pdb").string()
                                  << "\"\n[run]\nsteps = 100\nbackend = \"cpu\"\n[output]\ndirectory = \"out\"\n";
  int status = 0;
  const std::string out = run_ermak("run --dry-run " + (dir / "run.toml").string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("big.top: bead 4 feels a force that is not finite at the start, with no two beads closer than "
                     "3.77 Å: a parameter too large for single-precision forces — the model's (a native contact's "
                     "ε_h or r0"),
            std::string::npos)
      << out;
}

// Two beads on top of each other have no SOP energy: `ermak energy` names them instead of
// printing nan, and warns of a pair closer than 1 Å (an audit's run printed "native -nan").
TEST(RunStartChecks, TheEnergyOfOverlappingBeadsNamesThem) {
  const auto dir = ermak::test::fresh_directory("energy-overlap");
  const fs::path top = ermak::test::shared_data() / "sopgpu/ww/reference/ww.top";
  std::istringstream in(read_file(ermak::test::shared_data() / "sopgpu/ww/reference/ww_cg.pdb"));
  std::vector<std::string> lines;
  std::vector<std::size_t> atoms;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("ATOM", 0) == 0) atoms.push_back(lines.size());
    lines.push_back(line);
  }
  auto write = [&](const char* name, double dx_A) {
    std::string& five = lines[atoms[5]];
    const std::string& twenty = lines[atoms[20]];
    char x[16];
    std::snprintf(x, sizeof x, "%8.3f", std::stod(twenty.substr(30, 8)) + dx_A);
    five = five.substr(0, 30) + x + twenty.substr(38, 16) + five.substr(54);
    std::ofstream out(dir / name);
    for (const auto& l : lines) out << l << "\n";
    return dir / name;
  };
  int status = 0;
  const fs::path same = write("same.pdb", 0.0);
  std::string out = run_ermak("energy --fene-R0 5 --topology " + top.string() + " --coordinates " + same.string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find(same.string() + ": the energy is not finite: beads 5 and 20 are 0 Å apart"), std::string::npos)
      << out;
  const fs::path near = write("near.pdb", 0.01);
  out = run_ermak("energy --fene-R0 5 --topology " + top.string() + " --coordinates " + near.string(), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("beads 5 and 20 are 0.01 Å apart (the closest pair)"), std::string::npos) << out;
}

TEST(RunStartChecks, AFailedStartDoesNotBlockTheNextRun) {
  const auto dir = ermak::test::fresh_directory("start-failed");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "[fixed]\nbeads = [500]\n");
  int status = 0;
  std::string out = run_ermak("run --quiet " + config.string(), &status);
  ASSERT_EQ(status, 1) << out;
  EXPECT_NE(out.find("fixed.beads"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir / "out/run.log")) << "the error is in the run log";
  // The corrected configuration runs without --force: the directory holds no run yet.
  ermak::test::write_ww_run_config(dir, 5, "");
  out = run_ermak("run --quiet " + config.string() + " --set run.steps=100", &status);
  EXPECT_EQ(status, 0) << out;
}

// A chain id longer than a PSF holds (8 characters) is refused at the start, naming the
// structure where it is changed, not the model.psf the run would write (an audit's).
TEST(RunStartChecks, AChainIdAPsfCannotHoldNamesTheStructure) {
  const auto dir = ermak::test::fresh_directory("start-long-chain");
  ermak::test::write_calpha_mmcif(dir / "long.cif", "LONGCHAIN9");
  std::ofstream(dir / "run.toml") << "[input]\nstructure = \"long.cif\"\n[run]\nsteps = 10\nbackend = \"cpu\"\n"
                                     "[output]\ndirectory = \"out\"\n";
  int status = 0;
  const std::string out = run_ermak("run --dry-run " + (dir / "run.toml").string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("long.cif: beads[0].chain_id: 'LONGCHAIN9' is longer than the 8 characters"), std::string::npos)
      << out;
}

// --resume where no run started — an output directory that is missing, or there but empty —
// says to start the run without --resume (an audit's empty directory was told --force).
TEST(RunStartChecks, AResumeWhereNoRunStartedSaysToStartIt) {
  const auto dir = ermak::test::fresh_directory("start-resume-empty");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  int status = 0;
  std::string out = run_ermak("run --quiet --resume " + config.string() + " --set run.steps=100", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("does not exist (start the run without --resume)"), std::string::npos) << out;
  fs::create_directories(dir / "out");
  out = run_ermak("run --quiet --resume " + config.string() + " --set run.steps=100", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("out holds no run (start the run without --resume)"), std::string::npos) << out;
  out = run_ermak("run --quiet " + config.string() + " --set run.steps=100", &status);
  EXPECT_EQ(status, 0) << out;
}

// A model.pdb or model.etop of the user's in an output directory that holds no run is not
// written over without --force (docs/outputs.md#layout-of-an-output-directory); a dry run
// names it after its other checks; --force replaces it.
TEST(RunStartChecks, ModelFilesWithoutARunAreNotOverwrittenWithoutForce) {
  const auto dir = ermak::test::fresh_directory("start-model-files");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  fs::create_directories(dir / "out");
  { std::ofstream(dir / "out/model.pdb") << "the user's own model\n"; }
  int status = 0;
  std::string out = run_ermak("run --quiet " + config.string() + " --set run.steps=100", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("out: output.directory: holds model.pdb, which this run would write its model over"),
            std::string::npos)
      << out;
  EXPECT_EQ(read_file(dir / "out/model.pdb"), "the user's own model\n");
  EXPECT_FALSE(fs::exists(dir / "out/model.psf"));
  { std::ofstream(dir / "out/model.etop") << "another\n"; }
  out = run_ermak("run " + config.string() + " --set run.steps=100 --dry-run", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("holds model.pdb and model.etop, which this run would write its model over"), std::string::npos)
      << out;
  EXPECT_NE(out.find("every other check of the run's start passed"), std::string::npos) << out;
  out = run_ermak("run --quiet --force " + config.string() + " --set run.steps=100", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(read_file(dir / "out/model.pdb"), "the user's own model\n");
}

// A repulsion cut at or inside σ loses the excluded volume (docs/model.md#repulsion): refused
// at the key's line, by `ermak run` and `ermak energy` alike.
TEST(RunStartChecks, ARepulsionCutoffNotBeyondSigmaIsRefused) {
  const auto dir = ermak::test::fresh_directory("start-cutoff");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "[model]\npair_cutoff_A = 2\n");
  int status = 0;
  std::string out = run_ermak("run --quiet " + config.string() + " --set run.steps=100", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("model.pair_cutoff_A: the repulsion's cutoff 2 Å is not beyond its σ 3.8 Å"), std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir / "out/model.psf"));
  // At σ itself, set on the command line: the override is blamed.
  out = run_ermak("run --quiet " + config.string() + " --set model.pair_cutoff_A=3.8", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--set: model.pair_cutoff_A: the repulsion's cutoff 3.8 Å"), std::string::npos) << out;
  out = run_ermak("energy --structure " + (ermak::test::shared_data() / "pdb/1TIT.pdb").string() +
                      " --pair-cutoff 3",
                  &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--pair-cutoff 3 Å is not beyond --sigma 3.8 Å"), std::string::npos) << out;
}

// A run log that cannot be opened (a directory of its name) is an error naming it, not an
// "internal error" with exit status 2.
TEST(RunStartChecks, ARunLogThatCannotBeOpenedIsNamed) {
  const auto dir = ermak::test::fresh_directory("start-log-directory");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  fs::create_directories(dir / "out/run.log");
  int status = 0;
  const std::string out = run_ermak("run --quiet " + config.string() + " --set run.steps=100", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("out/run.log: cannot open the run log: a directory has its name"), std::string::npos) << out;
}

TEST(RunStartChecks, ForceReplacesEveryFileOfTheEarlierRun) {
  const auto dir = ermak::test::fresh_directory("start-force");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  int status = 0;
  std::string out = run_ermak("run --quiet " + config.string() + " --set run.steps=100", &status);
  ASSERT_EQ(status, 0) << out;
  ASSERT_TRUE(fs::exists(dir / "out/replica_002/final.pdb"));
  fs::create_directories(dir / "out/analysis");
  { std::ofstream(dir / "out/analysis/summary.txt") << "an earlier analysis\n"; }
  { std::ofstream(dir / "out/replica_002/notes.txt") << "the user's own file\n"; }
  // One replica now, and a start that fails after the model files: nothing of the earlier
  // three replicas' run may be left beside what this one wrote.
  out = run_ermak("run --force " + config.string() + " --set run.steps=100 --set run.replicas=1 --set "
                  "run.timestep_tau=8.0",
                  &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--force: removed"), std::string::npos) << out;
  // The new run went unstable after its start checkpoint (one replica, step 0), which the
  // report writer finishes before the error ends the run; the earlier run's (three
  // replicas, step 100) is gone.
  ASSERT_TRUE(fs::exists(dir / "out/checkpoint.ckpt"));
  const ermak::Checkpoint start = ermak::read_checkpoint(dir / "out/checkpoint.ckpt");
  EXPECT_EQ(start.positions.replica_count, 1) << "the earlier run's checkpoint";
  EXPECT_EQ(start.step, 0);
  EXPECT_FALSE(fs::exists(dir / "out/replica_000/final.pdb")) << "the earlier run's final structure";
  EXPECT_FALSE(fs::exists(dir / "out/replica_001"));
  EXPECT_FALSE(fs::exists(dir / "out/replica_002/energies.tsv"));
  // Files ermak run does not write stay.
  EXPECT_EQ(read_file(dir / "out/replica_002/notes.txt"), "the user's own file\n");
  EXPECT_EQ(read_file(dir / "out/analysis/summary.txt"), "an earlier analysis\n");
}

// A time step 100 times SOP-GPU's: its noise passes the start's step-size check (0.44 Å <
// R0/2), and the bonds break within the dry run's timed steps.
TEST(RunStartChecks, ADryRunWhoseStepsGoUnstableFails) {
  const auto dir = ermak::test::fresh_directory("start-dry-unstable");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  int status = 0;
  const std::string out =
      run_ermak("run --dry-run " + config.string() + " --set run.timestep_tau=8.0", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("ermak: error: dry run: a FENE bond broke between steps 0 and"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(RunStartChecks, CommandLineMistakesExitWithStatusOne) {
  int status = 0;
  std::string out = run_ermak("bogus", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("unknown command \"bogus\""), std::string::npos) << out;
  // `analyse`, the docs' British spelling, is `analyze` (an alias): its own errors, not "unknown
  // command"; `ermak --help` says so.
  out = run_ermak("analyse /nonexistent/run-dir", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_EQ(out.find("unknown command"), std::string::npos) << out;
  EXPECT_NE(out.find("/nonexistent/run-dir"), std::string::npos) << out;
  EXPECT_EQ(out, run_ermak("analyze /nonexistent/run-dir", &status));
  out = run_ermak("--help", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("`ermak analyse` is the same command"), std::string::npos) << out;
  // An option before the command, a command's unknown subcommand: what is needed, not
  // CLI11's "A subcommand is required".
  out = run_ermak("--bogus", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("`ermak` needs one of its commands: run, energy, bench, demo, rng, topology, analyze, got "
                     "\"--bogus\" (ermak --help)"),
            std::string::npos)
      << out;
  out = run_ermak("rng bogus", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("`ermak rng` needs one of its commands: list, dump, ou, got \"bogus\" (ermak rng --help)"),
            std::string::npos)
      << out;
  out = run_ermak("rng", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("`ermak rng` needs one of its commands: list, dump, ou (ermak rng --help)"), std::string::npos)
      << out;
  out = run_ermak("run", &status);
  EXPECT_EQ(status, 1) << out;
  out = run_ermak("run /nonexistent/run.toml", &status);
  EXPECT_EQ(status, 1) << out;
  out = run_ermak("energy --structure /nonexistent.pdb --pair-cutoff -1", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--pair-cutoff: must be a number between 1.17549e-38 and 3.40282e+38 (a float's range), got -1"),
            std::string::npos)
      << out;
  // A model parameter that a float would hold as 0 or infinity is refused too.
  out = run_ermak("energy --structure /nonexistent.pdb --sigma 1e-300", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--sigma: must be a number between"), std::string::npos) << out;
  out = run_ermak("energy --structure /nonexistent.pdb --sigma nan", &status);
  EXPECT_EQ(status, 1) << out;
  out = run_ermak("--help", &status);
  EXPECT_EQ(status, 0) << out;
}

TEST(RunStartChecks, AnEtopStartsFromItsOwnCoordinatesAndADirectoryIsNotAFile) {
  const auto dir = ermak::test::fresh_directory("start-etop");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  int status = 0;
  std::string out = run_ermak("run --quiet " + config.string() + " --set run.steps=10", &status);
  ASSERT_EQ(status, 0) << out;
  // The run's model.etop holds the native coordinates: no input.coordinates needed.
  {
    std::ofstream c(dir / "etop.toml");
    c << "[input]\ntopology = \"out/model.etop\"\n[run]\nsteps = 10\n[output]\ndirectory = \"out-etop\"\n";
  }
  out = run_ermak("run --quiet " + (dir / "etop.toml").string(), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_TRUE(fs::exists(dir / "out-etop/replica_000/final.pdb"));
  // A directory given for the coordinates.
  {
    std::ofstream c(dir / "dir.toml");
    c << "[input]\ntopology = \"out/model.etop\"\ncoordinates = \"out\"\n[run]\nsteps = 10\n"
      << "[output]\ndirectory = \"out-dir\"\n";
  }
  out = run_ermak("run --quiet " + (dir / "dir.toml").string(), &status);
  EXPECT_EQ(status, 1) << out;
  // Named at the configuration's line too (the loader names only the file).
  EXPECT_NE(out.find("dir.toml:3: input.coordinates: " + (dir / "out").string() + ": is a directory; give a file"),
            std::string::npos)
      << out;
  // Coordinates of another molecule: the file and the configuration's line.
  {
    std::ofstream c(dir / "other.toml");
    c << "[input]\ntopology = \"out/model.etop\"\ncoordinates = \""
      << (ermak::test::shared_data() / "pdb/1TIT.pdb").string() << "\"\n[run]\nsteps = 10\n"
      << "[output]\ndirectory = \"out-other\"\n";
  }
  out = run_ermak("run --quiet " + (dir / "other.toml").string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("other.toml:3: input.coordinates: " + (ermak::test::shared_data() / "pdb/1TIT.pdb").string()),
            std::string::npos)
      << out;
}

TEST(RunStartChecks, TheDemoSaysHowToRunItAgain) {
  if (!fs::exists("/usr/share/freesasa/test-data/1ubq.pdb")) FAIL() << "freesasa test data not installed" << " (the Debian package freesasa: scripts/setup.sh installs it)";
  const auto dir = ermak::test::fresh_directory("demo-again");
  const std::string args = "demo -o " + (dir / "demo").string() + " --no-analysis --set run.steps=200";
  int status = 0;
  std::string out = run_ermak(args, &status);
  ASSERT_EQ(status, 0) << out;
  out = run_ermak(args, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("already holds a demo run; `ermak demo --force` runs it again there, `ermak demo --resume` "
                     "continues one that was stopped"),
            std::string::npos)
      << out;
  out = run_ermak(args + " --force", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out.find("holds the analysis of an earlier demo run"), std::string::npos) << out;
  // An analysis of the earlier run left beside a --no-analysis run is named as such.
  fs::create_directories(dir / "demo/analysis");
  std::ofstream(dir / "demo/analysis/summary.txt") << "an earlier run's\n";
  out = run_ermak(args + " --force", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("/analysis holds the analysis of an earlier demo run; `ermak analyze "), std::string::npos) << out;
  EXPECT_EQ(out.find("holds the analysis of", out.find("holds the analysis of") + 1), std::string::npos)
      << "said once, at the end, not by the run too\n"
      << out;
}

// A demo resumed after it had run to the end (nothing left to run), or continued to its end,
// analyses it again in place: its analysis/ is its own, as on a first run and with --force
// (it stopped with "output files exist … use --force", status 1, where --force would have
// thrown the run away).
TEST(RunStartChecks, AResumedDemoAnalysesItAgain) {
  if (!fs::exists("/usr/share/freesasa/test-data/1ubq.pdb")) FAIL() << "freesasa test data not installed" << " (the Debian package freesasa: scripts/setup.sh installs it)";
  const auto dir = ermak::test::fresh_directory("demo-resume-analysis");
  const std::string args = "demo -o " + (dir / "demo").string() + " --set run.steps=20000";
  int status = 0;
  std::string out = run_ermak(args, &status);
  ASSERT_EQ(status, 0) << out;
  ASSERT_TRUE(fs::exists(dir / "demo/analysis/summary.txt")) << out;
  std::ofstream(dir / "demo/analysis/summary.txt") << "stale\n";
  out = run_ermak(args + " --resume", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out.find("output files exist"), std::string::npos) << out;
  EXPECT_NE(out.find("Analysis (ermak analyze "), std::string::npos) << out;
  EXPECT_NE(ermak::test::read_file(dir / "demo/analysis/summary.txt"), "stale\n");
}

// ermak run --force keeps the earlier run's analysis/ (not its file) and says so in its log,
// in the words of the demo's note; without an analysis there, no note.
TEST(RunStartChecks, ForceNotesTheEarlierRunsAnalysis) {
  const auto dir = ermak::test::fresh_directory("force-analysis-note");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  const std::string args = "run --quiet " + config.string() + " --set run.steps=100";
  int status = 0;
  std::string out = run_ermak(args, &status);
  ASSERT_EQ(status, 0) << out;
  out = run_ermak(args + " --force", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(ermak::test::read_file(dir / "out/run.log").find("holds the analysis of"), std::string::npos);
  fs::create_directories(dir / "out/analysis");
  std::ofstream(dir / "out/analysis/summary.txt") << "an earlier run's\n";
  out = run_ermak(args + " --force", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string log = ermak::test::read_file(dir / "out/run.log");
  const fs::path run_dir = fs::absolute(dir / "out");
  EXPECT_NE(log.find("note: " + (run_dir / "analysis").string() + " holds the analysis of the earlier run; `ermak "
                     "analyze " + run_dir.string() + " --force` redoes it for this one once it has ended"),
            std::string::npos)
      << log;
  EXPECT_TRUE(fs::exists(dir / "out/analysis/summary.txt")) << "kept: not the run's to remove";
}

TEST(RunStartChecks, StepsThatWouldBreakEveryBondAreRefusedAndFrozenOnesWarned) {
  const auto dir = ermak::test::fresh_directory("start-step-size");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  int status = 0;
  std::string out = run_ermak("run --dry-run " + config.string() + " --set run.temperature_K=1e300", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("a temperature up to 1e+300 K"), std::string::npos) << out;
  EXPECT_NE(out.find("the bonds would break within steps"), std::string::npos) << out;
  out = run_ermak("run --dry-run " + config.string() + " --set run.friction=1e300", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("the beads barely move"), std::string::npos) << out;
}

// A topology cut short inside [ bonds ] (SOP-GPU's WW .top, its first 60 lines: 19 of 33
// bonds, no native contacts) runs, but says what is missing.
TEST(RunStartChecks, ATopologyCutShortIsNamedInWarnings) {
  const auto dir = ermak::test::fresh_directory("start-cut-top");
  const fs::path ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  {
    std::istringstream in(read_file(ww / "ww.top"));
    std::ofstream out(dir / "cut.top");
    std::string line;
    for (int k = 0; k < 60 && std::getline(in, line); ++k) out << line << "\n";
  }
  int status = 0;
  const std::string out = run_ermak(
      "energy --topology " + (dir / "cut.top").string() + " --coordinates " + (ww / "ww_cg.pdb").string(), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("cut.top: 14 of 34 beads have no bond"), std::string::npos) << out;
  EXPECT_NE(out.find("cut.top: the model has no native contacts"), std::string::npos) << out;
  // Without coordinates, the energy command names its own option.
  const std::string missing = run_ermak("energy --topology " + (dir / "cut.top").string(), &status);
  EXPECT_EQ(status, 1) << missing;
  EXPECT_NE(missing.find("--coordinates: a SOP-GPU .top topology has no coordinates; set --coordinates"),
            std::string::npos)
      << missing;
}
