// End-to-end tests of `ermak run`: outputs, resume bit for bit, thread independence,
// refusing to overwrite, and clear errors for bad input (issue 2).
#include <gtest/gtest.h>

#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/io/ca_model_builder.h"
#include "ermak/io/checkpoint.h"
#include "ermak/io/topology_file.h"
#include "ermak/run/config_fingerprint.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_ermak;
using ermak::test::run_command;

namespace {

fs::path write_config(const fs::path& dir, const std::string& extra = "") {
  return ermak::test::write_ww_run_config(dir, 99, extra);
}

// WW pulled by its C terminus against its fixed N terminus, rows every 200 steps.
const std::string kPulled = "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [33]\nspeed_um_per_s = 50000\n"
                            "spring_pN_per_nm = 70\noutput_every = 200\n";

}  // namespace

TEST(RunCli, WritesEveryOutputWithUnitsInHeaders) {
  const auto dir = ermak::test::fresh_directory("run-outputs");
  int status = 0;
  const std::string out = run_ermak("run --quiet " + write_config(dir).string(), &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"model.psf", "model.pdb", "model.etop", "run.log", "checkpoint.ckpt",
                        "replica_000/energies.tsv", "replica_002/trajectory.dcd", "replica_001/final.pdb"})
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
  const std::string tsv = read_file(dir / "out/replica_000/energies.tsv");
  EXPECT_EQ(tsv.rfind("# step\ttime[ns]\tT[K]\tU_FENE[kcal/mol]\tU_native[kcal/mol]\tU_repulsive[kcal/mol]\t"
                      "U_protocol[kcal/mol]\tU_total[kcal/mol]\tQ\tRg[A]\tend_to_end[A]\n", 0), 0u)
      << tsv.substr(0, 200);
  // Rows at steps 0, 500, …, 4000.
  std::istringstream lines(tsv);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) rows += line.empty() || line[0] == '#' ? 0 : 1;
  EXPECT_EQ(rows, 9);
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("[run]"), std::string::npos) << "the resolved configuration is echoed into the log";
  EXPECT_NE(log.find("seed = 99"), std::string::npos);
}

// The options of .sop configurations, given with a TOML one, are refused with the --set that
// does the same there (a user who typed --backend cuda learns --set run.backend=cuda).
TEST(RunCli, SopOnlyOptionsWithATomlConfigurationNameTheirKeys) {
  const auto dir = ermak::test::fresh_directory("run-sop-only-options");
  int status = 0;
  std::string out = run_ermak("run " + write_config(dir).string() + " --backend cuda --threads 3", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--backend (--set run.backend=cuda), --threads (--set run.threads=3) apply to .sop "
                     "configurations only"),
            std::string::npos)
      << out;
  out = run_ermak("run " + write_config(dir).string() + " --ermak-output elsewhere", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--ermak-output (--set output.directory=elsewhere) applies to .sop configurations only"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir / "out")) << "refused before anything is written";
}

// --print-config prints the resolved configuration with the overrides applied and runs nothing.
TEST(RunCli, PrintConfigShowsTheResolvedConfigurationAndWritesNothing) {
  const auto dir = ermak::test::fresh_directory("run-print-config");
  int status = 0;
  const std::string out =
      run_ermak("run --print-config --set run.replicas=5 " + write_config(dir).string(), &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(out.rfind("# ermak resolved configuration", 0), 0u) << out;
  EXPECT_NE(out.find("replicas = 5"), std::string::npos) << out;
  EXPECT_NE(out.find("seed = 99"), std::string::npos) << out;
  EXPECT_NE(out.find("pair_cutoff_A = 20.0"), std::string::npos) << "defaults are filled in";
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// The demo's --print-config: its commented config, or with --set / -o the resolved one they
// make (an audit's `--set run.backend=auto` printed backend = "cpu").
TEST(RunCli, DemoPrintConfigShowsItsOverrides) {
  const auto dir = ermak::test::fresh_directory("demo-print-config");
  int status = 0;
  std::string out = run_ermak("demo --print-config", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(out.rfind("# ermak demo:", 0), 0u) << out;
  out = run_ermak("demo --print-config --set run.backend=auto -o " + (dir / "elsewhere").string(), &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(out.rfind("# ermak resolved configuration", 0), 0u) << out;
  EXPECT_NE(out.find("backend = \"auto\""), std::string::npos) << out;
  EXPECT_NE(out.find((dir / "elsewhere").string()), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "elsewhere"));
}

// DCD frames stay evenly spaced: a run whose length is not a multiple of the frame
// interval says at its start where the last frame falls (docs/outputs.md#dcd).
TEST(RunCli, ALastStepBetweenFramesIsNoted) {
  const auto dir = ermak::test::fresh_directory("run-last-frame");
  int status = 0;
  const std::string out =
      run_ermak("run --quiet " + write_config(dir).string() + " --set run.steps=2500 --set run.replicas=1", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string log = read_file(dir / "out/run.log");
  const auto note = log.find("note: run.steps = 2500 is not a multiple of output.trajectory_every = 1000: the "
                             "trajectories' last frame will be step 2000; final.pdb and the tables' last rows hold "
                             "step 2500");
  ASSERT_NE(note, std::string::npos) << log;
  EXPECT_LT(note, log.find("finished:")) << "said at the start";
  const std::string tsv = read_file(dir / "out/replica_000/energies.tsv");
  EXPECT_NE(tsv.find("\n2500\t"), std::string::npos) << tsv;
  // 12N + 24 bytes a frame after the 276-byte header (docs/outputs.md#dcd): frames 0, 1000, 2000.
  EXPECT_EQ(fs::file_size(dir / "out/replica_000/trajectory.dcd"), 276u + 3u * (12u * 34u + 24u));
}

// One run to 4000 steps against a run stopped at 2000 and resumed (`rng` adds the noise
// generator's keys, docs/rng.md#choosing-the-generator-of-a-run).
void expect_resume_bit_for_bit(const std::string& tag, const std::string& rng) {
  const auto whole = ermak::test::fresh_directory("run-whole" + tag);
  const auto split = ermak::test::fresh_directory("run-split" + tag);
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole).string() + rng, &status);
  ASSERT_EQ(status, 0) << out;
  // Stop at 2000, then resume to 4000 (the run length is the only key that may change).
  out = run_ermak("run --quiet " + write_config(split).string() + rng + " --set run.steps=2000", &status);
  ASSERT_EQ(status, 0) << out;
  // A crash after the checkpoint leaves extra output; resume must cut it away.
  { std::ofstream junk(split / "out/replica_001/energies.tsv", std::ios::app); junk << "12345\tjunk\n"; }
  // A model file deleted in between is written again (the checkpoint vouches for the model).
  fs::remove(split / "out/model.psf");
  out = run_ermak("run --quiet --resume " + write_config(split).string() + rng, &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"replica_000/energies.tsv", "replica_001/energies.tsv", "replica_002/trajectory.dcd",
                        "replica_000/final.pdb", "replica_002/final.pdb", "model.psf", "model.pdb", "model.etop"})
    EXPECT_EQ(read_file(whole / "out" / f), read_file(split / "out" / f)) << f;
  const std::string log = read_file(split / "out/run.log");
  EXPECT_NE(log.find("model.psf was missing: written again"), std::string::npos);
  EXPECT_EQ(log.find("model.pdb was missing"), std::string::npos) << "files still there are left alone";
  // The resume says what it cut: the junk row, 11 bytes of one file.
  EXPECT_NE(log.find("cut 11 B that 1 file held beyond the checkpoint"), std::string::npos);
}

TEST(RunCli, ResumeContinuesBitForBit) { expect_resume_bit_for_bit("", ""); }

// A resume keeps the model.etop it finds, which `ermak analyze` reads: one damaged since the
// start (cut short) or replaced by another model's stops the resume before any file is cut,
// naming it and the remedy; removed, it is written anew and the run goes on.
TEST(RunCli, AResumeRefusesADamagedModelFileAndWritesItAnewOnceRemoved) {
  const auto dir = ermak::test::fresh_directory("run-resume-damaged-etop");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(dir).string() + " --set run.steps=2000", &status);
  ASSERT_EQ(status, 0) << out;
  const fs::path etop = dir / "out/model.etop";
  const std::string original = read_file(etop);
  const std::string energies_before = read_file(dir / "out/replica_000/energies.tsv");
  { std::ofstream cut(etop, std::ios::trunc); cut << original.substr(0, original.size() / 2); }
  out = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.steps=3000", &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("model.etop: does not read as a model"), std::string::npos) << out;
  EXPECT_NE(out.find("remove it and resume again"), std::string::npos) << out;
  EXPECT_EQ(read_file(dir / "out/replica_000/energies.tsv"), energies_before) << "nothing was cut or written";
  // Another model's file (the first bond's length changed) is refused too.
  std::string other = original;
  const std::string bonds_header = "# i j r0_A\n";
  const auto first_bond = other.find(bonds_header);
  ASSERT_NE(first_bond, std::string::npos) << original;
  const auto line = first_bond + bonds_header.size();
  other.replace(line, other.find('\n', line) - line, "0 1 4.5");
  { std::ofstream replaced(etop, std::ios::trunc); replaced << other; }
  out = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.steps=3000", &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("model.etop: holds another model"), std::string::npos) << out;
  fs::remove(etop);
  out = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.steps=3000", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(read_file(etop), original);
  EXPECT_NE(read_file(dir / "out/run.log").find("model.etop was missing: written again"), std::string::npos);
}

namespace {

// The command `words` (the binary first) as a child process, sent `signal_number` once its run
// log holds `after_line` (by default: the steps began) and 0.3 s later, after `while_running`;
// its exit status (−1: killed). Its standard error goes to `stderr_file` if given.
int run_words_and_signal(std::vector<std::string> words, const fs::path& log, int signal_number,
                         const std::function<void()>& while_running = {},
                         const std::string& after_line = "running steps", const fs::path& stderr_file = {},
                         const std::vector<int>& then_signals = {}) {
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, stderr_file.empty() ? "/dev/null" : stderr_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &quiet, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (spawned != 0) return -2;
  for (int i = 0; i < 6000 && ermak::test::read_file(log).find(after_line) == std::string::npos; ++i)
    usleep(10000);
  usleep(300000);
  if (while_running) while_running();
  kill(pid, signal_number);
  for (const int then : then_signals) {
    usleep(5000);  // the one before delivered and handled first (pending ones of a kind merge)
    kill(pid, then);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// `ermak run --quiet CONFIG ARGS…` so.
int run_ermak_and_signal(const fs::path& config, const std::vector<std::string>& args, const fs::path& log,
                         int signal_number, const std::function<void()>& while_running = {}) {
  std::vector<std::string> words = {ermak::test::ermak_binary().string(), "run", "--quiet", config.string()};
  words.insert(words.end(), args.begin(), args.end());
  return run_words_and_signal(std::move(words), log, signal_number, while_running);
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace

// A signal during the start (here a minimisation of 6000 replicas, ~20 s on two cores)
// ends the minimisation at its next iteration and stops the run: exit status 130 within a
// second or two, a line in the log, no model file or checkpoint, the lock removed; with
// --force over an earlier run, that run is left as it was, its log put back.
TEST(RunCli, ASignalDuringTheStartStopsBeforeAnyFileIsWritten) {
  const auto dir = ermak::test::fresh_directory("signal-start");
  const fs::path config = ermak::test::write_ww_run_config(
      dir, 5, "[minimize]\nsteps = 200000\nforce_tolerance_pN = 0.0001\n");
  std::vector<std::string> words = {ermak::test::ermak_binary().string(), "run", "--quiet", config.string(),
                                    "--set", "run.steps=100"};
  std::vector<std::string> many = words;
  many.insert(many.end(), {"--set", "run.replicas=6000"});
  std::chrono::steady_clock::time_point signalled;
  ASSERT_EQ(run_words_and_signal(many, dir / "out/run.log", SIGINT,
                                 [&] { signalled = std::chrono::steady_clock::now(); }, "model: "),
            128 + SIGINT);
  const double seconds_to_stop =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  EXPECT_LT(seconds_to_stop, 5.0) << "the minimisation should end at its next iteration, not run on";
  std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("stopped by SIGINT during the run's start, before its first step"), std::string::npos) << log;
  EXPECT_NE(log.find(", stopped by a signal"), std::string::npos) << "the minimisation's line says why it ended\n"
                                                                     << log;
  EXPECT_FALSE(fs::exists(dir / "out/model.pdb"));
  EXPECT_FALSE(fs::exists(dir / "out/checkpoint.ckpt"));
  EXPECT_FALSE(fs::exists(dir / "out/checkpoint.ckpt.lock"));
  // Nothing blocks the next run; then --force over it, stopped in its start, leaves it be.
  int status = 0;
  std::string out = run_ermak("run --quiet " + config.string() + " --set run.steps=100", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string finished = read_file(dir / "out/replica_000/final.pdb");
  words.insert(words.end(), {"--set", "run.replicas=600", "--force"});
  // Until it removes the earlier run's files, a --force run logs to run.log.new.
  ASSERT_EQ(run_words_and_signal(words, dir / "out/run.log.new", SIGINT, {}, "model: 34 beads, 33 bonds, 75 native "
                                 "contacts, 600 replicas"),
            128 + SIGINT);
  EXPECT_EQ(read_file(dir / "out/replica_000/final.pdb"), finished);
  EXPECT_FALSE(fs::exists(dir / "out/replica_100"));
  log = read_file(dir / "out/run.log");
  EXPECT_LT(log.find("3 replicas"), log.find("stopped by SIGINT during the run's start")) << log;
  EXPECT_FALSE(fs::exists(dir / "out/run.log.new")) << "its lines went after the earlier run's";
}

// --force over a finished run, killed (SIGKILL: nothing of ermak runs after it) in its start,
// before it removed the earlier run's files: run.log is still the log of those files, byte for
// byte, so that `ermak analyze` reads their temperature (the default 0.6 kcal/mol, not the
// attempt's 350 K) and loading rate; the attempt's lines are in run.log.new. The next
// --force run replaces both.
TEST(RunCli, AForceRunKilledInItsStartLeavesTheEarlierRunsLog) {
  const auto dir = ermak::test::fresh_directory("force-killed-start");
  const fs::path config =
      write_config(dir, kPulled + "[minimize]\nsteps = 200000\nforce_tolerance_pN = 0.0001\n");
  const std::string first = "run --quiet " + config.string() + " --set run.steps=4000 --set minimize.steps=0";
  int status = 0;
  std::string out = run_ermak(first, &status);
  ASSERT_EQ(status, 0) << out;
  const auto files_before = ermak::test::files_under(dir / "out");
  std::vector<std::string> words = {ermak::test::ermak_binary().string(), "run", "--quiet", config.string(),
                                    "--force", "--set", "run.temperature_K=350", "--set", "run.replicas=6000"};
  ASSERT_EQ(run_words_and_signal(words, dir / "out/run.log.new", SIGKILL, {}, "model: "), -1);
  auto files_after = ermak::test::files_under(dir / "out");
  files_after.erase("run.log.new");
  files_after.erase("checkpoint.ckpt.lock");
  EXPECT_EQ(files_after, files_before) << "the earlier run's files, run.log included, as they were";
  EXPECT_NE(read_file(dir / "out/run.log.new").find("temperature_K = 350"), std::string::npos);
  out = run_ermak("analyze " + (dir / "out").string() + " --output " + (dir / "analysis").string(), &status);
  ASSERT_EQ(status, 0) << out;
  const std::string summary = read_file(dir / "analysis/summary.txt");
  EXPECT_NE(summary.find("T = 301.932 K (the run's, from run.log)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("loading rate κv"), std::string::npos) << summary;
  EXPECT_NE(out.find("run.log.new: the log of a --force run that has not replaced this run"), std::string::npos)
      << out;
  out = run_ermak("run --quiet --force " + config.string() + " --set run.steps=100 --set minimize.steps=0", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_FALSE(fs::exists(dir / "out/run.log.new"));
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_EQ(log.find("steps = 4000"), std::string::npos) << "a log of this run alone\n" << log;
  EXPECT_NE(log.find("--force: removed "), std::string::npos) << log;
}

// `ermak analyze` on a run still running (it holds its lock, run/run_lock.h) says so, with
// the pid, and that its tables end where they do so far — not that the run stopped; once
// the run has stopped (SIGTERM), the same analysis says it stopped and --resume continues it.
TEST(RunCli, AnalyzeSaysARunIsStillRunning) {
  const auto dir = ermak::test::fresh_directory("analyze-running");
  const fs::path config = write_config(dir, kPulled);
  const std::string settings =
      " --set run.steps=30000000 --set output.energy_every=2000 --set output.trajectory_every=0"
      " --set output.checkpoint_every=200000 --set pulling.speed_um_per_s=200 --set run.backend=cpu";
  std::vector<std::string> words = {ermak::test::ermak_binary().string(), "run", "--quiet", config.string()};
  const std::vector<std::string> more = split_words(settings);
  words.insert(words.end(), more.begin(), more.end());
  std::string while_running;
  int analyze_status = -1;
  ASSERT_EQ(run_words_and_signal(words, dir / "out/run.log", SIGTERM, [&] {
              // Rows for the analysis: a few thousand steps' worth.
              for (int i = 0; i < 300 && read_file(dir / "out/replica_000/pulling.tsv").size() < 4000; ++i)
                usleep(10000);
              while_running = run_ermak("analyze " + (dir / "out").string() + " -o " + (dir / "a1").string(),
                                        &analyze_status);
            }),
            128 + SIGTERM);
  ASSERT_EQ(analyze_status, 0) << while_running;
  EXPECT_NE(while_running.find("(the run is still running, pid "), std::string::npos) << while_running;
  EXPECT_EQ(while_running.find("the run stopped"), std::string::npos) << while_running;
  const std::string summary = read_file(dir / "a1/summary.txt");
  EXPECT_NE(summary.find("note: the run is still running (pid "), std::string::npos) << summary;
  EXPECT_EQ(summary.find("stopped early"), std::string::npos) << summary;
  int status = 0;
  const std::string after = run_ermak("analyze " + (dir / "out").string() + " -o " + (dir / "a2").string(), &status);
  ASSERT_EQ(status, 0) << after;
  EXPECT_NE(after.find("(the run stopped at step "), std::string::npos) << after;
  EXPECT_NE(read_file(dir / "a2/summary.txt").find("a run stopped early (--resume continues it)"), std::string::npos);
}

// A demo stopped by Ctrl-C says `ermak demo --resume` continues it (the demo has no
// configuration file for `ermak run`), and that continues it to the same files as a demo
// that ran through; its run log names the embedded configuration, not a file.
TEST(RunCli, AStoppedDemoResumesBitForBit) {
  if (!fs::exists("/usr/share/freesasa/test-data/1ubq.pdb")) FAIL() << "freesasa test data not installed";
  const auto dir = ermak::test::fresh_directory("demo-resume");
  const std::vector<std::string> common = {"--no-analysis", "--set", "run.steps=200000", "--set",
                                           "output.checkpoint_every=20000"};
  std::vector<std::string> words = {ermak::test::ermak_binary().string(), "demo", "-o", (dir / "stopped").string()};
  words.insert(words.end(), common.begin(), common.end());
  ASSERT_EQ(run_words_and_signal(words, dir / "stopped/run.log", SIGINT, {}, "running steps", dir / "stderr.txt"),
            128 + SIGINT);
  // The last line says --resume (an audit's user was told --force, which starts over).
  EXPECT_NE(read_file(dir / "stderr.txt").find("demo stopped; `ermak demo --resume` continues it"), std::string::npos)
      << read_file(dir / "stderr.txt");
  const std::string log = read_file(dir / "stopped/run.log");
  EXPECT_NE(log.find("starting the demo's embedded configuration (ermak demo --print-config)"), std::string::npos)
      << log;
  EXPECT_NE(log.find("`ermak demo --resume` with the same -o and --set options continues bit for bit"),
            std::string::npos)
      << log;
  std::string args;
  for (const std::string& w : common) args += " " + w;
  int status = 0;
  std::string out = run_ermak("demo -o " + (dir / "stopped").string() + args + " --resume", &status);
  ASSERT_EQ(status, 0) << out;
  out = run_ermak("demo -o " + (dir / "straight").string() + args, &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* file : {"replica_000/pulling.tsv", "replica_003/energies.tsv", "replica_002/trajectory.dcd",
                           "replica_001/final.pdb"})
    EXPECT_EQ(read_file(dir / "stopped" / file), read_file(dir / "straight" / file)) << file;
}

// A batch system's SIGTERM (or Ctrl-C) stops a run at a checkpoint within ~0.5 s of steps,
// with exit status 128 + signal; --resume then gives the files of an uninterrupted run
// (docs/outputs.md#stopping-a-run). 10⁶ steps: seconds on any CPU, so that the signal
// arrives while the steps run. Also through the driver's overlapped stops
// (ERMAK_OVERLAP_STOPS=always, docs/gpu.md#what-overlaps-the-steps), where the steps after
// a stop may be under way when the signal comes.
// One request delivered twice — GNU timeout signals the command and then its process group,
// systemd sends SIGTERM and then SIGHUP — stops the run at a checkpoint like one delivery
// (an audit's `timeout -s TERM` ended 3 of 19 runs at once, without a checkpoint or a log
// line, when a second signal still meant "end now" at any distance).
TEST(RunCli, OneStopRequestDeliveredTwiceStopsAtACheckpoint) {
  for (const int then : {SIGTERM, SIGHUP}) {
    SCOPED_TRACE(then == SIGTERM ? "SIGTERM twice" : "SIGTERM, then SIGHUP");
    const auto dir = ermak::test::fresh_directory(then == SIGTERM ? "run-signal-twice" : "run-signal-term-hup");
    const std::vector<std::string> words = {ermak::test::ermak_binary().string(), "run", "--quiet",
                                            write_config(dir).string(), "--set", "run.steps=100000000"};
    ASSERT_EQ(run_words_and_signal(words, dir / "out/run.log", SIGTERM, {}, "running steps", {}, {then}),
              128 + SIGTERM);
    const std::string log = read_file(dir / "out/run.log");
    EXPECT_NE(log.find("stopped by SIGTERM at step "), std::string::npos) << log;
    EXPECT_TRUE(fs::exists(dir / "out/checkpoint.ckpt"));
    EXPECT_FALSE(fs::exists(dir / "out/checkpoint.ckpt.lock"));
  }
}

TEST(RunCli, SigtermStopsAtACheckpointAndResumeContinuesBitForBit) {
  const std::string longer =
      " --set run.steps=1000000 --set output.energy_every=10000 --set output.trajectory_every=50000"
      " --set output.checkpoint_every=500000";
  const auto whole = ermak::test::fresh_directory("run-signal-whole");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole).string() + longer, &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* overlap : {"", "always"}) {
    SCOPED_TRACE(std::string("ERMAK_OVERLAP_STOPS=") + overlap);
    const auto split = ermak::test::fresh_directory(std::string("run-signal-split") + overlap);
    if (*overlap) setenv("ERMAK_OVERLAP_STOPS", overlap, 1);  // the children inherit it
    const fs::path config = write_config(split);
    ASSERT_EQ(run_ermak_and_signal(config, split_words(longer), split / "out/run.log", SIGTERM), 128 + SIGTERM);
    const std::string log = read_file(split / "out/run.log");
    const auto at = log.find("stopped by SIGTERM at step ");
    ASSERT_NE(at, std::string::npos) << log;
    const long long stopped = std::stoll(log.substr(at + 27));
    EXPECT_GT(stopped, 0);
    EXPECT_LT(stopped, 1000000) << "the signal came after the last step";
    EXPECT_TRUE(fs::exists(split / "out/checkpoint.ckpt"));
    EXPECT_FALSE(fs::exists(split / "out/replica_000/final.pdb")) << "an unfinished run writes no final structures";
    if (!*overlap) {
      // Resumed with [run] steps at the stop's own step, a copy ends as a run of that many
      // steps: with the rows its last step adds off the tables' intervals.
      const auto copy = ermak::test::fresh_directory("run-signal-at-stop");
      const auto straight = ermak::test::fresh_directory("run-signal-straight");
      fs::copy(split, copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
      const std::string at_stop = longer + " --set run.steps=" + std::to_string(stopped);
      out = run_ermak("run --quiet --resume " + write_config(copy).string() + at_stop, &status);
      ASSERT_EQ(status, 0) << out;
      EXPECT_NE(read_file(copy / "out/run.log").find("where the run did not finish"), std::string::npos);
      out = run_ermak("run --quiet " + write_config(straight).string() + at_stop, &status);
      ASSERT_EQ(status, 0) << out;
      for (const char* f : {"replica_000/energies.tsv", "replica_002/trajectory.dcd", "replica_001/final.pdb",
                            "checkpoint.ckpt"})
        EXPECT_EQ(read_file(straight / "out" / f), read_file(copy / "out" / f)) << f;
    }
    out = run_ermak("run --quiet --resume " + config.string() + longer, &status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(read_file(split / "out/run.log").find("finished: " + std::to_string(1000000 - stopped) + " steps"),
              std::string::npos);
    for (const char* f : {"replica_000/energies.tsv", "replica_001/energies.tsv", "replica_002/trajectory.dcd",
                          "replica_000/final.pdb", "replica_002/final.pdb"})
      EXPECT_EQ(read_file(whole / "out" / f), read_file(split / "out" / f)) << f;
    unsetenv("ERMAK_OVERLAP_STOPS");
  }
}

// A crash (SIGKILL: no handler runs, the lock and half-written rows stay) loses at most one
// checkpoint interval: killed while its steps run, resumed, killed again in the resume, and
// resumed to the end, a pulling run ends with the files of one that ran through, byte for
// byte (docs/outputs.md#checkpoint). The report writer and the checkpoint writer
// are mid-write at times a kill cannot choose; checkpoints every 20 000 steps make several.
TEST(RunCli, AKilledRunResumesToTheFilesOfOneThatRanThrough) {
  const std::string longer =
      " --set run.steps=300000 --set output.energy_every=2000 --set output.trajectory_every=10000"
      " --set output.checkpoint_every=20000 --set pulling.speed_um_per_s=2000 --set pulling.output_every=500"
      " --set run.backend=cpu";  // ~3 s of steps; a GPU would finish them before the first kill
  const auto whole = ermak::test::fresh_directory("run-killed-whole");
  const auto killed = ermak::test::fresh_directory("run-killed");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole, kPulled).string() + longer, &status);
  ASSERT_EQ(status, 0) << out;
  const fs::path config = write_config(killed, kPulled);
  // Killed once a checkpoint of its steps is there: one that replaced the start's (the
  // rename gives it another inode), so that the kill falls among the steps.
  const auto after_a_checkpoint_of_the_steps = [&] {
    const fs::path checkpoint = killed / "out/checkpoint.ckpt";
    struct stat start {};
    for (int i = 0; i < 6000 && stat(checkpoint.c_str(), &start) != 0; ++i) usleep(10000);
    for (int i = 0; i < 6000; ++i) {
      struct stat now {};
      if (stat(checkpoint.c_str(), &now) == 0 && now.st_ino != start.st_ino) return;
      usleep(10000);
    }
  };
  ASSERT_EQ(run_ermak_and_signal(config, split_words(longer), killed / "out/run.log", SIGKILL,
                                 after_a_checkpoint_of_the_steps),
            -1);
  EXPECT_TRUE(fs::exists(killed / "out/checkpoint.ckpt.lock")) << "nothing of ermak ran after the kill";
  std::vector<std::string> resume = split_words(longer);
  resume.push_back("--resume");
  ASSERT_EQ(run_words_and_signal([&] {
              std::vector<std::string> w = {ermak::test::ermak_binary().string(), "run", "--quiet", config.string()};
              w.insert(w.end(), resume.begin(), resume.end());
              return w;
            }(),
                                 killed / "out/run.log", SIGKILL, {}, "resumed at step"),
            -1);
  out = run_ermak("run --quiet --resume " + config.string() + longer, &status);
  ASSERT_EQ(status, 0) << out;
  const std::string log = read_file(killed / "out/run.log");
  const auto first = log.find("resumed at step "), second = log.find("resumed at step ", first + 1);
  ASSERT_NE(second, std::string::npos) << log;
  EXPECT_LT(std::stoll(log.substr(first + 16)), 300000) << "the first kill came after the last step";
  EXPECT_NE(log.find("finished: "), std::string::npos) << log;
  // Each attempt says how much model time its steps cover (docs/units.md#time).
  EXPECT_NE(log.find(" ps per step) on backend cpu"), std::string::npos) << log;
  for (const char* f : {"replica_000/energies.tsv", "replica_001/pulling.tsv", "replica_002/trajectory.dcd",
                        "replica_000/final.pdb", "replica_002/pulling.tsv", "checkpoint.ckpt", "model.psf"})
    EXPECT_EQ(read_file(whole / "out" / f), read_file(killed / "out" / f)) << f;
}

// A run takes a checkpoint at its start, after its minimisation and its first rows: killed
// before its first interval (here checkpoint_every = 0: no other until the end), it resumes
// from step 0 without minimising again, and ends with the files of a run that went through
// (docs/outputs.md#checkpoint) — where before it could only start over with --force.
TEST(RunCli, ARunKilledBeforeItsFirstIntervalResumesFromItsStart) {
  const std::string settings =
      " --set run.steps=300000 --set output.energy_every=2000 --set output.trajectory_every=10000"
      " --set output.checkpoint_every=0 --set pulling.speed_um_per_s=2000 --set pulling.output_every=500"
      " --set run.backend=cpu";
  const std::string minimised = kPulled + "[minimize]\nsteps = 300\n";
  const auto whole = ermak::test::fresh_directory("run-killed-start-whole");
  const auto killed = ermak::test::fresh_directory("run-killed-start");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole, minimised).string() + settings, &status);
  ASSERT_EQ(status, 0) << out;
  const fs::path config = write_config(killed, minimised);
  const fs::path checkpoint = killed / "out/checkpoint.ckpt";
  ASSERT_EQ(run_ermak_and_signal(config, split_words(settings), killed / "out/run.log", SIGKILL,
                                 [&] {
                                   for (int i = 0; i < 6000 && !fs::exists(checkpoint); ++i) usleep(10000);
                                 }),
            -1);
  ASSERT_TRUE(fs::exists(checkpoint));
  EXPECT_EQ(ermak::read_checkpoint(checkpoint).step, 0) << "the kill came after the run's end";
  EXPECT_FALSE(fs::exists(killed / "out/replica_000/final.pdb"));
  out = run_ermak("run --quiet --resume " + config.string() + settings, &status);
  ASSERT_EQ(status, 0) << out;
  const std::string log = read_file(killed / "out/run.log");
  const std::size_t resumed = log.find("resumed at step 0");
  ASSERT_NE(resumed, std::string::npos) << log;
  EXPECT_EQ(log.find("minimis", resumed), std::string::npos) << "a resume does not minimise again: " << log;
  for (const char* f : {"replica_000/energies.tsv", "replica_001/pulling.tsv", "replica_002/trajectory.dcd",
                        "replica_000/final.pdb", "checkpoint.ckpt"})
    EXPECT_EQ(read_file(whole / "out" / f), read_file(killed / "out" / f)) << f;
}

// The start's checkpoint and the end's are there at any checkpoint_every: a run with those
// two alone gets no advice to raise it, however long they took (10 steps of 1000 replicas:
// ~60 % of the run on two cores, once advised checkpoint_every = 5000000).
TEST(RunCli, AShortRunIsNotAdvisedARarerCheckpointInterval) {
  const auto dir = ermak::test::fresh_directory("run-start-end-checkpoints");
  int status = 0;
  const std::string out =
      run_ermak("run --quiet " + write_config(dir).string() +
                    " --set run.replicas=1000 --set run.steps=10 --set output.energy_every=10"
                    " --set output.trajectory_every=0 --set output.checkpoint_every=100000 --set run.backend=cpu",
                &status);
  ASSERT_EQ(status, 0) << out;
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("checkpoints: 2, "), std::string::npos) << "the start's and the end's: " << log;
  EXPECT_EQ(log.find("checkpoints took"), std::string::npos) << log;
}

// A second run on the files of a run that is still going — --resume, --force, or its dry
// run — is refused before it touches them (docs/outputs.md#one-run-at-a-time); the first
// run then stops and resumes as usual.
TEST(RunCli, ASecondRunOnTheFilesOfARunningOneIsRefused) {
  const auto dir = ermak::test::fresh_directory("run-locked");
  const fs::path config = write_config(dir);
  const std::string longer = " --set run.steps=1000000 --set output.checkpoint_every=500000";
  std::vector<std::string> refusals;
  const int status = run_ermak_and_signal(config, split_words(longer), dir / "out/run.log", SIGTERM, [&] {
    for (const char* how : {"--resume", "--force", "--resume --dry-run", "--force --dry-run"}) {
      int second = 0;
      refusals.push_back(std::string(how) + ": " +
                         run_ermak("run --quiet " + std::string(how) + " " + config.string() + longer, &second));
      EXPECT_EQ(second, 1) << refusals.back();
    }
  });
  EXPECT_EQ(status, 128 + SIGTERM);
  ASSERT_EQ(refusals.size(), 4u);
  for (const std::string& r : refusals)
    EXPECT_NE(r.find("checkpoint.ckpt.lock: another ermak run is using these files (pid "), std::string::npos) << r;
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("stopped by SIGTERM at step "), std::string::npos) << "the first run's log is its own";
  EXPECT_EQ(log.find("--force: removed"), std::string::npos) << log;
  int resumed = 0;
  const std::string out = run_ermak("run --quiet --resume " + config.string() + longer, &resumed);
  EXPECT_EQ(resumed, 0) << out;
  EXPECT_FALSE(fs::exists(dir / "out/checkpoint.ckpt.lock")) << "a run that ended removes its lock file";
}

TEST(RunCli, CtrlCStopsWithExitStatus130) {
  const auto dir = ermak::test::fresh_directory("run-signal-int");
  const fs::path config = write_config(dir);
  EXPECT_EQ(run_ermak_and_signal(config, split_words("--set run.steps=1000000"), dir / "out/run.log", SIGINT),
            128 + SIGINT);
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("stopped by SIGINT at step "), std::string::npos);
  // Every --set as given, for the --resume that continues it (an audit's list missed run.seed).
  EXPECT_NE(log.find("and the same overrides (--set 'run.steps=1000000')"), std::string::npos) << log;
}

// A closed terminal or ssh session (SIGHUP) stops a run with a checkpoint too, instead of
// killing it with its tables beyond its last checkpoint (an audit's interactive run).
TEST(RunCli, AClosedTerminalStopsWithACheckpoint) {
  const auto dir = ermak::test::fresh_directory("run-signal-hup");
  const fs::path config = write_config(dir);
  EXPECT_EQ(run_ermak_and_signal(config, split_words("--set run.steps=1000000"), dir / "out/run.log", SIGHUP),
            128 + SIGHUP);
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("stopped by SIGHUP at step "), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir / "out/checkpoint.ckpt.lock")) << "a stopped run removes its lock file";
}

// Stateful generators: their state travels in the checkpoint.
TEST(RunCli, ResumeContinuesBitForBitWithStatefulGenerators) {
  expect_resume_bit_for_bit("-taus", " --set run.rng=hybrid_taus");
  expect_resume_bit_for_bit("-lf", " --set run.rng=lagged_fibonacci --set run.rng_layout=shared");
}

TEST(RunCli, ResumeRefusesAnotherNoiseGenerator) {
  const auto dir = ermak::test::fresh_directory("run-changed-rng");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(dir).string() + " --set run.steps=1000 --set run.rng=ran2",
                              &status);
  ASSERT_EQ(status, 0) << out;
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("noise: generator ran2, layout per_thread"), std::string::npos) << log;
  EXPECT_NE(log.find("rng = \"ran2\""), std::string::npos) << "the resolved configuration records it";
  out = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.rng=lcg", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("written with the noise generator ran2/per_thread"), std::string::npos) << out;
  EXPECT_NE(out.find("lcg/per_thread"), std::string::npos) << out;
}

TEST(RunCli, ResumeRefusesAChangedConfiguration) {
  const auto dir = ermak::test::fresh_directory("run-changed");
  int status = 0;
  ASSERT_EQ((run_ermak("run --quiet " + write_config(dir).string() + " --set run.steps=1000", &status), status), 0);
  const std::string out = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.seed=5", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("configuration differs"), std::string::npos) << out;
  EXPECT_NE(out.find("written with: run.seed = 5, was 99 ("), std::string::npos) << "the message names the change: " << out;
  EXPECT_NE(out.find("resuming-elsewhere"), std::string::npos) << "the message says what may change";
  // [minimize] is not: a resume starts from the checkpoint's positions.
  const std::string minimised = run_ermak("run --quiet --resume " + write_config(dir).string() +
                                              " --set run.steps=1200 --set minimize.steps=50"
                                              " --set minimize.force_tolerance_pN=1",
                                          &status);
  EXPECT_EQ(status, 0) << minimised;
  // Fewer steps than the checkpoint has done is a mistake, not a run of nothing.
  const std::string shorter = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.steps=500", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(shorter.find("run.steps: the checkpoint is at step 1200, beyond the 500 steps asked for"), std::string::npos)
      << shorter;
}

// A checkpoint whose checksum holds but whose neighbour-list reference or positions do not
// fit the run (not written by a run of this model) is refused by name; the CPU engine read
// past the reference's end (a segfault).
TEST(RunCli, ResumeRefusesACheckpointOfAnotherShape) {
  const auto dir = ermak::test::fresh_directory("run-bad-reference");
  int status = 0;
  ASSERT_EQ((run_ermak("run --quiet " + write_config(dir).string() + " --set run.steps=1000", &status), status), 0);
  const fs::path file = dir / "out/checkpoint.ckpt";
  const ermak::Checkpoint written = ermak::read_checkpoint(file);
  ermak::Checkpoint edited = written;
  edited.neighbor_reference = ermak::State();  // 0 × 0
  ermak::write_checkpoint_atomically(file, edited);
  std::string out = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.steps=2000", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("neighbor_reference: holds 0 beads × 0 replicas, but the run has 34 × 3"), std::string::npos)
      << out;
  edited = written;
  edited.positions.step = 7;
  ermak::write_checkpoint_atomically(file, edited);
  out = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.steps=2000", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("positions: are of step 7, but the checkpoint is at step 1000"), std::string::npos) << out;
  ermak::write_checkpoint_atomically(file, written);
  out = run_ermak("run --quiet --resume " + write_config(dir).string() + " --set run.steps=2000", &status);
  EXPECT_EQ(status, 0) << out;
}

// An extension that stopped before its first checkpoint (killed: the checkpoint still says
// finished at step 1700) left its rows in the tables; a resume at the finished run's own
// steps then gives back the finished run's files, not a row of the extension in place of the
// last one (the long-run audit's silent corruption), and the extension can still continue.
TEST(RunCli, AResumeAfterAnExtensionThatDiedRestoresTheFinishedRun) {
  const auto finished = ermak::test::fresh_directory("run-extension-died-finished");
  const auto died = ermak::test::fresh_directory("run-extension-died");
  int status = 0;
  const fs::path config = write_config(died, kPulled);
  std::string out = run_ermak("run --quiet " + write_config(finished, kPulled).string() + " --set run.steps=1700", &status);
  ASSERT_EQ(status, 0) << out;
  out = run_ermak("run --quiet " + config.string() + " --set run.steps=1700", &status);
  ASSERT_EQ(status, 0) << out;
  const fs::path checkpoint_at_1700 = died / "checkpoint_1700";
  fs::copy_file(died / "out/checkpoint.ckpt", checkpoint_at_1700);
  // The extension's rows, then "killed": its checkpoint replaced by the finished one.
  out = run_ermak("run --quiet --resume " + config.string() + " --set run.steps=2600", &status);
  ASSERT_EQ(status, 0) << out;
  fs::copy_file(checkpoint_at_1700, died / "out/checkpoint.ckpt", fs::copy_options::overwrite_existing);
  fs::remove(died / "out/replica_001/final.pdb");
  out = run_ermak("run --quiet --resume " + config.string() + " --set run.steps=1700", &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"replica_000/energies.tsv", "replica_001/energies.tsv", "replica_001/pulling.tsv",
                        "replica_002/trajectory.dcd", "replica_001/final.pdb"})
    EXPECT_EQ(read_file(finished / "out" / f), read_file(died / "out" / f)) << f;
  EXPECT_NE(read_file(died / "out/run.log").find("but its tables changed since (an extension"), std::string::npos);
  // A resume of a finished run whose files are as it left them stays a run of nothing.
  out = run_ermak("run --quiet --resume " + config.string() + " --set run.steps=1700", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(read_file(finished / "out/replica_001/energies.tsv"), read_file(died / "out/replica_001/energies.tsv"));
  const std::string log = read_file(died / "out/run.log");
  EXPECT_NE(log.rfind("the run had already reached its 1700 steps"), std::string::npos) << log;
}

// A finished run writes a row at its last step even off the tables' intervals; raising
// [run] steps and resuming cuts that row away, so the files are those of one longer run,
// while a resume that does not extend the run keeps it (docs/outputs.md#resume).
TEST(RunCli, ExtendingAFinishedRunGivesTheFilesOfOneLongerRun) {
  const auto whole = ermak::test::fresh_directory("run-extended-whole");
  const auto split = ermak::test::fresh_directory("run-extended-split");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole, kPulled).string(), &status);
  ASSERT_EQ(status, 0) << out;
  const fs::path config = write_config(split, kPulled);
  out = run_ermak("run --quiet " + config.string() + " --set run.steps=1700", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string ended = read_file(split / "out/replica_001/energies.tsv");
  EXPECT_NE(ended.find("\n1700\t"), std::string::npos) << "a row at the last step, off the 500-step interval";
  out = run_ermak("run --quiet --resume " + config.string() + " --set run.steps=1700", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(read_file(split / "out/replica_001/energies.tsv"), ended) << "not extended: the row stays";
  out = run_ermak("run --quiet --resume " + config.string(), &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"replica_000/energies.tsv", "replica_001/energies.tsv", "replica_001/pulling.tsv",
                        "replica_002/trajectory.dcd", "replica_002/final.pdb"})
    EXPECT_EQ(read_file(whole / "out" / f), read_file(split / "out" / f)) << f;
  // The extension removed the finished run's final structures before its steps.
  EXPECT_NE(read_file(split / "out/run.log").find("removed the final.pdb of 3 replicas (step 1700)"),
            std::string::npos);
  // --resume and --force together are refused; --resume where nothing ran says so.
  out = run_ermak("run --quiet --resume --force " + config.string(), &status);
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("--resume continues a run and --force starts it over"), std::string::npos) << out;
  out = run_ermak("run --quiet --resume " + config.string() + " --set 'output.directory=\"never\"'", &status);
  EXPECT_EQ(status, 1);
  EXPECT_NE(out.find("does not exist (start the run without --resume)"), std::string::npos) << out;
}

// A run of no steps — only the minimisation — ends with a checkpoint, and --resume with
// steps continues it into the files of one whole run.
TEST(RunCli, AMinimisationOnlyRunResumesIntoDynamics) {
  const auto whole = ermak::test::fresh_directory("run-minimised-whole");
  const auto split = ermak::test::fresh_directory("run-minimised-split");
  const std::string minimise = "[minimize]\nsteps = 40\n";
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole, minimise).string(), &status);
  ASSERT_EQ(status, 0) << out;
  const fs::path config = write_config(split, minimise);
  out = run_ermak("run --quiet " + config.string() + " --set run.steps=0", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_TRUE(fs::exists(split / "out/checkpoint.ckpt"));
  out = run_ermak("run --quiet --resume " + config.string(), &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"replica_000/energies.tsv", "replica_002/trajectory.dcd", "replica_001/final.pdb"})
    EXPECT_EQ(read_file(whole / "out" / f), read_file(split / "out" / f)) << f;
}

// A run continued in a moved directory, with other threads and another kernel-family
// setting, gives the files of one uninterrupted run (docs/outputs.md#resuming-elsewhere).
TEST(RunCli, ResumeMayMoveTheDirectoryAndChangeThreads) {
  const auto whole = ermak::test::fresh_directory("run-moved-whole");
  const auto first = ermak::test::fresh_directory("run-moved-first");
  const auto moved = ermak::test::fresh_directory("run-moved-then");
  const std::string cpu = " --set run.backend=cpu";
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole).string() + cpu + " --set run.threads=1", &status);
  ASSERT_EQ(status, 0) << out;
  out = run_ermak("run --quiet " + write_config(first).string() + cpu + " --set run.threads=2 --set run.steps=2000",
                  &status);
  ASSERT_EQ(status, 0) << out;
  fs::rename(first / "out", moved / "elsewhere");
  out = run_ermak("run --quiet --resume " + write_config(moved).string() + cpu +
                      " --set run.threads=1 --set run.cuda_kernels=block --set 'output.directory=\"" +
                      (moved / "elsewhere").string() + "\"'",
                  &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"replica_000/energies.tsv", "replica_002/trajectory.dcd", "replica_001/final.pdb"})
    EXPECT_EQ(read_file(whole / "out" / f), read_file(moved / "elsewhere" / f)) << f;
}

// A whole project (configuration, input files, output directory) copied elsewhere resumes
// there: the model is compared by content, not by its files' paths. An edited model file
// is refused, naming what the files now give (docs/outputs.md#resume).
TEST(RunCli, AMovedProjectResumesAndAnEditedModelDoesNot) {
  const fs::path ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  const auto project = [&](const fs::path& dir) {
    fs::copy_file(ww / "ww.top", dir / "ww.top");
    fs::copy_file(ww / "ww_cg.pdb", dir / "ww_cg.pdb");
    std::ofstream(dir / "run.toml") << "[input]\ntopology = \"ww.top\"\ncoordinates = \"ww_cg.pdb\"\n"
                                       "[run]\nreplicas = 2\nsteps = 4000\nseed = 5\nbackend = \"cpu\"\n"
                                       "[output]\ndirectory = \"out\"\nenergy_every = 500\ntrajectory_every = 1000\n"
                                       "checkpoint_every = 1000\n";
    return (dir / "run.toml").string();
  };
  const auto whole = ermak::test::fresh_directory("run-project-whole");
  const auto first = ermak::test::fresh_directory("run-project-first");
  const auto moved = ermak::test::fresh_directory("run-project-moved");
  int status = 0;
  std::string out = run_ermak("run --quiet " + project(whole), &status);
  ASSERT_EQ(status, 0) << out;
  out = run_ermak("run --quiet " + project(first) + " --set run.steps=2000", &status);
  ASSERT_EQ(status, 0) << out;
  fs::remove_all(moved);
  fs::copy(first, moved, fs::copy_options::recursive);
  fs::remove_all(first);
  out = run_ermak("run --quiet --resume " + (moved / "run.toml").string(), &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"replica_000/energies.tsv", "replica_001/trajectory.dcd", "replica_001/final.pdb"})
    EXPECT_EQ(read_file(whole / "out" / f), read_file(moved / "out" / f)) << f;

  // One native contact's ε_h changed in the copied topology: refused, nothing cut.
  std::string top = read_file(moved / "ww.top");
  const std::string contact = "    0    30     1   10.72262    1.50000";
  const auto line = top.find(contact);
  ASSERT_NE(line, std::string::npos);
  top.replace(line, contact.size(), "    0    30     1   10.72262    1.70000");
  std::ofstream(moved / "ww.top", std::ios::binary) << top;
  const std::string table = read_file(moved / "out/replica_000/energies.tsv");
  out = run_ermak("run --quiet --resume " + (moved / "run.toml").string() + " --set run.steps=6000", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("the model differs from the one this run started with: the input files now give 34 beads, 33 "
                     "bonds, 75 native contacts, the run's had 34 beads, 33 bonds, 75 native contacts but other "
                     "bonds, contacts, parameters or bead names"),
            std::string::npos)
      << out;
  EXPECT_EQ(read_file(moved / "out/replica_000/energies.tsv"), table);
}

// A structure's model is built from SOP-GPU's float distances since 2026-11-29; a run that
// started before (its checkpoint holds the double-precision model, or no model at all) resumes
// with the model it started with, and says so; a model neither rule gives is still refused.
TEST(RunCli, ARunOfAStructureResumesWithTheModelItStartedWith) {
  const fs::path ubq = "/usr/share/freesasa/test-data/1ubq.pdb";
  const auto dir = ermak::test::fresh_directory("run-structure-earlier-model");
  std::ofstream(dir / "run.toml") << "[input]\nstructure = \"" << ubq.string()
                                  << "\"\n[run]\nsteps = 1000\nseed = 3\nbackend = \"cpu\"\n"
                                     "[output]\ndirectory = \"out\"\nenergy_every = 500\ncheckpoint_every = 500\n";
  const std::string config = (dir / "run.toml").string();
  int status = 0;
  std::string out = run_ermak("run --quiet " + config, &status);
  ASSERT_EQ(status, 0) << out;
  const fs::path file = dir / "out/checkpoint.ckpt";
  const ermak::Checkpoint written = ermak::read_checkpoint(file);
  // Such a run's output directory holds the model it started with in model.etop too, which a
  // resume reads (docs/outputs.md#resume).
  const ermak::Topology earlier =
      ermak::build_ca_model(ubq, ermak::ModelBuildSpec{}, nullptr, ermak::CaDistances::double_precision);
  const std::string earlier_model = ermak::model_fingerprint(earlier);
  ASSERT_NE(earlier_model, ermak::model_fingerprint(ermak::build_ca_model(ubq, ermak::ModelBuildSpec{})))
      << "ubiquitin's r0 should differ in their last bits between the two rules";
  const std::string note = "built from double-precision C-alpha distances, as ermak built it before commit dd1af8e";
  const std::string own_etop = read_file(dir / "out/model.etop");
  auto with_model = [&](const std::optional<std::string>& model) {
    ermak::Checkpoint edited = written;
    std::erase_if(edited.extra, [](const auto& kv) { return kv.first == "model.fingerprint"; });
    if (model) edited.extra.emplace_back("model.fingerprint", *model);
    ermak::write_checkpoint_atomically(file, edited);
    ermak::write_topology_file(earlier, dir / "out/model.etop");
  };
  int steps = 1000;
  for (const std::optional<std::string>& model : {std::optional<std::string>(earlier_model),
                                                  std::optional<std::string>()}) {
    with_model(model);
    steps += 500;
    out = run_ermak("run --resume " + config + " --set run.steps=" + std::to_string(steps), &status);
    EXPECT_EQ(status, 0) << out;
    EXPECT_NE(out.find(note), std::string::npos) << out;
  }
  // The checkpoint of the run's own (float) model: no note. (A resume with the earlier model
  // keeps that model in the checkpoints it writes.)
  ermak::write_checkpoint_atomically(file, written);
  std::ofstream(dir / "out/model.etop", std::ios::binary | std::ios::trunc) << own_etop;
  steps = 1500;
  out = run_ermak("run --resume " + config + " --set run.steps=" + std::to_string(steps), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out.find(note), std::string::npos) << out;
  with_model(std::string("0123456789abcdef"));
  out = run_ermak("run --quiet --resume " + config + " --set run.steps=" + std::to_string(steps + 500), &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("the model differs from the one this run started with"), std::string::npos) << out;
}

// Replica r depends only on the seed and r: a run left at the default seed says so (two such
// runs pooled would count the same trajectories twice); one given a seed does not.
TEST(RunCli, ARunAtTheDefaultSeedIsNoted) {
  const auto dir = ermak::test::fresh_directory("run-default-seed");
  const std::string note = "(the default: give each run whose replicas are to be pooled its own run.seed)";
  int status = 0;
  std::string out = run_ermak("run " + write_config(dir).string() + " --set run.steps=100", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("seed 99 (counter-based)\n"), std::string::npos) << out;
  EXPECT_EQ(out.find(note), std::string::npos) << out;
  std::string config = read_file(write_config(dir));
  config.replace(config.find("seed = 99\n"), 10, "");
  std::ofstream(dir / "unseeded.toml") << config;
  out = run_ermak("run " + (dir / "unseeded.toml").string() + " --force --set run.steps=100", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("seed 1 (counter-based) " + note), std::string::npos) << out;
}

TEST(RunCli, SameSeedSameTrajectoryWithOneOrTwoThreads) {
  const auto one = ermak::test::fresh_directory("run-threads-1");
  const auto two = ermak::test::fresh_directory("run-threads-2");
  int status = 0;
  // The CPU backend's threads (backend "auto" would pick a GPU where there is one).
  const std::string cpu = " --set run.backend=cpu";
  ASSERT_EQ((run_ermak("run --quiet " + write_config(one).string() + cpu + " --set run.threads=1", &status), status), 0);
  ASSERT_EQ((run_ermak("run --quiet " + write_config(two).string() + cpu + " --set run.threads=2", &status), status), 0);
  EXPECT_EQ(read_file(one / "out/replica_002/trajectory.dcd"), read_file(two / "out/replica_002/trajectory.dcd"));
  EXPECT_EQ(read_file(one / "out/replica_000/energies.tsv"), read_file(two / "out/replica_000/energies.tsv"));
  // The same with a stateful generator shared by all threads of a replica.
  const std::string lf = " --set run.rng=lagged_fibonacci --set run.steps=1000";
  ASSERT_EQ((run_ermak("run --quiet --force " + write_config(one).string() + lf + " --set run.threads=1", &status), status), 0);
  ASSERT_EQ((run_ermak("run --quiet --force " + write_config(two).string() + lf + " --set run.threads=2", &status), status), 0);
  EXPECT_EQ(read_file(one / "out/replica_002/trajectory.dcd"), read_file(two / "out/replica_002/trajectory.dcd"));
}

// A run that fails once its log is open says why in the log too (a batch job's log then
// holds what stderr alone would carry).
// A run that stops with an error keeps what passed its checks: the rows of the stop before
// the failing one and the checkpoint queued before them, both written by the report writer
// as the run unwinds (docs/outputs.md#after-an-error). The checkpoint job used to read locals
// already destroyed by then, and lost the checkpoint and the rows after it in some runs.
TEST(RunCli, AnErrorKeepsTheRowsAndTheCheckpointThatPassed) {
  const auto dir = ermak::test::fresh_directory("run-error-keeps");
  const std::string config =
      write_config(dir, "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [33]\nspeed_um_per_s = 200000\n"
                        "spring_kcal_per_mol_A2 = 10\noutput_every = 100\n")
          .string();
  for (int attempt = 0; attempt < 3; ++attempt) {
    int status = 0;
    const std::string out = run_ermak("run --quiet --force " + config +
                                          " --set run.replicas=1 --set run.seed=3 --set run.steps=20000 "
                                          "--set output.energy_every=100 --set output.checkpoint_every=200",
                                      &status);
    ASSERT_EQ(status, 1) << out;
    ASSERT_NE(out.find("a FENE bond broke between steps 1100 and 1200"), std::string::npos) << out;
    EXPECT_EQ(ermak::read_checkpoint(dir / "out/checkpoint.ckpt").step, 1000) << "attempt " << attempt;
    const std::string table = read_file(dir / "out/replica_000/energies.tsv");
    const std::size_t last = table.rfind('\n', table.size() - 2) + 1;
    EXPECT_EQ(table.substr(last, 5), "1100\t") << "attempt " << attempt;
  }
}

TEST(RunCli, AnErrorDuringTheRunIsInTheRunLog) {
  const auto dir = ermak::test::fresh_directory("run-error-logged");
  int status = 0;
  // A time step 100 times SOP-GPU's breaks bonds within the first report interval.
  const std::string out = run_ermak("run --quiet " + write_config(dir).string() + " --set run.timestep_tau=8.0", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("a FENE bond broke"), std::string::npos) << out;
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("] error: a FENE bond broke"), std::string::npos) << log.substr(log.size() > 600 ? log.size() - 600 : 0);
}

// Checkpoints are written on the report writer's thread while the engine goes on
// (docs/outputs.md#reports-are-written-in-the-background); one that cannot be written must
// still stop the run with its error, in the run log too.
TEST(RunCli, ACheckpointThatCannotBeWrittenStopsTheRun) {
  const auto dir = ermak::test::fresh_directory("run-checkpoint-fails");
  fs::create_directories(dir / "out/checkpoint.ckpt.tmp");  // where the checkpoint is written first
  int status = 0;
  const std::string out = run_ermak("run --quiet " + write_config(dir).string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("checkpoint.ckpt.tmp: cannot create checkpoint"), std::string::npos) << out;
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("] error: "), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir / "out/checkpoint.ckpt"));
}

TEST(RunCli, RefusesToOverwriteWithoutForce) {
  const auto dir = ermak::test::fresh_directory("run-overwrite");
  int status = 0;
  const auto config = write_config(dir).string() + " --set run.steps=100";
  ASSERT_EQ((run_ermak("run --quiet " + config, &status), status), 0);
  const std::string before = read_file(dir / "out/replica_000/energies.tsv");
  const std::string out = run_ermak("run --quiet " + config, &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("--force"), std::string::npos) << out;
  EXPECT_EQ(read_file(dir / "out/replica_000/energies.tsv"), before) << "nothing was touched";
  EXPECT_EQ((run_ermak("run --quiet --force " + config, &status), status), 0);
}

// --force removes the run's files, never through a link: a replica directory that is a
// symbolic link goes as the link, its target's files stay (an audit's --force emptied a
// directory outside the run); and a run.log that is no ermak log is not replaced without it
// (an audit's lab notes went silently).
TEST(RunCli, ForceRemovesOnlyTheRunsOwnFiles) {
  const auto dir = ermak::test::fresh_directory("run-force-links");
  int status = 0;
  const auto config = write_config(dir).string() + " --set run.steps=100";
  ASSERT_EQ((run_ermak("run --quiet " + config, &status), status), 0);
  const fs::path elsewhere = dir / "precious";
  fs::create_directories(elsewhere);
  for (const char* name : {"energies.tsv", "final.pdb", "notes"}) std::ofstream(elsewhere / name) << "mine\n";
  fs::remove_all(dir / "out/replica_001");
  fs::create_directory_symlink(elsewhere, dir / "out/replica_001");
  std::string out = run_ermak("run --quiet --force " + config, &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* name : {"energies.tsv", "final.pdb", "notes"})
    EXPECT_EQ(read_file(elsewhere / name), "mine\n") << name;
  EXPECT_FALSE(fs::is_symlink(dir / "out/replica_001"));
  EXPECT_TRUE(fs::exists(dir / "out/replica_001/energies.tsv"));

  const auto notes_dir = ermak::test::fresh_directory("run-user-log");
  fs::create_directories(notes_dir / "out");
  std::ofstream(notes_dir / "out/run.log") << "my lab notes\n";
  const auto notes_config = write_config(notes_dir).string() + " --set run.steps=100";
  out = run_ermak("run --quiet " + notes_config, &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("run.log: exists and is not an ermak run log"), std::string::npos) << out;
  EXPECT_EQ(read_file(notes_dir / "out/run.log"), "my lab notes\n");
  EXPECT_EQ((run_ermak("run --quiet --force " + notes_config, &status), status), 0);
}

// --force with a mistake in the new configuration (a bead that does not exist) stops in the
// start checks and leaves the earlier run's files as they were: they go only once the new
// run is about to write its own.
TEST(RunCli, ForceWithAMistakeKeepsTheEarlierRun) {
  const auto dir = ermak::test::fresh_directory("run-force-mistake");
  int status = 0;
  const auto config = write_config(dir).string() + " --set run.steps=100";
  ASSERT_EQ((run_ermak("run --quiet " + config, &status), status), 0);
  const auto files_before = ermak::test::files_under(dir / "out");
  std::string out = run_ermak("run --quiet --force " + config + " --set 'fixed.beads=[99]'", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("fixed.beads"), std::string::npos) << out;
  auto files_after = ermak::test::files_under(dir / "out");
  EXPECT_EQ(files_after.size(), files_before.size()) << "files were removed";
  for (const auto& [name, content] : files_before)
    if (name != "run.log") EXPECT_EQ(files_after[name], content) << name;
  // The earlier run's log is kept, the refused attempt's lines after it.
  const std::string& log_before = files_before.at("run.log");
  EXPECT_EQ(files_after["run.log"].substr(0, log_before.size()), log_before);
  EXPECT_NE(files_after["run.log"].find("error: ", log_before.size()), std::string::npos);
  out = run_ermak("run --quiet --force " + config, &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(read_file(dir / "out/run.log").find("--force: removed 14 files of the earlier run"), std::string::npos)
      << read_file(dir / "out/run.log");
  EXPECT_EQ(read_file(dir / "out/run.log").find("error: "), std::string::npos) << "a log of this run alone";
  EXPECT_FALSE(fs::exists(dir / "out/run.log.new"));
}

// An input that is one of the run's own files — coordinates named model.pdb in the output
// directory, or reached through a link there — is refused before anything is written,
// --force and the dry run included; an input beside them under another name is fine.
TEST(RunCli, AnInputAmongTheRunsOwnFilesIsRefused) {
  const auto dir = ermak::test::fresh_directory("run-input-is-output");
  const auto ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  fs::create_directories(dir / "out");
  fs::copy_file(ww / "ww_cg.pdb", dir / "out/model.pdb");
  fs::copy_file(ww / "ww_cg.pdb", dir / "out/start.pdb");
  const std::string original = read_file(dir / "out/model.pdb");
  auto config = [&](const std::string& coordinates) {
    std::ofstream c(dir / "run.toml");
    c << "[input]\ntopology = \"" << (ww / "ww.top").string() << "\"\ncoordinates = \"" << coordinates
      << "\"\n[run]\nreplicas = 1\nsteps = 100\nbackend = \"cpu\"\n[output]\ndirectory = \"out\"\n";
    return (dir / "run.toml").string();
  };
  int status = 0;
  for (const char* flags : {"", "--force ", "--dry-run "}) {
    const std::string out = run_ermak(std::string("run --quiet ") + flags + config("out/model.pdb"), &status);
    EXPECT_NE(status, 0) << flags;
    EXPECT_NE(out.find("run.toml:3: input.coordinates: " + (dir / "out/model.pdb").string() +
                       " is one of the files the run writes"),
              std::string::npos)
        << flags << out;
    EXPECT_EQ(read_file(dir / "out/model.pdb"), original) << flags;
    EXPECT_FALSE(fs::exists(dir / "out/model.psf")) << flags;
  }
  // The output's model.pdb a link to the input elsewhere: writing it would write the input.
  fs::remove(dir / "out/model.pdb");
  fs::copy_file(ww / "ww_cg.pdb", dir / "elsewhere.pdb");
  fs::create_symlink(dir / "elsewhere.pdb", dir / "out/model.pdb");
  std::string out = run_ermak("run --quiet --force " + config((dir / "elsewhere.pdb").string()), &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("elsewhere.pdb is " + (dir / "out/model.pdb").string() + ", one of the files the run writes"),
            std::string::npos)
      << out;
  EXPECT_EQ(read_file(dir / "elsewhere.pdb"), original);
  fs::remove(dir / "out/model.pdb");
  out = run_ermak("run --quiet " + config("out/start.pdb"), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(read_file(dir / "out/start.pdb"), original);
}

// A resume refused for one replica's file (missing, or its header edited) cuts none of
// the others back (docs/outputs.md#resume); a directory whose run wrote no checkpoint
// says that --force, not --resume, is the way on.
TEST(RunCli, ARefusedResumeCutsNothing) {
  const auto dir = ermak::test::fresh_directory("run-refused-resume");
  int status = 0;
  const std::string config = write_config(dir).string();
  ASSERT_EQ((run_ermak("run --quiet " + config + " --set run.steps=2000", &status), status), 0);
  // Files as a run killed after its last checkpoint leaves them: rows and frames beyond it.
  for (const char* replica : {"replica_000", "replica_001", "replica_002"}) {
    std::ofstream(dir / "out" / replica / "energies.tsv", std::ios::app) << "2500\t1\n";
    std::ofstream(dir / "out" / replica / "trajectory.dcd", std::ios::app | std::ios::binary) << "extra";
  }
  const auto sizes = [&] {
    std::vector<std::uintmax_t> out;
    for (const char* f : {"replica_000/energies.tsv", "replica_000/trajectory.dcd", "replica_001/trajectory.dcd"})
      out.push_back(fs::file_size(dir / "out" / f));
    return out;
  };
  const auto before = sizes();
  std::string energies = read_file(dir / "out/replica_002/energies.tsv");
  energies.replace(energies.find("U_total"), 7, "U_tutal");  // same length: only the header check sees it
  std::ofstream(dir / "out/replica_002/energies.tsv", std::ios::binary) << energies;
  std::string out = run_ermak("run --quiet --resume " + config, &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("replica_002/energies.tsv: table header"), std::string::npos) << out;
  EXPECT_EQ(sizes(), before);
  fs::remove(dir / "out/replica_002/energies.tsv");
  out = run_ermak("run --quiet --resume " + config, &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("replica_002/energies.tsv: missing"), std::string::npos) << out;
  EXPECT_EQ(sizes(), before);

  // No checkpoint (a run killed before its first): --force is the way on.
  fs::remove(dir / "out/checkpoint.ckpt");
  out = run_ermak("run --quiet " + config, &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("already holds a run that wrote no checkpoint (it stopped before its first one), so it cannot "
                     "be resumed; pass --force to start it again"),
            std::string::npos)
      << out;
}

// A bead driven beyond what a PDB's 8 columns hold (x < −9 999 999 Å): the run finishes,
// without that replica's final.pdb and with a warning naming where the positions are
// (it failed at its end and every --resume failed again).
// Single-precision positions far from the origin cannot follow a step's noise
// (docs/model.md#precision): a start near the PDB's 10⁷ Å limit (where floats are 1 Å apart)
// is refused before any output but its log is written; one at 5000 Å runs with a warning. (Such a start
// was this test's way to a final structure beyond a PDB's columns; write_pdb_if_it_fits
// keeps its own test in io_pdb_coordinates_test.cpp.)
TEST(RunCli, AStartTooFarFromTheOriginForSinglePrecisionIsRefusedAndOneFarIsWarned) {
  const auto dir = ermak::test::fresh_directory("run-far-bead");
  const auto write_config = [&](const std::string& x_A) {
    std::ofstream(dir / "far.etop") << "# ermak topology 1\nname far\nbeads 1\n0 A 1 . ALA CA 1 0 71.08 " << x_A
                                    << " 0.0 0.0\nbonds 0\nnative_contacts 0\n";
    std::ofstream(dir / "far.toml") << "[input]\ntopology = \"far.etop\"\n[run]\nsteps = 40\nbackend = \"cpu\"\n"
                                       "[force_clamp]\npulled_beads = [0]\nforce_pN = 40000\ndirection = [-1, 0, 0]\n"
                                       "output_every = 10\n[output]\ndirectory = \"out\"\ntrajectory_every = 10\n";
  };
  write_config("-9999990.0");
  int status = 0;
  std::string out = run_ermak("run --quiet " + (dir / "far.toml").string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("far.etop: bead 0 (chain A residue 1 CA) is 9.99999e+06 Å from the origin, where "
                     "single-precision positions are 1 Å apart"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("move the structure nearer the origin"), std::string::npos) << out;
  // Only the failed start's log (which does not block the next run).
  EXPECT_FALSE(fs::exists(dir / "out/replica_000"));
  EXPECT_FALSE(fs::exists(dir / "out/model.psf"));
  write_config("-5000.0");
  out = run_ermak("run --quiet " + (dir / "far.toml").string(), &status);
  EXPECT_EQ(status, 0) << out;
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("warning: " + (dir / "far.etop").string() + ": bead 0 (chain A residue 1 CA) is 5000 Å from the "
                     "origin, where single-precision positions are 0.00049 Å apart: 1 % of a step's noise"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("finished: 40 steps"), std::string::npos) << log;
}

TEST(RunCli, LastTrajectoryFrameReadByMdanalysisEqualsFinalCoordinates) {
  const auto dir = ermak::test::fresh_directory("run-mdanalysis");
  int status = 0;
  ASSERT_EQ((run_ermak("run --quiet " + write_config(dir).string(), &status), status), 0);
  const fs::path out = dir / "out";
  const std::string script =
      "import MDAnalysis as mda, numpy as np\n"
      "u = mda.Universe('" + (out / "model.psf").string() + "', '" + (out / "replica_001/trajectory.dcd").string() + "')\n"
      "f = mda.Universe('" + (out / "replica_001/final.pdb").string() + "')\n"
      "assert len(u.trajectory) == 5, len(u.trajectory)\n"
      "u.trajectory[-1]\n"
      "d = np.abs(u.atoms.positions - f.atoms.positions).max()\n"
      "assert d < 6e-4, d\n"
      "print('ok', d)\n";
  { std::ofstream py(dir / "check.py"); py << script; }
  std::string output;
  EXPECT_EQ(run_command(ermak::test::python() + " " + (dir / "check.py").string(), &output), 0) << output;
}

struct BadInputCase {
  const char* name;
  std::string config_text;       // appended to a valid [output] section
  std::string expected_in_message;
};

TEST(RunCli, BadInputsGiveClearErrorsAndNonZeroExit) {
  const auto dir = ermak::test::fresh_directory("run-bad");
  { std::ofstream t(dir / "truncated.pdb");
    t << "ATOM      1  N   MET A   1      27.340  24.430   2.614  1.00  9.67           N\n"
         "ATOM      2  CA  MET A   1      26.266  25.413   2.842  1.00 10.38           C\n"
         "ATOM      3  C   MET A   1      26.913  26.6"; }
  { std::ofstream t(dir / "no_ca.pdb");
    t << "ATOM      1  N   MET A   1      27.340  24.430   2.614  1.00  9.67           N\n"
         "ATOM      2  C   MET A   1      26.913  26.639   3.531  1.00  9.62           C\nEND\n"; }
  const std::string ubq = "/usr/share/freesasa/test-data/1ubq.pdb";
  const std::vector<BadInputCase> cases = {
      {"truncated pdb", "[input]\nstructure = \"truncated.pdb\"\n", "truncated.pdb"},
      {"no C-alpha", "[input]\nstructure = \"no_ca.pdb\"\n", "no_ca.pdb"},
      {"missing file", "[input]\nstructure = \"absent.pdb\"\n", "bad.toml:2: input.structure: file not found: "},
      {"missing coordinates", "[input]\ntopology = \"" + (ermak::test::shared_data() / "sopgpu/ww/reference/ww.top").string() +
                                  "\"\ncoordinates = \"absent.pdb\"\n",
       "bad.toml:3: input.coordinates: file not found: "},
      {"unknown key", "[input]\nstructure = \"" + ubq + "\"\n[run]\nstepz = 10\n", "run.stepz"},
      {"negative timestep", "[input]\nstructure = \"" + ubq + "\"\n[run]\ntimestep_ps = -1.0\n", "run.timestep_ps"},
      {"fixed bead out of range", "[input]\nstructure = \"" + ubq + "\"\n[fixed]\nbeads = [500]\n", "fixed.beads"},
  };
  for (const auto& c : cases) {
    { std::ofstream cfg(dir / "bad.toml"); cfg << c.config_text << "[output]\ndirectory = \"out-bad\"\n"; }
    int status = 0;
    const std::string out = run_ermak("run --quiet --force " + (dir / "bad.toml").string(), &status);
    EXPECT_EQ(status, 1) << c.name << ": " << out;
    EXPECT_NE(out.find("error"), std::string::npos) << c.name << ": " << out;
    EXPECT_NE(out.find(c.expected_in_message), std::string::npos) << c.name << ": " << out;
  }
}
