// `ermak analyze RUN --contacts` on a real run: the WW domain pulled by its last bead, three
// replicas with a trajectory frame every 1000 steps. The contacts still formed at the last
// frame — those contact_ruptures.tsv gives no rupture (NA) — are Q of that frame, which the
// run's energies.tsv states at that step: its Q column is measure_structure's count of
// structure::contact_formed (model/measure_structure.cpp), the very function and ratio
// ([output] contact_formed_ratio, 1.5 here) that analysis/contact_rupture.cpp applies to the
// DCD's frames, which hold the same float32 positions. And contacts.tsv lists every native
// contact of model.etop once.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/analysis/tsv_table.h"
#include "ermak/io/topology_file.h"
#include "support/test_paths.h"

namespace {

namespace fs = std::filesystem;
using ermak::test::run_ermak;

std::vector<std::vector<std::string>> rows_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) continue;
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, '\t');) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

// Long enough for the pull to unfold most of the domain (frames every 1000 steps).
constexpr int kSteps = 60000;

// DIR/out: the WW domain pulled by bead 33 from fixed bead 0 for kSteps steps; `settings` as --set options.
void pull(const fs::path& dir, unsigned seed, const std::string& settings = "") {
  const std::string pulling =
      "[fixed]\nbeads = [0]\n[pulling]\npulled_beads = [\"A:39\"]\nspeed_um_per_s = 25000.0\n"
      "spring_pN_per_nm = 35.0\noutput_every = 100\n";
  int status = 0;
  const std::string said =
      run_ermak("run --quiet " + ermak::test::write_ww_run_config(dir, seed, pulling).string() + " --set run.steps=" +
                    std::to_string(kSteps) + " " + settings,
                &status);
  ASSERT_EQ(status, 0) << said;
}

// The rows of `file` whose first column is `replica`, with that column left off.
std::vector<std::vector<std::string>> rows_of_replica(const fs::path& file, const std::string& replica) {
  std::vector<std::vector<std::string>> out;
  for (auto row : rows_of(file))
    if (row.at(0) == replica) out.push_back(std::vector<std::string>(row.begin() + 1, row.end()));
  return out;
}

TEST(AnalysisContacts, RupturesOfARealPullAgreeWithItsQ) {
  const fs::path dir = ermak::test::fresh_directory("contacts-ww-pull");
  pull(dir, 21);
  int status = 0;
  const fs::path run = dir / "out";
  std::string said = run_ermak("analyze " + run.string() + " --contacts", &status);
  ASSERT_EQ(status, 0) << said;
  EXPECT_NE(said.find("contacts: "), std::string::npos) << said;

  const ermak::Topology model = ermak::read_topology_file(run / "model.etop");
  const std::size_t n = model.native_contacts.size();
  ASSERT_GT(n, 0u);
  // contacts.tsv: every native contact once, ranked 1 … n.
  const auto contacts = rows_of(run / "analysis" / "contacts.tsv");
  ASSERT_EQ(contacts.size(), n);
  std::set<std::string> listed, orders;
  for (const auto& row : contacts) {
    listed.insert(row.at(1));
    orders.insert(row.at(0));
  }
  EXPECT_EQ(listed.size(), n);
  EXPECT_EQ(orders.size(), n);
  for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(listed.count(std::to_string(k)), 1u) << "contact " << k;

  // Per replica: Q at the last frame (step kSteps) from the ruptures against energies.tsv's Q.
  const auto ruptures = rows_of(run / "analysis" / "contact_ruptures.tsv");
  ASSERT_EQ(ruptures.size(), 3 * n);
  for (int r = 0; r < 3; ++r) {
    std::size_t formed_at_end = 0;
    for (const auto& row : ruptures)
      if (row.at(0) == std::to_string(r) && row.at(7) == "NA") ++formed_at_end;
    const auto energies =
        ermak::analysis::TsvTable::read(run / ("replica_00" + std::to_string(r)) / "energies.tsv");
    const auto steps = energies.column("step");
    const auto q = energies.column("Q");
    ASSERT_EQ(steps.back(), double(kSteps));
    EXPECT_NEAR(double(formed_at_end) / double(n), q.back(), 1e-6) << "replica " << r;
  }
}

// Two batches of one pull pooled (docs/analysis.md#pooling-runs-of-one-condition): the second
// run's replicas are numbered on, and their ruptures are those of its own analysis, read from
// its own frames (every 2000 steps where the first run's are every 1000).
TEST(AnalysisContacts, PooledRunsNumberTheirReplicasOn) {
  const fs::path a = ermak::test::fresh_directory("contacts-pool-a"), b = ermak::test::fresh_directory("contacts-pool-b");
  pull(a, 31);
  pull(b, 32, "--set run.replicas=2 --set output.trajectory_every=2000");
  const fs::path out = ermak::test::fresh_directory("contacts-pool-out");
  int status = 0;
  std::string said = run_ermak("analyze " + (a / "out").string() + " " + (b / "out").string() + " -o " + out.string() +
                                   " --contacts",
                               &status);
  ASSERT_EQ(status, 0) << said;
  EXPECT_NE(ermak::test::read_file(out / "summary.txt").find("frames every 1000 or 2000 steps (the pooled runs differ)"),
            std::string::npos);
  said = run_ermak("analyze " + (b / "out").string() + " --contacts", &status);
  ASSERT_EQ(status, 0) << said;
  const auto own = rows_of_replica(b / "out" / "analysis" / "contact_ruptures.tsv", "1");
  ASSERT_FALSE(own.empty());
  EXPECT_EQ(rows_of_replica(out / "contact_ruptures.tsv", "4"), own);  // b's replica 1 is the pool's replica 4
  EXPECT_TRUE(rows_of_replica(out / "contact_ruptures.tsv", "5").empty());
}

}  // namespace
