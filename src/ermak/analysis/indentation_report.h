#pragma once
// The nano-indentation part of `ermak analyze` (docs/analysis.md#nano-indentation): each
// replica_NNN/indentation.tsv's smoothed curve and plot, then the contact, linear regime,
// spring constant and breaking events of every replica (peaks.tsv — indentation_peaks.tsv
// in a run that also pulls —, force_indentation.svg and the section of summary.txt). Called
// by analyze_run, which owns the rest of the run's outputs (the settings, the histograms,
// the Files list).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ermak/analysis/force_spectroscopy.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/run_directory.h"

namespace ermak::analysis {

// What the summary needs of one replica's indentation, kept after its series are written
// and dropped.
struct IndentationRecord {
  Replica replica;
  IndentationAnalysis a;      // series cleared after the replica's files are written
  Line approach, retraction;  // decimated smoothed (indentation, spring force)
  double last_step = 0.0;     // of the table
};

struct IndentationReportOptions {
  CurveSettings settings;
  std::string file_prefix;  // "indentation_" in a run that also pulls, else ""
  std::optional<std::int64_t> run_steps;  // run.log's [run] steps, for tables of a stopped run
  std::optional<std::string> run_error;   // run.log's error line, when the run ended with one
  std::optional<std::string> running;     // the lock holder's note of a run still running (AnalyzeOptions)
  // The per-replica blocks go to IndentationReport::replica_blocks instead of the summary
  // (a run of more than kReplicaBlocksInSummary replicas: analyze_run writes replicas.txt).
  bool replica_blocks_apart = false;
  bool overwrite = false;
};

// Reads and analyses one replica's indentation.tsv. With `own_files` (--replica-files)
// writes its curve table and plot into `out`, appending their paths to `files`; keeps a
// decimated curve for the overlay while `overlay_curves` is below kOverlayCurves. Table
// warnings and notes (no rows, no contact) go to `warnings`.
IndentationRecord read_indentation_replica(const Replica& replica, bool own_files,
                                           const IndentationReportOptions& options, const std::filesystem::path& out,
                                           std::size_t& overlay_curves, std::vector<std::filesystem::path>& files,
                                           std::vector<std::string>& warnings);

struct IndentationReport {
  std::string summary;         // the "Nano-indentation" section and its statistics
  std::string replica_blocks;  // with replica_blocks_apart: each replica's block, for replicas.txt
  std::string brief;           // lines for the terminal
  std::vector<std::string> produced;  // aggregate file names written
  // The first, largest and all breaking forces, for the histogram.
  std::vector<double> first_forces, max_forces, all_forces;
};

// The section of every replica read; appends every written path to `files`.
IndentationReport write_indentation_report(const std::vector<IndentationRecord>& records,
                                           const IndentationReportOptions& options, const std::filesystem::path& out,
                                           std::vector<std::filesystem::path>& files);

}  // namespace ermak::analysis
