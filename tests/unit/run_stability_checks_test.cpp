// The run's stability checks at each stop (run/stability_checks.h): behind their screens
// they must find exactly what the exact per-bead and per-bond tests find, and name the
// same bead or bond.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "ermak/core/error.h"
#include "ermak/backend/stability_screen.h"
#include "ermak/run/stability_checks.h"

using namespace ermak;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The definition the check must agree with: |‖r_j − r_i‖ − r0| ≥ R0 in float, as the
// FENE potential sees it (docs/model.md#fene); the first such bond, replica-major.
std::optional<std::pair<std::int32_t, std::size_t>> first_broken(const State& s, const Topology& t, float R0) {
  for (std::int32_t r = 0; r < s.replica_count; ++r)
    for (std::size_t k = 0; k < t.bonds.size(); ++k) {
      const Bond& b = t.bonds[k];
      if (std::abs(norm(s.position(r, b.j) - s.position(r, b.i)) - b.r0_A) >= R0) return std::make_pair(r, k);
    }
  return std::nullopt;
}

// A ladder of 2h beads: a chain 0 … h−1 of consecutive bonds, each bead i also bonded to
// bead h + i (rungs, listed first and in both index orders), with bond lengths r0 from
// 1.5 to 4.5 Å (some shorter than R0 = 2 Å, where no bond can be too short).
Topology ladder_topology(int h, std::mt19937& rng) {
  Topology t;
  std::uniform_real_distribution<float> length(1.5f, 4.5f);
  for (int i = 0; i < h; ++i) t.bonds.push_back(i % 2 ? Bond{h + i, i, length(rng)} : Bond{i, h + i, length(rng)});
  for (int i = 0; i + 1 < h; ++i) t.bonds.push_back({i, i + 1, length(rng)});
  return t;
}

// The engines' screen (backend/stability_screen.h; the CUDA engine evaluates the same
// functions on the GPU): does any bond of any replica lie outside its bounds?
bool screen_flags(const State& s, const std::vector<BondScreen>& screen) {
  for (std::int32_t r = 0; r < s.replica_count; ++r)
    for (const BondScreen& b : screen) {
      const Vec3f d = s.position(r, b.j) - s.position(r, b.i);
      if (outside_bond_screen(b, d.x, d.y, d.z)) return true;
    }
  return false;
}

}  // namespace

TEST(StabilityChecks, FiniteCoordinatesPassAndTheFirstNonFiniteBeadIsNamed) {
  State s(7, 3);
  for (std::size_t k = 0; k < s.x.size(); ++k) {
    s.x[k] = float(k);
    s.y[k] = -3.0e38f;  // huge but finite
    s.z[k] = std::numeric_limits<float>::denorm_min();
  }
  s.step = 500;
  EXPECT_NO_THROW(check_finite(s, 400));
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  for (const float v : bad) EXPECT_TRUE(non_finite(v));
  for (const float v : {0.0f, -3.0e38f, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()})
    EXPECT_FALSE(non_finite(v));
  for (int axis = 0; axis < 3; ++axis)
    for (const float v : bad) {
      State t = s;
      std::vector<float>& a = axis == 0 ? t.x : axis == 1 ? t.y : t.z;
      a[s.index(2, 5)] = v;  // bead 5 of replica 2, and a later one that must not be named
      a[s.index(2, 6)] = v;
      const std::string m = message_of([&] { check_finite(t, 400); });
      EXPECT_NE(m.find("between steps 400 and 500: bead 5 of replica 2 has non-finite coordinates"),
                std::string::npos)
          << m;
    }
}

TEST(StabilityChecks, BondScreenFindsExactlyTheBondsTheExactTestFinds) {
  std::mt19937 rng(20261123);
  const float R0 = 2.0f;
  const int h = 20, n = 2 * h, replicas = 5;
  const Topology t = ladder_topology(h, rng);
  const BondStretchCheck check(t, R0);
  const std::vector<BondScreen> screen = make_bond_screen(t.bonds, R0);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick_bond(0, int(t.bonds.size()) - 1), pick_replica(0, replicas - 1);
  int broken_cases = 0, intact_cases = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    // Every bond at its native length in a random direction, then one bond of one replica
    // set to a length near a limit: r0 ± R0 · (1 + δ) with δ in ±10⁻⁶ … ±10⁻¹ (and, for a
    // bond shorter than R0, a length near zero).
    auto random_step = [&](float length) {
      const Vec3f d{unit(rng), unit(rng), unit(rng)};
      return d * (length / norm(d));
    };
    State s(n, replicas);
    for (int r = 0; r < replicas; ++r) {
      Vec3f p{unit(rng) * 50, unit(rng) * 50, unit(rng) * 50};
      for (int i = 0; i < h; ++i) {
        if (i > 0) p = p + random_step(t.bonds[h + i - 1].r0_A);
        s.set_position(r, i, p);
        s.set_position(r, h + i, p + random_step(t.bonds[i].r0_A));
      }
    }
    const int k = pick_bond(rng), r = pick_replica(rng);
    const Bond& b = t.bonds[k];
    const float delta = std::pow(10.0f, -1.0f - 5.0f * (unit(rng) + 1.0f) / 2.0f) * (unit(rng) < 0 ? -1.0f : 1.0f);
    const bool stretch = unit(rng) > 0.0f;
    const float length = stretch ? b.r0_A + R0 * (1.0f + delta) : std::max(0.0f, b.r0_A - R0 * (1.0f + delta));
    const Vec3f dir = s.position(r, b.j) - s.position(r, b.i);
    const Vec3f moved = s.position(r, b.i) + dir * (length / norm(dir));
    s.set_position(r, b.j, moved);  // b.j's other bonds change too: the reference sees them
    s.step = 10;
    const auto expected = first_broken(s, t, R0);
    const std::string m = message_of([&] { check(s, 0); });
    // The screen in front of these checks may flag more, never less; it passes a bond
    // more than 10⁻³ R0 within its limits.
    if (expected) EXPECT_TRUE(screen_flags(s, screen)) << "trial " << trial;
    if (std::abs(delta) > 1e-3f && delta < 0 && !expected) EXPECT_FALSE(screen_flags(s, screen)) << "trial " << trial;
    if (expected) {
      ++broken_cases;
      const Bond& e = t.bonds[expected->second];
      EXPECT_NE(m.find("beads " + std::to_string(e.i) + "–" + std::to_string(e.j) + " of replica " +
                       std::to_string(expected->first) + " are"),
                std::string::npos)
          << "trial " << trial << ": " << m;
    } else {
      ++intact_cases;
      EXPECT_EQ(m, "") << "trial " << trial;
    }
  }
  // Both outcomes occur often enough for the comparison to mean something.
  EXPECT_GT(broken_cases, 300);
  EXPECT_GT(intact_cases, 300);
}

TEST(StabilityChecks, BrokenBondMessageSaysWhatToDo) {
  Topology t;
  t.bonds.push_back({0, 1, 3.8f});
  State s(2, 1);
  s.set_position(0, 0, {0, 0, 0});
  s.set_position(0, 1, {6.0f, 0, 0});  // stretched by 2.2 Å > R0 = 2 Å
  s.step = 2000;
  const std::string m = message_of([&] { BondStretchCheck(t, 2.0f)(s, 1000); });
  EXPECT_NE(m.find("a FENE bond broke between steps 1000 and 2000: beads 0–1 of replica 0 are 6.0"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("pull more slowly"), std::string::npos) << m;
  // A run without a force protocol is told what makes its forces smaller instead.
  const std::string e =
      message_of([&] { BondStretchCheck(t, 2.0f, BondStretchCheck::kEquilibriumRemedy)(s, 1000); });
  EXPECT_NE(e.find("minimise the start ([minimize] steps"), std::string::npos) << e;
  EXPECT_EQ(e.find("pull more slowly"), std::string::npos) << e;
  // Past the first steps an equilibrium break is the thermal kicks', not the start's.
  BondStretchCheck thermal(t, 2.0f, BondStretchCheck::kEquilibriumRemedy);
  thermal.use_remedy_from(BondStretchCheck::kThermalBreakFromStep, BondStretchCheck::kThermalRemedy);
  const std::string later = message_of([&] { thermal(s, 1000); });
  EXPECT_NE(later.find("lower the temperature (with [heating], its stop)"), std::string::npos) << later;
  EXPECT_EQ(later.find("minimise the start"), std::string::npos) << later;
  // A bond pressed below r0 − R0 collapsed; it did not break.
  s.set_position(0, 1, {0.2f, 0, 0});
  EXPECT_NE(message_of([&] { BondStretchCheck(t, 2.0f)(s, 1000); })
                .find("a FENE bond collapsed (closer than r0 − R0) between steps 1000 and 2000"),
            std::string::npos);
  s.set_position(0, 1, {5.7f, 0, 0});
  EXPECT_NO_THROW(BondStretchCheck(t, 2.0f)(s, 1000));
}

// A moving surface against [fixed] beads breaks a bond of theirs (the run's start notes it):
// the break names that cause and its remedy, not "pull more slowly" (an audit's
// indentation with move_surface = true broke at step 48000 and was told to pull more slowly).
TEST(StabilityChecks, ABreakFromAMovingSurfaceAgainstFixedBeadsNamesThatCause) {
  Topology t;
  t.bonds.push_back({0, 1, 3.8f});
  State s(2, 1);
  s.set_position(0, 0, {0, 0, 0});
  s.set_position(0, 1, {6.0f, 0, 0});
  s.step = 48000;
  RunSpec spec;
  spec.sop.fene_R0_A = 2.0f;
  spec.indentation.enabled = true;
  spec.indentation.move_surface = true;
  spec.indentation.direction = {0, 0, -1};
  spec.indentation.surface.normal = {0, 0, 1};
  spec.fixed_beads = {0};
  EXPECT_TRUE(surface_drives_into_fixed_beads(spec));
  // A surface that moves away from the molecule (direction · normal > 0: an audit's migrated
  // input) drives into nothing, and is not named as the cause.
  RunSpec away = spec;
  away.indentation.direction = {0, 0, 1};
  EXPECT_FALSE(surface_drives_into_fixed_beads(away));
  std::string m = message_of([&] { bond_check_for_run(t, spec, std::int64_t{1000})(s, 47000); });
  EXPECT_NE(m.find("a FENE bond broke between steps 47000 and 48000: beads 0–1"), std::string::npos) << m;
  EXPECT_NE(m.find("the moving surface (indentation.move_surface = true) drives into the [fixed] beads"),
            std::string::npos) << m;
  EXPECT_NE(m.find("set indentation.move_surface = false (the base moves instead), or remove the [fixed] beads"),
            std::string::npos) << m;
  EXPECT_EQ(m.find("the forces are too large"), std::string::npos) << m;
  EXPECT_EQ(m.find("the base (or a moving plane) has travelled"), std::string::npos) << m;
  // The base moves, or nothing is fixed: the usual advice.
  for (const bool fixed : {true, false}) {
    RunSpec other = spec;
    if (fixed) other.indentation.move_surface = false; else other.fixed_beads.clear();
    EXPECT_FALSE(surface_drives_into_fixed_beads(other));
    m = message_of([&] { bond_check_for_run(t, other, std::nullopt)(s, 47000); });
    EXPECT_NE(m.find("the forces are too large for the time step: pull more slowly"), std::string::npos) << m;
  }
}

// The indentation tip's own steps can go unstable where no bead check looks: a tip thrown
// through the substrate or to non-finite coordinates stops the run, naming the replica.
TEST(StabilityChecks, ATipThrownThroughTheSurfaceStopsTheRun) {
  Indentation ind;
  ind.enabled = true;
  ind.tip_zeta = 50.0;
  ind.surface.enabled = true;
  ind.surface.point_A = {0, 0, 10};
  ind.surface.normal = {0, 0, 1};
  std::vector<IndentationStatus> tips(2);
  tips[0].tip_A = {0, 0, 60};
  tips[1].tip_A = {0, 0, 40};
  EXPECT_NO_THROW(check_indentation_tips(ind, tips, 0.08, 1000, 2000));
  tips[1].tip_A = {3, 0, -2290};
  const std::string m = message_of([&] { check_indentation_tips(ind, tips, 0.08, 1000, 2000); });
  EXPECT_NE(m.find("the indentation tip went through the substrate between steps 1000 and 2000: the tip of replica 1 "
                   "has its centre 2300 Å behind the surface"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("raise indentation.tip_friction (now 50)"), std::string::npos) << m;
  // At the run's start (its first checkpoint, step 0) the two steps are one.
  const std::string at_start = message_of([&] { check_indentation_tips(ind, tips, 0.08, 0, 0); });
  EXPECT_NE(at_start.find("the indentation tip went through the substrate at step 0: the tip of replica 1"),
            std::string::npos)
      << at_start;
  // A push that moves the tip more than its radius in one step (h/ζ_tip·|F|): unstable.
  tips[1].tip_A = {0, 0, 40};
  ind.tip.radius = 10.0;
  tips[1].surface_force_kcal_per_mol_A = {0, 0, 1e4};  // kcal/mol/Å: 0.08/50 · 10⁴ = 16 Å
  const std::string pushed = message_of([&] { check_indentation_tips(ind, tips, 0.08, 1000, 2000); });
  EXPECT_NE(pushed.find("move it 16 Å in one step, more than its radius (10 Å)"), std::string::npos) << pushed;
  tips[1].surface_force_kcal_per_mol_A = {0, 0, 5e3};  // 8 Å
  EXPECT_NO_THROW(check_indentation_tips(ind, tips, 0.08, 1000, 2000));
  tips[1].tip_A = {3, 0, -2290};
  // A tip that does not feel the surface may pass it.
  ind.surface.tip_interaction = false;
  EXPECT_NO_THROW(check_indentation_tips(ind, tips, 0.08, 1000, 2000));
  tips[0].tip_A.z = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message_of([&] { check_indentation_tips(ind, tips, 0.08, 1000, 2000); })
                .find("the tip of replica 0 has non-finite coordinates"),
            std::string::npos);
}

// Start coordinates (check_start_coordinates): a bond beyond r0 ± R0 names the file and both
// beads; so does a coordinate no PDB output could hold; what fits passes.
TEST(StabilityChecks, StartCoordinatesThatBreakABondOrOverflowThePdbNameTheFile) {
  Topology t;
  t.beads.resize(2);
  t.beads[0].residue_number = 1;
  t.beads[1].residue_number = 2;
  t.bonds.push_back({0, 1, 3.8f});
  std::vector<Vec3d> at = {{0, 0, 0}, {5.7, 0, 0}};  // stretched by 1.9 Å < R0
  EXPECT_NO_THROW(check_start_coordinates(t, at, 2.0, "c.pdb"));
  at[1].x = 1.7;  // compressed by 2.1 Å
  std::string m = message_of([&] { check_start_coordinates(t, at, 2.0, "c.pdb"); });
  EXPECT_EQ(m.rfind("c.pdb: the bond of beads 0 (chain A residue 1 CA) and 1 (chain A residue 2 CA) is 1.700 Å", 0),
            0u)
      << m;
  EXPECT_NE(m.find("do not fit the topology's bonds"), std::string::npos) << m;
  // A replica's own start file is one of many: the setting is named after the file.
  m = message_of([&] { check_start_coordinates(t, at, 2.0, "r3.pdb", "input.replica_coordinates[3]"); });
  EXPECT_EQ(m.rfind("r3.pdb: input.replica_coordinates[3]: the bond of beads 0", 0), 0u) << m;
  at = {{0, 0, 0}, {3.8, 0, 2e7}};
  m = message_of([&] { check_coordinates_fit_pdb(t, at, "c.pdb"); });
  EXPECT_NE(m.find("c.pdb: bead 1 (chain A residue 2 CA) has the coordinate 20000000"), std::string::npos) << m;
  at[1].z = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(message_of([&] { check_coordinates_fit_pdb(t, at, "c.pdb"); }).empty());
}

// Single-precision positions far from the origin: the float spacing against a step's noise
// (SOP-GPU's 0.0438 Å): nothing below 1 % of it, a warning from 1 % (|x| ≥ 4096 Å, spacing
// 4.9·10⁻⁴ Å), a refusal from 10 % (|x| ≥ 65 536 Å, 7.8·10⁻³ Å) — an audit's structure at
// 8·10⁶ Å (spacing 0.5 Å) never moved in x.
TEST(StabilityChecks, CoordinatesTooFarFromTheOriginForSinglePrecisionAreWarnedOrRefused) {
  Topology t;
  t.beads.resize(2);
  t.beads[0].residue_number = 1;
  t.beads[1].residue_number = 2;
  const double noise_A = 0.04382;
  std::vector<Vec3d> at = {{4000, 0, 0}, {4003.8, 0, 0}};
  EXPECT_EQ(check_coordinate_resolution(t, at, noise_A, "c.pdb"), "");
  at = {{0, 0, -4100}, {3.8, 0, -4100}};
  const std::string warning = check_coordinate_resolution(t, at, noise_A, "c.pdb");
  EXPECT_EQ(warning.rfind("warning: c.pdb: bead 0 (chain A residue 1 CA) is 4100 Å from the origin, where "
                          "single-precision positions are 0.00049 Å apart: 1 % of a step's noise (0.0438 Å)",
                          0),
            0u)
      << warning;
  EXPECT_NE(warning.find("move the structure nearer the origin"), std::string::npos) << warning;
  at = {{60000, 0, 0}, {60003.8, 0, 0}};  // spacing 3.9·10⁻³ Å: 9 %
  EXPECT_NE(check_coordinate_resolution(t, at, noise_A, "c.pdb"), "");
  at = {{8e6, 0, 0}, {8e6 + 3.8, 0, 0}};
  const std::string m = message_of([&] {
    check_coordinate_resolution(t, at, noise_A, "r3.pdb", "input.replica_coordinates[3]");
  });
  EXPECT_EQ(m.rfind("r3.pdb: input.replica_coordinates[3]: bead 1 (chain A residue 2 CA) is 8e+06 Å from the origin, "
                    "where single-precision positions are 0.5 Å apart: 1141 % of a step's noise",
                    0),
            0u)
      << m;
  // A cold or noiseless run is held to SOP-GPU's step (a structure a 300 K run accepts is
  // not refused); a hotter or longer step tolerates more.
  at = {{9000, 0, 0}, {9003.8, 0, 0}};
  for (const double cold_A : {0.004, 0.0}) {
    std::string cold;
    EXPECT_NO_THROW(cold = check_coordinate_resolution(t, at, cold_A, "c.pdb"));
    EXPECT_NE(cold.find("2 % of a step's noise (0.0438 Å)"), std::string::npos) << cold;
  }
  at = {{100000, 0, 0}, {100003.8, 0, 0}};
  EXPECT_NE(message_of([&] { check_coordinate_resolution(t, at, noise_A, "c.pdb"); }), "");
  EXPECT_NE(check_coordinate_resolution(t, at, 0.2, "c.pdb").find("4 % of a step's noise (0.2 Å)"),
            std::string::npos);
}
