#pragma once
// Sub-commands of the `ermak` program; each registers its options on the CLI11 app and
// returns the function that runs it.
#include <CLI/CLI.hpp>
#include <functional>

namespace ermak::app {

using Command = std::function<int()>;

Command add_run_command(CLI::App& app);
Command add_energy_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_demo_command(CLI::App& app);
Command add_rng_command(CLI::App& app);
Command add_topology_command(CLI::App& app);
Command add_analyze_command(CLI::App& app);

}  // namespace ermak::app
