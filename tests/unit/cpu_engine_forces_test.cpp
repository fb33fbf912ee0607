// The CPU engine's float forces and energies (cluster list, chunked sums) equal the
// double-precision reference evaluation through the same physics functions.
#include <gtest/gtest.h>

#include <cmath>

#include "ermak/backend/cpu/reference_energy.h"
#include "ermak/io/load_system.h"
#include "support/test_paths.h"

using namespace ermak;

namespace {

void expect_engine_matches_reference(const LoadedSystem& s, int threads, double displacement_A) {
  const std::int32_t n = s.topology.bead_count();
  std::vector<Vec3d> x = s.initial_positions_A;
  for (std::int32_t i = 0; i < n; ++i)  // deterministic, irregular offsets
    x[i] += displacement_A * Vec3d{std::sin(1.3 * i), std::cos(0.7 * i), std::sin(2.9 * i + 0.5)};
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

}  // namespace

TEST(CpuEngineForces, Pf8NativeAndDisplacedMatchDoubleReference) {
  const LoadedSystem s = pf8();
  expect_engine_matches_reference(s, 1, 0.0);
  expect_engine_matches_reference(s, 2, 0.4);
}

TEST(CpuEngineForces, UbiquitinMatchesDoubleReference) {
  InputSpec input;
  input.structure = "/usr/share/freesasa/test-data/1ubq.pdb";
  const LoadedSystem s = load_system(input, ModelBuildSpec{});
  expect_engine_matches_reference(s, 2, 0.3);
}
