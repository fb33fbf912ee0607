#pragma once
// Tiles of 4 × 4 beads over the pairs of one replica (docs/benchmarks.md#the-instruction-ceiling):
// beads padded to 4Q (Q = ⌈n/4⌉ quads), a tile (I, J = I + k mod Q) holds the 16 pairs of
// quads I and J (k = 0: the 6 pairs within quad I), and the tiles k = 1 … ⌊(Q−1)/2⌋ for
// every I, the opposite quads k = Q/2 for I < Q/2 when Q is even, and the diagonal ones
// k = 0 cover every pair of beads exactly once. Slots order the tiles as the kernels run
// them: the full tiles first (by k, then I), the diagonal ones last. The tables the tile
// kernels read — which pairs repel, each pair's coefficients of physics::nonbonded_pair,
// the bonded terms by tile and the bonds by bead — are the same for every replica.
#include <cstdint>
#include <vector>

#include "ermak/core/hd.h"
#include "ermak/physics/repulsion.h"

namespace ermak {

struct Topology;

ERMAK_HD int pair_tile_quads(int n) { return (n + 3) / 4; }

ERMAK_HD int pair_tile_count(int n) {
  const int q = pair_tile_quads(n);
  return q * ((q - 1) / 2 + 1) + (q % 2 == 0 ? q / 2 : 0);
}

// The tile (I, k) in slot `slot` of Q quads.
ERMAK_HD void pair_tile_of(int slot, int quads, int& I, int& k) {
  const int h = (quads - 1) / 2, full = pair_tile_count(4 * quads) - quads;
  if (slot < quads * h) {
    k = 1 + slot / quads;
    I = slot - (k - 1) * quads;
  } else if (slot < full) {
    k = quads / 2;
    I = slot - quads * h;
  } else {
    k = 0;
    I = slot - full;
  }
}

// A bond or native contact of a tile: beads 4I + c and 4J + d (diagonal tiles: c < d).
struct PairTileTerm {
  int c = 0, d = 0;
  bool native = false;
  float r0_A = 0.0f;        // bond: r0; contact: r0
  float eh_kcal_per_mol = 0.0f;  // contact only
};

// Coefficients of physics::nonbonded_pair for one pair and the squared distance below
// which it acts (repulsion: the cutoff; contact: no cutoff, FLT_MAX; neither: zeros).
struct PairTileCoefficients {
  float c2 = 0.0f, f12 = 0.0f, f6 = 0.0f, cutoff2 = 0.0f;
};

struct PairTileTables {
  int beads = 0, quads = 0, tiles = 0;
  std::vector<std::uint16_t> repels;                 // [tile]: bit 4c + d set where the pair repels
  std::vector<int> term_begin;                       // [tile + 1]: its bonded terms in `terms`
  std::vector<PairTileTerm> terms;
  std::vector<PairTileCoefficients> coefficients;    // [tile][4c + d]
  static constexpr int kBondsPerBead = 4;
  std::vector<int> bond_partner;                     // [bead][kBondsPerBead], −1 after the last
  std::vector<float> bond_r0_A;                      // [bead][kBondsPerBead]
};

// Throws ermak::Error if a bead has more than kBondsPerBead bonds.
PairTileTables build_pair_tile_tables(const Topology& topology, physics::RepulsionParameters repulsion);

}  // namespace ermak
