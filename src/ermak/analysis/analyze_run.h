#pragma once
// `ermak analyze`: the force-spectroscopy analysis of a whole run directory — every
// replica_NNN/pulling.tsv, indentation.tsv and plane.tsv — written to an output
// directory as TSV tables, SVG plots and a summary (docs/analysis.md).
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ermak/analysis/force_spectroscopy.h"
#include "ermak/analysis/replica_selection.h"

namespace ermak::analysis {

struct AnalyzeOptions {
  std::filesystem::path run_dir;
  // Two or more run directories of one condition (run_pool.h: judge_runs_for_pooling) analysed
  // as one run: their replicas numbered on from one run to the next in this order, mapped in
  // replicas.tsv (docs/analysis.md#pooling-runs-of-one-condition). Empty: run_dir alone.
  std::vector<std::filesystem::path> pooled_run_dirs;
  std::filesystem::path out_dir;  // empty: run_dir/analysis (required for runs pooled)
  CurveSettings settings;
  double temperature_K = 300.0;   // sets settings.wlc.kT
  // Take the run's own temperature from its run.log (the resolved [run] temperature) when
  // it has one, instead of temperature_K (ermak analyze without --temperature-K).
  bool temperature_from_run = false;
  std::optional<std::size_t> bins;  // histogram bins; unset: ⌈√n⌉ in [5, 50]
  // Plane pulling: analyse force_plane{g}[pN] (--plane-group); unset: the first moving
  // plane's group as run.log states the planes, else 0.
  std::optional<int> plane_group;
  // Force clamp: a replica has unfolded when its recorded extension first reaches this, nm
  // (--unfolded-extension-nm): its unfolding time, or censored at its last row.
  std::optional<double> unfolded_extension_nm;
  // The replicas that get their own curve table and plot (--replica-files; default the
  // first 100). Every replica enters the tables of peaks and fits and the statistics.
  ReplicaSelection replica_files;
  // --contacts: which native contacts break, and when, from the replicas' trajectories
  // (contact_report.h; docs/analysis.md#which-contacts-break---contacts).
  bool contacts = false;
  bool overwrite = false;         // replace existing output files
  // Whether a run is still running in a run directory: the note of the process that holds
  // its lock ("pid 4242 on node7, started …"), or none. `ermak analyze` passes the run's own
  // lock check (run/run_lock.h), which analysis/ does not include; unset: none is asked.
  // A run still running has tables that end early, which the notes then do not call stopped.
  std::function<std::optional<std::string>(const std::filesystem::path& run_dir)> run_in_progress;
  // The options the user gave that shape curves (--smooth-window-nm, …), by name: a heating
  // run's melting curve takes none of them and refuses them.
  std::vector<std::string> given_options;
};

struct AnalyzeResult {
  std::filesystem::path out_dir;
  std::vector<std::filesystem::path> files;  // everything written, in order
  std::string brief;                         // a few lines for the terminal
  std::vector<std::string> warnings;
};

// Finds the replicas (replica_NNN/ subdirectories, or RUN_DIR itself when it holds the
// tables directly; of every run pooled), analyses each table, and writes the outputs. Before writing
// anything it checks that no output file exists (unless overwrite). Throws ermak::Error
// for bad options, a run directory without tables, an unreadable table, or runs to pool
// that are not of one condition.
AnalyzeResult analyze_run(const AnalyzeOptions& options);

}  // namespace ermak::analysis
