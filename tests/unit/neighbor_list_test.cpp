// The cluster Verlet list holds exactly the non-excluded pairs within the list cutoff,
// each once, and the parallel build gives the same list as the serial one.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <set>

#include "ermak/io/load_system.h"
#include "ermak/neighbor/verlet_list.h"
#include "support/test_paths.h"

using namespace ermak;

namespace {

std::set<std::pair<int, int>> pairs_in(const VerletList& list, std::int32_t n) {
  std::set<std::pair<int, int>> out;
  EXPECT_EQ(list.row_count(), (n + kIClusterWidth - 1) / kIClusterWidth);
  for_each_listed_pair(list, [&](std::int32_t i, std::int32_t j) {
    EXPECT_LT(i, j) << "half list: each pair as (smaller, larger)";
    EXPECT_LT(j, n) << "padding lane marked as a partner";
    EXPECT_TRUE(out.insert({i, j}).second) << "pair listed twice: " << i << " " << j;
  });
  return out;
}

void expect_exact_list(const Topology& topology, const std::vector<float>& x, const std::vector<float>& y,
                       const std::vector<float>& z, float cutoff) {
  const std::int32_t n = topology.bead_count();
  const ExclusionList exclusions = build_exclusions(topology);
  CellListScratch scratch;
  VerletList serial, parallel;
  build_verlet_list(x.data(), y.data(), z.data(), n, exclusions, cutoff, scratch, serial);
  CellListScratch scratch2;
  build_verlet_list_parallel(x.data(), y.data(), z.data(), n, exclusions, cutoff, 2, scratch2, parallel);
  EXPECT_EQ(serial.row_offsets, parallel.row_offsets);
  EXPECT_EQ(serial.clusters, parallel.clusters);
  EXPECT_EQ(serial.masks, parallel.masks);

  std::set<std::pair<int, int>> expected;
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t j = i + 1; j < n; ++j) {
      const float dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
      if (dx * dx + dy * dy + dz * dz < cutoff * cutoff && !exclusions.excluded(i, j)) expected.insert({i, j});
    }
  const auto listed = pairs_in(serial, n);
  EXPECT_EQ(listed.size(), expected.size());
  EXPECT_TRUE(listed == expected);
  EXPECT_EQ(serial.pair_count(), std::int64_t(expected.size()));
}

}  // namespace

TEST(NeighborList, Pf8ListEqualsBruteForce) {
  const auto pf8 = test::shared_data() / "sopgpu/pf8";
  InputSpec input;
  input.topology = pf8 / "PF8.top";
  input.coordinates = pf8 / "PF8_sop.pdb";
  const LoadedSystem s = load_system(input, ModelBuildSpec{});
  // A 1500-bead slice keeps the O(N²) reference fast.
  Topology slice = s.topology;
  const std::int32_t n = 1500;
  slice.beads.resize(n);
  slice.native_positions_A.resize(n);
  std::erase_if(slice.bonds, [&](const Bond& b) { return b.i >= n || b.j >= n; });
  std::erase_if(slice.native_contacts, [&](const NativeContact& c) { return c.i >= n || c.j >= n; });
  std::vector<float> x(n), y(n), z(n);
  for (std::int32_t i = 0; i < n; ++i) {
    x[i] = float(s.initial_positions_A[i].x); y[i] = float(s.initial_positions_A[i].y); z[i] = float(s.initial_positions_A[i].z);
  }
  expect_exact_list(slice, x, y, z, 23.0f);
}

TEST(NeighborList, RandomGasWithChainExclusions) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> box(0.0f, 60.0f);
  Topology t;
  const std::int32_t n = 701;  // not a multiple of the cluster width
  t.beads.resize(n);
  for (std::int32_t i = 0; i + 1 < n; ++i) t.bonds.push_back({i, i + 1, 3.8f});
  for (std::int32_t i = 0; i + 5 < n; i += 7) t.native_contacts.push_back({i, i + 5, 6.0f, 1.0f});
  std::vector<float> x(n), y(n), z(n);
  for (std::int32_t i = 0; i < n; ++i) { x[i] = box(rng); y[i] = box(rng); z[i] = box(rng); }
  expect_exact_list(t, x, y, z, 12.5f);
}

// A blown-up run: beads 10³⁰ Å apart (and one at infinity, one NaN) still get a valid cell
// grid and an exact list, so that the engine can step on and the run driver report the
// instability (the cells per axis used to overflow int and end in std::bad_alloc).
TEST(NeighborList, BlownUpCoordinatesStillGiveTheExactList) {
  Topology t;
  const std::int32_t n = 40;
  t.beads.resize(n);
  for (std::int32_t i = 0; i + 1 < n; ++i) t.bonds.push_back({i, i + 1, 3.8f});
  std::vector<float> x(n), y(n), z(n);
  for (std::int32_t i = 0; i < n; ++i) {
    x[i] = 3.0f * float(i % 7);
    y[i] = 4.0f * float(i / 7);
    z[i] = 0.0f;
  }
  x[5] = 1e30f;
  y[17] = -1e30f;
  z[23] = 3e38f;
  expect_exact_list(t, x, y, z, 12.5f);
  // Non-finite coordinates are not compared with anything (the list has no use for
  // them); the build must merely survive them.
  x[30] = std::numeric_limits<float>::infinity();
  z[31] = std::numeric_limits<float>::quiet_NaN();
  const ExclusionList exclusions = build_exclusions(t);
  CellListScratch scratch;
  VerletList list;
  EXPECT_NO_THROW(build_verlet_list(x.data(), y.data(), z.data(), n, exclusions, 12.5f, scratch, list));
  std::int32_t listed = 0;
  for_each_listed_pair(list, [&](std::int32_t i, std::int32_t j) {
    EXPECT_FALSE(i == 30 || j == 30 || i == 31 || j == 31) << "a non-finite bead listed";
    ++listed;
  });
  EXPECT_GT(listed, 0);
}
