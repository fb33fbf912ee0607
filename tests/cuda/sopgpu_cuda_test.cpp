// SOP-GPU's configurations run unchanged on the GPU (issues 5 and 7): `ermak run FILE.sop
// --backend cuda` writes the files `--backend cpu` writes — SOP-GPU's energy, pulling and
// indentation tables, DCD trajectories, restart and final structures — with the same
// numbers to float rounding, and a stage stopped on the GPU continues on the CPU
// (docs/outputs.md#resuming-elsewhere). Compared as in scripts/backend_agreement.py:
// values within 10⁻³ of their column's scale, positions within 10⁻² Å.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/cuda_test_support.h"
#include "ermak/io/pdb_coordinates.h"
#include "support/sopgpu_directories.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::sopgpu_pf8_directory;
using ermak::test::sopgpu_ww_directory;
using ermak::test::read_number_rows;

namespace {

int ermak_in(const fs::path& dir, const std::string& args, const std::string& backend, std::string* output) {
  return ermak::test::run_ermak_in(dir, "run " + args + " --backend " + backend + " --quiet", output);
}

// Every frame's coordinates of a DCD (docs/outputs.md#dcd: Fortran records; header, title,
// atom count, then X, Y and Z records per frame).
std::vector<float> read_dcd_coordinates(const fs::path& path) {
  const std::string data = read_file(path);
  std::size_t at = 0;
  std::vector<float> values;
  for (int record = 0; at + 4 <= data.size(); ++record) {
    std::int32_t length = 0;
    std::memcpy(&length, data.data() + at, 4);
    if (length < 0 || at + 8 + std::size_t(length) > data.size()) break;
    if (record >= 3) {  // past the header, title and atom-count records
      const std::size_t n = std::size_t(length) / 4;
      const std::size_t old = values.size();
      values.resize(old + n);
      std::memcpy(values.data() + old, data.data() + at + 4, n * 4);
    }
    at += std::size_t(length) + 8;
  }
  return values;
}

// Tables row by row: the same rows and columns, each value within 10⁻³ of the larger of
// its magnitude and its column's largest (at least 1), plus one unit of its last printed
// digit (a rounding of the file's decimals).
void expect_tables_agree(const fs::path& a, const fs::path& b) {
  std::vector<std::vector<double>> digits;
  const auto ra = read_number_rows(a, &digits), rb = read_number_rows(b);
  ASSERT_EQ(ra.size(), rb.size()) << a;
  ASSERT_FALSE(ra.empty()) << a;
  std::vector<double> scale(ra.front().size(), 1.0);
  for (const auto& row : rb)
    for (std::size_t c = 0; c < std::min(row.size(), scale.size()); ++c) scale[c] = std::max(scale[c], std::abs(row[c]));
  for (std::size_t i = 0; i < ra.size(); ++i) {
    ASSERT_EQ(ra[i].size(), rb[i].size()) << a << " row " << i;
    for (std::size_t c = 0; c < ra[i].size(); ++c)
      EXPECT_NEAR(ra[i][c], rb[i][c],
                  1e-3 * std::max({std::abs(ra[i][c]), std::abs(rb[i][c]), scale[c]}) + 1.01 * digits[i][c])
          << a.filename() << " row " << i << " column " << c;
  }
}

void expect_positions_agree(const std::vector<float>& a, const std::vector<float>& b, double tolerance_A,
                            const fs::path& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  ASSERT_FALSE(a.empty()) << what;
  double worst = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, double(std::abs(a[k] - b[k])));
  EXPECT_LE(worst, tolerance_A) << what;
}

// Every file of two SOP-GPU working directories, by kind: tables, trajectories, structures.
int expect_directories_agree(const fs::path& a, const fs::path& b) {
  int compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(a)) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), a);
    const std::string top = relative.begin()->string();
    const fs::path other = b / relative;
    if (top == "dat" || top == "pull" || top == "indentation") {
      expect_tables_agree(entry.path(), other);
    } else if (top == "dcd") {
      expect_positions_agree(read_dcd_coordinates(entry.path()), read_dcd_coordinates(other), 1e-2, relative);
    } else if (relative.extension() == ".pdb" && top != "topologies") {
      std::vector<float> xa, xb;
      for (const auto& p : ermak::read_pdb_coordinates(entry.path())) xa.insert(xa.end(), {float(p.x), float(p.y), float(p.z)});
      for (const auto& p : ermak::read_pdb_coordinates(other)) xb.insert(xb.end(), {float(p.x), float(p.y), float(p.z)});
      expect_positions_agree(xa, xb, 1e-2 + 1.5e-3, relative);  // PDBs keep 3 decimals
    } else {
      continue;  // inputs, run logs and checkpoints
    }
    ++compared;
  }
  return compared;
}

const std::string kEquil =
    "ww_equil.sop --set runnum=4 --set outputtiming=500 --set dcdfreq=1000 --set restartfreq=2000";
const std::string kPull =
    "ww_pull.sop --set runnum=4 --set numsteps=4000 --set deltax=0.1 --set pullFreq=100 --set k_trans=0.5 "
    "--set outputtiming=500 --set dcdfreq=1000 --set restartfreq=2000";

}  // namespace

TEST(CudaSopgpuRun, WwEquilibrationAndPullingAgreeWithCpu) {
  ERMAK_REQUIRE_GPU();  // without one, every CUDA run would fail for that reason instead
  const fs::path cpu = sopgpu_ww_directory("sopgpu-cuda-ww-cpu"), gpu = sopgpu_ww_directory("sopgpu-cuda-ww-gpu");
  std::string out;
  for (const auto& [dir, backend] : {std::pair{cpu, "cpu"}, std::pair{gpu, "cuda"}}) {
    ASSERT_EQ(ermak_in(dir, kEquil + " --set numsteps=4000", backend, &out), 0) << out;
    ASSERT_EQ(ermak_in(dir, kPull, backend, &out), 0) << out;
  }
  EXPECT_NE(read_file(gpu / "output/ww_1-4_restart.ww_pull.ermak.log").find("backend: cuda"), std::string::npos);
  // 4 runs × (2 energy tables, 1 pulling table, 2 DCDs, 2 final PDBs and the restart PDB
  // the stages share), and the reference PDBs.
  EXPECT_GE(expect_directories_agree(gpu, cpu), 4 * 8);
}

TEST(CudaSopgpuRun, AStageStoppedOnTheGpuContinuesOnTheCpu) {
  ERMAK_REQUIRE_GPU();  // without one, every CUDA run would fail for that reason instead
  const fs::path cpu = sopgpu_ww_directory("sopgpu-cuda-cross-cpu"), split = sopgpu_ww_directory("sopgpu-cuda-cross-split");
  std::string out;
  ASSERT_EQ(ermak_in(cpu, kEquil + " --set numsteps=4000", "cpu", &out), 0) << out;
  ASSERT_EQ(ermak_in(split, kEquil + " --set numsteps=2000", "cuda", &out), 0) << out;
  ASSERT_EQ(ermak_in(split, kEquil + " --set numsteps=4000 --resume", "cpu", &out), 0) << out;
  const std::string log = read_file(split / "output/ww_1-4_restart.ww_equil.ermak.log");
  EXPECT_NE(log.find("backend: cuda"), std::string::npos);
  EXPECT_NE(log.find("backend: cpu"), std::string::npos);
  EXPECT_GE(expect_directories_agree(split, cpu), 4 * 4);
}

TEST(CudaSopgpuRun, Pf8IndentationAgreesWithCpu) {
  ERMAK_REQUIRE_GPU();  // without one, every CUDA run would fail for that reason instead
  const fs::path cpu = sopgpu_pf8_directory("sopgpu-cuda-pf8-cpu"), gpu = sopgpu_pf8_directory("sopgpu-cuda-pf8-gpu");
  const std::string args =
      "pf8.sop --set numsteps=600 --set indentationOutputFreq=100 --set outputtiming=100 --set dcdfreq=300 "
      "--set restartfreq=600";
  std::string out;
  ASSERT_EQ(ermak_in(cpu, args, "cpu", &out), 0) << out;
  ASSERT_EQ(ermak_in(gpu, args, "cuda", &out), 0) << out;
  EXPECT_EQ(read_number_rows(gpu / "indentation/PF8_01_bend.dat").size(), 7u);
  EXPECT_GE(expect_directories_agree(gpu, cpu), 4);
}
