#include "support/test_paths.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/wait.h>

namespace ermak::test {

std::filesystem::path shared_data() {
  if (const char* env = std::getenv("ERMAK_SHARED_DATA")) return env;
  return ERMAK_SHARED_DATA_DEFAULT;
}
std::filesystem::path ermak_binary() { return ERMAK_BINARY; }
std::string python() { return ERMAK_TEST_PYTHON; }
std::filesystem::path source_dir() { return ERMAK_SOURCE_DIR; }

std::filesystem::path fresh_directory(const std::string& name) {
  // One namespace per checkout: test suites of two checkouts (worktrees) running at the
  // same time on one machine must not remove each other's files.
  char tag[17];
  std::snprintf(tag, sizeof tag, "%08zx", std::hash<std::string>{}(ERMAK_SOURCE_DIR) & 0xffffffffu);
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

}  // namespace ermak::test
