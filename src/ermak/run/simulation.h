#pragma once
// The run driver: Spec → Topology + State → Engine steps → reporters → files
// (DESIGN.md §3). It owns the output directory, the schedule of reports, trajectory
// frames and checkpoints, and resuming.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ermak/backend/engine.h"
#include "ermak/config/spec.h"
#include "ermak/io/file_holding.h"

namespace ermak {

// The config_path of `ermak demo`'s embedded configuration (its file name): the run log and
// the stop line name the demo instead of a file that does not exist.
inline constexpr const char* kDemoConfigName = "(ermak demo)";
inline bool is_demo_config(const std::filesystem::path& config_path) {
  return config_path.filename() == kDemoConfigName;
}

struct RunOptions {
  bool resume = false;  // continue from OUTDIR/checkpoint.ckpt
  bool force = false;   // allow overwriting an existing output directory's files
  bool quiet = false;   // no console log lines (the run log is always written)
  // Threads that format and write the replicas' files at a report; 0: automatic
  // (run/replica_loop.h: 1 on the CPU backend, up to 8 otherwise).
  int report_threads = 0;
  // Every check of the run's start, then a few seconds of steps to estimate the run's
  // duration; writes nothing (run/dry_run.h, docs/outputs.md#dry-run).
  bool dry_run = false;
  double dry_run_seconds = 2.0;
  // Set by run_simulation for a dry run whose output already holds a run: the dry run
  // checks everything else first and ends with that refusal.
  bool dry_run_output_holds_a_run = false;
  // The caller says itself what becomes of the output directory's analysis/ (ermak demo:
  // it analyses the run again, or notes the stale analysis at its end): a --force run over
  // an earlier run then logs no note that analysis/ holds that run's analysis.
  bool caller_handles_analysis = false;
};

struct RunSummary {
  std::filesystem::path output_directory;
  std::int64_t first_step = 0, last_step = 0;
  double wall_seconds = 0.0;
  double steps_per_second = 0.0;
  // SIGINT, SIGTERM or SIGHUP stopped the run before last_step (run/stop_signals.h): a checkpoint
  // holds the step reached, and no final structures were written. 0: the run finished.
  int stopped_by_signal = 0;
};

class ProtocolSetup;

// What a reporter sees at a report: the engine (state, energies, protocol status), the
// model and the resolved protocols (null without any).
struct ReportContext {
  Engine& engine;
  const Topology& topology;
  const ProtocolSetup* protocol;
  std::int64_t last_step;
  // Threads that may write the replicas' files side by side (run/replica_loop.h).
  int file_threads = 1;
  // The engine's step at this report (the CUDA engine's state() would copy every position
  // back to tell it).
  std::int64_t step = 0;
  // Whether the run's files stay open or are opened to write out (run/output_file_holding.h).
  FileHolding file_holding = FileHolding::kKeptOpen;
};

// Output files written alongside (or instead of) the output directory's, on the same
// schedule of stops (e.g. run/sopgpu_outputs.h). The driver stops at every multiple of
// each of intervals() and at the last step, and calls report() at every stop; the
// reporter takes what is due from the engine and returns the work that writes it, which
// the driver runs on its report writer thread (run/report_writer.h) in order with its own
// rows while the engine goes on. checkpoint() and finish() are called once that work is done.
class RunReporter {
 public:
  virtual ~RunReporter() = default;
  virtual std::vector<std::int64_t> intervals() const = 0;
  // Files it writes, each kept open for the whole run unless the run's files exceed the
  // open-file limit (then opened to write out: ReportContext::file_holding).
  virtual std::int64_t files_kept_open() const = 0;
  // Before anything is written: a new run refuses to overwrite existing files unless
  // `force`; a resumed run checks that its files are there.
  virtual void prepare(bool resume, bool force) = 0;
  // After a run that failed: removes the directories prepare() created that are still
  // empty (a start that failed its checks leaves only its run log).
  virtual void remove_empty_directories_it_made() noexcept {}
  // The directories its files are written to, which a checkpoint syncs before it records their
  // sizes (io/checkpoint.h); empty: under the checkpoint's own directory.
  virtual std::vector<std::filesystem::path> output_directories() const { return {}; }
  // Once the engine holds the start state: open the files (new run: create and write the
  // start; resume: cut them to the checkpoint's offsets and append).
  using Offsets = std::vector<std::pair<std::string, std::uint64_t>>;
  // The checks of prepare() alone, creating nothing (a dry run); with a resumed run's
  // checkpoint offsets, also that every file is there to be continued.
  virtual void check_files(bool resume, bool force, const Offsets* offsets = nullptr) const = 0;
  virtual void open(ReportContext& context, bool resume, const Offsets& offsets) = 0;
  // Called on the driver's thread at every stop (at context.step): copies what is due from
  // context.engine (the calls that synchronise with the GPU) and returns the work that
  // formats and writes it, which must not touch the engine (an empty function when nothing
  // is due), with the bytes its copies hold until written (the report writer's budget).
  struct Work {
    std::function<void()> write;
    std::size_t bytes = 0;
  };
  virtual Work report(ReportContext& context) = 0;
  // Flushes the files and adds their sizes to a checkpoint's output offsets.
  virtual void checkpoint(Offsets& offsets) = 0;
  virtual void finish(ReportContext& context) = 0;
  // Warnings for the run log after finish() (a coordinate file it could not write).
  virtual std::vector<std::string> finish_warnings() const { return {}; }
  virtual std::string describe() const = 0;  // for the run log
  // Bytes its files gain from first_step to last_step (run/output_size.h; 0: not counted).
  virtual double bytes_to_write(std::int64_t first_step, std::int64_t last_step, std::int32_t beads,
                                bool resume) const {
    (void)first_step, (void)last_step, (void)beads, (void)resume;
    return 0;
  }
};

RunSummary run_simulation(const RunSpec& spec, const RunOptions& options, RunReporter* extra = nullptr);

}  // namespace ermak
