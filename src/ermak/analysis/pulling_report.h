#pragma once
// The pulling part of `ermak analyze` (docs/analysis.md#unfolding-events-force-peaks,
// docs/analysis.md#force-clamp): each replica_NNN/pulling.tsv's smoothed curve and plot,
// then the constant-velocity replicas' unfolding peaks and WLC fits (peaks.tsv,
// wlc_fits.tsv, force_extension.svg and their sections of summary.txt) and the force-clamp
// replicas' extension against time and unfolding times (extension_time.svg,
// unfolding_times.tsv). Called by analyze_run, which owns the rest of the run's outputs
// (the settings, the histograms, the Files list).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ermak/analysis/clamp_lifetimes.h"
#include "ermak/analysis/force_spectroscopy.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/run_directory.h"

namespace ermak::analysis {

// What the summary needs of one replica's pulling, kept after its series are written and
// dropped (a run of many replicas need not hold every replica's series at once).
struct PullingRecord {
  Replica replica;
  PullingAnalysis a;  // series cleared after the replica's files are written
  Line curve;         // decimated smoothed curve (extension, force) or (time, extension) for a clamp
  double last_step = 0.0;  // of the table
  double row_ns = 0.0;     // time between the table's first two rows
  // Force clamp with --unfolded-extension-nm X: the unfolding time (or censored); unset when
  // the extension starts at or beyond X. The recorded force's range tells a clamp from a
  // force schedule.
  std::optional<ClampUnfolding> unfolding;
  double force_min_pN = 0.0, force_max_pN = 0.0;
  double extension_max_nm = 0.0;  // force clamp: the largest recorded extension
};

struct PullingReportOptions {
  CurveSettings settings;  // settings.wlc.kT: the WLC fits' kT
  std::optional<double> unfolded_extension_nm;           // --unfolded-extension-nm (force clamp)
  std::optional<double> loading_rate_pN_per_s;           // κv of one spring, from run.log
  int pulled_beads = 1;  // springs whose forces pulling.tsv sums: its force is loaded at m·κv
  std::optional<std::int64_t> run_steps;                 // run.log's [run] steps, for tables of a stopped run
  std::optional<std::string> run_error;                  // run.log's error line, when the run ended with one
  std::optional<std::string> running;  // the lock holder's note of a run still running (AnalyzeOptions)
  // "300 K to 500 K" for a run whose [heating] changes its temperature (RunLogFacts::heating_text),
  // empty at one temperature: a clamp's lifetime over it is at no one temperature.
  std::string heating;
  // The chain's contour length between the ends the extension is measured from
  // (analysis/chain_contour.h), where the run directory tells it; and those ends.
  std::optional<double> contour_nm;
  std::pair<int, int> ends{0, 0};
  // No chain of bonds joins the ends (two chains pulled apart): the peaks are ruptures
  // between them, and a WLC fit's Lc is no chain's contour length.
  bool ends_on_separate_chains = false;
  // Runs pooled into one analysis (run_pool.h), by Replica::run: each one's directory and what
  // its run.log says of its end. Their tables' ends are judged run by run, against each run's
  // own steps, and the notes and the headline name the run; the headline says how many runs
  // are pooled. Empty for one run (run_steps and run_error above).
  struct PooledRun {
    std::string dir;
    std::optional<std::int64_t> run_steps;
    std::optional<std::string> run_error;
    std::optional<std::string> running;
  };
  std::vector<PooledRun> pooled_runs;
  // The per-replica blocks go to PullingReport::replica_blocks instead of the summary (a
  // run of more than kReplicaBlocksInSummary replicas: analyze_run writes replicas.txt).
  bool replica_blocks_apart = false;
  bool overwrite = false;
};

// How many curves of each kind the overlays keep so far (the first kOverlayCurves).
struct PullingOverlayCurves {
  std::size_t ramps = 0;
  std::size_t clamps = 0;
};

// Reads and analyses one replica's pulling.tsv. With `own_files` (--replica-files) writes
// its curve table and, for a constant-velocity replica, its plot into `out`, appending their
// paths to `files`. Returns nothing for a table of fewer than two rows (one row cannot tell
// a ramp from a clamp), with a warning. Table warnings go to `warnings`.
std::optional<PullingRecord> read_pulling_replica(const Replica& replica, bool own_files,
                                                  const PullingReportOptions& options, const std::filesystem::path& out,
                                                  PullingOverlayCurves& overlay,
                                                  std::vector<std::filesystem::path>& files,
                                                  std::vector<std::string>& warnings);

struct PullingReport {
  std::string summary;         // the constant-velocity and force-clamp sections
  std::string replica_blocks;  // with replica_blocks_apart: each replica's block, for replicas.txt
  std::string brief;           // lines for the terminal
  std::vector<std::string> produced;  // aggregate file names written
  std::vector<std::string> warnings;
  // The constant-velocity replicas' first, largest and all peak forces, for the histogram.
  std::vector<double> first_forces, max_forces, all_forces;
};

// The sections of every replica read; appends every written path to `files`.
PullingReport write_pulling_report(const std::vector<PullingRecord>& records, const PullingReportOptions& options,
                                   const std::filesystem::path& out, std::vector<std::filesystem::path>& files);

// A pulling run none of whose replicas has a curve (every table one row or none: a run that
// ended with an error before its tables' second row, or one only starting): its section in
// `summary`, quoting the run's error, and the headline's line, returned.
std::string no_pulling_curve_notes(const PullingReportOptions& options, std::string& summary);

}  // namespace ermak::analysis
