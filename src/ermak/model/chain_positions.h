#pragma once
// Where each residue sits along its chain, for the rule that residues within two of each
// other along a chain are never native contacts (docs/model.md#native-contacts,
// docs/topology.md#native-contacts). Consecutive residues of a chain that are bonded are
// one apart whatever their numbers (a Kabat numbering gap, insertion codes 82, 82A, 82B);
// across a chain break (no bond: residues missing from the structure) the difference of
// their residue numbers counts, at least one. With consecutive numbering this is the
// residue-number rule of SOP-GPU's sop-top.
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace ermak {

struct ChainResidue {
  std::int32_t chain = 0;          // index of the residue's chain
  int residue_number = 0;          // as the structure numbers it
  bool bonded_to_previous = false;  // backbone bond to the residue before it (same chain)
};

// Positions along the chain, one per residue, in the residues' order.
inline std::vector<std::int64_t> chain_positions(const std::vector<ChainResidue>& residues) {
  std::vector<std::int64_t> position(residues.size(), 0);
  for (std::size_t r = 1; r < residues.size(); ++r) {
    if (residues[r].chain != residues[r - 1].chain) continue;
    // In 64 bits: mmCIF residue numbers may differ by more than an int holds.
    const std::int64_t step = std::int64_t(residues[r].residue_number) - residues[r - 1].residue_number;
    position[r] = position[r - 1] + (residues[r].bonded_to_previous || step < 1 ? 1 : step);
  }
  return position;
}

// Whether residues a and b are within two of each other along one chain.
inline bool within_two_along_chain(const std::vector<ChainResidue>& residues, const std::vector<std::int64_t>& position,
                                   std::size_t a, std::size_t b) {
  return residues[a].chain == residues[b].chain && std::llabs(position[a] - position[b]) <= 2;
}

}  // namespace ermak
