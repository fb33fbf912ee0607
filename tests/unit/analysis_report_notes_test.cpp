// The notes every analysis summary shares (analysis/report_common.h): tables that end
// before the run's end, named one by one when they are few and in one note when many.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/analysis/report_common.h"

namespace ermak::analysis {
namespace {

std::vector<TableEnd> ends(int replicas, double last_step, int short_ones) {
  std::vector<TableEnd> out;
  for (int r = 0; r < replicas; ++r)
    out.push_back({"replica_" + std::to_string(r), r < short_ones ? last_step - 100.0 * (r % 4) : 40000.0});
  return out;
}

int lines(const std::string& text) {
  int n = 0;
  for (const char c : text) n += c == '\n';
  return n;
}

TEST(AnalysisReportNotes, FewShortTablesAreNamedOneByOne) {
  const std::string notes = cut_short_notes(ends(10, 21800, 3), "the pulling", 40000, std::nullopt);
  EXPECT_EQ(lines(notes), 3) << notes;
  EXPECT_NE(notes.find("note: replica_1's table ends at step 21700, before the run's 40000"), std::string::npos)
      << notes;
}

// A run of 10⁴ replicas analysed while it runs: its tables end a few rows apart, and the
// summary had one note per replica (an audit's had 9981).
TEST(AnalysisReportNotes, ManyShortTablesAreOneNote) {
  std::string notes = cut_short_notes(ends(9981, 21800, 9981), "the pulling", 40000, std::nullopt);
  EXPECT_EQ(lines(notes), 1) << notes;
  EXPECT_NE(notes.find("note: 9981 of the 9981 tables end between steps 21500 and 21800 (replica_0, replica_1, "
                       "replica_2, …), before the run's 40000 — a run still going, or stopped early (--resume "
                       "continues it)"),
            std::string::npos)
      << notes;
  notes = cut_short_notes(ends(100, 21800, 6), "the pulling", 40000, std::nullopt);
  EXPECT_EQ(lines(notes), 1) << notes;
  EXPECT_NE(notes.find("6 of the 100 tables end between steps 21500 and 21800"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("still going"), std::string::npos) << notes;
}

}  // namespace
}  // namespace ermak::analysis
