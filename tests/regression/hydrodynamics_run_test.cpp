// `ermak run` with [hydrodynamics] (docs/config.md#hydrodynamics--hydrodynamic-interactions-optional): a WW run on the CPU says
// which method it runs and holds the table in its resolved configuration; a bad method is
// refused at its line; the exact method is refused for a model beyond its size, at its key.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_ermak;

namespace {

std::string ww_input() {
  const fs::path ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  return "[input]\ntopology = \"" + (ww / "ww.top").string() + "\"\ncoordinates = \"" + (ww / "ww_cg.pdb").string() +
         "\"\n";
}

}  // namespace

TEST(HydrodynamicsRun, WwRunsWithEachMethodAndSaysSo) {
  // "auto" is the exact factor for a model this small; TEA is warned of with its numbers
  // (docs/model.md#tea), the exact factor is not.
  const auto dir = ermak::test::fresh_directory("hydrodynamics-ww");
  for (const std::string method : {"auto", "tea", "cholesky"}) {
    const fs::path config = dir / (method + ".toml");
    std::ofstream(config) << ww_input() << "[run]\nsteps = 2000\nreplicas = 2\nbackend = \"cpu\"\n"
                          << "[hydrodynamics]\nmethod = \"" << method << "\"\nradius_A = 1.9\n"
                          << "[output]\ndirectory = \"" << method << ".out\"\n";
    int status = -1;
    const std::string out = run_ermak("run " + config.string(), &status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("hydrodynamic interactions: Rotne–Prager–Yamakawa tensor of beads of radius 1.9 Å"),
              std::string::npos)
        << out;
    const bool tea = method == "tea";
    EXPECT_NE(out.find(tea ? "truncated expansion approximation" : "Cholesky factorisation"), std::string::npos)
        << out;
    EXPECT_EQ(out.find("TEA's noise has 1.62× (median of 33 bonds") != std::string::npos, tea) << out;
    EXPECT_EQ(out.find("note: hydrodynamics.method \"auto\" is \"cholesky\" here: 34 mobile beads per replica") !=
                  std::string::npos,
              method == "auto")
        << out;
    const std::string log = read_file(dir / (method + ".out") / "run.log");
    EXPECT_NE(log.find("[hydrodynamics]\nmethod = \"" + method + "\"\nradius_A = 1.9"), std::string::npos) << log;
  }
}

TEST(HydrodynamicsRun, BadSettingsAreRefusedAtTheirKey) {
  const auto dir = ermak::test::fresh_directory("hydrodynamics-bad");
  std::ofstream(dir / "bad.toml") << ww_input() << "[run]\nsteps = 10\nbackend = \"cpu\"\n"
                                  << "[hydrodynamics]\nmethod = \"exact\"\n";
  int status = -1;
  std::string out = run_ermak("run " + (dir / "bad.toml").string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("bad.toml:8: hydrodynamics.method: must be \"auto\", \"tea\", \"cholesky\" or \"none\", got \"exact\""),
            std::string::npos)
      << out;
  // The protofilament (6928 beads) is far beyond the exact method's 1000 mobile beads.
  const fs::path pf8 = ermak::test::shared_data() / "sopgpu/pf8";
  std::ofstream(dir / "big.toml") << "[input]\ntopology = \"" << (pf8 / "PF8.top").string() << "\"\ncoordinates = \""
                                  << (pf8 / "PF8_sop.pdb").string() << "\"\n[run]\nsteps = 10\nbackend = \"cpu\"\n"
                                  << "[hydrodynamics]\nmethod = \"cholesky\"\n[output]\ndirectory = \"big.out\"\n";
  out = run_ermak("run " + (dir / "big.toml").string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("big.toml:8: hydrodynamics.method: \"cholesky\" factors the 20784×20784 diffusion tensor of the "
                     "model's 6928 mobile beads"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("use method = \"tea\""), std::string::npos) << out;
}
