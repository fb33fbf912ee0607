// What a report stop takes from an engine instead of every position
// (Engine::bead_positions, backend/protocol_reports.h): the listed beads of every replica,
// and tether and plane forces from the beads concerned alone that equal those from the
// full state.
// The CUDA engine's gather is checked against its own state in tests/cuda.
#include <gtest/gtest.h>

#include "ermak/backend/engine.h"
#include "ermak/backend/protocol_reports.h"
#include "ermak/core/error.h"

using namespace ermak;

namespace {

// A chain of 6 beads along x, 3 replicas shifted in y.
Topology chain() {
  Topology t;
  for (int i = 0; i < 6; ++i) t.beads.push_back(BeadInfo{});
  for (int i = 0; i + 1 < 6; ++i) t.bonds.push_back({i, i + 1, 3.8f});
  return t;
}

State chain_state(std::int32_t replicas) {
  State s(6, replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < 6; ++i) s.set_position(r, i, {3.8f * float(i), 10.0f * float(r), 0.1f * float(i * r)});
  s.step = 250;
  return s;
}

// Three replicas of `t` (which must outlive the setup).
EngineSetup chain_setup(const Topology& t) {
  EngineSetup setup;
  setup.topology = &t;
  setup.replicas = 3;
  setup.langevin.timestep_tau = 0.08;
  return setup;
}

}  // namespace

TEST(BeadPositions, CpuEngineListsTheBeadsOfEveryReplica) {
  const Topology t = chain();
  auto engine = make_cpu_engine(chain_setup(t));
  const State s = chain_state(3);
  engine->set_state(s);
  const std::vector<std::int32_t> beads = {5, 0, 5};
  const std::vector<Vec3f> p = engine->bead_positions(beads);
  ASSERT_EQ(p.size(), 9u);
  for (std::int32_t r = 0; r < 3; ++r)
    for (std::size_t k = 0; k < beads.size(); ++k) {
      const Vec3f expected = s.position(r, beads[k]);
      EXPECT_EQ(p[std::size_t(r) * 3 + k].x, expected.x);
      EXPECT_EQ(p[std::size_t(r) * 3 + k].y, expected.y);
      EXPECT_EQ(p[std::size_t(r) * 3 + k].z, expected.z);
    }
  EXPECT_THROW(engine->bead_positions({6}), Error);
  EXPECT_THROW(engine->bead_positions({-1}), Error);
  EXPECT_TRUE(engine->may_be_unstable()) << "the CPU engine leaves the checks to the host's exact tests";
}

TEST(BeadPositions, TetherForcesFromTheTetheredBeadsEqualThoseFromTheState) {
  const Topology t = chain();
  EngineSetup setup = chain_setup(t);
  HarmonicTether all;  // every replica
  all.bead = 4;
  all.anchor_start_A = {1.0, 2.0, 3.0};
  all.anchor_velocity_A_per_tau = {0.5, 0.0, -0.25};
  all.spring_kcal_per_mol_A2 = 0.7;
  all.start_step = 100;
  HarmonicTether one = all;  // replica 2 only, a bead listed before the other's
  one.bead = 1;
  one.replica = 2;
  one.spring_kcal_per_mol_A2 = 2.0;
  HarmonicTether again = all;  // a second spring on bead 4 of replica 0
  again.replica = 0;
  setup.tethers = {all, one, again};
  EXPECT_EQ(tethered_beads(setup), (std::vector<std::int32_t>{1, 4}));
  const State s = chain_state(3);
  const std::vector<Vec3d> from_state = report_tether_forces(setup, s);
  const std::vector<Vec3d> from_beads = report_tether_forces(setup, s.step, 3, s.positions_of(tethered_beads(setup)));
  ASSERT_EQ(from_state.size(), 5u);  // replica 0: two springs; 1: one; 2: two
  ASSERT_EQ(from_beads.size(), from_state.size());
  for (std::size_t k = 0; k < from_state.size(); ++k) {
    EXPECT_EQ(from_beads[k].x, from_state[k].x) << k;
    EXPECT_EQ(from_beads[k].y, from_state[k].y) << k;
    EXPECT_EQ(from_beads[k].z, from_state[k].z) << k;
  }
  // Not a trivial agreement: the springs pull differently in different replicas.
  EXPECT_NE(from_state[0].y, from_state[2].y);
}

TEST(BeadPositions, PlaneForcesFromThePlaneTetheredBeadsEqualThoseFromTheState) {
  const Topology t = chain();
  EngineSetup setup = chain_setup(t);
  PlaneTether a;  // group 0, every replica
  a.bead = 5;
  a.normal = {0.0, 1.0, 0.0};
  a.plane_start_A = 4.0;
  a.speed_A_per_tau = 0.3;
  a.spring_kcal_per_mol_A2 = 2.0;
  PlaneTether b = a;  // group 1, replica 1 only, a lower bead
  b.bead = 2;
  b.replica = 1;
  b.group = 1;
  b.normal = {0.6, 0.0, 0.8};
  PlaneTether c = a;  // a second bead in group 0
  c.bead = 3;
  setup.plane_tethers = {a, b, c};
  setup.plane_groups = 2;
  EXPECT_EQ(plane_tethered_beads(setup), (std::vector<std::int32_t>{2, 3, 5}));
  const State s = chain_state(3);
  const std::vector<double> from_state = report_plane_forces(setup, s);
  const std::vector<double> from_beads = report_plane_forces(setup, s.step, 3, s.positions_of(plane_tethered_beads(setup)));
  ASSERT_EQ(from_state.size(), 6u);
  EXPECT_EQ(from_beads, from_state);
  EXPECT_NE(from_state[3], 0.0) << "replica 1's second group";
  EXPECT_EQ(from_state[5], 0.0) << "replica 2 has no tether in group 1";
}
