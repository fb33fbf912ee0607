// `ermak demo`: the README's first command ends here. Ubiquitin (1UBQ from Debian's
// freesasa package) is turned into a C-alpha SOP model and pulled by its termini like an
// AFM experiment (N terminus fixed, C terminus on a cantilever spring moving at constant
// speed), four replicas on the CPU, fast enough to unfold in a few minutes; then
// `ermak analyze` turns the force–extension curves into plots, unfolding peaks and WLC
// fits. The embedded config below is the whole input (docs/protocols.md#pulling).
#include <cstdio>
#include <filesystem>
#include <string>

#include "ermak/analysis/analyze_run.h"
#include "ermak/app/commands.h"
#include "ermak/config/toml_config.h"
#include "ermak/run/previous_run.h"
#include "ermak/run/simulation.h"

namespace ermak::app {
namespace {

constexpr const char* kDemoConfig = R"(# ermak demo: ubiquitin pulled by its termini, C-alpha SOP model, 4 replicas at 300 K
[input]
structure = "/usr/share/freesasa/test-data/1ubq.pdb"

[run]
replicas = 4
steps = 2_000_000        # 39.7 µs at 0.08 τ_H ≈ 19.84 ps per step
temperature_K = 300
seed = 2026
backend = "cpu"

[minimize]
steps = 200

[fixed]
beads = ["A:1"]          # Met1, the N terminus (chain A, residue 1; or bead index 0)

[pulling]
pulled_beads = ["A:76"]  # Gly76, the C terminus (bead 75)
speed_um_per_s = 500     # ~10³× an AFM's speed: the unfolding peak comes after ~10⁶ steps
                         # (base travel 19.8 nm in the run); slower speeds lower the peak force
spring_pN_per_nm = 35    # cantilever spring (SOP-GPU's 0.05 kcal/mol/Å²)
direction = "end_to_end"
output_every = 1000     # a pulling.tsv row per 0.1 Å of base travel: ~20 per 0.2 nm smoothing window

[output]
directory = "ermak-demo"
energy_every = 10000
trajectory_every = 20000
checkpoint_every = 250000
)";

}  // namespace

Command add_demo_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "Pull ubiquitin's SOP model by its termini (4 replicas) and analyse the "
                                         "force–extension curves (the README's first command)");
  struct Options {
    std::string output = "ermak-demo";
    std::vector<std::string> overrides;
    bool force = false;
    bool resume = false;
    bool print_config = false;
    bool no_analysis = false;
  };
  auto o = std::make_shared<Options>();
  auto* output = cmd->add_option("-o,--output", o->output, "Output directory")->capture_default_str();
  cmd->add_option("--set", o->overrides, "Override a key of the embedded config, e.g. --set run.steps=10000");
  cmd->add_flag("--force", o->force, "Overwrite an existing demo output");
  cmd->add_flag("--resume", o->resume,
                "Continue a demo stopped by Ctrl-C from its checkpoint (give the same -o and --set), then analyse it "
                "again (replacing its analysis/)");
  cmd->add_flag("--print-config", o->print_config,
                "Print the embedded config and exit; with --set or -o, the resolved configuration they make "
                "(every key, defaults filled in, as `ermak run --print-config`)");
  cmd->add_flag("--no-analysis", o->no_analysis, "Skip `ermak analyze` after the run");
  return [o, output]() {
    // The commented config is the one to copy and edit; overrides are shown applied.
    if (o->print_config && o->overrides.empty() && output->count() == 0) {
      std::fputs(kDemoConfig, stdout);
      return 0;
    }
    std::vector<std::string> overrides = o->overrides;
    overrides.insert(overrides.begin(), "output.directory=\"" + std::filesystem::absolute(o->output).string() + "\"");
    RunSpec spec = parse_run_spec(kDemoConfig, std::filesystem::current_path() / "demo.toml", overrides);
    // No demo.toml exists: the log and the resolved configuration name the embedded one.
    const std::string source_line = "# source: " + spec.config_path.string();
    if (const auto at = spec.resolved_toml.find(source_line); at != std::string::npos)
      spec.resolved_toml.replace(at, source_line.size(), "# source: the demo's embedded configuration (ermak demo "
                                                         "--print-config)");
    spec.config_path = std::filesystem::current_path() / kDemoConfigName;
    if (o->print_config) {
      std::fputs(spec.resolved_toml.c_str(), stdout);
      return 0;
    }
    if (!o->force && !o->resume && directory_has_run(spec.output.directory))
      throw Error(spec.output.directory.string(), 0, "",
                  "already holds a demo run; `ermak demo --force` runs it again there, `ermak demo --resume` "
                  "continues one that was stopped, `ermak demo -o DIR` runs one elsewhere");
    RunOptions options;
    options.force = o->force;
    options.resume = o->resume;
    options.caller_handles_analysis = true;  // analysed below, or noted at the end with --no-analysis
    const RunSummary summary = run_simulation(spec, options);
    // Ctrl-C: the run checkpointed and stopped (docs/outputs.md#stopping-a-run); no analysis
    // of half a run. The last line is what a user acts on: it must say --resume where there
    // is a checkpoint to continue (--force would throw the steps away).
    if (summary.stopped_by_signal != 0) {
      if (std::filesystem::exists(summary.output_directory / "checkpoint.ckpt"))
        std::fprintf(stderr,
                     "demo stopped; `ermak demo --resume` continues it (with the same -o and --set), "
                     "`ermak demo --force` starts it over\n");
      else
        std::fprintf(stderr, "demo stopped before its steps began; `ermak demo --force` starts it again\n");
      return 128 + summary.stopped_by_signal;
    }
    const auto dir = std::filesystem::absolute(summary.output_directory);
    std::printf("\nDemo finished. Outputs in %s:\n"
                "  model.psf, model.pdb            the C-alpha model (load in VMD with a trajectory)\n"
                "  replica_NNN/pulling.tsv         cantilever base, extension, force vs time (docs/protocols.md)\n"
                "  replica_NNN/energies.tsv        energies, Q, Rg, end-to-end vs time\n"
                "  replica_NNN/trajectory.dcd      trajectory: vmd %s/model.psf %s/replica_000/trajectory.dcd\n"
                "  replica_NNN/final.pdb           final coordinates\n"
                "  run.log                         the resolved configuration and the run's log\n",
                dir.c_str(), dir.c_str(), dir.c_str());
    if (o->no_analysis) {
      // --force replaced the run, not an analysis of the one before (ermak run --force keeps
      // analysis/ too): say so rather than leave it looking current.
      if (const std::string note = earlier_analysis_note(dir, o->resume ? "the run as it stood before this --resume"
                                                                          : "an earlier demo run");
          !note.empty())
        std::printf("\nnote: %s\n", note.c_str());
      return 0;
    }
    analysis::AnalyzeOptions a;
    a.run_dir = dir;
    a.temperature_from_run = true;  // as `ermak analyze DIR` does: the run's own (300 K)
    // analysis/ is the demo's own: --force and --resume (which continued or finished this
    // run) analyse it again in place, as a first run does.
    a.overwrite = o->force || o->resume;
    const analysis::AnalyzeResult r = analysis::analyze_run(a);
    for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    std::printf("\nAnalysis (ermak analyze %s):\n%s", dir.c_str(), r.brief.c_str());
    std::printf("  force–extension plot: %s\n  everything else:      %s\n",
                (r.out_dir / "force_extension.svg").c_str(), (r.out_dir / "summary.txt").c_str());
    return 0;
  };
}

}  // namespace ermak::app
