// The disk-space estimate of a run (run/output_size.h, docs/outputs.md#disk-space): against
// the files a real run writes, and its arithmetic on a resumed run.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ermak/config/toml_config.h"
#include "ermak/core/byte_size.h"
#include "ermak/io/load_system.h"
#include "ermak/run/output_size.h"
#include "ermak/run/protocol_setup.h"
#include "ermak/run/simulation.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

double size_of(const fs::path& out, const std::string& name, std::int32_t replicas) {
  double bytes = 0;
  for (std::int32_t r = 0; r < replicas; ++r) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "replica_%03d", r);
    bytes += double(fs::file_size(out / dir / name));
  }
  return bytes;
}

TEST(OutputSize, EstimateMatchesTheFilesOfAPulledRun) {
  if (!fs::exists(test::shared_data() / "sopgpu/ww/reference/ww.top")) GTEST_SKIP() << "test data not found";
  const fs::path dir = test::fresh_directory("output-size");
  // 3 replicas, 4000 steps: energies every 500, frames every 1000, pulling rows every 100.
  const fs::path config = test::write_ww_run_config(
      dir, 11, "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [33]\nspring_pN_per_nm = 35\nspeed_um_per_s = 1000\n"
               "output_every = 100\n");
  const RunSpec spec = load_run_spec(config, {"run.backend=\"cpu\"", "run.threads=1"});
  const LoadedSystem system = load_system(spec.input, spec.model_build);
  const std::int32_t n = system.topology.bead_count();
  State start(n, spec.replicas);
  for (std::int32_t r = 0; r < spec.replicas; ++r)
    for (std::int32_t i = 0; i < n; ++i) start.set_position(r, i, vec_cast<float>(system.initial_positions_A[i]));
  const ProtocolSetup protocol(spec, system.topology, start);
  const OutputSizeEstimate estimate = estimate_output_size(spec, &protocol, n, 0, spec.steps, false);

  RunOptions options;
  options.quiet = true;
  run_simulation(spec, options);
  const fs::path out = spec.output.directory;
  // DCD frames are counted exactly (5 frames of 34 beads; the header to ~30 %).
  const double dcd = size_of(out, "trajectory.dcd", spec.replicas);
  EXPECT_NEAR(estimate.trajectories, dcd, 0.05 * dcd);
  // TSV rows at 11 bytes a value: within a third of the real files (9 energy rows, 41
  // pulling rows each, headers included in the files only).
  const double energies = size_of(out, "energies.tsv", spec.replicas);
  const double pulling = size_of(out, "pulling.tsv", spec.replicas);
  EXPECT_NEAR(estimate.energies, energies, energies / 3) << energies;
  EXPECT_NEAR(estimate.protocol_tables, pulling, pulling / 3) << pulling;
  const double final_pdb = size_of(out, "final.pdb", spec.replicas);
  EXPECT_NEAR(estimate.final_structures, final_pdb, 0.2 * final_pdb);
  // The checkpoint: positions and list references dominate.
  const double checkpoint = double(fs::file_size(out / "checkpoint.ckpt"));
  EXPECT_GT(estimate.checkpoint, 0.3 * checkpoint);
  EXPECT_LT(estimate.checkpoint, 3.0 * checkpoint);
  // The log says it.
  EXPECT_NE(test::read_file(out / "run.log").find("disk: the run writes about "), std::string::npos);
}

TEST(OutputSize, AResumedRunCountsOnlyWhatItAdds) {
  RunSpec spec;
  spec.replicas = 10;
  spec.output.energy_every_steps = 1000;
  spec.output.trajectory_every_steps = 10000;
  const std::int32_t beads = 100;
  // Steps 50 000 .. 100 000: 50 energy rows (no start row: it is in the file), 5 frames.
  const OutputSizeEstimate resumed = estimate_output_size(spec, nullptr, beads, 50000, 100000, true);
  const double row = 6 + 1 + 11 * 10;  // "100000", a tab, 10 values
  EXPECT_DOUBLE_EQ(resumed.energies, 10 * 50 * row);
  EXPECT_DOUBLE_EQ(resumed.trajectories, 10 * 5 * (12 * beads + 24));
  EXPECT_DOUBLE_EQ(resumed.model, 0);
  // The same run from the start: one more row and frame (step 0), the DCD headers, the model.
  const OutputSizeEstimate fresh = estimate_output_size(spec, nullptr, beads, 0, 100000, false);
  EXPECT_DOUBLE_EQ(fresh.energies, 10 * 101 * row);
  EXPECT_DOUBLE_EQ(fresh.trajectories, 10 * (11 * (12 * beads + 24) + 300));
  EXPECT_GT(fresh.model, 0);
  // A last step off the interval adds its row, not a frame.
  const OutputSizeEstimate odd = estimate_output_size(spec, nullptr, beads, 0, 100500, false);
  EXPECT_DOUBLE_EQ(odd.energies, 10 * 102 * row);
  EXPECT_DOUBLE_EQ(odd.trajectories, fresh.trajectories);
  // No directory files (a SOP-GPU configuration's, which its reporter counts): the
  // checkpoint alone.
  spec.output.write_directory = false;
  const OutputSizeEstimate sop = estimate_output_size(spec, nullptr, beads, 0, 100000, false);
  EXPECT_GT(sop.checkpoint, 0);
  EXPECT_DOUBLE_EQ(sop.total(), 2 * sop.checkpoint);
}

TEST(OutputSize, ACheckpointHoldsAStatefulGeneratorsState) {
  RunSpec spec;
  spec.replicas = 2;
  const OutputSizeEstimate philox = estimate_output_size(spec, nullptr, 34, 0, 1000, false);
  spec.rng = "mt19937";
  spec.rng_layout = "per_thread";
  const OutputSizeEstimate mt = estimate_output_size(spec, nullptr, 34, 0, 1000, false);
  // 624 words and an index per bead (docs/rng.md#generators).
  EXPECT_DOUBLE_EQ(mt.checkpoint - philox.checkpoint, 2.0 * 34 * 2500);
}

TEST(OutputSize, SizesReadLikeDf) {
  EXPECT_EQ(format_byte_size(512), "512 B");
  EXPECT_EQ(format_byte_size(54.2 * 1024 * 1024), "54.2 MiB");
  EXPECT_EQ(format_byte_size(1.37 * 1024 * 1024 * 1024), "1.37 GiB");
  EXPECT_EQ(format_byte_size(120.0 * 1024 * 1024 * 1024), "120 GiB");
  EXPECT_EQ(format_byte_size(4.27 * 1024.0 * 1024 * 1024 * 1024), "4.27 TiB");
}

TEST(OutputSize, FreeSpaceOfADirectoryNotYetMade) {
  const fs::path dir = test::fresh_directory("output-size-free");
  const double here = free_bytes_at(dir);
  EXPECT_GT(here, 0);
  // The nearest existing parent's file system answers for a directory a run would make.
  EXPECT_NEAR(free_bytes_at(dir / "not" / "yet"), here, 0.01 * here);
}

}  // namespace
}  // namespace ermak
