// `ermak bench` cases end to end: plain, pulled (trailing "p") and indented (trailing "i")
// standard systems, and a clear error for a case that is not SYSTEMxREPLICAS[p|i]
// (docs/benchmarks.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace {

using namespace ermak;

// The row of `system` in bench's table, split into its columns.
std::vector<std::string> row_of(const std::string& table, const std::string& system) {
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> columns;
    for (std::string w; words >> w;) columns.push_back(w);
    if (!columns.empty() && columns[0] == system) return columns;
  }
  return {};
}

TEST(BenchCommand, PlainPulledAndIndentedCasesPrintTheirRows) {
  if (!std::filesystem::exists(test::shared_data() / "sopgpu/ww/reference/ww.top")) FAIL() << "WW data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  std::string out;
  ASSERT_EQ(test::run_command("ERMAK_SHARED_DATA=" + test::shared_data().string() + " " +
                                  test::ermak_binary().string() +
                                  " bench --backend cpu --threads 1 --cases wwx2,wwx3p,wwx2i --seconds 0.05",
                              &out),
            0)
      << out;
  const auto plain = row_of(out, "ww"), pulled = row_of(out, "ww+pull"), indented = row_of(out, "ww+indent");
  ASSERT_EQ(plain.size(), 13u) << out;
  ASSERT_EQ(pulled.size(), 13u) << out;
  ASSERT_EQ(indented.size(), 13u) << out;
  EXPECT_EQ(plain[1], "34");
  EXPECT_EQ(plain[2], "2");
  EXPECT_EQ(pulled[2], "3");
  EXPECT_GT(std::stod(pulled[4]), 0.0) << "steps/s";
  // On the CPU neither GPU memory column nor the CUDA kernel layout has a figure.
  EXPECT_EQ(plain[9], "-");
  EXPECT_EQ(plain[10], "-");
  EXPECT_EQ(plain[12], "-");
  EXPECT_EQ(out.find("NOT A VALID TIMING"), std::string::npos) << out;
}

// The mid-sized proteins (docs/benchmarks.md#all-pairs-up-to-192-beads): whole files and
// single chains (the coat protein is chain A of the 1CWP capsid's entry, the Fab light
// chain chain L of 1A0Q) give the documented bead counts.
TEST(BenchCommand, MidSizedProteinsHaveTheirBeadCounts) {
  const auto data = test::shared_data();
  for (const char* file : {"pdb/1TIT.pdb", "pdb/1LMB.pdb", "derived/1CWP_pdb2cif.cif"})
    if (!std::filesystem::exists(data / file)) FAIL() << file << " not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  if (!std::filesystem::exists("/usr/share/freesasa/test-data/1a0q.pdb")) FAIL() << "1A0Q not found" << " (the Debian package freesasa: scripts/setup.sh installs it)";
  std::string out;
  ASSERT_EQ(test::run_command("ERMAK_SHARED_DATA=" + data.string() + " " + test::ermak_binary().string() +
                                  " bench --backend cpu --threads 1 --cases i27x1,cpx1,lmbx1,fablx1 --seconds 0.02",
                              &out),
            0)
      << out;
  for (const auto& [system, beads] : {std::pair{"i27", "89"}, {"cp", "149"}, {"lmb", "179"}, {"fabl", "211"}}) {
    const auto row = row_of(out, system);
    ASSERT_EQ(row.size(), 13u) << system << "\n" << out;
    EXPECT_EQ(row[1], beads) << system;
    EXPECT_GT(std::stod(row[4]), 0.0) << system << " steps/s";
  }
}

TEST(BenchCommand, MalformedCaseIsNamed) {
  std::string out;
  EXPECT_NE(test::run_command(test::ermak_binary().string() + " bench --backend cpu --cases ww100", &out), 0);
  EXPECT_NE(out.find("\"ww100\" is not SYSTEMxREPLICAS[p|i]"), std::string::npos) << out;
  // A replica count that is not a whole number ≥ 1 is named too (not a bare stoi error).
  for (const char* bad : {"wwx10q", "wwxp", "wwx0"}) {
    EXPECT_NE(test::run_command(test::ermak_binary().string() + " bench --backend cpu --cases " + bad, &out), 0) << bad;
    EXPECT_NE(out.find(std::string("\"") + bad + "\" is not SYSTEMxREPLICAS[p|i]"), std::string::npos) << out;
  }
  // An unknown system is named, with the systems the bench knows.
  EXPECT_NE(test::run_command(test::ermak_binary().string() + " bench --backend cpu --cases foox1", &out), 0);
  EXPECT_NE(out.find("unknown system \"foo\" (known: ww, ubq, i27, cp, lmb, fabl, pf8, fg, ccmv, ccmv4)"),
            std::string::npos)
      << out;
}

// A standard system whose shared data directory is missing names the directory and the
// variable that points at it.
TEST(BenchCommand, MissingSharedDataIsNamed) {
  const auto missing = test::fresh_directory("bench-no-data") / "no-such-data";
  std::string out;
  EXPECT_NE(test::run_command("ERMAK_SHARED_DATA=" + missing.string() + " " + test::ermak_binary().string() +
                                  " bench --backend cpu --threads 1 --cases wwx1 --seconds 0.01",
                              &out),
            0);
  EXPECT_NE(out.find("the standard systems are read from " + missing.string() + ", which does not exist here"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("set ERMAK_SHARED_DATA"), std::string::npos) << out;
}

// The lists of --threads and --devices (the GPUs that share each case's replicas) are
// named when an entry is not an index.
TEST(BenchCommand, MalformedListsAreNamed) {
  std::string out;
  EXPECT_NE(test::run_command(test::ermak_binary().string() + " bench --backend cpu --cases wwx1 --devices 0,x", &out), 0);
  EXPECT_NE(out.find("--devices 0,x: \"x\" is not an integer >= 0"), std::string::npos) << out;
  EXPECT_NE(test::run_command(test::ermak_binary().string() + " bench --backend cpu --cases wwx1 --threads=-2", &out), 0);
  EXPECT_NE(out.find("--threads -2: \"-2\" is not an integer >= 0"), std::string::npos) << out;
  // As run.threads: at most 1024 (10⁵ crashed the OpenMP runtime).
  EXPECT_EQ(test::run_command(test::ermak_binary().string() + " bench --backend cpu --cases wwx1 --threads 100000", &out),
            1);
  EXPECT_NE(out.find("--threads: 100000 is more than 1024"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(test::ermak_binary().string() + " bench --cases wwx1 --seconds -1", &out), 1) << out;
  EXPECT_NE(out.find("--seconds: must be a number > 0 and finite"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(test::ermak_binary().string() + " bench --backend cpu --cases wwx1 --devices 0", &out), 1)
      << out;
  EXPECT_NE(out.find("--devices: lists GPUs, but --backend is cpu"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(test::ermak_binary().string() + " bench --cases wwx1 --noise foo", &out), 1) << out;
  EXPECT_NE(out.find("--noise: unknown generator \"foo\""), std::string::npos) << out;
  EXPECT_EQ(out.find("# ermak bench"), std::string::npos) << "no table header before the error: " << out;
}

TEST(BenchCommand, CeilingTakesPlainCasesOnTheGpu) {
  // docs/benchmarks.md#the-instruction-ceiling: the idealised kernels have no protocols, and
  // exist only on the GPU; without one the error says so (CI), with one each case prints
  // a row per kernel.
  std::string out;
  EXPECT_NE(test::run_command(test::ermak_binary().string() + " bench --ceiling --cases wwx10,wwx10p", &out), 0);
  EXPECT_NE(out.find("case \"wwx10p\" must be plain"), std::string::npos) << out;
  EXPECT_NE(test::run_command(test::ermak_binary().string() + " bench --ceiling --cases foox1", &out), 0);
  EXPECT_NE(out.find("unknown system \"foo\""), std::string::npos) << out;
  const int rc = test::run_command(test::ermak_binary().string() + " bench --ceiling --cases wwx10 --seconds 0.05", &out);
  if (rc != 0) {
    EXPECT_NE(out.find("bench --ceiling needs a GPU"), std::string::npos) << out;
    return;
  }
  for (const char* kernel : {"pairs-twice", "pairs-once", "pairs-once-atomics", "pairs-once-slots", "pairs-once-tiles", "tiles-model", "tiles-unified", "noise-move",
                             "pairs-once-no-noise"})
    EXPECT_NE(out.find(std::string(" ") + kernel + " "), std::string::npos) << kernel << "\n" << out;
}

}  // namespace
