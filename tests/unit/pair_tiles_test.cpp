// The tiles of 4 × 4 beads (backend/pair_tiles.h) that the tile kernels of `ermak bench
// --ceiling` read: every pair of beads in exactly one place, and each place's term the
// model's — repulsion for the pairs that repel, the contact's coefficients for native
// contacts, nothing for bonds and padding — with the bonds listed per tile and per bead.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <utility>

#include "ermak/backend/pair_tiles.h"
#include "ermak/core/error.h"
#include "ermak/model/topology.h"
#include "ermak/physics/nonbonded_pair.h"

namespace ermak {
namespace {

// A chain of n beads: bonds i–i+1, native contacts i–i+4 for every third i, and one bond
// across (a "disulfide") between the first and the last bead.
Topology test_chain(int n) {
  Topology t;
  t.beads.resize(n);
  for (int i = 0; i + 1 < n; ++i) t.bonds.push_back({i, i + 1, 3.8f});
  t.bonds.push_back({0, n - 1, 5.0f});
  for (int i = 0; i + 4 < n; i += 3) t.native_contacts.push_back({i, i + 4, 6.0f + 0.1f * float(i), 1.5f});
  return t;
}

TEST(PairTiles, EveryPairOfBeadsSitsInExactlyOneTilePlace) {
  for (int n : {8, 13, 16, 34, 36, 63, 64}) {
    SCOPED_TRACE(std::to_string(n) + " beads");
    const int Q = pair_tile_quads(n), T = pair_tile_count(n);
    std::map<std::pair<int, int>, int> seen;
    bool diagonal_reached = false;
    for (int s = 0; s < T; ++s) {
      int I = 0, k = 0;
      pair_tile_of(s, Q, I, k);
      ASSERT_GE(I, 0);
      ASSERT_LT(I, Q);
      if (k == 0) diagonal_reached = true;
      else EXPECT_FALSE(diagonal_reached) << "full tiles come before the diagonal ones";
      const int J = (I + k) % Q;
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 4; ++d) {
          const int i = 4 * I + c, j = 4 * J + d;
          if ((k == 0 && c >= d) || i >= n || j >= n) continue;
          ++seen[{std::min(i, j), std::max(i, j)}];
        }
    }
    EXPECT_EQ(int(seen.size()), n * (n - 1) / 2);
    for (const auto& [pair, count] : seen) EXPECT_EQ(count, 1) << pair.first << "–" << pair.second;
  }
}

TEST(PairTiles, EachPlaceCarriesTheModelsTerm) {
  const int n = 34;
  const Topology topology = test_chain(n);
  const physics::RepulsionParameters rep{1.0f, 3.8f * 3.8f, 400.0f};
  const PairTileTables t = build_pair_tile_tables(topology, rep);
  ASSERT_EQ(t.tiles, pair_tile_count(n));
  std::map<std::pair<int, int>, const NativeContact*> natives;
  for (const NativeContact& c : topology.native_contacts) natives[{c.i, c.j}] = &c;
  std::map<std::pair<int, int>, float> bonds;
  for (const Bond& b : topology.bonds) bonds[{std::min(b.i, b.j), std::max(b.i, b.j)}] = b.r0_A;
  const physics::NonbondedCoefficients repel = physics::repulsion_coefficients(rep);
  int bond_terms = 0, native_terms = 0;
  for (int s = 0; s < t.tiles; ++s) {
    int I = 0, k = 0;
    pair_tile_of(s, t.quads, I, k);
    const int J = (I + k) % t.quads;
    for (int c = 0; c < 4; ++c)
      for (int d = 0; d < 4; ++d) {
        const int i = 4 * I + c, j = 4 * J + d;
        const bool real = i < n && j < n && (k != 0 || c < d);
        const std::pair key{std::min(i, j), std::max(i, j)};
        const PairTileCoefficients& got = t.coefficients[std::size_t(s) * 16 + 4 * c + d];
        const bool repels = (t.repels[s] >> (4 * c + d)) & 1u;
        if (!real || bonds.count(key)) {
          EXPECT_FALSE(repels) << i << "–" << j;
          EXPECT_EQ(got.c2, 0.0f);
          EXPECT_EQ(got.f12, 0.0f);
          EXPECT_EQ(got.f6, 0.0f);
        } else if (natives.count(key)) {
          const NativeContact& nc = *natives[key];
          EXPECT_FALSE(repels);
          EXPECT_FLOAT_EQ(got.c2, nc.r0_A * nc.r0_A);
          EXPECT_FLOAT_EQ(got.f12, 12.0f * nc.eh_kcal_per_mol);
          EXPECT_FLOAT_EQ(got.f6, -12.0f * nc.eh_kcal_per_mol);
          EXPECT_EQ(got.cutoff2, std::numeric_limits<float>::max());
        } else {
          EXPECT_TRUE(repels) << i << "–" << j;
          EXPECT_EQ(got.c2, repel.c2);
          EXPECT_EQ(got.f12, repel.f12);
          EXPECT_EQ(got.f6, repel.f6);
          EXPECT_EQ(got.cutoff2, rep.cutoff2);
        }
      }
    // The tile's bonded terms name pairs of this tile, with their own parameters.
    for (int e = t.term_begin[s]; e < t.term_begin[s + 1]; ++e) {
      const PairTileTerm& term = t.terms[e];
      const int i = 4 * I + term.c, j = 4 * J + term.d;
      if (k == 0) EXPECT_LT(term.c, term.d);
      const std::pair key{std::min(i, j), std::max(i, j)};
      if (term.native) {
        ++native_terms;
        ASSERT_TRUE(natives.count(key)) << i << "–" << j;
        EXPECT_EQ(term.r0_A, natives[key]->r0_A);
        EXPECT_EQ(term.eh_kcal_per_mol, natives[key]->eh_kcal_per_mol);
      } else {
        ++bond_terms;
        ASSERT_TRUE(bonds.count(key)) << i << "–" << j;
        EXPECT_EQ(term.r0_A, bonds[key]);
      }
    }
  }
  EXPECT_EQ(bond_terms, int(topology.bonds.size()));
  EXPECT_EQ(native_terms, int(topology.native_contacts.size()));
  // Bonds by bead: both ends, then −1.
  for (int i = 0; i < n; ++i) {
    int listed = 0;
    for (int e = 0; e < PairTileTables::kBondsPerBead; ++e) {
      const int j = t.bond_partner[std::size_t(i) * PairTileTables::kBondsPerBead + e];
      if (j < 0) break;
      ++listed;
      EXPECT_TRUE(bonds.count({std::min(i, j), std::max(i, j)})) << i << "–" << j;
    }
    EXPECT_EQ(listed, 2) << "bead " << i;  // two chain neighbours; the ends one and the bond across
  }
}

TEST(PairTiles, TooManyBondsOnOneBeadAreNamed) {
  Topology t = test_chain(16);
  for (int j = 3; j < 8; ++j) t.bonds.push_back({1, j, 3.8f});  // bead 1: 2 + 5 bonds
  try {
    build_pair_tile_tables(t, physics::RepulsionParameters{1.0f, 14.44f, 400.0f});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bead 1 has more than 4 bonds"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ermak
