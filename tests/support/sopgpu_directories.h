#pragma once
// SOP-GPU working directories laid out as its configurations expect (topologies/,
// structures/), filled from the shared data, and its tables read back: for the `.sop` run
// tests on the CPU (tests/regression) and against the GPU (tests/cuda).
#include <filesystem>
#include <string>
#include <vector>

namespace ermak::test {

// A fresh directory with WW's topology, structure and SOP-GPU's equilibration and pulling
// configurations (ww_equil.sop, ww_pull.sop).
std::filesystem::path sopgpu_ww_directory(const std::string& name);

// A fresh directory with PF8's topology, structure and SOP-GPU's indentation
// configurations (pf8.sop, and pf8_hi.sop with hydrodynamics).
std::filesystem::path sopgpu_pf8_directory(const std::string& name);

// Whitespace-separated numbers per line (SOP-GPU's .dat files have no header);
// `last_digits`, if given, gets the unit of each number's last printed digit.
std::vector<std::vector<double>> read_number_rows(const std::filesystem::path& path,
                                                  std::vector<std::vector<double>>* last_digits = nullptr);

}  // namespace ermak::test
