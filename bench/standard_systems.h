#pragma once
// The standard benchmark systems of DESIGN.md §6, loaded from shared data by path.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ermak/io/load_system.h"

namespace ermak::bench {

struct BenchSystem {
  std::string name;         // "ww", "ubq", "i27", "cp", "lmb", "fabl", "pf8", "fg", "ccmv", "ccmv4"
  std::string description;
  InputSpec input;                   // read by load_system, unless `build` is set
  std::function<LoadedSystem()> build;  // models made by ermak topology's builder (assemblies)
};

// ERMAK_SHARED_DATA or ../shared/data relative to the working directory.
std::filesystem::path shared_data_directory();
std::vector<BenchSystem> standard_systems();
LoadedSystem load_bench_system(const BenchSystem& system);

}  // namespace ermak::bench
