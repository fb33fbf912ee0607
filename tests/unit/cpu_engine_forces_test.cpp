// The CPU engine's float forces and energies (cluster list, chunked sums) equal the
// double-precision reference evaluation through the same physics functions; the
// reference's forces are −∇ of its own energy (finite differences, the whole system at
// once); and the repulsion stops exactly at the pair cutoff whatever the list's skin holds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "ermak/backend/cpu/reference_energy.h"
#include "ermak/io/load_system.h"
#include "support/lone_bead_pairs.h"
#include "support/test_paths.h"
#include "support/test_systems.h"

using namespace ermak;

namespace {

// The start structure with deterministic, irregular offsets of up to √3·displacement_A.
std::vector<Vec3d> displaced(const LoadedSystem& s, double displacement_A) {
  std::vector<Vec3d> x = s.initial_positions_A;
  for (std::int32_t i = 0; i < s.topology.bead_count(); ++i)
    x[i] += displacement_A * Vec3d{std::sin(1.3 * i), std::cos(0.7 * i), std::sin(2.9 * i + 0.5)};
  return x;
}

void expect_engine_matches_reference(const LoadedSystem& s, int threads, double displacement_A) {
  const std::int32_t n = s.topology.bead_count();
  const std::vector<Vec3d> x = displaced(s, displacement_A);
  EngineSetup setup;
  setup.topology = &s.topology;
  setup.replicas = 2;
  setup.threads = threads;
  auto engine = make_cpu_engine(setup);
  State state(n, 2);
  std::vector<Vec3d> rounded(n);
  for (std::int32_t i = 0; i < n; ++i) {
    const Vec3f p = vec_cast<float>(x[i]);
    rounded[i] = vec_cast<double>(p);
    state.set_position(0, i, p);
    state.set_position(1, i, p);
  }
  engine->set_state(state);
  const ReferenceEvaluation ref = evaluate_reference(s.topology, SopParameters{}, rounded);
  const auto energies = engine->energies();
  const State forces = engine->forces();
  for (int r = 0; r < 2; ++r) {
    const double scale = std::abs(ref.energy.fene) + std::abs(ref.energy.native) + std::abs(ref.energy.repulsive);
    EXPECT_NEAR(energies[r].fene, ref.energy.fene, 1e-5 * scale);
    EXPECT_NEAR(energies[r].native, ref.energy.native, 1e-5 * scale);
    EXPECT_NEAR(energies[r].repulsive, ref.energy.repulsive, 1e-5 * scale);
  }
  double max_force = 0, max_error = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    max_force = std::max(max_force, norm(ref.forces[i]));
    const Vec3d f{forces.x[i], forces.y[i], forces.z[i]};
    max_error = std::max(max_error, norm(f - ref.forces[i]));
  }
  // A bead's force is a float sum of ~10² pair terms of up to ~1 kcal/mol/Å each (they
  // cancel near the native state): rounding gives ~1e-5 per term, so allow 2e-4 absolute
  // plus 1e-4 of the largest force.
  EXPECT_LT(max_error, 2e-4 + 1e-4 * max_force) << "max force " << max_force;
}

LoadedSystem pf8() {
  InputSpec input;
  input.topology = test::shared_data() / "sopgpu/pf8/PF8.top";
  input.coordinates = test::shared_data() / "sopgpu/pf8/PF8_sop.pdb";
  return load_system(input, ModelBuildSpec{});
}

// 1UBQ from Debian's freesasa package (76 beads); nullopt when the file is missing, so
// that the test fails with a message that says where the file comes from.
const std::filesystem::path kUbiquitinPdb = "/usr/share/freesasa/test-data/1ubq.pdb";
std::optional<LoadedSystem> ubiquitin() {
  if (!std::filesystem::exists(kUbiquitinPdb)) return std::nullopt;
  InputSpec input;
  input.structure = kUbiquitinPdb;
  return load_system(input, ModelBuildSpec{});
}
std::string ubiquitin_missing() {
  return kUbiquitinPdb.string() + " not found (the Debian package freesasa: scripts/setup.sh installs it)";
}

double& component(Vec3d& v, int k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; }

double reference_total(const Topology& topology, const std::vector<Vec3d>& x) {
  const EnergyTerms e = evaluate_reference(topology, SopParameters{}, x).energy;
  return e.fene + e.native + e.repulsive;
}

// Central differences of evaluate_reference's double energy, every coordinate of every
// bead, against its forces. Returns the largest |F_fd − F| over all components.
//
// Step and tolerance: with U in double, F_fd = −[U(x+h) − U(x−h)]/2h errs by the
// truncation h²/6·|U'''| plus the rounding ~ε·Σ|u_pair|/h. Here |U'''| ≲ 10² kcal/mol/Å³
// (repulsion at r ≈ σ: 336 ε_l/σ³ ≈ 6; native contacts ~10; FENE stretched by ≤ 1 Å of
// its R0 = 2 Å: ~10²) and Σ|u_pair| ≲ 10³ kcal/mol (a few thousand terms), so h = 1e-5 Å
// balances both at ~1e-8 kcal/mol/Å (measured: at most 3e-9 for WW, 4e-9 for ubiquitin).
// Forces are 0.1–10 kcal/mol/Å, and an error in a derivative (a factor, a sign, a missing
// term) is of their order: 1e-6 absolute plus 1e-6 relative passes rounding by 250× and
// catches any of them (a force off by 1e-5 of itself fails).
//
// The pair set: the reference lists candidates within cutoff + 1 Å (float positions)
// and keeps those with r² < r_cut² (double). Moving one coordinate by ±h changes every
// distance by at most h, so as long as no repulsive pair is within 10 h of r_cut the
// kept set is the same in all 2·3N evaluations (and the candidate list may change only
// at 21 Å, where a pair contributes nothing either way). The unshifted U jumps by
// ε_l(σ/r_cut)⁶ = 4.7e-5 kcal/mol at r_cut: a pair crossing it would put 2.4 kcal/mol/Å
// into one difference. The displaced structures are checked to have no such pair.
double largest_gradient_error(const LoadedSystem& s, double displacement_A) {
  const Topology& topology = s.topology;
  const std::int32_t n = topology.bead_count();
  std::vector<Vec3d> x = displaced(s, displacement_A);
  constexpr double h = 1e-5;
  const double cutoff = SopParameters{}.pair_cutoff_A;
  const ExclusionList exclusions = build_exclusions(topology);
  double closest = INFINITY;
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t j = i + 1; j < n; ++j)
      if (!exclusions.excluded(i, j)) closest = std::min(closest, std::abs(norm(x[i] - x[j]) - cutoff));
  // A pair at the cutoff would make the force checks below fail for a reason not theirs.
  if (!(closest > 10 * h)) {
    ADD_FAILURE() << "a repulsive pair sits " << closest << " Å from the cutoff: pick another displacement";
    return 0.0;
  }

  const ReferenceEvaluation ref = evaluate_reference(topology, SopParameters{}, x);
  double worst = 0.0, largest = 0.0;
  for (std::int32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      double& c = component(x[i], k);
      const double c0 = c;
      c = c0 + h;
      const double plus_at = c;
      const double u_plus = reference_total(topology, x);
      c = c0 - h;
      const double minus_at = c;
      const double u_minus = reference_total(topology, x);
      c = c0;
      const double fd = -(u_plus - u_minus) / (plus_at - minus_at);  // the step as represented
      Vec3d f = ref.forces[i];
      const double analytic = component(f, k);
      largest = std::max(largest, std::abs(analytic));
      worst = std::max(worst, std::abs(fd - analytic));
      EXPECT_NEAR(fd, analytic, 1e-6 + 1e-6 * std::abs(analytic)) << "bead " << i << ", component " << k;
    }
  EXPECT_GT(largest, 1.0) << "the displaced structure should have forces of kcal/mol/Å";
  return worst;
}

}  // namespace

TEST(CpuEngineForces, Pf8NativeAndDisplacedMatchDoubleReference) {
  const LoadedSystem s = pf8();
  expect_engine_matches_reference(s, 1, 0.0);
  expect_engine_matches_reference(s, 2, 0.4);
}

TEST(CpuEngineForces, UbiquitinMatchesDoubleReference) {
  const auto s = ubiquitin();
  if (!s) FAIL() << ubiquitin_missing();
  expect_engine_matches_reference(*s, 2, 0.3);
}

// The double reference — through which the engine's forces are checked above — has
// forces equal to −∇ of its own total energy (FENE + native + repulsive): a check of the
// physics functions' derivatives, and of the bookkeeping (signs, both beads of each term,
// bonds, contacts and repulsive pairs each counted once), at the level of the whole
// system. WW (34 beads) and ubiquitin (76), displaced by 0.3 Å so that every term
// has a force. Tolerances: largest_gradient_error.
TEST(CpuEngineForces, ReferenceForcesAreMinusTheGradientOfItsEnergy) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "WW test data not found (the shared test data: set ERMAK_SHARED_DATA)";
  const auto ubq = ubiquitin();
  if (!ubq) FAIL() << ubiquitin_missing();
  for (const auto& [name, system] : {std::pair<const char*, const LoadedSystem*>{"ww", &*ww}, {"ubq", &*ubq}}) {
    SCOPED_TRACE(name);
    const double worst = largest_gradient_error(*system, 0.3);
    std::printf("[ %s ] max |F_fd - F_reference| = %.3g kcal/mol/A\n", name, worst);
  }
}

namespace {

using test::kLoneBeads;
using test::lone_beads;

// ε_l(σ/r)⁶ of beads i, j at their float positions, and the force on i, (6 ε_l σ⁶/r⁸)(x_i − x_j).
struct PairTerm {
  double energy;
  Vec3d force_on_i;
};
PairTerm repulsion_of(const std::vector<Vec3f>& x, std::int32_t i, std::int32_t j) {
  const SopParameters sop;
  const double eps = sop.repulsion_eps_kcal_per_mol, sigma = sop.repulsion_sigma_A;
  const Vec3d d = vec_cast<double>(x[i]) - vec_cast<double>(x[j]);
  const double r = norm(d), s6 = std::pow(sigma / r, 6);
  return {eps * s6, (6 * eps * s6 / (r * r)) * d};
}

}  // namespace

// Two lone pairs of beads, one at 19.99 Å and one at 20.01 Å (the default cutoff is
// 20 Å), both within the list's cutoff + skin (23 Å), so that only the cutoff test inside
// the force loop tells them apart. Replica 0 has the near pair (1, 10) and the far pair
// (6, 11), replica 1 the other way round; 1 and 2 threads. The near pair's energy is
// ε_l(σ/r)⁶ to 1e-5 (a float evaluation: ~1e-6), its force −dU/dr along the pair to 1e-4
// of it (the same in a float vector loop, ~1e-6); every other bead's force is exactly zero,
// and so are FENE and native energies. The double reference agrees to 1e-12.
TEST(CpuEngineForces, RepulsionStopsAtThePairCutoff) {
  const Topology topology = lone_beads();
  const SopParameters sop;
  ASSERT_EQ(sop.pair_cutoff_A, 20.0f);
  const double list_cutoff = sop.pair_cutoff_A + EngineSetup{}.neighbor_skin_A;
  const std::vector<Vec3f> replica[2] = {test::lone_bead_pairs(19.99, 20.01), test::lone_bead_pairs(20.01, 19.99)};
  const std::pair<std::int32_t, std::int32_t> near[2] = {{1, 10}, {6, 11}}, far[2] = {{6, 11}, {1, 10}};
  for (int r = 0; r < 2; ++r)
    for (std::int32_t i = 0; i < kLoneBeads; ++i)
      for (std::int32_t j = i + 1; j < kLoneBeads; ++j) {
        const double d = norm(vec_cast<double>(replica[r][i]) - vec_cast<double>(replica[r][j]));
        if (std::pair{i, j} == near[r]) ASSERT_NEAR(d, 19.99, 1e-5);
        else if (std::pair{i, j} == far[r]) ASSERT_NEAR(d, 20.01, 1e-5);
        else ASSERT_GT(d, list_cutoff) << "beads " << i << ", " << j;
      }
  State state(kLoneBeads, 2);
  for (int r = 0; r < 2; ++r)
    for (std::int32_t i = 0; i < kLoneBeads; ++i) state.set_position(r, i, replica[r][i]);

  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    EngineSetup setup;
    setup.topology = &topology;
    setup.replicas = 2;
    setup.threads = threads;
    auto engine = make_cpu_engine(setup);
    engine->set_state(state);
    const auto energies = engine->energies();
    const State forces = engine->forces();
    // Both pairs of each replica are in the list: the skin holds the far one.
    EXPECT_EQ(engine->stats().neighbor_pairs, 4);
    for (int r = 0; r < 2; ++r) {
      SCOPED_TRACE("replica " + std::to_string(r));
      const PairTerm expected = repulsion_of(replica[r], near[r].first, near[r].second);
      EXPECT_EQ(energies[r].fene, 0.0);
      EXPECT_EQ(energies[r].native, 0.0);
      EXPECT_NEAR(energies[r].repulsive, expected.energy, 1e-5 * expected.energy);
      for (std::int32_t i = 0; i < kLoneBeads; ++i) {
        const Vec3d f = vec_cast<double>(forces.position(r, i));
        if (i == near[r].first || i == near[r].second) {
          const Vec3d want = i == near[r].first ? expected.force_on_i : -expected.force_on_i;
          EXPECT_LE(norm(f - want), 1e-4 * norm(want)) << "bead " << i << ": " << f.x << " " << f.y << " " << f.z;
        } else {
          EXPECT_EQ(f.x, 0.0) << "bead " << i;
          EXPECT_EQ(f.y, 0.0) << "bead " << i;
          EXPECT_EQ(f.z, 0.0) << "bead " << i;
        }
      }
    }
  }
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE("reference, replica " + std::to_string(r));
    std::vector<Vec3d> x;
    for (const Vec3f& p : replica[r]) x.push_back(vec_cast<double>(p));
    const ReferenceEvaluation ref = evaluate_reference(topology, sop, x);
    const PairTerm expected = repulsion_of(replica[r], near[r].first, near[r].second);
    EXPECT_NEAR(ref.energy.repulsive, expected.energy, 1e-12 * expected.energy);
    for (std::int32_t i = 0; i < kLoneBeads; ++i) {
      const bool in_near = i == near[r].first || i == near[r].second;
      const Vec3d want = !in_near ? Vec3d{} : i == near[r].first ? expected.force_on_i : -expected.force_on_i;
      if (in_near) EXPECT_LE(norm(ref.forces[i] - want), 1e-12 * norm(want)) << "bead " << i;
      else EXPECT_EQ(norm(ref.forces[i]), 0.0) << "bead " << i;
    }
  }
}
