#include <cstdio>
#include <string>
#include <vector>

#include "ermak/app/commands.h"
#include "ermak/config/toml_config.h"
#include "ermak/run/simulation.h"

namespace ermak::app {

Command add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run a simulation described by a TOML config (docs/config.md)");
  struct Options {
    std::string config;
    std::vector<std::string> overrides;
    RunOptions run;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("config", options->config, "Run configuration (TOML)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--set", options->overrides,
                  "Override a key: --set run.steps=1000 (TOML value syntax; repeatable)");
  cmd->add_flag("--resume", options->run.resume,
                "Continue from the output directory's checkpoint (bit for bit); [run] steps may be raised");
  cmd->add_flag("--force", options->run.force, "Overwrite the files of an existing run in the output directory");
  cmd->add_flag("--quiet", options->run.quiet, "Log to the run log only");
  return [options]() {
    const RunSpec spec = load_run_spec(options->config, options->overrides);
    const RunSummary summary = run_simulation(spec, options->run);
    if (!options->run.quiet)
      std::printf("outputs in %s\n", std::filesystem::absolute(summary.output_directory).c_str());
    return 0;
  };
}

}  // namespace ermak::app
