// `ermak run` on the CUDA backend end to end (issue 5): backend "auto" picks the GPU,
// outputs are written, and --resume continues bit for bit, also with a pulling protocol
// whose cantilever state lives on the device.
#include <gtest/gtest.h>

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

TEST(CudaRun, ABadDeviceIndexIsAClearError) {
  ERMAK_REQUIRE_GPU();  // without one, every run would fail for that reason instead
  const auto dir = ermak::test::fresh_directory("cuda-run-bad-device");
  int status = 0;
  const std::string out =
      run_ermak("run --quiet " + write_config(dir).string() + " --set run.backend=cuda --set run.device=999", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("999"), std::string::npos) << out;
}
