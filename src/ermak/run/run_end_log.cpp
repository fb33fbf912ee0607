#include "ermak/run/run_end_log.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "ermak/config/sopgpu_config.h"
#include "ermak/core/error.h"
#include "ermak/run/checkpoint_advice.h"
#include "ermak/run/replica_loop.h"
#include "ermak/run/stop_signals.h"

namespace ermak {
namespace fs = std::filesystem;

std::string resume_overrides(const RunSpec& spec) {
  // The overrides are part of "the same configuration": a resume without --set run.steps
  // would run to the file's steps instead.
  std::string overridden;
  for (const std::string& text : spec.set_overrides) {
    overridden += overridden.empty() ? "--set '" : " --set '";
    for (char c : text) {
      if (c == '\'')
        overridden += "'\\''";  // for a POSIX shell: ' closes, \' is a quote, ' reopens
      else
        overridden += c;
    }
    overridden += '\'';
  }
  // A .sop run continues the files it started with: ermak's own directory too, if it wrote one.
  if (is_sopgpu_config(spec.config_path) && spec.output.write_directory) {
    overridden += overridden.empty() ? "--ermak-output '" : " --ermak-output '";
    overridden += spec.output.directory.string();
    overridden += '\'';
  }
  return overridden;
}

void log_signal_stop(const RunSpec& spec, int signal, std::int64_t step, std::int64_t last_step,
                     const RunSummary& summary, const fs::path& checkpoint_path, spdlog::logger& log) {
  if (is_demo_config(spec.config_path)) {
    log.warn("stopped by {} at step {} of {} ({:.2f} s, {:.4g} steps/s): checkpoint {} written; `ermak demo --resume` "
             "with the same -o and --set options continues bit for bit",
             stop_signal_name(signal), step, last_step, summary.wall_seconds, summary.steps_per_second,
             checkpoint_path.string());
    return;
  }
  const std::string overridden = resume_overrides(spec);
  log.warn("stopped by {} at step {} of {} ({:.2f} s, {:.4g} steps/s): checkpoint {} written; `ermak run` of the "
           "same configuration{} with --resume continues bit for bit",
           stop_signal_name(signal), step, last_step, summary.wall_seconds, summary.steps_per_second,
           checkpoint_path.string(), overridden.empty() ? "" : " and the same overrides (" + overridden + ")");
}

std::string write_failure_advice(const RunSpec& spec, const std::exception& error, std::int64_t checkpoint_step,
                                 const fs::path& checkpoint_path) {
  int system_error = 0;
  if (const auto* write = dynamic_cast<const WriteError*>(&error))
    system_error = write->system_error();
  else if (const auto* filesystem = dynamic_cast<const fs::filesystem_error*>(&error);
           filesystem && (filesystem->code().value() == ENOSPC || filesystem->code().value() == EDQUOT))
    system_error = filesystem->code().value();  // a directory made on a full disk
  else
    return "";
  const bool full = system_error == ENOSPC;
  const bool quota = system_error == EDQUOT;
  const std::string cause = full    ? "the disk is full: once space is freed"
                            : quota ? "the disk quota is exceeded: once space is freed (or the quota raised)"
                                    : "once the cause is fixed";
  const std::string overridden = resume_overrides(spec);
  if (checkpoint_step < 0)
    return fmt::format("; {}, start the run again with --force (no checkpoint was written to resume from, and "
                       "--force replaces the files this start wrote)",
                       cause);
  if (is_demo_config(spec.config_path))
    return fmt::format("; {}, `ermak demo --resume` with the same -o and --set options continues from the last "
                       "checkpoint (step {}, {}) bit for bit",
                       cause, checkpoint_step, checkpoint_path.string());
  return fmt::format("; {}, `ermak run {} --resume`{} continues the run from its last checkpoint (step {}, {}) bit "
                     "for bit",
                     cause, spec.config_path.string(), overridden.empty() ? "" : " with the same overrides (" + overridden + ")",
                     checkpoint_step, checkpoint_path.string());
}

void log_start_stop(int signal, bool resume, spdlog::logger& log) {
  if (resume)
    log.warn("stopped by {} during the resume's start, before its first step: the checkpoint is as it was; "
             "--resume again continues from it",
             stop_signal_name(signal));
  else
    log.warn("stopped by {} during the run's start, before its first step: no checkpoint and no output file was "
             "written, nothing to resume; start the run again",
             stop_signal_name(signal));
}

void log_run_end(const RunSpec& spec, const RunSummary& summary, const RunEndFacts& facts, const RunCosts& costs,
                 const ReportWriter::Totals& written, const ReplicaFiles& files, spdlog::logger& log) {
  log.info("finished: {} steps in {:.2f} s ({:.4g} steps/s, {:.4g} bead-steps/s), {} neighbour-list rebuilds",
           facts.last_step - facts.first_step, summary.wall_seconds, summary.steps_per_second,
           summary.steps_per_second * double(facts.beads_per_replica) * facts.replicas, facts.neighbor_rebuilds);
  const int threads = replica_threads_used(facts.replicas, facts.file_threads);
  log.info("reports: {} stops; {:.3f} s taking them from the engine, {:.3f} s writing them in the background "
           "({} thread{}), {:.3f} s waiting for the writer",
           written.jobs - costs.checkpoints_written, costs.snapshot_seconds,
           written.writing_seconds - costs.checkpoint_writing_seconds, threads, threads == 1 ? "" : "s",
           written.waiting_seconds);
  log.info("steps: {} calls, {:.3f} s in the engine; checkpoints: {}, {:.3f} s taking them (copying the state, "
           "waiting for the one before), {:.3f} s writing them in the background (flushing every file, syncing the "
           "file system); {:.3f} s checking coordinates and bonds; {:.3f} s writing the final structures after the "
           "run",
           costs.advances, costs.advance_seconds, costs.checkpoints_written, costs.checkpoint_seconds,
           costs.checkpoint_writing_seconds, costs.check_seconds, costs.final_seconds);
  const CheckpointAdvice advice = checkpoint_advice(
      spec.output.checkpoint_every_steps, costs.checkpoints_written, costs.start_checkpoints,
      checkpoint_cost_seconds(costs.checkpoint_seconds, written.waiting_seconds, written.writing_seconds,
                              costs.checkpoint_writing_seconds),
      summary.wall_seconds);
  if (advice.costly)
    log.warn("checkpoints took {:.0f} % of the run; {} = {} (now {}) would make them ~{:.0f} % in the next run "
             "(a --resume keeps the output intervals), at the price of more steps to redo after a crash "
             "(docs/outputs.md, \"Cost\")",
             100.0 * advice.fraction, is_sopgpu_config(spec.config_path) ? "restartfreq" : "[output] checkpoint_every",
             advice.suggested_every_steps, spec.output.checkpoint_every_steps, 100.0 * kTargetFraction);
  if (!facts.own_files) return;
  std::string tables;
  for (ProtocolTable table : {ProtocolTable::kPulling, ProtocolTable::kPlane, ProtocolTable::kIndentation})
    if (files.writes(table)) tables += ", " + table_file_name(table);
  log.info("outputs: {}/ (model.psf, model.pdb, model.etop, run.log{}, replica_NNN/energies.tsv{}{}, final.pdb)",
           fs::absolute(spec.output.directory).string(), spec.output.checkpoint_file.empty() ? ", checkpoint.ckpt" : "",
           tables, spec.output.trajectory_every_steps > 0 ? ", trajectory.dcd" : "");
}

}  // namespace ermak
