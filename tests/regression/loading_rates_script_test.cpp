// scripts/loading-rates.sh (docs/validation.md#rung-5) at speeds a CPU runs in a second:
// its runs, the continuation of a run stopped at STEP_LIMIT from its checkpoint, the
// analysis of each speed, the table (printed and as TSV), and its checks, which must fail
// here — at these speeds the WW domain is dragged open without peaks, so fewer than two
// speeds qualify. The science itself needs a GPU (about 15 minutes on an H100).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_command;

namespace {

std::string run_script(const fs::path& out, const std::string& env, int* status) {
  std::string output;
  *status = run_command("env ERMAK=" + ermak::test::ermak_binary().string() +
                            " ERMAK_SHARED_DATA=" + ermak::test::shared_data().string() + " SPEEDS='25000 12500'" +
                            " REPLICAS=2 " + env + " bash " + (ermak::test::source_dir() / "scripts/loading-rates.sh").string() +
                            " " + out.string(),
                        &output);
  return output;
}

}  // namespace

TEST(LoadingRatesScript, RunsContinuesAnalysesAndChecks) {
  const auto dir = ermak::test::fresh_directory("loading-rates");
  const fs::path out = dir / "ww";
  int status = 0;
  // 24.8 nm of travel at 19.84 ps per step: 5·10⁴ steps at 25 000 µm/s, 10⁵ at 12 500; the
  // limit stops the second run part-way.
  std::string text = run_script(out, "STEP_LIMIT=60000", &status);
  EXPECT_NE(text.find("v = 25000 µm/s: steps 0 → 50000 of 50000"), std::string::npos) << text;
  EXPECT_NE(text.find("v = 12500 µm/s: steps 0 → 60000 of 100000"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(out / "v25000/analysis/summary.txt"));
  EXPECT_FALSE(fs::exists(out / "v12500/analysis/summary.txt")) << "an unfinished run is not analysed";
  text = run_script(out, "", &status);
  EXPECT_EQ(status, 1) << text;
  EXPECT_NE(text.find("v = 25000 µm/s: at step 50000 already"), std::string::npos) << text;
  EXPECT_NE(text.find("v = 12500 µm/s: from the checkpoint to step 100000 of 100000"), std::string::npos) << text;
  EXPECT_NE(read_file(out / "v12500/run.log").find("finished: 40000 steps"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "v12500/analysis/summary.txt"));
  EXPECT_NE(text.find("rung 5: FAILED: 0 speed(s) with peaks"), std::string::npos) << text;
  // Both speeds finished: their dynamic force spectrum (no peaks at these speeds: no fit).
  EXPECT_NE(text.find("spectrum of 2 speeds"), std::string::npos) << text;
  EXPECT_NE(read_file(out / "spectrum/summary.txt").find("Bell's rate not fitted"), std::string::npos);
  // The table: a header and one row per speed, slowest first, with the loading rate κv.
  std::istringstream tsv(read_file(out / "loading_rates.tsv"));
  std::string header, first, second, extra;
  std::getline(tsv, header);
  std::getline(tsv, first);
  std::getline(tsv, second);
  EXPECT_EQ(header.rfind("# v[um/s]\tloading_rate[pN/s]\treplicas\twith_peak\t", 0), 0u) << header;
  EXPECT_EQ(first.rfind("12500\t4.3375e+08\t2\t", 0), 0u) << first;
  EXPECT_EQ(second.rfind("25000\t8.675e+08\t2\t", 0), 0u) << second;
  EXPECT_FALSE(std::getline(tsv, extra) && !extra.empty());
}

// A bad environment value stops the script before any run, naming the variable.
TEST(LoadingRatesScript, BadSettingsAreNamed) {
  const auto dir = ermak::test::fresh_directory("loading-rates-bad");
  int status = 0;
  std::string text = run_script(dir / "out", "SPEEDS='2.5 abc'", &status);
  EXPECT_EQ(status, 2);
  EXPECT_NE(text.find("loading-rates: SPEEDS must be a number > 0, got 'abc'"), std::string::npos) << text;
  text = run_script(dir / "out", "REPLICAS=0", &status);
  EXPECT_EQ(status, 2);
  EXPECT_NE(text.find("loading-rates: REPLICAS must be an integer ≥ 1, got '0'"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(dir / "out"));
}
