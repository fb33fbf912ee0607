// Structure observables of the energy rows (docs/outputs.md#tsv-time-series): measure_structure
// on a hand-made model with known answers, and the CPU engine's
// Engine::structure_observables, which must be measure_structure itself (the CUDA
// engine's reduction is compared with it in tests/cuda/structure_observables_cuda_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <stdexcept>

#include "ermak/backend/engine.h"
#include "ermak/core/error.h"
#include "ermak/io/load_system.h"
#include "ermak/model/measure_structure.h"
#include "support/test_paths.h"
#include "support/test_systems.h"

using namespace ermak;

namespace {

// A 2 Å square in the xy plane, beads 0-1-2-3 around it; centre (1, 1, 0), every bead
// √2 Å from it, so Rg = √2 Å; ends 0 and 3 are 2 Å apart. The diagonals (2√2 ≈ 2.83 Å)
// are the two native contacts: r0 = 2 Å (formed below 1.5·2 = 3 Å) and r0 = 1.5 Å
// (broken: 2.83 > 1.5·1.5 = 2.25 Å).
struct Square {
  Topology topology;
  std::vector<float> x{0, 2, 2, 0}, y{0, 0, 2, 2}, z{0, 0, 0, 0};
  Square() {
    topology.beads.resize(4);
    topology.native_contacts = {{0, 2, 2.0f, 1.0f}, {1, 3, 1.5f, 1.0f}};
  }
};

TEST(MeasureStructure, SquareHasKnownQRgAndEndToEnd) {
  const Square s;
  const StructureObservables o = measure_structure(s.topology, s.x.data(), s.y.data(), s.z.data(), 1.5, 0, 3);
  EXPECT_DOUBLE_EQ(o.native_fraction, 0.5);
  EXPECT_DOUBLE_EQ(o.radius_of_gyration_A, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(o.end_to_end_A, 2.0);
  // A larger ratio forms both contacts, a smaller one neither.
  EXPECT_DOUBLE_EQ(measure_structure(s.topology, s.x.data(), s.y.data(), s.z.data(), 1.9, 0, 3).native_fraction, 1.0);
  EXPECT_DOUBLE_EQ(measure_structure(s.topology, s.x.data(), s.y.data(), s.z.data(), 1.4, 0, 3).native_fraction, 0.0);
  // The ends are the caller's: beads 0 and 2 are a diagonal apart.
  EXPECT_DOUBLE_EQ(measure_structure(s.topology, s.x.data(), s.y.data(), s.z.data(), 1.5, 0, 2).end_to_end_A,
                   2.0 * std::sqrt(2.0));
}

TEST(MeasureStructure, NoNativeContactsGivesQZero) {
  Square s;
  s.topology.native_contacts.clear();
  EXPECT_EQ(measure_structure(s.topology, s.x.data(), s.y.data(), s.z.data(), 1.5, 0, 3).native_fraction, 0.0);
}

TEST(StructureTerms, ContactAtExactlyTheThresholdIsNotFormed) {
  // r = ratio·r0 exactly (3 = 1.5·2, all exact in binary): formed means strictly closer.
  EXPECT_FALSE(structure::contact_formed(3.0f, 0.0f, 0.0f, 2.0f, 1.5));
  EXPECT_TRUE(structure::contact_formed(2.999f, 0.0f, 0.0f, 2.0f, 1.5));
}

LoadedSystem ww() {
  std::optional<LoadedSystem> system = test::load_ww_reference();
  if (!system) throw std::runtime_error("WW reference data not found under " + test::shared_data().string());
  return std::move(*system);
}

TEST(CpuEngineStructureObservables, EqualMeasureStructureOfEveryReplica) {
  const LoadedSystem s = ww();
  const std::int32_t n = s.topology.bead_count(), replicas = 3;
  EngineSetup setup;
  setup.topology = &s.topology;
  setup.replicas = replicas;
  setup.seed = 77;
  setup.threads = 1;
  auto engine = make_cpu_engine(setup);
  State start(n, replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < n; ++i) start.set_position(r, i, vec_cast<float>(s.initial_positions_A[i]));
  engine->set_state(start);
  engine->advance(300);  // replicas now differ
  const State& state = engine->state();
  bool some_partial_q = false;
  for (double ratio : {1.0, 1.5}) {
    const auto got = engine->structure_observables(ratio, 2, n - 3);
    ASSERT_EQ(got.size(), std::size_t(replicas));
    for (std::int32_t r = 0; r < replicas; ++r) {
      SCOPED_TRACE("replica " + std::to_string(r) + ", ratio " + std::to_string(ratio));
      const std::size_t o = state.index(r, 0);
      const StructureObservables want =
          measure_structure(s.topology, &state.x[o], &state.y[o], &state.z[o], ratio, 2, n - 3);
      EXPECT_EQ(got[r].native_fraction, want.native_fraction);
      EXPECT_EQ(got[r].radius_of_gyration_A, want.radius_of_gyration_A);
      EXPECT_EQ(got[r].end_to_end_A, want.end_to_end_A);
      some_partial_q = some_partial_q || (want.native_fraction > 0.0 && want.native_fraction < 1.0);
    }
  }
  EXPECT_TRUE(some_partial_q) << "the comparison should see formed and broken contacts";
}

TEST(CpuEngineStructureObservables, EndsOutsideTheModelAreAnError) {
  const LoadedSystem s = ww();
  EngineSetup setup;
  setup.topology = &s.topology;
  setup.threads = 1;
  auto engine = make_cpu_engine(setup);
  const std::int32_t n = s.topology.bead_count();
  EXPECT_THROW(engine->structure_observables(1.5, 0, n), Error);
  EXPECT_THROW(engine->structure_observables(1.5, -1, 0), Error);
}

// The energy tables' end-to-end runs between the chain's termini: the first and the last
// C-alpha, also when a C-alpha–C-beta model ends in a side-chain bead; a model without
// C-alpha names (or all C-alphas) uses its first and last bead.
TEST(ChainEnds, AreTheFirstAndLastCalphaBeads) {
  Topology t;
  for (const char* name : {"CA", "CA", "CB", "CA", "CB"}) {
    BeadInfo b;
    b.atom_name = name;
    t.beads.push_back(b);
  }
  EXPECT_EQ(chain_ends(t).first, 0);
  EXPECT_EQ(chain_ends(t).last, 3);
  t.beads.front().atom_name = "CB";
  EXPECT_EQ(chain_ends(t).first, 1);
  for (BeadInfo& b : t.beads) b.atom_name = "P";
  EXPECT_EQ(chain_ends(t).first, 0);
  EXPECT_EQ(chain_ends(t).last, 4);
  const LoadedSystem s = ww();
  EXPECT_EQ(chain_ends(s.topology).first, 0);
  EXPECT_EQ(chain_ends(s.topology).last, s.topology.bead_count() - 1);
}

}  // namespace
