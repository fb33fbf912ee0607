#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <new>
#include <string>

#include "ermak/app/commands.h"
#include "ermak/core/build_info.h"
#include "ermak/core/error.h"

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) would otherwise kill the process mid-write with no word;
  // ignored, the write fails with EFBIG and the run stops with its usual error naming the
  // file ("File too large", docs/outputs.md#after-an-error).
  std::signal(SIGXFSZ, SIG_IGN);
  // A closed stderr or stdout pipe (`ermak run … | tee log`, then Ctrl-C) would otherwise kill
  // ermak in the middle of writing its stop checkpoint and log line; ignored, those writes
  // fail quietly and the run ends as documented.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"ermak: coarse-grained Langevin dynamics of proteins in the SOP model.\n"
               "Documentation: README.md and docs/ in the source tree."};
  app.set_version_flag("--version", "ermak " + ermak::build_description());
  app.require_subcommand(1);
  // Command-line mistakes read like every other user error.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("ermak: error: ") + e.what() + "\nRun with --help for more information.\n";
  });
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
  // An unknown command by name, not CLI11's "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* subcommand : app.get_subcommands({})) {
      known += (known.empty() ? "" : ", ") + subcommand->get_name();
      found = found || subcommand->check_name(argv[1]);  // its name or an alias (analyse)
    }
    if (!found) {
      std::fprintf(stderr, "ermak: error: unknown command \"%s\" (commands: %s; ermak --help)\n", argv[1],
                   known.c_str());
      return 1;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::RequiredError& e) {
    // CLI11 says "A subcommand is required" also for `ermak --bogus` or `ermak rng bogus`:
    // name the command that needs one, its commands and what was given instead.
    const CLI::App* at = &app;
    std::string path = "ermak";
    for (bool deeper = true; deeper;) {
      deeper = false;
      for (const CLI::App* sub : at->get_subcommands({}))
        if (sub->parsed()) {
          at = sub;
          path += " " + sub->get_name();
          deeper = true;
          break;
        }
    }
    const std::vector<const CLI::App*> subs = at->get_subcommands({});
    if (subs.empty() || std::string(e.what()).find("subcommand is required") == std::string::npos) {
      app.exit(e);
      return 1;
    }
    std::string known;
    for (const CLI::App* sub : subs) known += (known.empty() ? "" : ", ") + sub->get_name();
    // The first word after the command's path that is not one of its names.
    std::string given;
    for (int i = 1, depth = 0; i < argc && given.empty(); ++i) {
      const std::string word = argv[i];
      if (depth < int(std::count(path.begin(), path.end(), ' ')) && word[0] != '-')
        ++depth;
      else if (word != "-h" && word != "--help")
        given = word;
    }
    std::fprintf(stderr, "ermak: error: `%s` needs one of its commands: %s%s (%s --help)\n", path.c_str(),
                 known.c_str(), given.empty() ? "" : (", got \"" + given + "\"").c_str(), path.c_str());
    return 1;
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a mistake on the command line is a user error (exit 1,
    // as every other; CLI11's own codes would be 100-odd).
    const int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  std::string running;  // the subcommand, for the out-of-memory advice
  try {
    for (auto& [subcommand, command] : commands)
      if (subcommand->parsed()) {
        running = subcommand->get_name();
        return command();
      }
  } catch (const std::bad_alloc&) {
    // The machine's (or `ulimit -v`'s) limit, not a bug: say what takes the memory.
    std::fprintf(stderr, "ermak: error: not enough memory for ermak %s%s\n", running.c_str(),
                 running == "analyze"
                     ? ": it holds a replica's tables at ~180 bytes a row (docs/analysis.md#runs-of-many-replicas); "
                       "analyse on a machine with more memory, or write rows less often (pulling.output_every, "
                       "output.energy_every)"
                 : running == "run" ? " (its replicas' positions, lists and report buffers: fewer replicas — run.replicas, a .sop file's "
                                      "runnum — need less)"
                                    : "");
    return 1;
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
