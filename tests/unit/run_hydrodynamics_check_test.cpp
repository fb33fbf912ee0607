// A run's hydrodynamics against its model (run/hydrodynamics_check.h): "auto" resolved by the
// number of mobile beads, and TEA's noise along the bonds against the exact tensor's — the
// numbers of an independent numpy construction of the dense 3M×3M matrices (B of
// Geyer & Winter's eqs. 19–26, Σ = B Bᵀ), docs/model.md#tea.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ermak/run/hydrodynamics_check.h"
#include "support/test_systems.h"

namespace {

using namespace ermak;

Topology chain_of(const std::vector<Vec3d>& positions) {
  Topology t;
  t.name = "chain";
  t.beads.resize(positions.size());
  for (std::size_t i = 0; i + 1 < positions.size(); ++i) t.bonds.push_back(Bond{std::int32_t(i), std::int32_t(i + 1), 3.8f});
  return t;
}

TEST(TeaBondNoise, MatchesTheDenseMatricesOfAnIndependentConstruction) {
  // numpy: a dumbbell 3.8 Å apart at a = 1.9 Å gives 1.28396; a bent 4-bead chain its three
  // bonds 1.35717, 1.37123, 1.50679 (median the middle one).
  const std::vector<Vec3d> dumbbell = {{0, 0, 0}, {3.8, 0, 0}};
  const TeaBondNoise two = tea_bond_noise(chain_of(dumbbell), dumbbell, {}, 1.9);
  EXPECT_EQ(two.bonds, 1);
  EXPECT_NEAR(two.median_ratio, 1.283958838, 1e-8);
  const std::vector<Vec3d> bent = {{0, 0, 0}, {3.8, 0, 0}, {5.0, 3.5, 0}, {8, 4, 1}};
  const TeaBondNoise four = tea_bond_noise(chain_of(bent), bent, {}, 1.9);
  EXPECT_EQ(four.bonds, 3);
  EXPECT_NEAR(four.median_ratio, 1.371228242, 1e-8);
  EXPECT_NEAR(four.largest_ratio, 1.506793192, 1e-8);
  // A fixed bead leaves its bonds out (and the tensor): the chain 1–2–3 alone.
  const TeaBondNoise three = tea_bond_noise(chain_of(bent), bent, {0}, 1.9);
  EXPECT_EQ(three.bonds, 2);
  // Far smaller spheres: the coupling, and TEA's error with it, nearly vanish.
  EXPECT_NEAR(tea_bond_noise(chain_of(bent), bent, {}, 0.05).largest_ratio, 1.0, 1e-3);
}

TEST(HydrodynamicsCheck, AutoIsExactWhereItCostsAboutTenTimesTeaAndSaysSo) {
  RunSpec spec;
  spec.langevin.hydrodynamics.method = HydrodynamicMethod::kAuto;
  Topology model;
  model.beads.resize(kAutoCholeskyMobileBeads + 2);
  spec.fixed_beads = {0, 1};  // 100 mobile
  EXPECT_EQ(resolve_hydrodynamics(spec, model),
            "hydrodynamics.method \"auto\" is \"cholesky\" here: 100 mobile beads per replica, within the 100 up to "
            "which it takes the exact factor (docs/model.md#hydrodynamic-interactions)");
  EXPECT_EQ(spec.langevin.hydrodynamics.method, HydrodynamicMethod::kCholesky);
  spec.langevin.hydrodynamics.method = HydrodynamicMethod::kAuto;
  spec.fixed_beads = {0};  // 101 mobile
  EXPECT_NE(resolve_hydrodynamics(spec, model).find("is \"tea\" here: 101 mobile beads per replica, more than the 100"),
            std::string::npos);
  EXPECT_EQ(spec.langevin.hydrodynamics.method, HydrodynamicMethod::kTea);
  spec.langevin.hydrodynamics.method = HydrodynamicMethod::kCholesky;  // as given, and said nothing of
  spec.fixed_beads = {};
  EXPECT_EQ(resolve_hydrodynamics(spec, model), "");
  EXPECT_EQ(spec.langevin.hydrodynamics.method, HydrodynamicMethod::kCholesky);
  // The exact method may still be asked for beyond auto's choice, up to its refusal.
  EXPECT_NO_THROW(check_hydrodynamics(spec, model));
  model.beads.resize(kMaxCholeskyMobileBeads + 1);
  EXPECT_THROW(check_hydrodynamics(spec, model), Error);
}

TEST(TeaBondNoise, MeasuresAtMostTheBondsAskedFor) {
  // 11 bonds, at most 5 measured: every third (0, 3, 6, 9), not every second (6 of them).
  std::vector<Vec3d> line;
  for (int i = 0; i < 12; ++i) line.push_back({3.8 * i, 0.3 * (i % 2), 0});
  EXPECT_EQ(tea_bond_noise(chain_of(line), line, {}, 1.9, 5).bonds, 4);
  EXPECT_EQ(tea_bond_noise(chain_of(line), line, {}, 1.9, 11).bonds, 11);
  EXPECT_EQ(tea_bond_noise(chain_of(line), line, {}, 1.9, 400).bonds, 11);
}

TEST(HydrodynamicsCheck, TeaBeyondWhatIsMeasuredOrExactIsWarnedSo) {
  RunSpec spec;
  spec.langevin.hydrodynamics = {HydrodynamicMethod::kTea, 1.9};
  Topology big;
  big.beads.resize(std::size_t(kTeaNoiseMeasuredMobileBeads) + 1);
  const std::vector<Vec3d> nowhere(big.beads.size(), Vec3d{0, 0, 0});
  const std::string unmeasured = tea_bond_noise_warning(spec, HydrodynamicMethod::kAuto, big, nowhere);
  EXPECT_NE(unmeasured.find("\"tea\" (chosen by \"auto\") at radius_A = 1.9: its noise along the bonds is not measured "
                            "for more than 20000 mobile beads"),
            std::string::npos)
      << unmeasured;
  // A 1200-bead helix: TEA runs its bonds hot, and the exact method is not offered.
  std::vector<Vec3d> helix;
  for (int i = 0; i < 1200; ++i) helix.push_back({2.3 * std::cos(1.75 * i), 2.3 * std::sin(1.75 * i), 1.5 * i});
  const std::string hot = tea_bond_noise_warning(spec, HydrodynamicMethod::kTea, chain_of(helix), helix);
  EXPECT_NE(hot.find("the exact method is refused beyond 1000 mobile beads"), std::string::npos) << hot;
  EXPECT_EQ(hot.find("chosen by"), std::string::npos) << hot;
}

TEST(HydrodynamicsCheck, TeaOnTheWwDomainIsWarnedWithItsNumbers) {
  const auto ww = test::load_ww_reference();
  if (!ww) GTEST_SKIP() << "no shared data";
  RunSpec spec;
  spec.langevin.hydrodynamics = {HydrodynamicMethod::kTea, 1.9};
  const std::string warning = tea_bond_noise_warning(spec, HydrodynamicMethod::kTea, ww->topology, ww->initial_positions_A);
  EXPECT_NE(warning.find("hydrodynamics.method = \"tea\" at radius_A = 1.9: along the bonds of the start structure "
                         "TEA's noise has 1.6"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("method = \"cholesky\" is exact for these 34 mobile beads"), std::string::npos) << warning;
  EXPECT_NE(warning.find("a smaller radius_A shrinks the error, but models weaker hydrodynamic coupling"),
            std::string::npos)
      << warning;
  // The exact method, and TEA with small spheres, are not warned.
  spec.langevin.hydrodynamics.method = HydrodynamicMethod::kCholesky;
  EXPECT_EQ(tea_bond_noise_warning(spec, HydrodynamicMethod::kTea, ww->topology, ww->initial_positions_A), "");
  spec.langevin.hydrodynamics = {HydrodynamicMethod::kTea, 0.3};
  EXPECT_EQ(tea_bond_noise_warning(spec, HydrodynamicMethod::kTea, ww->topology, ww->initial_positions_A), "");
}

}  // namespace
