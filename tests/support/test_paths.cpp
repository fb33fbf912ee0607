#include "support/test_paths.h"

#include <array>
#include <fstream>
#include <sstream>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/wait.h>

#include <gtest/gtest.h>

namespace ermak::test {

std::filesystem::path shared_data() {
  if (const char* env = std::getenv("ERMAK_SHARED_DATA")) return env;
  return ERMAK_SHARED_DATA_DEFAULT;
}
std::filesystem::path ermak_binary() { return ERMAK_BINARY; }
std::string python() { return ERMAK_TEST_PYTHON; }
std::filesystem::path source_dir() { return ERMAK_SOURCE_DIR; }

std::filesystem::path fresh_directory(const std::string& name) {
  // One namespace per checkout and build tree: test suites of two checkouts (worktrees), or
  // of two build trees of one checkout (build/ and build-gpu/), running at the same time on
  // one machine must not remove each other's files.
  // And one per test: ctest runs tests in parallel processes, and two tests giving one name
  // (a fixture's directory) removed each other's files (a clean clone's run failed so).
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test_name = test ? std::string(test->test_suite_name()) + "." + test->name() : std::string();
  char tag[32];
  std::snprintf(tag, sizeof tag, "%08zx-%08zx", std::hash<std::string>{}(std::string(ERMAK_SOURCE_DIR) + "\n" + ERMAK_BINARY) & 0xffffffffu,
                std::hash<std::string>{}(test_name) & 0xffffffffu);
  auto dir = std::filesystem::temp_directory_path() / (std::string("ermak-test-") + tag + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

int run_command(const std::string& command, std::string* output) {
  std::string full = command + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buffer{};
  std::string text;
  while (fgets(buffer.data(), buffer.size(), pipe)) text += buffer.data();
  int status = pclose(pipe);
  if (output) *output = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string run_ermak(const std::string& args, int* status) {
  std::string output;
  *status = run_command(ermak_binary().string() + " " + args, &output);
  return output;
}

std::filesystem::path write_ww_run_config(const std::filesystem::path& dir, unsigned seed, const std::string& extra) {
  const auto ww = shared_data() / "sopgpu/ww/reference";
  std::ofstream c(dir / "run.toml");
  c << "[input]\ntopology = \"" << (ww / "ww.top").string() << "\"\ncoordinates = \""
    << (ww / "ww_cg.pdb").string() << "\"\n"
    << "[run]\nreplicas = 3\nsteps = 4000\nseed = " << seed << "\n"
    << "[output]\ndirectory = \"out\"\nenergy_every = 500\ntrajectory_every = 1000\ncheckpoint_every = 1000\n"
    << extra;
  return dir / "run.toml";
}

std::filesystem::path write_calpha_mmcif(const std::filesystem::path& file, const std::string& chain_id,
                                         int residues) {
  std::string cif =
      "data_calpha\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
      "_atom_site.label_alt_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n"
      "_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.occupancy\n"
      "_atom_site.B_iso_or_equiv\n_atom_site.auth_seq_id\n_atom_site.auth_asym_id\n";
  for (int i = 0; i < residues; ++i)
    cif += "ATOM " + std::to_string(i + 1) + " C CA . GLY A " + std::to_string(i + 1) + " " +
           std::to_string(3.8 * i) + " 0.0 0.0 1.0 10.0 " + std::to_string(i + 1) + " " + chain_id + "\n";
  std::ofstream(file) << cif;
  return file;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run_ermak_in(const std::filesystem::path& dir, const std::string& args, std::string* output) {
  return run_command("cd '" + dir.string() + "' && '" + ermak_binary().string() + "' " + args, output);
}

std::map<std::string, std::string> files_under(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      files[std::filesystem::relative(entry.path(), dir).string()] = read_file(entry.path());
    else if (entry.is_directory())
      files[std::filesystem::relative(entry.path(), dir).string() + "/"] = "";
  return files;
}

}  // namespace ermak::test
