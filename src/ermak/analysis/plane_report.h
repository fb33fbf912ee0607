#pragma once
// The plane-pulling part of `ermak analyze` (docs/analysis.md#plane-pulling): for every
// replica_NNN/plane.tsv its smoothed curve and plot, then the rupture events of all
// replicas, their force histogram, the overlay plot and the "Plane pulling" section of
// summary.txt. Called by analyze_run, which owns the rest of the run's outputs.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ermak/analysis/force_spectroscopy.h"
#include "ermak/analysis/replica_selection.h"
#include "ermak/analysis/run_directory.h"

namespace ermak::analysis {

struct PlaneReplica {
  int index = 0;
  std::string name;  // replica_NNN
  std::filesystem::path table;  // …/plane.tsv
  bool own_files = true;        // its curve table and plot are written (--replica-files)
};

struct PlaneReportOptions {
  int group = 0;  // --plane-group, or the first moving plane's group (analyze_run)
  bool group_given = false;  // by --plane-group
  // The run's planes by group, from run.log (RunLogFacts::planes; empty where unknown):
  // each group's travel and loading, for the work and the loading check.
  std::vector<RunLogFacts::Plane> planes;
  std::optional<std::int64_t> run_steps;  // run.log's [run] steps, for tables of a stopped run
  std::optional<std::string> run_error;   // run.log's error line, when the run ended with one
  std::optional<std::string> running;     // the lock holder's note of a run still running (AnalyzeOptions)
  CurveSettings settings;
  std::optional<std::size_t> bins;
  // The per-replica blocks go to PlaneReport::replica_blocks instead of the summary
  // (a run of more than kReplicaBlocksInSummary replicas: analyze_run writes replicas.txt).
  bool replica_blocks_apart = false;
  bool overwrite = false;
};

// Every file write_plane_report may write (every replica's own files, selected or not), for
// the check before anything is written.
std::vector<std::filesystem::path> plane_report_files(const std::filesystem::path& out,
                                                      const std::vector<PlaneReplica>& replicas);

// Reads the header line of each table: throws ermak::Error naming the table and
// --plane-group when one lacks force_plane{group}[pN] (before anything is written).
void check_plane_group(const std::vector<PlaneReplica>& replicas, int group);

struct PlaneReport {
  std::string summary;   // the "Plane pulling" section (and its histogram)
  std::string replica_blocks;  // with replica_blocks_apart: each replica's block, for replicas.txt
  std::string brief;     // lines for the terminal
  std::string files;     // lines for the "Files" list of summary.txt
  std::vector<std::string> produced;  // aggregate file names written
  std::vector<std::string> warnings;
};

// Analyses and writes; appends every written path to `files`. Throws ermak::Error for an
// unreadable table or a missing group (naming the table and --plane-group).
PlaneReport write_plane_report(const std::vector<PlaneReplica>& replicas, const PlaneReportOptions& options,
                               const std::filesystem::path& out, std::vector<std::filesystem::path>& files);

}  // namespace ermak::analysis
