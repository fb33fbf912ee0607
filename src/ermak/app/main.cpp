#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "ermak/app/commands.h"
#include "ermak/core/error.h"

int main(int argc, char** argv) {
  CLI::App app{"ermak: coarse-grained Langevin dynamics of proteins in the SOP model.\n"
               "Documentation: README.md and docs/ in the source tree."};
  app.set_version_flag("--version", ERMAK_VERSION);
  app.require_subcommand(1);
  std::map<CLI::App*, ermak::app::Command> commands;
  auto add = [&](ermak::app::Command (*adder)(CLI::App&)) {
    const std::size_t before = app.get_subcommands({}).size();
    ermak::app::Command command = adder(app);
    commands[app.get_subcommands({})[before]] = std::move(command);
  };
  add(ermak::app::add_run_command);
  add(ermak::app::add_energy_command);
  add(ermak::app::add_bench_command);
  add(ermak::app::add_demo_command);
  add(ermak::app::add_rng_command);
  add(ermak::app::add_topology_command);
  add(ermak::app::add_analyze_command);
  CLI11_PARSE(app, argc, argv);
  try {
    for (auto& [subcommand, command] : commands)
      if (subcommand->parsed()) return command();
  } catch (const ermak::Error& e) {
    std::fprintf(stderr, "ermak: error: %s\n", e.what());
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave or the machine's state (permissions, a full disk), not a bug.
    std::fprintf(stderr, "ermak: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ermak: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
