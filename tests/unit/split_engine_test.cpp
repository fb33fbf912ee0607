// A run's replicas split over several engines (backend/split_engine.h, docs/gpu.md#several-gpus):
// with CPU engines as the parts, every replica must move bit for bit as in one engine of
// the whole run — the parts draw the noise of their replicas' indices in the run and get
// the protocols of their replicas — and everything the Engine interface returns must come
// back in the whole run's order and format (checkpoints resume across the split). The
// CUDA parts (one per GPU) are checked against one GPU engine in tests/cuda/cuda_run_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <optional>

#include "ermak/backend/split_engine.h"
#include "ermak/core/error.h"
#include "ermak/io/load_system.h"
#include "support/test_systems.h"

namespace ermak {
namespace {

constexpr std::int32_t kReplicas = 7;

// Replicas of the start structure, each displaced a little differently.
State start_state(const LoadedSystem& s) {
  const std::int32_t n = s.topology.bead_count();
  State state(n, kReplicas);
  for (std::int32_t r = 0; r < kReplicas; ++r)
    for (std::int32_t i = 0; i < n; ++i) {
      const double phase = 0.37 * r + 0.11 * i;
      state.set_position(r, i, vec_cast<float>(s.initial_positions_A[i] + Vec3d{0.04 * std::sin(phase) * r,
                                                                                 0.04 * std::cos(phase) * r, 0.0}));
    }
  return state;
}

// Protocols for every replica and for single ones: a restraint of bead 0 everywhere, a
// moving cantilever on the last bead of replica 4, a force clamp in replica 2, plane
// tethers (the second group in replica 6 only) and a fixed bead.
EngineSetup protocol_setup(const LoadedSystem& s) {
  const std::int32_t n = s.topology.bead_count();
  const auto& p0 = s.initial_positions_A;
  EngineSetup setup;
  setup.topology = &s.topology;
  setup.replicas = kReplicas;
  setup.seed = 4711;
  setup.threads = 1;
  HarmonicTether restraint;
  restraint.bead = 0;
  restraint.anchor_start_A = p0[0];
  restraint.spring_kcal_per_mol_A2 = 1.0;
  HarmonicTether cantilever;
  cantilever.bead = n - 1;
  cantilever.replica = 4;
  cantilever.anchor_start_A = p0[n - 1];
  cantilever.anchor_velocity_A_per_tau = {0.2, 0.0, -0.1};
  cantilever.spring_kcal_per_mol_A2 = 0.5;
  setup.tethers = {restraint, cantilever};
  ExternalForce clamp;
  clamp.bead = 20;
  clamp.replica = 2;
  clamp.direction = {0.0, -1.0, 0.0};
  setup.external_forces = {clamp};
  setup.force_schedule.points = {{0, 0.0}, {200, 3.0}};
  PlaneTether plane;
  plane.bead = 12;
  plane.normal = {0.0, 1.0, 0.0};
  plane.plane_start_A = p0[12].y;
  plane.speed_A_per_tau = 0.3;
  plane.spring_kcal_per_mol_A2 = 2.0;
  PlaneTether plane2 = plane;
  plane2.bead = 13;
  plane2.replica = 6;
  plane2.group = 1;
  setup.plane_tethers = {plane, plane2};
  setup.plane_groups = 2;
  setup.fixed_beads = {5};
  return setup;
}

std::unique_ptr<Engine> split_cpu(const EngineSetup& setup, int parts) {
  return std::make_unique<SplitEngine>(setup, parts, [](const EngineSetup& part, int) { return make_cpu_engine(part); });
}

bool same_bits(const State& a, const State& b) {
  auto same = [](const std::vector<float>& u, const std::vector<float>& v) {
    return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(float)) == 0;
  };
  return a.step == b.step && a.replica_count == b.replica_count && same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z);
}

void expect_same_engines(Engine& whole, Engine& split) {
  EXPECT_TRUE(same_bits(whole.state(), split.state())) << "step " << whole.state().step;
  EXPECT_TRUE(same_bits(whole.neighbor_reference(), split.neighbor_reference()));
  EXPECT_TRUE(same_bits(whole.forces(), split.forces()));
  const auto ea = whole.energies(), eb = split.energies();
  ASSERT_EQ(ea.size(), eb.size());
  for (std::size_t r = 0; r < ea.size(); ++r) {
    EXPECT_EQ(ea[r].fene, eb[r].fene);
    EXPECT_EQ(ea[r].native, eb[r].native);
    EXPECT_EQ(ea[r].repulsive, eb[r].repulsive);
    EXPECT_EQ(ea[r].protocol, eb[r].protocol);
  }
  const auto sa = whole.structure_observables(1.2, 0, 33), sb = split.structure_observables(1.2, 0, 33);
  ASSERT_EQ(sa.size(), sb.size());
  for (std::size_t r = 0; r < sa.size(); ++r) {
    EXPECT_EQ(sa[r].native_fraction, sb[r].native_fraction);
    EXPECT_EQ(sa[r].radius_of_gyration_A, sb[r].radius_of_gyration_A);
  }
  const auto ta = whole.tether_forces_kcal_per_mol_A(), tb = split.tether_forces_kcal_per_mol_A();
  ASSERT_EQ(ta.size(), tb.size());
  for (std::size_t k = 0; k < ta.size(); ++k) {
    EXPECT_EQ(ta[k].x, tb[k].x); EXPECT_EQ(ta[k].y, tb[k].y); EXPECT_EQ(ta[k].z, tb[k].z);
  }
  EXPECT_EQ(whole.plane_forces_kcal_per_mol_A(), split.plane_forces_kcal_per_mol_A());
  EXPECT_EQ(whole.protocol_state(), split.protocol_state());
  const std::vector<std::int32_t> beads = {33, 0};
  const auto ba = whole.bead_positions(beads), bb = split.bead_positions(beads);
  ASSERT_EQ(ba.size(), bb.size());
  for (std::size_t k = 0; k < ba.size(); ++k) EXPECT_EQ(ba[k].x, bb[k].x);
  EXPECT_EQ(whole.stats().neighbor_pairs, split.stats().neighbor_pairs);
}

TEST(SplitReplicas, ContiguousSlicesThatDifferByAtMostOne) {
  const auto s = split_replicas(7, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].first, 0); EXPECT_EQ(s[0].count, 3);
  EXPECT_EQ(s[1].first, 3); EXPECT_EQ(s[1].count, 2);
  EXPECT_EQ(s[2].first, 5); EXPECT_EQ(s[2].count, 2);
  const auto one = split_replicas(5, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].count, 5);
  const auto each = split_replicas(4, 4);
  for (int k = 0; k < 4; ++k) { EXPECT_EQ(each[k].first, k); EXPECT_EQ(each[k].count, 1); }
  EXPECT_THROW(split_replicas(3, 4), Error);
  EXPECT_THROW(split_replicas(3, 0), Error);
}

TEST(SplitReplicas, SliceSetupKeepsTheProtocolsOfItsReplicasRenumbered) {
  Topology t;
  EngineSetup run;
  run.topology = &t;
  run.replicas = 7;
  run.devices = {0, 1, 2};
  HarmonicTether all, four, one;
  all.bead = 1;
  four.bead = 2;
  four.replica = 4;
  one.bead = 3;
  one.replica = 1;
  run.tethers = {all, four, one};
  ExternalForce clamp;
  clamp.replica = 5;
  run.external_forces = {clamp};
  PlaneTether plane;
  plane.replica = 6;
  run.plane_tethers = {plane};
  const EngineSetup middle = slice_setup(run, {3, 2});  // replicas 3 and 4
  EXPECT_EQ(middle.replicas, 2);
  EXPECT_EQ(middle.replica_offset, 3);
  EXPECT_TRUE(middle.devices.empty());
  ASSERT_EQ(middle.tethers.size(), 2u);
  EXPECT_EQ(middle.tethers[0].bead, 1);
  EXPECT_EQ(middle.tethers[0].replica, -1);
  EXPECT_EQ(middle.tethers[1].bead, 2);
  EXPECT_EQ(middle.tethers[1].replica, 1);
  EXPECT_TRUE(middle.external_forces.empty());
  EXPECT_TRUE(middle.plane_tethers.empty());
  const EngineSetup last = slice_setup(run, {5, 2});
  ASSERT_EQ(last.external_forces.size(), 1u);
  EXPECT_EQ(last.external_forces[0].replica, 0);
  ASSERT_EQ(last.plane_tethers.size(), 1u);
  EXPECT_EQ(last.plane_tethers[0].replica, 1);
  EXPECT_EQ(slice_setup(middle, {1, 1}).replica_offset, 4) << "offsets add up";
}

TEST(SplitEngine, EveryReplicaMovesAsInOneEngineOfTheWholeRun) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const EngineSetup setup = protocol_setup(*ww);
  auto whole = make_cpu_engine(setup);
  auto split = split_cpu(setup, 3);
  const State start = start_state(*ww);
  whole->set_state(start);
  split->set_state(start);
  EXPECT_EQ(split->name(), "cpu");
  EXPECT_EQ(split->noise_name(), whole->noise_name());
  for (std::int64_t steps : {150, 250}) {
    whole->advance(steps);
    split->advance(steps);
    expect_same_engines(*whole, *split);
  }
  // Overlapped stops: the stop's values, then the next steps on the parts' threads.
  StopRequest request;
  request.positions = true;
  request.energies = true;
  request.beads = {33};
  request.tether_forces = true;
  request.plane_forces = true;
  const StopValues a = whole->stop_and_advance(request, 100);
  const StopValues b = split->stop_and_advance(request, 100);
  EXPECT_TRUE(same_bits(a.positions, b.positions));
  ASSERT_EQ(a.energies.size(), b.energies.size());
  for (std::size_t r = 0; r < a.energies.size(); ++r) EXPECT_EQ(a.energies[r].total(), b.energies[r].total());
  EXPECT_EQ(a.tether_forces_kcal_per_mol_A.size(), b.tether_forces_kcal_per_mol_A.size());
  EXPECT_EQ(a.plane_forces_kcal_per_mol_A, b.plane_forces_kcal_per_mol_A);
  EXPECT_EQ(a.bead_positions.size(), b.bead_positions.size());
  EXPECT_EQ(a.may_be_unstable, b.may_be_unstable);
  EXPECT_TRUE(split->overlaps_stops());
  expect_same_engines(*whole, *split);  // waits for the steps under way
  EXPECT_EQ(split->state().step, 500);
}

TEST(SplitEngine, IndentationTipsAndMinimisationAsInOneEngine) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  EngineSetup setup = protocol_setup(*ww);
  setup.tethers.clear();
  setup.external_forces.clear();
  setup.plane_tethers.clear();
  setup.plane_groups = 0;
  Vec3d hi{-1e30, -1e30, -1e30}, mean{};
  for (const auto& p : ww->initial_positions_A) {
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    mean += p;
  }
  mean = (1.0 / double(ww->initial_positions_A.size())) * mean;
  Indentation& ind = setup.indentation;
  ind.enabled = true;
  ind.tip = {0.0, 1.0, 1.0, 1.0, 15.0};
  ind.tip_start_A = {mean.x, mean.y, hi.z + 19.0};
  ind.base_start_A = ind.tip_start_A;
  ind.direction = {0, 0, -1};
  ind.speed_A_per_tau = 0.25;
  ind.spring_kcal_per_mol_A2 = 0.5;
  ind.tip_zeta = 5000.0;
  auto whole = make_cpu_engine(setup);
  auto split = split_cpu(setup, 2);
  const State start = start_state(*ww);
  whole->set_state(start);
  split->set_state(start);
  const MinimizeResult ma = whole->minimize(50, 1e-3, 0.1, {}), mb = split->minimize(50, 1e-3, 0.1, {});
  EXPECT_EQ(ma.iterations, mb.iterations);
  EXPECT_EQ(ma.max_force_kcal_per_mol_A, mb.max_force_kcal_per_mol_A);
  EXPECT_EQ(ma.converged, mb.converged);
  EXPECT_TRUE(same_bits(whole->state(), split->state()));
  whole->advance(300);
  split->advance(300);
  expect_same_engines(*whole, *split);
  const auto ia = whole->indentation_status(), ib = split->indentation_status();
  ASSERT_EQ(ia.size(), std::size_t(kReplicas));
  ASSERT_EQ(ib.size(), ia.size());
  for (std::size_t r = 0; r < ia.size(); ++r) {
    EXPECT_EQ(ia[r].tip_A.x, ib[r].tip_A.x);
    EXPECT_EQ(ia[r].tip_A.z, ib[r].tip_A.z);
    EXPECT_EQ(ia[r].molecule_force_kcal_per_mol_A.z, ib[r].molecule_force_kcal_per_mol_A.z);
  }
}

TEST(SplitEngine, CheckpointOfASplitRunResumesInOneEngineAndBack) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const EngineSetup setup = protocol_setup(*ww);
  auto uninterrupted = split_cpu(setup, 3);
  uninterrupted->set_state(start_state(*ww));
  uninterrupted->advance(200);
  // What a checkpoint keeps of the split run, restored into one engine and into another split.
  const State positions = uninterrupted->state();
  const State reference = uninterrupted->neighbor_reference();
  const std::vector<double> protocol = uninterrupted->protocol_state();
  const std::vector<std::uint8_t> noise = uninterrupted->noise_state();
  auto one = make_cpu_engine(setup);
  auto two = split_cpu(setup, 2);
  for (Engine* e : {one.get(), two.get()}) {
    e->set_state(positions);
    e->restore_neighbor_reference(reference);
    e->restore_protocol_state(protocol);
    e->restore_noise_state(noise);
    e->advance(300);
  }
  uninterrupted->advance(300);
  EXPECT_TRUE(same_bits(uninterrupted->state(), one->state()));
  EXPECT_TRUE(same_bits(uninterrupted->state(), two->state()));
  EXPECT_EQ(noise, one->noise_state()) << "the same bytes as one engine's";
}

// A CPU engine that overlaps its stops as the CUDA block family does: a stop's values
// carry its positions only where its screen flags the stop (here: a fixed answer), and
// it keeps the stop's positions for last_stop_positions().
class OverlappingPart final : public Engine {
 public:
  OverlappingPart(std::unique_ptr<Engine> inner, bool flags) : inner_(std::move(inner)), flags_(flags) {}
  std::string name() const override { return inner_->name(); }
  void set_state(const State& s) override { inner_->set_state(s); }
  const State& state() override { return inner_->state(); }
  void advance(std::int64_t steps) override { inner_->advance(steps); }
  std::vector<Vec3f> bead_positions(const std::vector<std::int32_t>& b) override { return inner_->bead_positions(b); }
  bool may_be_unstable() override { return flags_; }
  std::vector<EnergyTerms> energies() override { return inner_->energies(); }
  std::vector<StructureObservables> structure_observables(double f, std::int32_t a, std::int32_t b) override {
    return inner_->structure_observables(f, a, b);
  }
  State forces() override { return inner_->forces(); }
  MinimizeResult minimize(std::int64_t i, double f, double d, const StopRequested& s) override {
    return inner_->minimize(i, f, d, s);
  }
  State neighbor_reference() override { return inner_->neighbor_reference(); }
  void restore_neighbor_reference(const State& r) override { inner_->restore_neighbor_reference(r); }
  std::vector<Vec3d> tether_forces_kcal_per_mol_A() override { return inner_->tether_forces_kcal_per_mol_A(); }
  std::vector<double> plane_forces_kcal_per_mol_A() override { return inner_->plane_forces_kcal_per_mol_A(); }
  std::vector<IndentationStatus> indentation_status() override { return inner_->indentation_status(); }
  std::vector<double> protocol_state() override { return inner_->protocol_state(); }
  void restore_protocol_state(const std::vector<double>& s) override { inner_->restore_protocol_state(s); }
  std::vector<std::uint8_t> noise_state() override { return inner_->noise_state(); }
  void restore_noise_state(const std::vector<std::uint8_t>& b) override { inner_->restore_noise_state(b); }
  std::string noise_name() const override { return inner_->noise_name(); }
  EngineStats stats() const override { return inner_->stats(); }
  bool overlaps_stops() const override { return true; }
  StopValues stop_and_advance(const StopRequest& request, std::int64_t next_steps) override {
    StopValues v = take_stop_values(*this, request);
    kept_ = inner_->state();
    if (v.may_be_unstable && v.positions.x.empty()) v.positions = kept_;
    inner_->advance(next_steps);
    ++overlapped;
    return v;
  }
  bool last_stop_positions(State& out) override {
    out = kept_;
    return true;
  }
  int overlapped = 0;

 private:
  std::unique_ptr<Engine> inner_;
  bool flags_;
  State kept_;
};

// Where every part overlaps its stops, each takes its stop beside its next steps; when one
// part's screen flags the stop, the others' kept positions complete the run's positions at
// the stop for the exact checks.
TEST(SplitEngine, OverlappingPartsTakeTheirStopsBesideTheirSteps) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const EngineSetup setup = protocol_setup(*ww);
  for (const int flagging_part : {-1, 1}) {
    SCOPED_TRACE(flagging_part);
    std::vector<OverlappingPart*> parts;
    SplitEngine split(setup, 3, [&](const EngineSetup& part, int k) {
      auto e = std::make_unique<OverlappingPart>(make_cpu_engine(part), k == flagging_part);
      parts.push_back(e.get());
      return e;
    });
    auto whole = make_cpu_engine(setup);
    const State start = start_state(*ww);
    whole->set_state(start);
    split.set_state(start);
    whole->advance(100);
    split.advance(100);
    StopRequest request;
    request.energies = true;
    const StopValues v = split.stop_and_advance(request, 150);
    for (const OverlappingPart* p : parts) EXPECT_EQ(p->overlapped, 1);
    EXPECT_EQ(v.may_be_unstable, flagging_part >= 0);
    if (flagging_part >= 0) {
      EXPECT_TRUE(same_bits(v.positions, whole->state())) << "every replica at the stop";
    } else {
      EXPECT_TRUE(v.positions.x.empty());
    }
    ASSERT_EQ(v.energies.size(), std::size_t(kReplicas));
    const auto e = whole->energies();
    for (std::size_t r = 0; r < e.size(); ++r) EXPECT_EQ(v.energies[r].total(), e[r].total());
    whole->advance(150);
    EXPECT_TRUE(same_bits(whole->state(), split.state()));
  }
}

TEST(SplitEngine, StatefulGeneratorsAreRefusedWithTheFix) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  EngineSetup setup = protocol_setup(*ww);
  setup.rng = "hybrid_taus";
  try {
    split_cpu(setup, 2);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("philox"), std::string::npos) << e.what();
  }
  setup.replica_offset = 3;
  EXPECT_THROW(make_cpu_engine(setup), Error) << "an engine of a slice draws Philox noise only";
  setup.rng = "philox";
  EXPECT_NO_THROW(make_cpu_engine(setup));
}

// A part that cannot be made (its GPU's memory) is named with its share of the replicas: its
// own message speaks of "this run" and its slice's count.
TEST(SplitEngine, APartThatFailsIsNamedWithItsReplicas) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  EngineSetup setup = protocol_setup(*ww);
  setup.replicas = 4;
  try {
    SplitEngine split(setup, 2, [](const EngineSetup& part, int k) -> std::unique_ptr<Engine> {
      if (k == 1) throw Error("this run needs 1 TiB (" + std::to_string(part.replicas) + " replicas)");
      return make_cpu_engine(part);
    });
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("part 2 of 2 (replicas 2 to 3 of 4): this run needs 1 TiB (2 replicas)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ermak
