#pragma once
// Residue and position selections in the configuration's bead lists (docs/config.md#bead-selections):
// users name the residues of their PDB file instead of counting 0-based bead indices.
//
//   "A:76"       the CA bead of chain A's residue 76
//   "A:52B"      residue 52 with insertion code B
//   "A:1-10"     residues 1 to 10 of chain A by number (inserted residues included)
//   "B:*"        every residue of chain B
//   "A:first", "A:last"   chain A's first and last residue in the model (its termini)
//   "A:76:CB"    the bead with atom name CB (side-chain beads of two-bead models)
//   "A:1-10:*"   every bead of those residues
//   "z<-131.5"   every bead whose z (Å) at the input coordinates is below −131.5 (also
//                x, y and >): a capsid's bottom layer, whatever its chains
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

// A selection by position (docs/config.md#bead-selections): "z<-131.5", "x > 20".
struct PositionSelection {
  std::string text;  // as written
  int axis = 2;      // 0, 1, 2 for x, y, z
  bool below = true; // '<' (else '>'); both strict
  double value_A = 0.0;
};

// True for an item that starts with x, y or z and a '<' or '>' (blanks allowed between).
bool looks_like_position_selection(std::string_view text);
// True for either kind of selection.
inline bool looks_like_bead_selection(std::string_view text) {
  return looks_like_residue_selection(text) || looks_like_position_selection(text);
}

// The selection written in `text`, or nullopt with the reason in `why`.
std::optional<PositionSelection> parse_position_selection(std::string_view text, std::string* why);

// The beads at `positions_A` (one per bead) on the selected side, in bead order; empty with
// the reason in `why` when there are none (the message gives the model's range on that axis).
std::vector<std::int32_t> select_beads_at(const std::vector<Vec3d>& positions_A, const PositionSelection& selection,
                                          std::string* why);

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
