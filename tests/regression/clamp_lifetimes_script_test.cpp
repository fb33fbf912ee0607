// scripts/clamp-lifetimes.sh (docs/validation.md#rung-5) at forces and lengths a CPU runs
// in a second: its runs, the table of first-passage lifetimes (printed and as TSV), a
// second call that reuses finished runs, and its check, which must fail here — in 2·10⁴
// steps no trajectory reaches 8 nm, so no force qualifies. The science needs a GPU
// (about 7 minutes on an H100).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_command;

TEST(ClampLifetimesScript, RunsTabulatesAndChecks) {
  const auto out = ermak::test::fresh_directory("clamp-lifetimes") / "ww";
  const std::string command = "env ERMAK=" + ermak::test::ermak_binary().string() +
                              " ERMAK_SHARED_DATA=" + ermak::test::shared_data().string() +
                              " FORCES='200:20000 190:20000' REPLICAS=2 bash " +
                              (ermak::test::source_dir() / "scripts/clamp-lifetimes.sh").string() + " " +
                              out.string();
  std::string text;
  EXPECT_EQ(run_command(command, &text), 1) << text;
  EXPECT_NE(text.find("F = 200 pN: 20000 steps"), std::string::npos) << text;
  EXPECT_NE(text.find("rung 5 (force clamp): FAILED: 0 force(s)"), std::string::npos) << text;
  // Rows per replica: 2000 over the run (every 10 steps), plus step 0 and the header.
  std::istringstream rows(read_file(out / "f190/replica_001/pulling.tsv"));
  int lines = 0;
  for (std::string line; std::getline(rows, line);) ++lines;
  EXPECT_EQ(lines, 2002);
  std::istringstream tsv(read_file(out / "clamp_lifetimes.tsv"));
  std::string header, first, second;
  std::getline(tsv, header);
  std::getline(tsv, first);
  std::getline(tsv, second);
  EXPECT_EQ(header, "# force[pN]\treplicas\tunfolded\trun[ns]\ttau[ns]\ttau_se[ns]\tmedian[ns]\tcv");
  EXPECT_EQ(first.rfind("190\t2\t0\t396.8\tinf\t", 0), 0u) << first;  // weakest force first
  EXPECT_EQ(second.rfind("200\t2\t0\t396.8\t", 0), 0u) << second;
  // The same trajectories through `ermak analyze`'s spectrum (none unfolded: no fit).
  EXPECT_NE(text.find("spectrum of 2 forces"), std::string::npos) << text;
  EXPECT_NE(read_file(out / "spectrum/lifetimes.tsv").find("# run\treplica\tforce[pN]\ttime[s]\tunfolded"),
            std::string::npos);
  EXPECT_EQ(run_command(command, &text), 1) << text;
  EXPECT_NE(text.find("F = 190 pN: done"), std::string::npos) << text;
}

// A bad environment value stops the script before any run, naming the variable.
TEST(ClampLifetimesScript, BadSettingsAreNamed) {
  const auto out = ermak::test::fresh_directory("clamp-lifetimes-bad") / "out";
  const std::string script = " bash " + (ermak::test::source_dir() / "scripts/clamp-lifetimes.sh").string() + " " +
                             out.string();
  const std::string data = " ERMAK_SHARED_DATA=" + ermak::test::shared_data().string();
  std::string text;
  EXPECT_EQ(run_command("env FORCES='125:1000 130'" + data + " ERMAK=" + ermak::test::ermak_binary().string() + script, &text), 2);
  EXPECT_NE(text.find("clamp-lifetimes: FORCES entries are F:STEPS, got '130'"), std::string::npos) << text;
  EXPECT_EQ(run_command("env THRESHOLD_NM=-1" + data + " ERMAK=" + ermak::test::ermak_binary().string() + script, &text), 2);
  EXPECT_NE(text.find("clamp-lifetimes: THRESHOLD_NM must be a number > 0, got '-1'"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(out));
}
