#pragma once
// The run log's last lines (docs/outputs.md#layout-of-an-output-directory, run.log): a run
// stopped by a signal says how to continue it; a finished run gives its rate and where its
// time went (the engine, the reports, the checkpoints, the checks, the final files), with
// advice when checkpoints cost too much, and lists its outputs.
#include <spdlog/spdlog.h>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <string>

#include "ermak/config/spec.h"
#include "ermak/run/replica_files.h"
#include "ermak/run/report_writer.h"
#include "ermak/run/simulation.h"

namespace ermak {

// Where a run's wall time went, counted by the run driver for its last lines.
struct RunCosts {
  std::int64_t advances = 0;         // calls that stepped the engine
  double advance_seconds = 0.0;      // in those calls
  double snapshot_seconds = 0.0;     // taking the reports' values from the engine
  std::int64_t checkpoints_written = 0;
  std::int64_t start_checkpoints = 0;       // of those, the one a new run takes at its start
  double checkpoint_seconds = 0.0;          // taking them (copying the state, waiting for the one before)
  double checkpoint_writing_seconds = 0.0;  // on the report writer's thread
  double check_seconds = 0.0;               // exact coordinate and bond checks
  double final_seconds = 0.0;               // the final structures after the run
};

// What the stop line names to continue a run: every --set as given (quoted for a POSIX
// shell) and a .sop run's --ermak-output; "" when none. A resume without one of them would
// be refused or run another run.
std::string resume_overrides(const RunSpec& spec);

// The warning of a run stopped by `signal` at `step`, with its checkpoint and the command
// that continues it bit for bit.
void log_signal_stop(const RunSpec& spec, int signal, std::int64_t step, std::int64_t last_step,
                     const RunSummary& summary, const std::filesystem::path& checkpoint_path, spdlog::logger& log);

// The warning of a run stopped by `signal` during its start, before its first step: no
// checkpoint was written; a new run is started again, a resume resumed again.
void log_start_stop(int signal, bool resume, spdlog::logger& log);

// What a run that stopped on a failed write (a full disk: `cannot write table: No space left on
// device`) adds to its error: the cause, and that `ermak run CONFIG --resume` (with the run's
// overrides) continues from its last checkpoint, `checkpoint_step` (−1: none was written, the
// run is started again), once the cause is gone. "" when `error` is no failed write: neither a
// WriteError (core/error.h, thrown by io/'s writers) nor a filesystem error of a full disk or
// quota (making a directory).
std::string write_failure_advice(const RunSpec& spec, const std::exception& error, std::int64_t checkpoint_step,
                                 const std::filesystem::path& checkpoint_path);

// A finished run's lines: "finished:" (steps, rate, list builds), "reports:", "steps:", the
// checkpoint advice, and (with its own files) "outputs:".
struct RunEndFacts {
  std::int64_t first_step = 0, last_step = 0;
  std::int32_t beads_per_replica = 0, replicas = 0;
  std::int64_t neighbor_rebuilds = 0;  // of the steps (not the minimisation's)
  int file_threads = 1;
  bool own_files = true;
};
void log_run_end(const RunSpec& spec, const RunSummary& summary, const RunEndFacts& facts, const RunCosts& costs,
                 const ReportWriter::Totals& written, const ReplicaFiles& files, spdlog::logger& log);

}  // namespace ermak
