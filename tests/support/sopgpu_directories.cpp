#include "support/sopgpu_directories.h"

#include <cmath>
#include <sstream>
#include <utility>

#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace ermak::test {

namespace {

fs::path sopgpu_data(const std::string& p) { return shared_data() / "sopgpu" / p; }

// A fresh directory with topologies/ and structures/, and the shared data's files copied
// in (source under sopgpu/, destination in the directory).
fs::path fresh_layout(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files) {
  const fs::path dir = fresh_directory(name);
  fs::create_directories(dir / "topologies");
  fs::create_directories(dir / "structures");
  for (const auto& [source, destination] : files) fs::copy_file(sopgpu_data(source), dir / destination);
  return dir;
}

}  // namespace

fs::path sopgpu_ww_directory(const std::string& name) {
  return fresh_layout(name, {{"ww/reference/ww.top", "topologies/ww.top"},
                             {"ww/reference/ww_cg.pdb", "structures/ww.pdb"},
                             {"ww/ww_1-100_equil.sop", "ww_equil.sop"},
                             {"ww/ww_1-100_pull.sop", "ww_pull.sop"}});
}

fs::path sopgpu_pf8_directory(const std::string& name) {
  return fresh_layout(name, {{"pf8/PF8.top", "topologies/PF8.top"},
                             {"pf8/PF8_sop.pdb", "structures/PF8_sop.pdb"},
                             {"pf8/PF8_vf_3.0_R_100.sop", "pf8.sop"},
                             {"pf8/PF8_vf_3.0_R_100_HI.sop", "pf8_hi.sop"}});
}

std::vector<std::vector<double>> read_number_rows(const fs::path& path, std::vector<std::vector<double>>* last_digits) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<double> row, digit;
    for (std::string f; fields >> f;) {
      row.push_back(std::stod(f));
      const auto point = f.find('.');
      const auto exponent = f.find_first_of("eE");
      const std::size_t decimals =
          point == std::string::npos ? 0 : (exponent == std::string::npos ? f.size() : exponent) - point - 1;
      digit.push_back(exponent == std::string::npos ? std::pow(10.0, -double(decimals)) : 0.0);
    }
    if (!row.empty()) {
      rows.push_back(row);
      if (last_digits) last_digits->push_back(digit);
    }
  }
  return rows;
}

}  // namespace ermak::test
