#pragma once
// The standard benchmark systems of DESIGN.md §6, loaded from shared data by path.
#include <filesystem>
#include <string>
#include <vector>

#include "ermak/io/load_system.h"

namespace ermak::bench {

struct BenchSystem {
  std::string name;         // "ww", "ubq", "pf8"
  std::string description;
  InputSpec input;
};

// ERMAK_SHARED_DATA or ../shared/data relative to the working directory.
std::filesystem::path shared_data_directory();
std::vector<BenchSystem> standard_systems();

}  // namespace ermak::bench
