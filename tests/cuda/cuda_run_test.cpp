// `ermak run` on the CUDA backend end to end (issue 5): backend "auto" picks the GPU,
// outputs are written, and --resume continues bit for bit, also with a pulling protocol
// whose cantilever state lives on the device.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/cuda_test_support.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_ermak;

namespace {

fs::path write_config(const fs::path& dir, const std::string& extra = "") {
  return ermak::test::write_ww_run_config(dir, 7, extra);
}

// The whole run against the same run stopped at step 2000 and resumed; `sets` are
// --set overrides for both, `extra` more tables.
void expect_resume_bit_for_bit(const std::string& name, const std::string& sets, const std::string& extra,
                               const std::vector<std::string>& files) {
  const auto whole = ermak::test::fresh_directory(name + "-whole");
  const auto split = ermak::test::fresh_directory(name + "-split");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole, extra).string() + sets, &status);
  ASSERT_EQ(status, 0) << out;
  out = run_ermak("run --quiet " + write_config(split, extra).string() + sets + " --set run.steps=2000", &status);
  ASSERT_EQ(status, 0) << out;
  // A crash after the checkpoint leaves extra output; resume must cut it away.
  { std::ofstream junk(split / "out/replica_001/energies.tsv", std::ios::app); junk << "12345\tjunk\n"; }
  out = run_ermak("run --quiet --resume " + write_config(split, extra).string() + sets, &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(read_file(split / "out/run.log").find("backend: cuda"), std::string::npos);
  for (const std::string& f : files) {
    const std::string a = read_file(whole / "out" / f), b = read_file(split / "out" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_EQ(a, b) << f;
  }
}

// Every number of two TSV tables, row by row: the same shape and steps, the values within
// `relative` of each other (plus `relative` absolute, for values near zero).
void expect_tables_agree(const std::string& a, const std::string& b, double relative, const std::string& what) {
  std::istringstream la(a), lb(b);
  std::string row_a, row_b;
  int rows = 0;
  while (std::getline(la, row_a)) {
    ASSERT_TRUE(static_cast<bool>(std::getline(lb, row_b))) << what << ": fewer rows";
    if (row_a.empty() || row_a[0] == '#') {
      EXPECT_EQ(row_a, row_b) << what;
      continue;
    }
    std::istringstream fa(row_a), fb(row_b);
    std::string step_a, step_b;
    fa >> step_a;
    fb >> step_b;
    ASSERT_EQ(step_a, step_b) << what << " row " << rows;
    for (double x, y; fa >> x;) {
      ASSERT_TRUE(static_cast<bool>(fb >> y)) << what << " row " << rows;
      EXPECT_NEAR(x, y, relative * (std::abs(x) + 1)) << what << " step " << step_a;
    }
    ++rows;
  }
  EXPECT_FALSE(static_cast<bool>(std::getline(lb, row_b))) << what << ": more rows";
  EXPECT_GT(rows, 2) << what;
}

}  // namespace

TEST(CudaRun, AutoBackendPicksTheGpuAndWritesEveryOutput) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  const auto dir = ermak::test::fresh_directory("cuda-run-auto");
  int status = 0;
  const std::string out = run_ermak("run --quiet " + write_config(dir).string(), &status);
  ASSERT_EQ(status, 0) << out;
  const std::string log = read_file(dir / "out/run.log");
  EXPECT_NE(log.find("backend: cuda (auto"), std::string::npos) << log.substr(0, 2000);
  for (const char* f : {"model.psf", "model.pdb", "checkpoint.ckpt", "replica_000/energies.tsv",
                        "replica_002/trajectory.dcd", "replica_001/final.pdb"})
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
}

TEST(CudaRun, ResumeContinuesBitForBitWithBothKernelFamilies) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  for (const char* family : {"block", "perbead"}) {
    SCOPED_TRACE(family);
    expect_resume_bit_for_bit(std::string("cuda-run-resume-") + family,
                              std::string(" --set run.backend=cuda --set run.cuda_kernels=") + family, "",
                              {"replica_000/energies.tsv", "replica_001/energies.tsv", "replica_002/trajectory.dcd",
                               "replica_001/final.pdb"});
  }
}

TEST(CudaRun, PullingResumesBitForBitOnTheGpu) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  // The cantilever of each replica is on the device; its force table must continue too.
  expect_resume_bit_for_bit("cuda-run-pulling", " --set run.backend=cuda",
                            "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [33]\nspeed_um_per_s = 50000\n"
                            "spring_pN_per_nm = 70\noutput_every = 250\n",
                            {"replica_000/pulling.tsv", "replica_002/pulling.tsv", "replica_002/energies.tsv",
                             "replica_001/final.pdb"});
}

// Report stops overlapped with the next steps (docs/gpu.md#what-overlaps-the-steps, the
// block family's default) write the same bytes as stops taken in turn
// (ERMAK_OVERLAP_STOPS=0): pulling rows every 250 steps, energies every 500, frames every
// 750, checkpoints every 1000 — without a list (WW's default) and with lists whose rows
// start too short (ERMAK_CUDA_BLOCK_SLOTS=8), so that a launch run ahead overflows (in
// turn, the launch that overflows is repeated at once: the rows grow the same); and a torn
// chain is placed between the same two stops.
TEST(CudaRun, OverlappedStopsWriteTheSameFiles) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  const std::string pulling = "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [33]\nspeed_um_per_s = 50000\n"
                              "spring_pN_per_nm = 70\noutput_every = 250\n";
  const std::string sets = " --set run.backend=cuda --set run.cuda_kernels=block --set output.trajectory_every=750";
  using Env = std::vector<std::pair<const char*, const char*>>;
  auto run = [&](const char* name, const Env& env, const std::string& extra_sets) {
    const auto dir = ermak::test::fresh_directory(name);
    for (const auto& [k, v] : env) setenv(k, v, 1);  // the child inherits them
    int status = 0;
    const std::string out = run_ermak("run --quiet " + write_config(dir, pulling).string() + sets + extra_sets, &status);
    for (const auto& [k, v] : env) unsetenv(k);
    return std::pair{dir, out + "\nexit status " + std::to_string(status)};
  };
  const Env in_turn_env = {{"ERMAK_OVERLAP_STOPS", "0"}};
  for (const bool lists : {false, true}) {
    SCOPED_TRACE(lists ? "lists" : "all pairs");
    Env overlapped_env;
    if (lists) overlapped_env = {{"ERMAK_CUDA_BLOCK_ALLPAIRS", "0"}, {"ERMAK_CUDA_BLOCK_SLOTS", "8"}};
    Env lists_in_turn_env = overlapped_env;
    lists_in_turn_env.insert(lists_in_turn_env.end(), in_turn_env.begin(), in_turn_env.end());
    const auto [in_turn, in_turn_out] = run("cuda-run-stops-in-turn", lists_in_turn_env, "");
    const auto [overlapped, overlapped_out] = run("cuda-run-stops-overlapped", overlapped_env, "");
    ASSERT_NE(in_turn_out.find("exit status 0"), std::string::npos) << in_turn_out;
    ASSERT_NE(overlapped_out.find("exit status 0"), std::string::npos) << overlapped_out;
    if (lists) EXPECT_NE(read_file(overlapped / "out/run.log").find("block/list/"), std::string::npos);
    for (const std::string f : {"replica_000/pulling.tsv", "replica_002/pulling.tsv", "replica_001/energies.tsv",
                                "replica_002/trajectory.dcd", "replica_001/final.pdb", "checkpoint.ckpt"}) {
      const std::string a = read_file(in_turn / "out" / f);
      EXPECT_FALSE(a.empty()) << f;
      EXPECT_EQ(a, read_file(overlapped / "out" / f)) << f;
    }
  }
  // A time step 250 times SOP-GPU's tears the chain within the first few steps (the base
  // slowed to 0.5 Å a step: at 2.5 the start check would refuse the run).
  const std::string tear =
      " --set run.timestep_tau=20 --set output.checkpoint_every=0 --set pulling.speed_um_per_s=10000";
  const auto [torn_in_turn, torn_in_turn_out] = run("cuda-run-torn-in-turn", in_turn_env, tear);
  const auto [torn, torn_out] = run("cuda-run-torn-overlapped", {}, tear);
  const std::string message = "a FENE bond broke between steps 0 and 250:";
  EXPECT_NE(torn_in_turn_out.find(message), std::string::npos) << torn_in_turn_out;
  EXPECT_NE(torn_out.find(message), std::string::npos) << torn_out;
}

TEST(CudaRun, ABadDeviceIndexIsAClearError) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  const auto dir = ermak::test::fresh_directory("cuda-run-bad-device");
  int status = 0;
  const std::string out =
      run_ermak("run --quiet " + write_config(dir).string() + " --set run.backend=cuda --set run.device=999", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("999"), std::string::npos) << out;
}

// A run stopped on one backend and resumed on the other (docs/outputs.md#resuming-elsewhere)
// is the same run: its files equal those of a whole run on the CPU to float rounding, as the
// backends agree from step 0. Pulled WW: the cantilever state crosses too.
TEST(CudaRun, ResumeOnTheOtherBackendContinuesTheSameRun) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  const std::string pulling = "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [33]\nspeed_um_per_s = 50000\n"
                              "spring_pN_per_nm = 70\noutput_every = 250\n";
  const auto whole = ermak::test::fresh_directory("cuda-run-cross-whole");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(whole, pulling).string() + " --set run.backend=cpu", &status);
  ASSERT_EQ(status, 0) << out;
  for (const auto& [first, then] : {std::pair{"cuda", "cpu"}, std::pair{"cpu", "cuda"}}) {
    const auto split = ermak::test::fresh_directory(std::string("cuda-run-cross-") + first);
    const fs::path config = write_config(split, pulling);
    out = run_ermak("run --quiet " + config.string() + " --set run.backend=" + first + " --set run.steps=2000", &status);
    ASSERT_EQ(status, 0) << out;
    out = run_ermak("run --quiet --resume " + config.string() + " --set run.backend=" + then, &status);
    ASSERT_EQ(status, 0) << out;
    const std::string log = read_file(split / "out/run.log");
    EXPECT_NE(log.find(std::string("backend: ") + first), std::string::npos);
    EXPECT_NE(log.find(std::string("backend: ") + then), std::string::npos);
    for (const char* f : {"replica_000/energies.tsv", "replica_002/energies.tsv", "replica_000/pulling.tsv",
                          "replica_002/pulling.tsv"})
      expect_tables_agree(read_file(whole / "out" / f), read_file(split / "out" / f), 1e-3,
                          std::string(first) + " then " + then + ": " + f);
  }
}

// run.device = [a, b] (docs/gpu.md#several-gpus): the replicas split over two GPUs (GPU 0
// twice where the machine has one) are the same run as on the CPU, to float rounding; the
// split run resumes bit for bit on the same GPUs and, to float rounding, on one GPU.
TEST(CudaRun, SeveralGpusShareTheReplicas) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  const std::string devices = ermak::cuda_device_count() >= 2 ? "[0,1]" : "[0,0]";
  const std::string pulling = "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [33]\nspeed_um_per_s = 50000\n"
                              "spring_pN_per_nm = 70\noutput_every = 250\n";
  const std::string on_two = " --set run.backend=cuda --set 'run.device=" + devices + "'";
  expect_resume_bit_for_bit("cuda-run-two-gpus", on_two, pulling,
                            {"replica_000/pulling.tsv", "replica_002/pulling.tsv", "replica_002/energies.tsv",
                             "replica_001/final.pdb", "replica_002/trajectory.dcd"});
  const auto cpu = ermak::test::fresh_directory("cuda-run-two-gpus-cpu");
  int status = 0;
  std::string out = run_ermak("run --quiet " + write_config(cpu, pulling).string() + " --set run.backend=cpu", &status);
  ASSERT_EQ(status, 0) << out;
  const auto moved = ermak::test::fresh_directory("cuda-run-two-gpus-then-one");
  const fs::path config = write_config(moved, pulling);
  out = run_ermak("run --quiet " + config.string() + on_two + " --set run.steps=2000", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string log = read_file(moved / "out/run.log");
  EXPECT_NE(log.find("replicas split over 2 GPUs: 0-1 on GPU 0, 2 on GPU"), std::string::npos) << log;
  EXPECT_EQ(log.find("note: this machine has"), std::string::npos) << log;
  out = run_ermak("run --quiet --resume " + config.string() + " --set run.backend=cuda --set run.device=0", &status);
  ASSERT_EQ(status, 0) << out;
  // On one GPU of several, the log says how to use them all.
  if (ermak::cuda_device_count() >= 2)
    EXPECT_NE(read_file(moved / "out/run.log").find("note: this machine has"), std::string::npos);
  for (const char* f : {"replica_000/energies.tsv", "replica_002/energies.tsv", "replica_000/pulling.tsv",
                        "replica_002/pulling.tsv"})
    expect_tables_agree(read_file(cpu / "out" / f), read_file(moved / "out" / f), 1e-3, std::string("then one GPU: ") + f);
}

TEST(CudaRun, SeveralGpusNeedPhiloxNoise) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  const auto dir = ermak::test::fresh_directory("cuda-run-two-gpus-taus");
  int status = 0;
  const std::string out = run_ermak("run --quiet " + write_config(dir).string() +
                                        " --set run.backend=cuda --set 'run.device=[0,0]' --set run.rng=hybrid_taus",
                                    &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("run.device"), std::string::npos) << out;
  EXPECT_NE(out.find("philox"), std::string::npos) << out;
}
