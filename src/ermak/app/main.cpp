#include <CLI/CLI.hpp>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"ermak: coarse-grained Langevin dynamics of proteins (SOP model)"};
  app.set_version_flag("--version", ERMAK_VERSION);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
