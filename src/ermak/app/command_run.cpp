#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ermak/app/commands.h"
#include "ermak/config/sopgpu_config.h"
#include "ermak/config/toml_config.h"
#include "ermak/core/error.h"
#include "ermak/run/simulation.h"
#include "ermak/run/sopgpu_outputs.h"

namespace ermak::app {

Command add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "run",
      "Run a simulation described by a TOML config (docs/config.md) or a SOP-GPU .sop config "
      "(docs/migrating-from-sop-gpu.md). Ctrl-C, SIGTERM or SIGHUP stops it within ~0.5 s with a checkpoint "
      "(exit status 130, 143 or 129); --resume then continues bit for bit (docs/outputs.md#stopping-a-run)");
  struct Options {
    std::string config;
    std::vector<std::string> overrides;
    std::string ermak_output;
    bool print_config = false;
    std::string backend;
    int threads = 0;
    RunOptions run;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("config", options->config, "Run configuration: FILE.toml, or FILE.sop (SOP-GPU)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", options->overrides,
                  "Override a key (repeatable): --set run.steps=1000 (TOML value syntax) or, for a .sop "
                  "file, --set numsteps=1000 (written as in the file)");
  auto* resume = cmd->add_flag("--resume", options->run.resume,
                "Continue from the run's checkpoint (bit for bit); the step count (run.steps, numsteps) may be raised, and "
                "the run may move to another backend, GPU (or number of GPUs), thread count or output directory "
                "(docs/outputs.md#resuming-elsewhere)");
  cmd->add_flag("--force", options->run.force,
                "Replace an existing run in the output directory: its files are removed once this run has passed "
                "its start checks (until then run.log stays the earlier run's and this run logs to run.log.new; "
                "docs/outputs.md#layout-of-an-output-directory)");
  cmd->add_flag("--quiet", options->run.quiet, "Log to the run log only");
  auto* dry_run = cmd->add_flag("--dry-run", options->run.dry_run,
                "Check everything the run's start checks (configuration, model, bead selections, output directory, "
                "open files, backend, GPU memory; the checkpoint with --resume), estimate the disk space of its files, "
                "time ~2 s of its steps and estimate its duration; writes nothing (docs/outputs.md#dry-run)");
  auto* print_config = cmd->add_flag("--print-config", options->print_config,
                "Print the resolved configuration — every key with its default filled in and the --set overrides "
                "applied, as run.log records it — and exit (a .sop file: the ermak configuration it becomes)");
  print_config->excludes(dry_run)->excludes(resume);
  cmd->add_option("--report-threads", options->run.report_threads,
                  "Threads that format and write the replicas' files at a report (0 = automatic: 1 on the CPU "
                  "backend, else up to 8 of the idle cores; docs/outputs.md)")
      ->check(CLI::Range(0, 256));
  cmd->add_option("--ermak-output", options->ermak_output,
                  ".sop only: also write ermak's own output directory (energies.tsv, tables, trajectories) to DIR");
  cmd->add_option("--backend", options->backend, ".sop only: cpu or cuda (default: cuda when available)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--threads", options->threads, ".sop only: CPU threads (0 = all)")->check(CLI::Range(0, kMaxCpuThreads));
  return [options]() {
    if (is_sopgpu_config(options->config)) {
      SopLoadOptions load;
      load.overrides = options->overrides;
      if (!options->ermak_output.empty()) load.ermak_output_directory = options->ermak_output;
      load.backend = options->backend;
      load.threads = options->threads;
      load.resume = options->run.resume;
      const SopRun sop = load_sopgpu_run(options->config, load);
      if (options->print_config) {
        std::fputs(sop.spec.resolved_toml.c_str(), stdout);
        return 0;
      }
      SopgpuReporter reporter(sop.outputs, sop.spec);
      const RunSummary summary = run_simulation(sop.spec, options->run, &reporter);
      if (summary.stopped_by_signal != 0) return 128 + summary.stopped_by_signal;  // the shell's convention
      if (!options->run.quiet && !options->run.dry_run)
        std::printf("SOP-GPU outputs as configured; ermak checkpoint %s\n", sop.outputs.checkpoint.c_str());
      return 0;
    }
    {
      // Each .sop-only option given, with the key a TOML configuration (or --set) takes instead.
      std::vector<std::string> sop_only;
      if (!options->ermak_output.empty())
        sop_only.push_back("--ermak-output (--set output.directory=" + options->ermak_output + ")");
      if (!options->backend.empty()) sop_only.push_back("--backend (--set run.backend=" + options->backend + ")");
      if (options->threads != 0)
        sop_only.push_back("--threads (--set run.threads=" + std::to_string(options->threads) + ")");
      if (!sop_only.empty()) {
        std::string list;
        for (const std::string& s : sop_only) list += (list.empty() ? "" : ", ") + s;
        throw Error(list + (sop_only.size() == 1 ? " applies" : " apply") +
                    " to .sop configurations only; a TOML configuration takes the key in the file or by --set, as "
                    "shown");
      }
    }
    const RunSpec spec = load_run_spec(options->config, options->overrides);
    if (options->print_config) {
      std::fputs(spec.resolved_toml.c_str(), stdout);
      return 0;
    }
    const RunSummary summary = run_simulation(spec, options->run);
    if (summary.stopped_by_signal != 0) return 128 + summary.stopped_by_signal;
    if (!options->run.quiet && !options->run.dry_run)
      std::printf("outputs in %s\n", std::filesystem::absolute(summary.output_directory).c_str());
    return 0;
  };
}

}  // namespace ermak::app
