#pragma once
// Residue selections in the configuration's bead lists (docs/config.md#bead-selections):
// users name the residues of their PDB file instead of counting 0-based bead indices.
//
//   "A:76"       the CA bead of chain A's residue 76
//   "A:52B"      residue 52 with insertion code B
//   "A:1-10"     residues 1 to 10 of chain A by number (inserted residues included)
//   "B:*"        every residue of chain B
//   "A:first", "A:last"   chain A's first and last residue in the model (its termini)
//   "A:76:CB"    the bead with atom name CB (side-chain beads of two-bead models)
//   "A:1-10:*"   every bead of those residues
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ermak/model/topology.h"

namespace ermak {

struct ResidueSelection {
  std::string text;  // as written
  std::string chain_id;
  bool whole_chain = false;  // "B:*"
  enum class End { kNone, kFirst, kLast } end = End::kNone;  // "A:first", "A:last"
  bool range = false;        // "A:1-10"
  int first = 0, last = 0;   // residue numbers (first == last without a range)
  char insertion_code = ' '; // single residues only
  std::string atom_name = "CA";  // "*": every bead of the residues
};

// True for an item of a bead list that is a selection (it has a ':'), not an index.
bool looks_like_residue_selection(std::string_view text);

// The selection written in `text`, or nullopt with the reason in `why`.
std::optional<ResidueSelection> parse_residue_selection(std::string_view text, std::string* why);

// The beads `selection` names, in bead order; empty with the reason in `why` when it names
// none (no such chain, residue or atom name: the message lists what the model has).
std::vector<std::int32_t> select_beads(const Topology& topology, const ResidueSelection& selection,
                                       std::string* why);

// "chain A residue 76 CA", for messages and the run log.
std::string describe_bead(const Topology& topology, std::int32_t bead);

// The model's chains as selections see them, for the run log: "A 1–76 (76 beads), B 10–11
// (2 beads)"; after max_chains chains, "and N more".
std::string chain_summary(const Topology& topology, std::size_t max_chains);

// Where the model lies, for placing a tip, a surface or fixed beads: "x −120.3 … 115.1,
// y …, z … Å; centre (…) Å; lowest z: A1:42 (bead 17), highest z: C60:190 (bead 28 619)".
std::string extent_summary(const Topology& topology, const std::vector<Vec3d>& positions_A);

}  // namespace ermak
