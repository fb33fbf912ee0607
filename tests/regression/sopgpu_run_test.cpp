// `ermak run FILE.sop` end to end (issue 7, docs/migrating-from-sop-gpu.md): SOP-GPU's own
// WW and PF8 configurations, unchanged, in a directory laid out as they expect
// (topologies/, structures/), shortened with --set. Checks the files SOP-GPU would write,
// their columns and values: WW stays folded at T = 0.6, the pulled end follows the
// cantilever base (f/κ + ΔX_proj = v·t), PF8's indentation file; per-run coordinates,
// no overwriting without --force, bit-for-bit --resume, hydrodynamics rejected.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "support/sopgpu_directories.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::sopgpu_ww_directory;

namespace {

std::vector<std::vector<double>> read_rows(const fs::path& path) { return ermak::test::read_number_rows(path); }

int ermak_in(const fs::path& dir, const std::string& args, std::string* output) {
  return ermak::test::run_ermak_in(dir, "run " + args + " --backend cpu --threads 2 --quiet", output);
}

const std::string kEquilShort =
    "ww_equil.sop --set runnum=3 --set numsteps=20000 --set outputtiming=2000 --set dcdfreq=5000 "
    "--set restartfreq=10000";

void check_equilibrium_outputs(const fs::path& dir) {
  for (int run = 1; run <= 3; ++run) {
    const std::string r = std::to_string(run);
    const auto rows = read_rows(dir / ("dat/ww_" + r + "_equil.dat"));
    ASSERT_EQ(rows.size(), 11u) << "rows at steps 0, 2000, …, 20000";
    const double native_total = rows.front()[7];  // the native structure: every contact formed
    EXPECT_GT(native_total, 50);
    double native_mean = 0.0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto& row = rows[k];
      ASSERT_EQ(row.size(), 9u);
      for (double x : row) ASSERT_TRUE(std::isfinite(x));
      EXPECT_EQ(row[0], 2000.0 * double(k));
      EXPECT_DOUBLE_EQ(row[1], 0.6);                                   // T, kcal/mol
      EXPECT_NEAR(row[2], row[3] + row[4] + row[6], 2e-5);             // U_total = native + repulsive + FENE
      EXPECT_NEAR(row[5], row[3] + row[4], 2e-5);                      // LJ = native + repulsive
      EXPECT_LT(row[3], -0.5 * native_total);                          // the native contacts hold
      // Folded at T = 0.6: ≥ 80 % of the native contacts within R_limit of r0 at every row
      // (≥ 90 % on average, below), Rg near native. Unfolded WW keeps well under half.
      EXPECT_GE(row[7], 0.8 * native_total) << "run " << run << " step " << row[0];
      native_mean += row[7] / double(rows.size());
      EXPECT_NEAR(row[8], rows.front()[8], 1.0) << "Rg, run " << run << " step " << row[0];
    }
    EXPECT_GE(native_mean, 0.9 * native_total) << "run " << run;
    // DCD: 5 frames of 34 atoms (steps 0, 5000, …, 20000); NSET is the int32 at byte 8.
    const std::string dcd = read_file(dir / ("dcd/ww_" + r + "_equil.dcd"));
    ASSERT_GT(dcd.size(), 12u);
    std::int32_t frames = 0;
    std::memcpy(&frames, dcd.data() + 8, 4);
    EXPECT_EQ(frames, 5);
    EXPECT_EQ(dcd.size() % 4, 0u);
    EXPECT_TRUE(fs::exists(dir / ("structures/ww_" + r + "_equil_final.pdb")));
    EXPECT_TRUE(fs::exists(dir / ("output/ww_" + r + "_restart.pdb")));
  }
  EXPECT_TRUE(fs::exists(dir / "ww.ref.pdb"));
  EXPECT_TRUE(fs::exists(dir / "output/ww_1-3_restart.ww_equil.ermak.ckpt"));
  EXPECT_TRUE(fs::exists(dir / "output/ww_1-3_restart.ww_equil.ermak.log"));
  EXPECT_FALSE(fs::exists(dir / "ermak-output"));  // ermak's own directory only when asked
}

}  // namespace

TEST(SopgpuRun, WwEquilibrationThenPullingFromTheFinalStructures) {
  const fs::path dir = sopgpu_ww_directory("sopgpu_ww");
  std::string out;
  ASSERT_EQ(ermak_in(dir, kEquilShort, &out), 0) << out;
  check_equilibrium_outputs(dir);

  // The files are not overwritten without --force.
  EXPECT_EQ(ermak_in(dir, kEquilShort, &out), 1);
  EXPECT_NE(out.find("pass --force"), std::string::npos) << out;

  // Pulling, faster than the file's (deltax every pullFreq steps): 0.1 Å per 100 steps of
  // 0.08 τ_H, v = 0.0125 Å/τ_H, with a stiffer spring so that the chain extends.
  const double deltax = 0.1, k = 0.5, h = 0.08;
  const int every = 100;
  ASSERT_EQ(ermak_in(dir,
                     "ww_pull.sop --set runnum=3 --set numsteps=20000 --set deltax=0.1 --set pullFreq=100 "
                     "--set k_trans=0.5 --set outputtiming=2000 --set dcdfreq=10000 --set restartfreq=10000",
                     &out),
            0)
      << out;
  const double v = deltax / (every * h);
  for (int run = 1; run <= 3; ++run) {
    const std::string r = std::to_string(run);
    const auto rows = read_rows(dir / ("pull/ww_" + r + "_pull.dat"));
    ASSERT_EQ(rows.size(), 201u);  // steps 0, 100, …, 20000
    // The first row: the end-to-end distance of this run's start structure (its own
    // equilibrated final coordinates), and no force yet.
    EXPECT_NEAR(rows.front()[3], 0.0, 1e-3);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows[i];
      ASSERT_EQ(row.size(), 7u);
      EXPECT_EQ(row[0], double(every * i));
      // Bead 0 is fixed and the spring acts on bead 33 along n: the base travel is
      // f/κ + (X_proj − X_proj(0)) = v·t, to the files' 3 decimals.
      const double base = row[3] / k + (row[2] - rows.front()[2]);
      EXPECT_NEAR(base, v * row[0] * h, 0.005 / k + 0.002) << "run " << run << " step " << row[0];
      // f·n is a projection of (fx, fy, fz): never larger than its magnitude.
      EXPECT_LE(row[3], std::sqrt(row[4] * row[4] + row[5] * row[5] + row[6] * row[6]) + 0.003);
    }
    // The chain extends with the base (20 Å of travel).
    EXPECT_GT(rows.back()[1], rows.front()[1] + 5.0) << "run " << run;
    EXPECT_EQ(read_rows(dir / ("dat/ww_" + r + "_pull.dat")).size(), 11u);
  }
  // Each run started from its own equilibrated structure: their first rows differ.
  EXPECT_NE(read_rows(dir / "pull/ww_1_pull.dat").front()[1], read_rows(dir / "pull/ww_2_pull.dat").front()[1]);
  // With pulling on, the PDBs flag the beads in the B-factor column as SOP-GPU's do: 1 for
  // the fixed bead 0, 2 for the pulled bead 33, 0 for the rest
  // (docs/migrating-from-sop-gpu.md#what-differs-from-sop-gpu-and-why); the equilibration's
  // keep the model's values.
  auto b_factors = [](const fs::path& pdb) {
    std::vector<double> b;
    std::istringstream in(read_file(pdb));
    for (std::string line; std::getline(in, line);)
      if (line.rfind("ATOM", 0) == 0) b.push_back(std::stod(line.substr(60, 6)));
    return b;
  };
  for (const fs::path& pdb : {dir / "structures/ww_2_pull_final.pdb", dir / "ww.ref.pdb"}) {
    const std::vector<double> b = b_factors(pdb);
    ASSERT_EQ(b.size(), 34u) << pdb;
    EXPECT_EQ(b[0], 1.0) << pdb;
    EXPECT_EQ(b[33], 2.0) << pdb;
    EXPECT_EQ(std::count(b.begin(), b.end(), 0.0), 32) << pdb;
  }
  EXPECT_NE(b_factors(dir / "structures/ww_2_equil_final.pdb")[0], 1.0);
  // Each PDB holds the 33 bonds as CONECT records, as SOP-GPU's do (the flagged copy of the
  // model keeps its bonds).
  for (const fs::path& pdb : {dir / "structures/ww_2_pull_final.pdb", dir / "ww.ref.pdb",
                              dir / "structures/ww_2_equil_final.pdb"}) {
    const std::string text = read_file(pdb);
    std::istringstream in(text);
    int conect = 0;
    for (std::string line; std::getline(in, line);) conect += line.rfind("CONECT", 0) == 0;
    EXPECT_EQ(conect, 33) << pdb;
    EXPECT_NE(text.find("\nCONECT   33   34\nEND\n"), std::string::npos) << pdb;
  }
}

TEST(SopgpuRun, ResumeContinuesBitForBitAndErmakOutputOnRequest) {
  const fs::path straight = sopgpu_ww_directory("sopgpu_resume_straight");
  const fs::path resumed = sopgpu_ww_directory("sopgpu_resume_resumed");
  const std::string common =
      "ww_equil.sop --set runnum=2 --set outputtiming=500 --set dcdfreq=1000 --set restartfreq=1000";
  std::string out;
  ASSERT_EQ(ermak_in(straight, common + " --set numsteps=4000 --ermak-output ermak", &out), 0) << out;
  ASSERT_EQ(ermak_in(resumed, common + " --set numsteps=2000", &out), 0) << out;
  ASSERT_EQ(ermak_in(resumed, common + " --set numsteps=4000 --resume", &out), 0) << out;
  for (const char* file : {"dat/ww_1_equil.dat", "dat/ww_2_equil.dat", "dcd/ww_2_equil.dcd",
                           "structures/ww_1_equil_final.pdb", "structures/ww_2_equil_final.pdb"})
    EXPECT_EQ(read_file(straight / file), read_file(resumed / file)) << file;
  // ermak's own directory, when asked, holds the same run.
  EXPECT_TRUE(fs::exists(straight / "ermak/replica_001/energies.tsv"));
  EXPECT_FALSE(fs::exists(resumed / "ermak"));
  // With the run log that `ermak analyze` reads (the temperature of the resolved [run]):
  // the same lines as the one beside the restart files.
  const std::string copy = read_file(straight / "ermak/run.log");
  EXPECT_NE(copy.find("temperature_K = 301.93"), std::string::npos) << copy.substr(0, 2000);
  for (const auto& entry : fs::directory_iterator(straight / "output"))
    if (entry.path().string().ends_with(".ermak.log")) EXPECT_EQ(read_file(entry.path()), copy);
}

// A .sop heating run extended by raising numsteps on --resume (the contract of a .sop resume):
// its schedule's stop, derived from numsteps, grows with it; the files are those of one run.
// --resume of a .sop run that never ran (its restart directory not there) says to start it
// without --resume, not to pass --force.
TEST(SopgpuRun, AResumeOfARunThatNeverRanSaysToStartIt) {
  const fs::path dir = sopgpu_ww_directory("sopgpu_resume_never_ran");
  fs::remove_all(dir / "output");
  std::string out;
  EXPECT_EQ(ermak_in(dir, "ww_equil.sop --set numsteps=2000 --resume", &out), 1) << out;
  EXPECT_NE(out.find("no checkpoint to resume from: " + (dir / "output").string() +
                     " does not exist (start the run without --resume)"),
            std::string::npos)
      << out;
  // A pulling stage whose start structures are missing on --resume: the overrides it started
  // with (its runnum) are the likely slip.
  EXPECT_EQ(ermak_in(dir, "ww_pull.sop --set numsteps=2000 --resume", &out), 1) << out;
  EXPECT_NE(out.find("do not exist: "), std::string::npos) << out;
  EXPECT_NE(out.find("(--resume needs the --set overrides the run started with, such as its runnum or firstrun)"),
            std::string::npos)
      << out;
}

TEST(SopgpuRun, AHeatingRunResumesWithMoreSteps) {
  const fs::path straight = sopgpu_ww_directory("sopgpu_heat_straight");
  const fs::path resumed = sopgpu_ww_directory("sopgpu_heat_resumed");
  const std::string common = "ww_equil.sop --set runnum=2 --set outputtiming=500 --set dcdfreq=1000 "
                             "--set restartfreq=1000 --set heating=on --set initialT=0.6 --set deltaT=0.01 "
                             "--set tempFreq=500";
  std::string out;
  ASSERT_EQ(ermak_in(straight, common + " --set numsteps=4000", &out), 0) << out;
  ASSERT_EQ(ermak_in(resumed, common + " --set numsteps=2000", &out), 0) << out;
  const std::string log = read_file(resumed / "output/ww_1-2_restart.ww_equil.ermak.log");
  EXPECT_NE(log.find("heating: 301.932 K to 322.06 K by +5.0322 K every 500 steps"), std::string::npos) << log;
  EXPECT_EQ(log.find("warning: heating"), std::string::npos) << "the stop is derived, not the user's: " << log;
  ASSERT_EQ(ermak_in(resumed, common + " --set numsteps=4000 --resume", &out), 0) << out;
  for (const char* file : {"dat/ww_1_equil.dat", "dat/ww_2_equil.dat", "dcd/ww_2_equil.dcd"})
    EXPECT_EQ(read_file(straight / file), read_file(resumed / file)) << file;
  const auto rows = read_rows(resumed / "dat/ww_1_equil.dat");
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_DOUBLE_EQ(rows[7][1], 0.6 + 0.01 * 7);  // T at step 3500, kcal/mol
}

// A project directory moved between the start and the resume (a run carried from scratch to
// another disk) continues there, bit for bit: the .sop's file names are compared as the file
// writes them, relative to where the run is started, not by the absolute paths they had.
TEST(SopgpuRun, AMovedProjectResumesBitForBit) {
  const fs::path straight = sopgpu_ww_directory("sopgpu_moved_straight");
  const fs::path started = sopgpu_ww_directory("sopgpu_moved_started");
  const fs::path moved = started.parent_path() / "sopgpu_moved_elsewhere";
  fs::remove_all(moved);
  const std::string common =
      "ww_equil.sop --set runnum=2 --set outputtiming=500 --set dcdfreq=1000 --set restartfreq=1000 "
      "--ermak-output ermak";
  std::string out;
  ASSERT_EQ(ermak_in(straight, common + " --set numsteps=4000", &out), 0) << out;
  ASSERT_EQ(ermak_in(started, common + " --set numsteps=2000", &out), 0) << out;
  fs::rename(started, moved);
  ASSERT_EQ(ermak_in(moved, common + " --set numsteps=4000 --resume", &out), 0) << out;
  for (const char* file : {"dat/ww_1_equil.dat", "dat/ww_2_equil.dat", "dcd/ww_1_equil.dcd", "dcd/ww_2_equil.dcd",
                           "structures/ww_2_equil_final.pdb", "ermak/replica_002/energies.tsv",
                           "ermak/replica_002/trajectory.dcd"})
    EXPECT_EQ(read_file(straight / file), read_file(moved / file)) << file;
  EXPECT_FALSE(fs::exists(started));
  // A changed file name is still a changed run.
  EXPECT_EQ(ermak_in(moved, common + " --set numsteps=6000 --resume --set 'outputname=dat/other_<run>.dat'", &out), 1)
      << out;
  EXPECT_NE(out.find("dat/other_1.dat"), std::string::npos) << out;
}

// A resume continues the files the run started with: --ermak-output can be neither
// dropped (its files would stay half-written) nor added.
TEST(SopgpuRun, AResumeKeepsTheErmakOutputItStartedWith) {
  const std::string common =
      "ww_equil.sop --set runnum=2 --set outputtiming=500 --set dcdfreq=1000 --set restartfreq=1000";
  std::string out;
  const fs::path with = sopgpu_ww_directory("sopgpu_resume_with_ermak_output");
  ASSERT_EQ(ermak_in(with, common + " --set numsteps=2000 --ermak-output ermak", &out), 0) << out;
  EXPECT_EQ(ermak_in(with, common + " --set numsteps=4000 --resume", &out), 1) << out;
  EXPECT_NE(out.find("this run also wrote ermak's own output directory (--ermak-output) when it started"),
            std::string::npos)
      << out;
  // Resumed with another --ermak-output: that directory is named as holding none of its files
  // (the checkpoint lies beside the .sop's files), not a missing energies.tsv.
  EXPECT_EQ(ermak_in(with, common + " --set numsteps=4000 --resume --ermak-output elsewhere", &out), 1) << out;
  EXPECT_NE(out.find("elsewhere: --ermak-output: holds none of the files of the run this checkpoint continues (no "
                     "replica_000/): give the --ermak-output the run started with"),
            std::string::npos)
      << out;
  ASSERT_EQ(ermak_in(with, common + " --set numsteps=4000 --resume --ermak-output ermak", &out), 0) << out;
  const fs::path without = sopgpu_ww_directory("sopgpu_resume_without_ermak_output");
  ASSERT_EQ(ermak_in(without, common + " --set numsteps=2000", &out), 0) << out;
  EXPECT_EQ(ermak_in(without, common + " --set numsteps=4000 --resume --ermak-output ermak", &out), 1) << out;
  EXPECT_NE(out.find("this run did not write ermak's output directory when it started"), std::string::npos) << out;
  // The same run started again with a new --ermak-output: the refusal names what holds the
  // run, the .sop's checkpoint, not the new (empty) directory.
  EXPECT_EQ(ermak_in(without, common + " --set numsteps=2000 --ermak-output fresh", &out), 1) << out;
  EXPECT_NE(out.find(".ckpt: already holds a run"), std::string::npos) << out;
  EXPECT_EQ(out.find("fresh: output.directory"), std::string::npos) << out;
  // A changed setting is named as the .sop file names it too.
  EXPECT_EQ(ermak_in(without, common + " --set numsteps=4000 --resume --set temperature=0.7", &out), 1) << out;
  EXPECT_NE(out.find("run.temperature_K (temperature in ww_equil.sop) = 352.2"), std::string::npos) << out;
}

TEST(SopgpuRun, Pf8IndentationWritesItsFile) {
  const fs::path dir = ermak::test::sopgpu_pf8_directory("sopgpu_pf8");
  std::string out;
  ASSERT_EQ(ermak_in(dir,
                     "pf8.sop --set numsteps=300 --set indentationOutputFreq=100 --set outputtiming=100 "
                     "--set dcdfreq=300 --set restartfreq=300",
                     &out),
            0)
      << out;
  const auto rows = read_rows(dir / "indentation/PF8_01_bend.dat");
  ASSERT_EQ(rows.size(), 4u);
  const double v = 0.00012 / (100 * 0.16);  // indentationDeltaX every nav steps
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    ASSERT_EQ(row.size(), 15u);
    for (double x : row) ASSERT_TRUE(std::isfinite(x));
    EXPECT_EQ(row[0], 100.0 * double(i));
    EXPECT_NEAR(row[1], v * row[0] * 0.16, 1e-5);        // base travel
    EXPECT_NEAR(row[13], -110.0 + row[1], 1e-5);         // base y moves along +y
    EXPECT_NEAR(row[12], 0.0, 1e-5);                     // base x
    EXPECT_NEAR(row[14], -27.68, 1e-5);                  // base z
    EXPECT_NEAR(row[10], -110.0, 1.5);                   // tip y: diffuses (ζ_tip = 500), ~0.35 Å in 300 steps
  }
  EXPECT_EQ(read_rows(dir / "dat/PF8_01_bend.dat").size(), 4u);
  EXPECT_TRUE(fs::exists(dir / "dcd/PF8_01_bend.dcd"));
  EXPECT_TRUE(fs::exists(dir / "structures/PF8_01_bend_final.pdb"));
  EXPECT_TRUE(fs::exists(dir / "PF8.ref.pdb"));

  // SOP-GPU's hydrodynamics variant of the example runs (TEA, a = 1.9 Å; a few steps on
  // the CPU: every pair of the 6928 beads at every step) and writes its own files.
  ASSERT_EQ(ermak_in(dir, "pf8_hi.sop --set numsteps=4 --set indentationOutputFreq=2 "
                          "--set outputtiming=2 --set dcdfreq=4 --set restartfreq=4",
                     &out),
            0)
      << out;
  const std::string log = read_file(dir / "output/PF8_01_restart.pf8_hi.ermak.log");
  EXPECT_NE(log.find("hydrodynamic interactions: Rotne–Prager–Yamakawa tensor of beads of radius 1.9 Å"),
            std::string::npos)
      << log;
  EXPECT_EQ(read_rows(dir / "indentation/PF8_01_bend_HI.dat").size(), 3u);
  EXPECT_TRUE(fs::exists(dir / "structures/PF8_01_bend_HI_final.pdb"));
}

// SOP-GPU's per-run files written by several threads (`--report-threads`,
// run/replica_loop.h) hold the same bytes as written by one: 64 runs (two threads of 32),
// equilibration then pulling, with energies (SOP-GPU's native count and Rg, computed on
// the writer), DCD frames, pulling rows, restart PDBs and checkpoints; and a pulling
// stage stopped at its checkpoint and resumed with two threads ends the same.
TEST(SopgpuRun, FilesWrittenBySeveralThreadsMatchThoseOfOne) {
  const std::string equil =
      "ww_equil.sop --set runnum=64 --set numsteps=1000 --set outputtiming=500 --set dcdfreq=500 "
      "--set restartfreq=1000";
  const std::string pull =
      "ww_pull.sop --set runnum=64 --set deltax=0.1 --set pullFreq=100 --set k_trans=0.5 --set outputtiming=500 "
      "--set dcdfreq=500 --set restartfreq=1000";
  std::string out;
  const fs::path one = sopgpu_ww_directory("sopgpu_threads_one"), two = sopgpu_ww_directory("sopgpu_threads_two"),
                 resumed = sopgpu_ww_directory("sopgpu_threads_resumed");
  ASSERT_EQ(ermak_in(one, equil + " --report-threads 1", &out), 0) << out;
  ASSERT_EQ(ermak_in(one, pull + " --set numsteps=2000 --report-threads 1", &out), 0) << out;
  ASSERT_EQ(ermak_in(two, equil + " --report-threads 2", &out), 0) << out;
  ASSERT_EQ(ermak_in(two, pull + " --set numsteps=2000 --report-threads 2", &out), 0) << out;
  ASSERT_EQ(ermak_in(resumed, equil + " --report-threads 2", &out), 0) << out;
  ASSERT_EQ(ermak_in(resumed, pull + " --set numsteps=1000 --report-threads 2", &out), 0) << out;
  ASSERT_EQ(ermak_in(resumed, pull + " --set numsteps=2000 --report-threads 2 --resume", &out), 0) << out;
  EXPECT_NE(read_file(two / "output/ww_1-64_restart.ww_pull.ermak.log").find("(2 threads)"), std::string::npos);
  int compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(one)) {
    const fs::path relative = fs::relative(entry.path(), one);
    const std::string ext = relative.extension().string();
    if (!entry.is_regular_file() || ext == ".log" || ext == ".ckpt") continue;  // times; the directory's path
    const std::string expected = read_file(entry.path());
    ASSERT_FALSE(expected.empty()) << relative;
    EXPECT_EQ(read_file(two / relative), expected) << relative;
    EXPECT_EQ(read_file(resumed / relative), expected) << relative;
    ++compared;
  }
  // Per run: each stage's energies, DCD and final PDB, the pulling rows and the restart PDB
  // (the stages share it); besides, the reference PDB and the four inputs.
  EXPECT_EQ(compared, 64 * 8 + 5);
}

// A .sop run's errors name its own keys and lines, not the TOML keys they map to.
TEST(SopgpuRun, ErrorsNameTheSopKeys) {
  const fs::path dir = sopgpu_ww_directory("sopgpu_ww_keys");
  std::string out;
  EXPECT_EQ(ermak_in(dir,
                     "ww_equil.sop --set runnum=2 --set pulling=on --set fixed=100 --set pulled=33 --set deltax=0.001 "
                     "--set fixedEnd=0 --set pulledEnd=33 --set pullFreq=100 --set 'pullOutput=pull/<run>.dat' "
                     "--dry-run",
                     &out),
            1)
      << out;
  EXPECT_NE(out.find("fixed: bead 100 is out of range"), std::string::npos) << out;
  EXPECT_EQ(out.find("fixed.beads"), std::string::npos) << out;
  // Each end of the pulling direction is named by its own key.
  for (const char* end : {"fixedEnd", "pulledEnd"}) {
    EXPECT_EQ(ermak_in(dir,
                       "ww_equil.sop --set runnum=2 --set pulling=on --set pulled=33 --set deltax=0.001 "
                       "--set fixedEnd=0 --set pulledEnd=33 --set " + std::string(end) + "=40 --dry-run",
                       &out),
              1);
    EXPECT_NE(out.find("--set: " + std::string(end) + ": bead 40 is out of range"), std::string::npos) << out;
  }
  // A line that starts with a blank is skipped, as SOP-GPU skips it, with a note.
  {
    std::string text = read_file(dir / "ww_equil.sop");
    std::ofstream(dir / "indented.sop") << text << "\tnumsteps 7\n";
    EXPECT_EQ(ermak_in(dir, "indented.sop --set runnum=2 --dry-run", &out), 0) << out;
    EXPECT_NE(out.find("line starts with a blank: ignored, as SOP-GPU ignores such lines"), std::string::npos)
        << out;
  }
}

// SOP-GPU files above the open-file limit (docs/outputs.md#how-many-files-a-run-keeps-open):
// 40 trajectories × (energy, DCD) = 80 files under a limit of 64 are opened only to write
// out, and hold the bytes of a run without the limit.
TEST(SopgpuRun, SopgpuFilesAboveTheOpenFileLimitAreOpenedToWriteOutWithTheSameBytes) {
  const std::string args = kEquilShort + " --set runnum=40 --set numsteps=10000";
  const fs::path open_dir = sopgpu_ww_directory("sopgpu_ww_nofile_open");
  const fs::path limited_dir = sopgpu_ww_directory("sopgpu_ww_nofile_limited");
  std::string out;
  ASSERT_EQ(ermak_in(open_dir, args, &out), 0) << out;
  const int status = ermak::test::run_command("cd '" + limited_dir.string() + "' && ulimit -n 64 && '" +
                                                  ermak::test::ermak_binary().string() + "' run " + args +
                                                  " --backend cpu --threads 2 --quiet",
                                              &out);
  ASSERT_EQ(status, 0) << out;
  const std::string log = read_file(limited_dir / "output/ww_1-40_restart.ww_equil.ermak.log");
  EXPECT_NE(log.find("the run's 80 output files (80 SOP-GPU output files) would need"), std::string::npos) << log;
  EXPECT_NE(log.find("each is opened only to write out"), std::string::npos) << log;
  for (const char* sub : {"dat", "dcd"}) {
    const auto expected = ermak::test::files_under(open_dir / sub);
    EXPECT_EQ(expected.size(), 40u) << sub;
    EXPECT_EQ(ermak::test::files_under(limited_dir / sub), expected) << sub;
  }
}

// A start that fails its checks (here a missing topology) leaves a run log; it is no run, and
// the same command runs once the topology is there, without --force.
TEST(SopgpuRun, AFailedStartsLogDoesNotBlockTheRun) {
  const fs::path dir = sopgpu_ww_directory("sopgpu_ww_failed_start");
  fs::rename(dir / "topologies", dir / "topologies.away");
  std::string out;
  EXPECT_EQ(ermak_in(dir, "ww_equil.sop --set runnum=2 --set numsteps=1000", &out), 1) << out;
  EXPECT_NE(out.find("(a relative path in a .sop file is relative to the working directory, as in SOP-GPU)"),
            std::string::npos)
      << out;
  // Only its run log (docs/migrating-from-sop-gpu.md): the output directories it made are gone.
  for (const char* made : {"dat", "dcd"}) EXPECT_FALSE(fs::exists(dir / made)) << made;
  EXPECT_TRUE(fs::exists(dir / "structures")) << "a directory that was there stays";
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir / "output")) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"ww_1-2_restart.ww_equil.ermak.log"});
  fs::rename(dir / "topologies.away", dir / "topologies");
  EXPECT_EQ(ermak_in(dir, "ww_equil.sop --set runnum=2 --set numsteps=1000", &out), 0) << out;
}

// Two outputs given one file would write over each other: refused, naming both keys.
TEST(SopgpuRun, OutputsSharingAFileAreRefused) {
  const fs::path dir = sopgpu_ww_directory("sopgpu_ww_same_file");
  std::string out;
  EXPECT_EQ(ermak_in(dir, "ww_equil.sop --set 'DCDfile=dat/<name>_<run>_equil.dat' --set numsteps=100", &out), 1)
      << out;
  EXPECT_NE(out.find("outputname of run 1 and DCDfile of run 1 are the same file"), std::string::npos) << out;
}

// A run whose beads drift beyond a PDB's 8 columns (two free beads clamped away from the
// edge of what a PDB holds) finishes without its final structure and says so (it failed at
// its end, and every --resume again).
// A start where single-precision positions are 1 Å apart is refused (docs/model.md#precision),
// naming the coordinates file; nothing of the run is written.
TEST(SopgpuRun, AStructureTooFarFromTheOriginIsRefusedAtTheStart) {
  const auto dir = ermak::test::fresh_directory("sop-far-beads");
  std::ofstream(dir / "src.pdb") << "ATOM      1  CA  ALA A   1    -9999990   0.000   0.000  1.00  0.00           C\n"
                                    "ATOM      2  CA  ALA A   2    -9999986   0.000   0.000  1.00  0.00           C\nEND\n";
  std::string out;
  ASSERT_EQ(ermak::test::run_ermak_in(dir, "topology src.pdb -o . --name far", &out), 0) << out;
  std::ofstream(dir / "far.sop") << "name far\ntopology far.top\ncoordinates far.pdb\nnumsteps 40\ntimestep 0.08\n"
                                    "seed 1\nrun 1\noutputtiming 10\ndcdfreq 10\nrestartfreq 20\n"
                                    "outputname far_<run>.dat\nDCDfile far_<run>.dcd\nrestartname far_<run>_restart\n"
                                    "finalcoord far_<run>_final.pdb\npulling on\nfconst 575.7\ndeltax 0\n"
                                    "pullDirection vector\npullVector -1 0 0\npulled 0 1\nfixedEnd 0\npulledEnd 1\n";
  EXPECT_EQ(ermak_in(dir, "far.sop", &out), 1) << out;
  EXPECT_NE(out.find("far.pdb: bead 0 (chain A residue 1 CA) is 9.99999e+06 Å from the origin"), std::string::npos)
      << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "far_1.dcd"));
  EXPECT_FALSE(std::filesystem::exists(dir / "far_1_final.pdb"));
}
