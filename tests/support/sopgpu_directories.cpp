#include "support/sopgpu_directories.h"

#include <cmath>
#include <sstream>

#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace ermak::test {

namespace {

fs::path sopgpu_data(const std::string& p) { return shared_data() / "sopgpu" / p; }

fs::path fresh_layout(const std::string& name) {
  const fs::path dir = fresh_directory(name);
  fs::create_directories(dir / "topologies");
  fs::create_directories(dir / "structures");
  return dir;
}

}  // namespace

fs::path sopgpu_ww_directory(const std::string& name) {
  const fs::path dir = fresh_layout(name);
  fs::copy_file(sopgpu_data("ww/reference/ww.top"), dir / "topologies/ww.top");
  fs::copy_file(sopgpu_data("ww/reference/ww_cg.pdb"), dir / "structures/ww.pdb");
  fs::copy_file(sopgpu_data("ww/ww_1-100_equil.sop"), dir / "ww_equil.sop");
  fs::copy_file(sopgpu_data("ww/ww_1-100_pull.sop"), dir / "ww_pull.sop");
  return dir;
}

fs::path sopgpu_pf8_directory(const std::string& name) {
  const fs::path dir = fresh_layout(name);
  fs::copy_file(sopgpu_data("pf8/PF8.top"), dir / "topologies/PF8.top");
  fs::copy_file(sopgpu_data("pf8/PF8_sop.pdb"), dir / "structures/PF8_sop.pdb");
  fs::copy_file(sopgpu_data("pf8/PF8_vf_3.0_R_100.sop"), dir / "pf8.sop");
  fs::copy_file(sopgpu_data("pf8/PF8_vf_3.0_R_100_HI.sop"), dir / "pf8_hi.sop");
  return dir;
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
