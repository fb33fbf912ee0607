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

// The terminal's headline gets the same verdict in a few words: a run stopped early (or by an
// error) at its step, some tables short, or nothing for tables that reach the run's end.
TEST(AnalysisReportNotes, TheHeadlineSaysWhereTheRunStopped) {
  const std::vector<TableEnd> stopped = {{"replica_0", 210000}, {"replica_1", 210000}, {"replica_2", 210000}};
  EXPECT_EQ(cut_short_brief(stopped, 600000, false), " (the run stopped at step 210000 of 600000)");
  EXPECT_EQ(cut_short_brief(stopped, 600000, true), " (the run ended with an error at step 210000 of 600000: summary.txt)");
  EXPECT_EQ(cut_short_brief(ends(3, 21800, 1), 40000, false), " (1 of 3 tables ends before step 40000: summary.txt)");
  EXPECT_EQ(cut_short_brief(ends(3, 21800, 0), 40000, false), "");
  EXPECT_EQ(cut_short_brief(stopped, std::nullopt, false), "");
  // Without run.log's steps, tables well short of the others' are still counted.
  EXPECT_EQ(cut_short_brief(ends(6, 21800, 2), std::nullopt, false), " (2 of 6 tables end before step 40000: summary.txt)");
  EXPECT_EQ(cut_short_brief({}, 5000, false), "");
}

// A run still running (its lock held: AnalyzeOptions::run_in_progress) is not called stopped:
// the note and the headline name its process and say how far its tables reach so far; once
// its tables reach its end (it writes its last files) the usual verdict holds.
TEST(AnalysisReportNotes, ARunStillRunningIsNotCalledStopped) {
  const std::vector<TableEnd> at = {{"replica_0", 210000}, {"replica_1", 210000}};
  const std::string holder = "pid 4242 on node7, started 2026-11-30 15:03:10 UTC";
  EXPECT_EQ(cut_short_brief(at, 600000, false, holder),
            " (the run is still running, pid 4242 on node7, started 2026-11-30 15:03:10 UTC: its tables end at step "
            "210000 of 600000 so far)");
  const std::string notes = cut_short_notes(at, "the pulling", 600000, std::nullopt, holder);
  EXPECT_EQ(lines(notes), 1) << notes;
  EXPECT_NE(notes.find("note: the run is still running (pid 4242 on node7, started 2026-11-30 15:03:10 UTC; its lock "
                       "is checkpoint.ckpt.lock): the tables end at step 210000 of the run's 600000 so far"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("stopped"), std::string::npos) << notes;
  EXPECT_NE(cut_short_notes(ends(9981, 21800, 9981), "the pulling", 40000, std::nullopt, holder)
                .find("the tables end at steps 21500 to 21800 of the run's 40000 so far"),
            std::string::npos);
  EXPECT_EQ(cut_short_brief(ends(3, 21800, 0), 40000, false, holder), "");
}

}  // namespace
// A record shorter than its smoothing window counts one window (its rows are capped at the
// record's): the note says "no more than one", not "1 smoothing windows" (an audit's 0.1 nm
// of travel under a 0.2 nm window).
TEST(AnalysisReportNotes, AWindowWiderThanTheRecordIsNotCountedAsOne) {
  SmoothingInfo info;
  info.windows_in_record = 1.0;
  EXPECT_NE(few_windows_note(info).find("the record spans no more than one smoothing window (fewer than 8)"),
            std::string::npos)
      << few_windows_note(info);
  info.windows_in_record = 5.94;
  EXPECT_NE(few_windows_note(info).find("the record spans only 5.94 smoothing windows (fewer than 8)"),
            std::string::npos)
      << few_windows_note(info);
  info.windows_in_record = 8.0;
  EXPECT_EQ(few_windows_note(info), "");
}

// σ_s above the raw noise: the force wanders over more than a window, and the automatic
// criterion may be too large to find anything — said, with the remedy (a complex audit's
// separated dimer: 8 σ_s = 747 pN over a force range of 597 pN, "no event, not detached").
TEST(AnalysisReportNotes, ForceThatWandersSlowlyIsNoted) {
  SmoothingInfo info;
  info.min_peak_drop_automatic = true;
  info.noise_raw = 54.2;
  info.noise_smoothed = 93.4;
  info.min_peak_drop = 747.0;
  info.smoothed_force_range_pN = 446.0;
  const std::string beyond = slow_wander_note(info);
  EXPECT_NE(beyond.find("σ_s (93.4 pN) is above the raw noise (54.2 pN)"), std::string::npos) << beyond;
  EXPECT_NE(beyond.find("8 σ_s = 747 pN is larger than this replica's whole range of smoothed force (446 pN): no "
                        "event can be found; give --min-peak-drop-pN"),
            std::string::npos)
      << beyond;
  info.smoothed_force_range_pN = 2000.0;
  EXPECT_NE(slow_wander_note(info).find("8 σ_s = 747 pN may pass over events"), std::string::npos);
  info.min_peak_drop_automatic = false;  // a given criterion is the user's
  EXPECT_EQ(slow_wander_note(info), "");
  info.min_peak_drop_automatic = true;
  info.noise_smoothed = 20.0;  // below the raw noise: the usual case (demo: 2.05 against 2.54 pN)
  EXPECT_EQ(slow_wander_note(info), "");
  info.noise_raw = 0.5;  // above the raw noise, but the criterion is the 10 pN floor, not 8 σ_s
  info.noise_smoothed = 0.8;
  info.min_peak_drop = 10.0;
  EXPECT_EQ(slow_wander_note(info), "");
}

}  // namespace ermak::analysis
