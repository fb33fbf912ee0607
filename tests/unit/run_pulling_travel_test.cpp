// run/pulling_travel_check: a pulling run whose base travels past what the chain between a
// fixed and a pulled bead can follow is warned, with the force the spring would reach and a
// step count that stays below 1000 pN; a run within reach, or across a chain break, is not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/core/units.h"
#include "ermak/model/bonded_paths.h"
#include "ermak/run/pulling_travel_check.h"

namespace ermak {
namespace {

// Ten beads 3.8 Å apart along x (a straight chain: no slack), bonds of native length 3.8 Å.
Topology straight_chain() {
  Topology t;
  t.beads.resize(10);
  for (std::int32_t i = 0; i + 1 < 10; ++i) t.bonds.push_back({i, i + 1, 3.8f});
  return t;
}

std::vector<Vec3d> straight_positions() {
  std::vector<Vec3d> r;
  for (int i = 0; i < 10; ++i) r.push_back({3.8 * i, 0, 0});
  return r;
}

// κ = 100 pN/nm, 1 Å of base travel per 1000 steps.
RunSpec pulled(std::int64_t steps) {
  RunSpec spec;
  spec.steps = steps;
  spec.fixed_beads = {0};
  spec.pulling.enabled = true;
  spec.pulling.pulled_beads = {9};
  spec.pulling.spring_kcal_per_mol_A2 = 100.0 / units::internal_spring_to_pN_per_nm(1.0);
  spec.langevin.timestep_tau = 0.08;
  spec.pulling.speed_A_per_tau = 1e-3 / 0.08;
  return spec;
}

TEST(PullingTravel, TheContourFollowsConsecutiveBonds) {
  const Topology t = straight_chain();
  EXPECT_NEAR(bonded_contour_length_A(t, 0, 9), 9 * 3.8, 1e-5);
  EXPECT_NEAR(bonded_contour_length_A(t, 7, 2), 5 * 3.8, 1e-5);
  Topology broken = t;
  broken.bonds.erase(broken.bonds.begin() + 4);  // no bond 4–5
  EXPECT_EQ(bonded_contour_length_A(broken, 0, 9), 0.0);
  EXPECT_NEAR(bonded_contour_length_A(broken, 5, 9), 4 * 3.8, 1e-5);
  // A C-alpha–C-beta model: CA0 CB0 CA1 CB1 CA2, the backbone every other bead and the side
  // chains branching off; the contour runs along the backbone.
  Topology cacb;
  cacb.beads.resize(5);
  cacb.bonds = {{0, 1, 2.6f}, {0, 2, 3.8f}, {2, 3, 2.4f}, {2, 4, 3.8f}};
  EXPECT_NEAR(bonded_contour_length_A(cacb, 0, 4), 7.6, 1e-5);
  EXPECT_NEAR(bonded_contour_length_A(cacb, 1, 3), 2.6 + 3.8 + 2.4, 1e-5);
}

TEST(PullingTravel, TravelBeyondTheChainIsWarnedWithTheForceAndAStepCount) {
  const Topology t = straight_chain();
  const auto r = straight_positions();
  // Straight at the start: every Å of travel stretches the spring; 1000 pN at 100 Å (10⁵ steps).
  EXPECT_EQ(pulling_travel_warning(pulled(90'000), t, r), "");
  const std::string w = pulling_travel_warning(pulled(300'000), t, r);
  EXPECT_NE(w.find("the base travels 30 nm over the run's 300000 steps"), std::string::npos) << w;
  EXPECT_NE(w.find("from fixed bead 0 to pulled bead 9 is 3.42 nm long"), std::string::npos) << w;
  EXPECT_NE(w.find("would reach ~3000 pN"), std::string::npos) << w;
  EXPECT_NE(w.find("run.steps ≈ 100000 takes it 10 nm"), std::string::npos) << w;
  // A folded start: the chain's slack (its contour less the span) comes first.
  std::vector<Vec3d> folded = r;
  folded[9] = {3.8, 3.8, 0};  // 3.8·√2 Å from bead 0
  const std::string f = pulling_travel_warning(pulled(300'000), t, folded);
  EXPECT_NE(f.find("would reach ~2712 pN"), std::string::npos) << f;  // 100 pN/nm × (30 − 3.42 + 0.537) nm
  // Two pulled beads: their two springs' summed force rises at 2κ (an audit's pair reached
  // 1780 pN at the step count this check gave as below 1000 pN), so half the travel.
  RunSpec two = pulled(300'000);
  two.pulling.pulled_beads = {8, 9};
  const std::string m = pulling_travel_warning(two, t, r);
  EXPECT_NE(m.find("past that the 2 springs stretch a fully extended chain, and their summed force would reach "
                   "~6000 pN"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("run.steps ≈ 50000 takes it 5 nm"), std::string::npos) << m;
  EXPECT_EQ(pulling_travel_warning(pulled(90'000), t, r), "");
  two.steps = 90'000;  // 9 nm: 1800 pN summed
  EXPECT_NE(pulling_travel_warning(two, t, r), "");
  // Across a chain break, or without fixed beads, there is no chain to straighten.
  Topology broken = t;
  broken.bonds.erase(broken.bonds.begin() + 4);
  EXPECT_EQ(pulling_travel_warning(pulled(300'000), broken, r), "");
  RunSpec unfixed = pulled(300'000);
  unfixed.fixed_beads.clear();
  EXPECT_EQ(pulling_travel_warning(unfixed, t, r), "");
}

// A moving plane against a static one (or fixed beads) is the same check: bead 9 on plane 0
// moving along +x at 1 Å per 1000 steps, bead 0 on static plane 1; a plane pressed towards the
// anchors straightens nothing.
TEST(PullingTravel, AMovingPlaneIsCheckedAgainstTheStaticOnes) {
  const Topology t = straight_chain();
  const auto r = straight_positions();
  RunSpec spec;
  spec.steps = 300'000;
  spec.langevin.timestep_tau = 0.08;
  spec.plane_pulling.enabled = true;
  spec.plane_pulling.planes.resize(2);
  spec.plane_pulling.planes[0] = {{9}, {1, 0, 0}, 1e-3 / 0.08, 100.0 / units::internal_spring_to_pN_per_nm(1.0)};
  spec.plane_pulling.planes[1] = {{0}, {1, 0, 0}, 0.0, 100.0 / units::internal_spring_to_pN_per_nm(1.0)};
  const std::string w = pulling_travel_warning(spec, t, r);
  EXPECT_NE(w.find("warning: plane_pulling: plane 0 travels 30 nm over the run's 300000 steps, but the chain from "
                   "anchored bead 0 to pulled bead 9 is 3.42 nm long"),
            std::string::npos)
      << w;
  EXPECT_EQ(pulling_overload_step(spec, t, r), 100000);
  spec.plane_pulling.planes[0].speed_A_per_tau *= -1.0;  // towards bead 0
  EXPECT_EQ(pulling_travel_warning(spec, t, r), "");
  EXPECT_FALSE(pulling_overload_step(spec, t, r));
}

}  // namespace
}  // namespace ermak
