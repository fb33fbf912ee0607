#pragma once
#include <filesystem>
#include <string>

namespace ermak::test {

// ../shared/data (or $ERMAK_SHARED_DATA): real inputs, used by path, never copied.
std::filesystem::path shared_data();
// The built `ermak` command, for end-to-end tests.
std::filesystem::path ermak_binary();
// Debian's python3 (numpy, MDAnalysis) for independent reference computations.
std::string python();
std::filesystem::path source_dir();
// A fresh, empty directory for one test, under the system temp dir.
std::filesystem::path fresh_directory(const std::string& name);
// Runs a shell command, returns its exit status; stdout+stderr go to `output`.
int run_command(const std::string& command, std::string* output = nullptr);

}  // namespace ermak::test
