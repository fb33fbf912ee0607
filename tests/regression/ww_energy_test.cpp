// DESIGN.md §5 rung 3: SOP energies of a real topology (SOP-GPU's own WW-domain .top)
// equal an independent float64 numpy computation (sop_energy_reference.py) to 1e-6.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace {

std::map<std::string, double> parse_terms(const std::string& text) {
  std::map<std::string, double> terms;
  std::istringstream lines(text);
  std::string name;
  double value;
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    if (line.empty() || line[0] == '#') continue;
    if (fields >> name >> value) terms[name] = value;
  }
  return terms;
}

// Moves every bead by a fixed, irregular offset (≤ 0.35 Å per component) so that no
// term sits at its minimum, where float rounding of r − r0 would dominate FENE.
std::string perturbed_copy(const std::filesystem::path& pdb, const std::filesystem::path& out) {
  std::ifstream in(pdb);
  std::ofstream o(out);
  std::string line;
  int i = 0;
  while (std::getline(in, line)) {
    if (line.rfind("ATOM", 0) == 0 || line.rfind("HETATM", 0) == 0) {
      const double dx = 0.35 * std::sin(1.7 * i), dy = 0.35 * std::cos(2.3 * i), dz = 0.35 * std::sin(0.9 * i + 1);
      char coords[32];
      std::snprintf(coords, sizeof coords, "%8.3f%8.3f%8.3f", std::stod(line.substr(30, 8)) + dx,
                    std::stod(line.substr(38, 8)) + dy, std::stod(line.substr(46, 8)) + dz);
      line.replace(30, 24, coords);
      ++i;
    }
    o << line << "\n";
  }
  return out.string();
}

void expect_terms_match(const std::string& top, const std::string& pdb) {
  std::string ermak_out, reference_out;
  ASSERT_EQ(ermak::test::run_command(ermak::test::ermak_binary().string() + " energy --topology " + top +
                                         " --coordinates " + pdb, &ermak_out), 0) << ermak_out;
  const auto script = ermak::test::source_dir() / "tests/regression/sop_energy_reference.py";
  ASSERT_EQ(ermak::test::run_command(ermak::test::python() + " " + script.string() + " " + top + " " + pdb,
                                     &reference_out), 0) << reference_out;
  const auto ours = parse_terms(ermak_out), theirs = parse_terms(reference_out);
  double scale = 0;
  for (const char* term : {"fene", "native", "repulsive"}) scale += std::abs(theirs.at(term));
  for (const char* term : {"fene", "native", "repulsive", "total"}) {
    ASSERT_TRUE(ours.count(term)) << "ermak energy printed no '" << term << "' line:\n" << ermak_out;
    // 1e-6 relative to the term, and never tighter than 1e-7 of the energy scale
    // (float32 pair arithmetic, double accumulation).
    const double tolerance = std::max(1e-6 * std::abs(theirs.at(term)), 1e-7 * scale);
    EXPECT_NEAR(ours.at(term), theirs.at(term), tolerance) << term;
  }
}

TEST(WwEnergy, NativeStructureMatchesIndependentReference) {
  const auto ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  expect_terms_match((ww / "ww.top").string(), (ww / "ww_cg.pdb").string());
}

TEST(WwEnergy, PerturbedStructureMatchesIndependentReference) {
  const auto ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  const auto dir = ermak::test::fresh_directory("ww-energy");
  const std::string pdb = perturbed_copy(ww / "ww_cg.pdb", dir / "ww_perturbed.pdb");
  expect_terms_match((ww / "ww.top").string(), pdb);
}

}  // namespace

// --repulsion-energy scales the repulsion (ε_l), as a run's [model] repulsion_energy_kcal_per_mol
// does; the other terms stay.
TEST(WwEnergy, RepulsionEnergyScalesTheRepulsiveTerm) {
  const auto ww = ermak::test::shared_data() / "sopgpu/ww/reference";
  const std::string args = " energy --topology " + (ww / "ww.top").string() + " --coordinates " +
                           (ww / "ww_cg.pdb").string();
  std::string one, two;
  ASSERT_EQ(ermak::test::run_command(ermak::test::ermak_binary().string() + args, &one), 0) << one;
  ASSERT_EQ(ermak::test::run_command(ermak::test::ermak_binary().string() + args + " --repulsion-energy 2", &two), 0)
      << two;
  const auto a = parse_terms(one), b = parse_terms(two);
  EXPECT_NEAR(b.at("repulsive"), 2.0 * a.at("repulsive"), 1e-9 * std::abs(a.at("repulsive")));
  EXPECT_EQ(b.at("native"), a.at("native"));
  EXPECT_EQ(b.at("fene"), a.at("fene"));
}
