#include "ermak/backend/pair_tiles.h"

#include <limits>
#include <string>
#include <utility>

#include "ermak/core/error.h"
#include "ermak/model/topology.h"
#include "ermak/physics/nonbonded_pair.h"

namespace ermak {

PairTileTables build_pair_tile_tables(const Topology& topology, physics::RepulsionParameters repulsion) {
  PairTileTables t;
  const int n = topology.bead_count(), Q = pair_tile_quads(n), T = pair_tile_count(n);
  t.beads = n;
  t.quads = Q;
  t.tiles = T;
  std::vector<int> slot_of(std::size_t(Q) * Q, -1);  // [X][Y] → the slot of the tile of quads X, Y
  std::vector<int> tile_I(T), tile_k(T);
  for (int s = 0; s < T; ++s) {
    int I = 0, k = 0;
    pair_tile_of(s, Q, I, k);
    const int J = (I + k) % Q;
    tile_I[s] = I;
    tile_k[s] = k;
    slot_of[std::size_t(I) * Q + J] = slot_of[std::size_t(J) * Q + I] = s;
  }
  // Where the pair (i, j) sits: its tile slot and (c, d) with bead i on the tile's I side
  // (diagonal tiles: i < j).
  auto locate = [&](int i, int j, int& c, int& d) {
    const int s = slot_of[std::size_t(i / 4) * Q + j / 4];
    if (tile_I[s] != i / 4 || (tile_k[s] == 0 && i > j)) std::swap(i, j);
    c = i % 4;
    d = j % 4;
    return s;
  };
  const ExclusionList exclusions = build_exclusions(topology);
  const physics::NonbondedCoefficients repel = physics::repulsion_coefficients(repulsion);
  t.repels.assign(T, 0);
  t.coefficients.assign(std::size_t(T) * 16, PairTileCoefficients{});
  for (int s = 0; s < T; ++s) {
    const int I = tile_I[s], J = (I + tile_k[s]) % Q;
    for (int c = 0; c < 4; ++c)
      for (int d = 0; d < 4; ++d) {
        const int i = 4 * I + c, j = 4 * J + d;
        if (i < n && j < n && (tile_k[s] != 0 || c < d) && !exclusions.excluded(i, j)) {
          t.repels[s] = std::uint16_t(t.repels[s] | (1u << (4 * c + d)));
          t.coefficients[std::size_t(s) * 16 + 4 * c + d] = {repel.c2, repel.f12, repel.f6, repulsion.cutoff2};
        }
      }
  }
  std::vector<std::vector<PairTileTerm>> by_tile(T);
  for (const Bond& b : topology.bonds) {
    int c = 0, d = 0;
    const int s = locate(b.i, b.j, c, d);
    by_tile[s].push_back({c, d, false, b.r0_A, 0.0f});
  }
  for (const NativeContact& nc : topology.native_contacts) {
    int c = 0, d = 0;
    const int s = locate(nc.i, nc.j, c, d);
    by_tile[s].push_back({c, d, true, nc.r0_A, nc.eh_kcal_per_mol});
    const physics::NonbondedCoefficients k = physics::native_contact_coefficients(nc.r0_A, nc.eh_kcal_per_mol);
    t.coefficients[std::size_t(s) * 16 + 4 * c + d] = {k.c2, k.f12, k.f6, std::numeric_limits<float>::max()};
  }
  t.term_begin.assign(T + 1, 0);
  for (int s = 0; s < T; ++s) {
    t.term_begin[s] = int(t.terms.size());
    t.terms.insert(t.terms.end(), by_tile[s].begin(), by_tile[s].end());
  }
  t.term_begin[T] = int(t.terms.size());
  t.bond_partner.assign(std::size_t(n) * PairTileTables::kBondsPerBead, -1);
  t.bond_r0_A.assign(std::size_t(n) * PairTileTables::kBondsPerBead, 0.0f);
  std::vector<int> bonds_of(n, 0);
  for (const Bond& b : topology.bonds)
    for (const auto& [i, j] : {std::pair{b.i, b.j}, std::pair{b.j, b.i}}) {
      if (bonds_of[i] == PairTileTables::kBondsPerBead)
        throw Error("pair tiles: bead " + std::to_string(i) + " has more than " +
                    std::to_string(PairTileTables::kBondsPerBead) + " bonds");
      const std::size_t e = std::size_t(i) * PairTileTables::kBondsPerBead + bonds_of[i]++;
      t.bond_partner[e] = j;
      t.bond_r0_A[e] = b.r0_A;
    }
  return t;
}

}  // namespace ermak
