// The run driver's overlapped report stops (docs/gpu.md#what-overlaps-the-steps): where an
// engine overlaps a stop with the next steps (Engine::stop_and_advance), the run writes the
// same bytes as with the stop and the steps in turn, and an instability is placed between
// the same steps. On the CPU, ERMAK_OVERLAP_STOPS=always takes the driver's overlapped path
// through the engine's default stop_and_advance (the CUDA tests check the GPU's own).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/test_paths.h"

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_ermak;

namespace {

// Every file under `out` but the run log (which holds times), as bytes.
std::map<std::string, std::string> files_of(const fs::path& out) {
  std::map<std::string, std::string> files = ermak::test::files_under(out);
  files.erase("run.log");
  return files;
}

// `ermak run` of `config` in `dir` with ERMAK_OVERLAP_STOPS=`overlap` ("" unset).
std::string run_with(const fs::path& dir, const std::string& config, const char* overlap, int* status) {
  std::ofstream(dir / "run.toml") << config;
  if (*overlap) setenv("ERMAK_OVERLAP_STOPS", overlap, 1);  // the child inherits it
  const std::string out = run_ermak("run --quiet " + (dir / "run.toml").string(), status);
  unsetenv("ERMAK_OVERLAP_STOPS");
  return out;
}

std::string ww_config(const std::string& run, const std::string& rest) {
  const fs::path ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  return "[input]\ntopology = \"" + (ww / "ww.top").string() + "\"\ncoordinates = \"" + (ww / "ww_cg.pdb").string() +
         "\"\n[run]\nbackend = \"cpu\"\n" + run + rest;
}

}  // namespace

TEST(OverlappedStops, TheRunWritesTheSameBytes) {
  // Pulling rows every 250 steps, energy rows every 500, frames every 750 (between the
  // checkpoints, so that frames are taken at overlapped stops too); and a force clamp with
  // plane pulling.
  const std::string pulling = ww_config(
      "replicas = 3\nsteps = 3000\nseed = 11\n",
      "[fixed]\nbeads = [0]\n"
      "[pulling]\npulled_beads = [33]\nspeed_um_per_s = 2000\nspring_pN_per_nm = 35\noutput_every = 250\n"
      "[output]\ndirectory = \"out\"\nenergy_every = 500\ntrajectory_every = 750\ncheckpoint_every = 1000\n");
  const std::string planes = ww_config(
      "replicas = 2\nsteps = 2000\nseed = 3\n",
      "[fixed]\nbeads = [0]\n"
      "[force_clamp]\npulled_beads = [33]\nschedule = [[0, 0.0], [2000, 100.0]]\noutput_every = 100\n"
      "[plane_pulling]\noutput_every = 200\n"
      "[[plane_pulling.plane]]\nbeads = [10, 11]\nnormal = [0, 0, 1]\nspeed_um_per_s = 500\nspring_pN_per_nm = 50\n"
      "[output]\ndirectory = \"out\"\nenergy_every = 300\ntrajectory_every = 0\n");
  for (const auto& [name, config] : {std::pair{"pulling", pulling}, std::pair{"planes", planes}}) {
    SCOPED_TRACE(name);
    const fs::path in_turn_dir = ermak::test::fresh_directory(std::string("overlap-in-turn-") + name);
    const fs::path overlapped_dir = ermak::test::fresh_directory(std::string("overlap-always-") + name);
    int status = 0;
    std::string out = run_with(in_turn_dir, config, "", &status);
    ASSERT_EQ(status, 0) << out;
    out = run_with(overlapped_dir, config, "always", &status);
    ASSERT_EQ(status, 0) << out;
    const auto in_turn = files_of(in_turn_dir / "out"), overlapped = files_of(overlapped_dir / "out");
    ASSERT_GE(in_turn.size(), 8u);
    ASSERT_EQ(in_turn.size(), overlapped.size());
    for (const auto& [file, bytes] : in_turn) {
      ASSERT_TRUE(overlapped.count(file)) << file;
      EXPECT_EQ(bytes, overlapped.at(file)) << file;
    }
  }
}

// The stop that finds a torn chain has the next steps under way; the message still names
// the stop and the one before it, as ProtocolRun.ABrokenBondIsPlacedBetweenTwoReports.
TEST(OverlappedStops, ABrokenBondIsPlacedBetweenTheSameReports) {
  const std::string config = ww_config("steps = 2600\nreplicas = 4\nseed = 7\ntimestep_tau = 20\n",
                                       "[output]\ndirectory = \"out\"\nenergy_every = 250\ntrajectory_every = 0\n"
                                       "checkpoint_every = 0\n");
  int status = 0;
  const std::string out = run_with(ermak::test::fresh_directory("overlap-broken-bond"), config, "always", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("a FENE bond broke between steps 0 and 250:"), std::string::npos) << out;
}

TEST(OverlappedStops, ABadSettingIsAClearError) {
  const std::string config = ww_config("steps = 100\n", "[output]\ndirectory = \"out\"\n");
  int status = 0;
  const std::string out = run_with(ermak::test::fresh_directory("overlap-bad-setting"), config, "sometimes", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("ERMAK_OVERLAP_STOPS=\"sometimes\": must be 0, 1 or always"), std::string::npos) << out;
}
