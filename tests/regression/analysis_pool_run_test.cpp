// `ermak analyze R1 R2 -o OUT` on real runs: two batches of one WW pulling experiment (other
// seeds, replica counts, lengths and output intervals) read from the run.logs `ermak run`
// writes are pooled into one analysis; a run at the same κv with another spring is refused,
// and one at another speed gives the spectrum (docs/analysis.md#pooling-runs-of-one-condition).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ermak/analysis/tsv_table.h"
#include "support/test_paths.h"

namespace {

namespace fs = std::filesystem;
using ermak::test::read_file;
using ermak::test::run_ermak;

// DIR/out: the WW domain pulled by bead 33 from fixed bead 0, 3 replicas of 4000 steps unless
// `settings` (--set …) says otherwise.
void pull(const fs::path& dir, unsigned seed, double speed_um_per_s, double spring_pN_per_nm,
          const std::string& settings = "") {
  const std::string pulling = "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [\"A:39\"]\nspeed_um_per_s = " +
                              std::to_string(speed_um_per_s) + "\nspring_pN_per_nm = " +
                              std::to_string(spring_pN_per_nm) + "\noutput_every = 100\n";
  int status = 0;
  const std::string out =
      run_ermak("run --quiet " + ermak::test::write_ww_run_config(dir, seed, pulling).string() + " " + settings,
                &status);
  ASSERT_EQ(status, 0) << out;
}

TEST(AnalysisPool, BatchesOfOneRunAreAnalysedAsOne) {
  const fs::path a = ermak::test::fresh_directory("pool-run-a"), b = ermak::test::fresh_directory("pool-run-b"),
                 c = ermak::test::fresh_directory("pool-run-c"), d = ermak::test::fresh_directory("pool-run-d");
  pull(a, 11, 25000.0, 35.0);
  // Another seed, 2 replicas, a longer run written every 50 steps; the pulled bead by index.
  pull(b, 12, 25000.0, 35.0,
       "--set run.replicas=2 --set run.steps=6000 --set pulling.output_every=50 --set 'pulling.pulled_beads=[33]'");
  int status = 0;
  const fs::path out = ermak::test::fresh_directory("pool-run-analysis");
  std::string said = run_ermak("analyze " + (a / "out").string() + " " + (b / "out").string() + " -o " +
                                   out.string(),
                               &status);
  ASSERT_EQ(status, 0) << said;
  EXPECT_NE(said.find("pulling: 5 replicas of 2 runs pooled"), std::string::npos) << said;
  EXPECT_EQ(read_file(out / "replicas.tsv"), "# replica\trun\trun_replica\n0\t" + (a / "out").string() + "\t0\n1\t" +
                                                 (a / "out").string() + "\t1\n2\t" + (a / "out").string() + "\t2\n3\t" +
                                                 (b / "out").string() + "\t0\n4\t" + (b / "out").string() + "\t1\n");
  EXPECT_EQ(ermak::analysis::TsvTable::read(out / "replica_004_curve.tsv").rows(), 121u);  // 6000 steps / 50, + 1
  // B's replica 1 as its own analysis gives it.
  ASSERT_EQ((run_ermak("analyze " + (b / "out").string(), &status), status), 0);
  EXPECT_EQ(read_file(out / "replica_004_curve.tsv"), read_file(b / "out/analysis/replica_001_curve.tsv"));

  // Twice the spring at half the speed: one loading rate, another experiment.
  pull(c, 13, 12500.0, 70.0);
  said = run_ermak("analyze " + (a / "out").string() + " " + (c / "out").string() + " -o " + out.string() + " --force",
                   &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(said.find((c / "out").string() + ": [pulling] speed_um_per_s: 12500.0 here, 25000.0 in " +
                      (a / "out").string() + " (run.log); [pulling] spring_pN_per_nm: 70.0 here, 35.0 there: these "
                      "runs are at one loading rate κv"),
            std::string::npos)
      << said;
  // Another model of the same size (one native contact's r0 changed: a "mutant"): refused by
  // the model fingerprint its run.log states.
  {
    std::string top = read_file(ermak::test::shared_data() / "sopgpu/ww/reference/ww.top");
    const auto at = top.find("    0    30     1   10.72262    1.50000");
    ASSERT_NE(at, std::string::npos);
    top.replace(at, 39, "    0    30     1   10.50000    1.50000");
    const fs::path e = ermak::test::fresh_directory("pool-run-e");
    { std::ofstream(e / "mutant.top") << top; }
    pull(e, 15, 25000.0, 35.0, "--set input.topology=" + (e / "mutant.top").string());
    said = run_ermak("analyze " + (a / "out").string() + " " + (e / "out").string() + " -o " + out.string() +
                         " --force",
                     &status);
    EXPECT_NE(status, 0);
    EXPECT_NE(said.find((e / "out").string() + ": model (its beads, bonds or native contacts: another model of the "
                        "same size): fingerprint "),
              std::string::npos)
        << said;
  }
  // Another speed: the spectrum, as before.
  pull(d, 14, 50000.0, 35.0);
  said = run_ermak("analyze " + (a / "out").string() + " " + (d / "out").string() + " -o " + out.string() + " --force",
                   &status);
  EXPECT_EQ(status, 0) << said;
  EXPECT_NE(said.find("dynamic force spectrum of 2 pulling runs"), std::string::npos) << said;
  EXPECT_FALSE(fs::exists(out / "replicas.tsv"));
}

}  // namespace
