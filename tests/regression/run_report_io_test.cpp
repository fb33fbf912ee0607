// `ermak run` and the limits of the machine it writes on (docs/outputs.md#reports-are-written-in-the-background,
// docs/outputs.md#how-many-files-a-run-keeps-open): a run whose files exceed the open-file
// limit opens each only to write out, with the same bytes; a write that fails on the report
// writer's thread stops the run with that file's error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "ermak/io/file_holding.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::run_command;

namespace {

fs::path write_config(const fs::path& dir, int replicas, const std::string& output) {
  const auto ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  std::ofstream c(dir / "run.toml");
  c << "[input]\ntopology = \"" << (ww / "ww.top").string() << "\"\ncoordinates = \""
    << (ww / "ww_cg.pdb").string() << "\"\n"
    << "[run]\nbackend = \"cpu\"\nthreads = 1\nreplicas = " << replicas << "\nsteps = 2000\nseed = 7\n"
    << "[output]\ndirectory = \"" << (dir / "out").string() << "\"\n" << output;
  return dir / "run.toml";
}

// Runs ermak under `sh -c 'LIMITS; exec ermak ARGS'`, so that the limits apply to it alone.
int run_limited(const std::string& limits, const std::string& args, std::string* output) {
  return run_command("sh -c \"" + limits + "; exec " + ermak::test::ermak_binary().string() + " " + args + "\"",
                     output);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

// 128 pulled replicas × (energies.tsv, trajectory.dcd, pulling.tsv) = 384 files do not fit
// under 64 descriptors: the run opens each only to write out, says so in its log, and
// writes the same bytes as a run that keeps them open — with 4 writer threads (32
// replicas each), files of ~20 KB written out mid-run in pieces of 8 KiB, and stopped at
// a checkpoint and resumed under the limit.
TEST(RunReportIo, FilesAboveTheOpenFileLimitAreOpenedToWriteOutWithTheSameBytes) {
  const auto dir = ermak::test::fresh_directory("run-nofile");
  const std::string output =
      "energy_every = 10\ntrajectory_every = 50\ncheckpoint_every = 1000\n"
      "[fixed]\nbeads = [0]\n"
      "[pulling]\npulled_beads = [33]\nspeed_um_per_s = 1000\nspring_pN_per_nm = 34.7\n"
      "direction = \"end_to_end\"\nends = [0, 33]\noutput_every = 10\n";
  // Each run in its own directory (NAME/run.toml writing NAME/out).
  const auto run_into = [&](const std::string& limits, const std::string& name, const std::string& args) {
    fs::create_directories(dir / name);
    std::string out;
    const int status = run_limited(limits, "run --quiet " + write_config(dir / name, 128, output).string() + " " + args, &out);
    EXPECT_EQ(status, 0) << out;
  };
  run_into("true", "open", "");
  run_into("ulimit -n 64", "limited", "--report-threads 4");
  run_into("ulimit -n 64", "resumed", "--report-threads 4 --set run.steps=1000");
  run_into("ulimit -n 64", "resumed", "--report-threads 4 --resume");
  EXPECT_EQ(read_file(dir / "open/out/run.log").find("opened only to write out"), std::string::npos);
  const std::string log = read_file(dir / "limited/out/run.log");
  EXPECT_NE(log.find("the run's 384 output files (energies.tsv, trajectory.dcd, pulling.tsv per replica) would need"),
            std::string::npos) << log;
  EXPECT_NE(log.find("above the open-file limit of 64: each is opened only to write out"), std::string::npos) << log;
  int compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "open/out")) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), dir / "open/out");
    if (relative == "run.log" || relative == "checkpoint.ckpt") continue;  // times; the output directory's name
    const std::string expected = read_file(entry.path());
    ASSERT_FALSE(expected.empty()) << relative;
    EXPECT_EQ(read_file(dir / "limited/out" / relative), expected) << relative;
    EXPECT_EQ(read_file(dir / "resumed/out" / relative), expected) << relative;
    ++compared;
  }
  // model.etop, model.psf, model.pdb and 128 × (energies.tsv, trajectory.dcd, pulling.tsv, final.pdb).
  EXPECT_EQ(compared, 3 + 128 * 4);
  EXPECT_GT(fs::file_size(dir / "limited/out/replica_127/energies.tsv"), 2 * ermak::kOpenedToWriteOutBytes);
  EXPECT_GT(fs::file_size(dir / "limited/out/replica_127/trajectory.dcd"), 2 * ermak::kOpenedToWriteOutBytes);
  EXPECT_NE(log.find("in the background (4 threads)"), std::string::npos) << log;

  // A dry run says so too, and writes nothing.
  fs::create_directories(dir / "dry");
  std::string out;
  const int status = run_limited("ulimit -n 64", "run --dry-run " + write_config(dir / "dry", 128, output).string(), &out);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("each is opened only to write out"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "dry/out"));
}

// A limit that leaves too few descriptors even for files opened to write out (the run's
// own log, checkpoint and PDBs, one per writer thread) stops the run before anything is
// written, with the number to raise it to — not after its steps, at the final PDBs.
TEST(RunReportIo, AnOpenFileLimitTooLowForTheRunItselfStopsItBeforeAnythingIsWritten) {
  const auto dir = ermak::test::fresh_directory("run-nofile-low");
  std::string out;
  const int status = run_limited("ulimit -n 24", "run --quiet " + write_config(dir, 20, "trajectory_every = 500\n").string(), &out);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("the open-file limit (ulimit -n) is 24"), std::string::npos) << out;
  EXPECT_NE(out.find("too few for the run itself"), std::string::npos) << out;
  EXPECT_NE(out.find("Raise it before starting ermak: ulimit -n "), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "out")) << "nothing is written before the check";
  // backend = "auto" counts the descriptors of the backend it resolves to: on a machine
  // without a usable GPU the CPU's (1 writer thread, no driver), which an audit found refused
  // where the docs said it fits.
  std::string dry;
  run_command(ermak::test::ermak_binary().string() + " run --dry-run " + (dir / "run.toml").string() +
                  " --set run.backend=auto",
              &dry);
  if (dry.find("backend: cpu") == std::string::npos) GTEST_SKIP() << "\"auto\" is a GPU here: " << dry;
  std::string with_cpu, with_auto;
  ASSERT_EQ(run_limited("ulimit -n 24", "run --quiet " + (dir / "run.toml").string(), &with_cpu), 1);
  ASSERT_EQ(run_limited("ulimit -n 24", "run --quiet " + (dir / "run.toml").string() + " --set run.backend=auto",
                        &with_auto),
            1);
  EXPECT_EQ(with_auto, with_cpu);
}

// A run of 1001 replicas names their directories replica_0000 … replica_1000, so that ls
// and sorted() list them in order; a resume continues them, and ermak analyze reads them
// (docs/outputs.md#layout-of-an-output-directory).
TEST(RunReportIo, ReplicaNumbersAreAsWideAsTheLargest) {
  const auto dir = ermak::test::fresh_directory("run-wide-names");
  const std::string output =
      "energy_every = 50\ncheckpoint_every = 100\n[fixed]\nbeads = [0]\n"
      "[pulling]\npulled_beads = [33]\nspeed_um_per_s = 1000\nspring_pN_per_nm = 34.7\n"
      "direction = \"end_to_end\"\nends = [0, 33]\noutput_every = 10\n";
  const auto config = write_config(dir, 1001, output);
  std::string out;
  ASSERT_EQ(run_command(ermak::test::ermak_binary().string() + " run --quiet " + config.string() +
                            " --set run.steps=100",
                        &out),
            0)
      << out;
  ASSERT_EQ(run_command(ermak::test::ermak_binary().string() + " run --quiet --resume " + config.string() +
                            " --set run.steps=200",
                        &out),
            0)
      << out;
  EXPECT_TRUE(fs::exists(dir / "out/replica_0000/pulling.tsv"));
  EXPECT_TRUE(fs::exists(dir / "out/replica_1000/final.pdb"));
  EXPECT_FALSE(fs::exists(dir / "out/replica_000"));
  // 200 steps: the header and rows at 0, 10, …, 200.
  const std::string table = read_file(dir / "out/replica_1000/pulling.tsv");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 22) << table;
  ASSERT_EQ(run_command(ermak::test::ermak_binary().string() + " analyze " + (dir / "out").string() +
                            " -o " + (dir / "analysis").string() + " --replica-files 0,1000",
                        &out),
            0)
      << out;
  EXPECT_TRUE(fs::exists(dir / "analysis/replica_0000_curve.tsv"));
  EXPECT_TRUE(fs::exists(dir / "analysis/replica_1000_curve.tsv"));
}

// A soft limit below the hard one is raised: 40 files under a soft limit of 64 are kept open.
TEST(RunReportIo, TheSoftOpenFileLimitIsRaisedToTheHardLimit) {
  std::string hard;
  ASSERT_EQ(run_command("sh -c 'ulimit -H -n'", &hard), 0);
  if (hard.rfind("unlimited", 0) != 0 && std::stoll(hard) < 200) GTEST_SKIP() << "hard limit " << hard;
  const auto dir = ermak::test::fresh_directory("run-nofile-soft");
  std::string out;
  const int status = run_limited("ulimit -S -n 64", "run --quiet " +
                                     write_config(dir, 20, "energy_every = 500\ntrajectory_every = 500\n").string(),
                                 &out);
  ASSERT_EQ(status, 0) << out;
  EXPECT_TRUE(fs::exists(dir / "out/replica_019/trajectory.dcd"));
  EXPECT_NE(read_file(dir / "out/run.log").find("open-file limit raised from 64 to"), std::string::npos);
  // Raised far enough, the files stay open.
  EXPECT_EQ(read_file(dir / "out/run.log").find("opened only to write out"), std::string::npos);
}

// A file size limit that the trajectory outgrows mid-run (ermak ignores SIGXFSZ, so write()
// fails with EFBIG like a full disk): the frame is written on the report writer's thread,
// and its error must stop the run with the file's name and a non-zero exit, leaving the
// DCD with whole frames only.
TEST(RunReportIo, AWriteErrorOnTheWriterThreadStopsTheRunWithTheFilesError) {
  const auto dir = ermak::test::fresh_directory("run-write-error");
  // 34 beads: a frame is 12·34 + 24 = 432 bytes, 201 frames ≈ 87 KB; every other file
  // stays below 32 KiB.
  const auto config = write_config(dir, 1, "energy_every = 1000\ntrajectory_every = 10\ncheckpoint_every = 0\n");
  std::string out;
  const int status = run_limited("ulimit -f 64", "run --quiet " + config.string(), &out);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("replica_000/trajectory.dcd"), std::string::npos) << out;
  EXPECT_NE(out.find("cannot write DCD file: File too large"), std::string::npos) << out;
  // It says how to continue: from the start's checkpoint, the only one of this run.
  EXPECT_NE(out.find("; once the cause is fixed, `ermak run " + config.string() +
                     " --resume` continues the run from its last checkpoint (step 0, "),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir / "out/replica_000/final.pdb")) << "the run stopped";
  // The header (92 bytes, the title block, the atom count's 12) and whole frames of 432
  // bytes, as many as the header counts.
  const std::string dcd = read_file(dir / "out/replica_000/trajectory.dcd");
  ASSERT_GT(dcd.size(), 100u);
  auto int_at = [&](std::size_t at) {
    std::int32_t v = 0;
    std::memcpy(&v, dcd.data() + at, 4);
    return v;
  };
  const std::size_t header = 92 + 4 + std::size_t(int_at(92)) + 4 + 12;
  ASSERT_GT(dcd.size(), header);
  EXPECT_EQ((dcd.size() - header) % 432, 0u) << dcd.size();
  EXPECT_EQ(std::size_t(int_at(8)), (dcd.size() - header) / 432) << "NSET";
}

// A run stopped by a failed write (here a file size limit; a full disk the same) names the
// step of its last checkpoint and the command that continues it, and that resume, once the
// limit is gone, ends with the same files as a run never stopped.
TEST(RunReportIo, ARunStoppedByAFailedWriteSaysHowToResumeAndResumes) {
  const auto dir = ermak::test::fresh_directory("run-write-error-resume");
  const std::string output = "energy_every = 100\ntrajectory_every = 10\ncheckpoint_every = 500\n";
  const auto config = write_config(dir, 1, output);
  std::string out;
  ASSERT_EQ(run_limited("ulimit -f 64", "run --quiet " + config.string(), &out), 1) << out;
  const std::string advice = "; once the cause is fixed, `ermak run " + config.string() +
                             " --resume` continues the run from its last checkpoint (step ";
  const std::size_t at = out.find(advice);
  ASSERT_NE(at, std::string::npos) << out;
  const std::int64_t step = std::stoll(out.substr(at + advice.size()));
  EXPECT_GT(step, 0) << out;
  EXPECT_EQ(step % 500, 0) << out;
  EXPECT_NE(read_file(dir / "out/run.log").find(advice), std::string::npos);
  ASSERT_EQ(run_command(ermak::test::ermak_binary().string() + " run --quiet " + config.string() + " --resume", &out), 0)
      << out;
  const auto whole = ermak::test::fresh_directory("run-write-error-whole");
  ASSERT_EQ(run_command(ermak::test::ermak_binary().string() + " run --quiet " + write_config(whole, 1, output).string(),
                        &out),
            0)
      << out;
  for (const char* file : {"replica_000/trajectory.dcd", "replica_000/energies.tsv", "replica_000/final.pdb"})
    EXPECT_EQ(read_file(dir / "out" / file), read_file(whole / "out" / file)) << file;
}

// Every replica's files written by several threads (`--report-threads`, run/replica_loop.h)
// hold the same bytes as written by one: 128 pulled replicas, so that 4 threads each take
// 32, with energies, frames, pulling rows and checkpoints — and a run stopped at a
// checkpoint and resumed with 4 threads ends with the same files as well.
TEST(RunReportIo, FilesWrittenBySeveralThreadsMatchThoseOfOne) {
  const auto dir = ermak::test::fresh_directory("run-report-threads");
  const std::string output =
      "energy_every = 500\ntrajectory_every = 250\ncheckpoint_every = 1000\n"
      "[fixed]\nbeads = [0]\n"
      "[pulling]\npulled_beads = [33]\nspeed_um_per_s = 1000\nspring_pN_per_nm = 34.7\n"
      "direction = \"end_to_end\"\nends = [0, 33]\noutput_every = 100\n";
  const auto config = write_config(dir, 128, output);
  const auto run_into = [&](const std::string& name, const std::string& args) {
    std::string out;
    const int status = run_command(ermak::test::ermak_binary().string() + " run --quiet " + config.string() +
                                       " --set output.directory='\"" + (dir / name).string() + "\"' " + args,
                                   &out);
    EXPECT_EQ(status, 0) << out;
  };
  run_into("one", "--report-threads 1");
  run_into("four", "--report-threads 4");
  run_into("resumed", "--report-threads 4 --set run.steps=1000");
  run_into("resumed", "--report-threads 4 --resume");
  EXPECT_NE(read_file(dir / "four/run.log").find("in the background (4 threads)"), std::string::npos);
  int compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "one")) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), dir / "one");
    if (relative == "run.log" || relative == "checkpoint.ckpt") continue;  // times; the output directory's name
    const std::string expected = read_file(entry.path());
    ASSERT_FALSE(expected.empty()) << relative;
    EXPECT_EQ(read_file(dir / "four" / relative), expected) << relative;
    EXPECT_EQ(read_file(dir / "resumed" / relative), expected) << relative;
    ++compared;
  }
  // model.etop, model.psf, model.pdb and 128 × (energies.tsv, trajectory.dcd, pulling.tsv, final.pdb).
  EXPECT_EQ(compared, 3 + 128 * 4);
}
