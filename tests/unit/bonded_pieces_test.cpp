// Bonded pieces of a model and the warning for pulling across a chain break
// (run/bonded_piece_check.h); the residues a chain break's message names
// (io/structure_model.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/io/structure_model.h"
#include "ermak/model/topology.h"
#include "ermak/run/bonded_piece_check.h"

namespace ermak {
namespace {

// Chain A of 6 beads with a break between beads 2 and 3 (residues 3 and 5: residue 4
// missing), chain B of 2 beads.
Topology broken_chain() {
  Topology t;
  for (int i = 0; i < 8; ++i) {
    BeadInfo b;
    b.chain_id = i < 6 ? "A" : "B";
    b.residue_number = i < 3 ? i + 1 : i < 6 ? i + 2 : i - 5;
    t.beads.push_back(b);
  }
  t.bonds = {{0, 1}, {1, 2}, {3, 4}, {4, 5}, {6, 7}};
  return t;
}

TEST(BondedPieces, ChainsAndBreaksSplitTheModel) {
  const std::vector<std::int32_t> pieces = bonded_pieces(broken_chain());
  EXPECT_EQ(pieces, (std::vector<std::int32_t>{0, 0, 0, 1, 1, 1, 2, 2}));
  Topology one = broken_chain();
  one.bonds.push_back({2, 3});
  EXPECT_EQ(bonded_pieces(one), (std::vector<std::int32_t>{0, 0, 0, 0, 0, 0, 1, 1}));
}

TEST(BondedPieces, PullingAcrossABreakIsWarnedPullingAComplexApartIsNot) {
  const Topology t = broken_chain();
  const std::vector<std::int32_t> pieces = bonded_pieces(t);
  RunSpec spec;
  spec.fixed_beads = {0};
  spec.pulling.enabled = true;
  spec.pulling.pulled_beads = {5};  // chain A's other piece
  const std::string warning = pulled_apart_warning(spec, t, pieces);
  EXPECT_NE(warning.find("pulled bead 5 (A:GLY7)"), std::string::npos) << warning;
  EXPECT_NE(warning.find("different bonded pieces"), std::string::npos) << warning;
  EXPECT_NE(warning.find("cantilever"), std::string::npos) << warning;
  spec.pulling.pulled_beads = {2};  // the fixed bead's own piece
  EXPECT_EQ(pulled_apart_warning(spec, t, pieces), "");
  spec.pulling.pulled_beads = {7};  // chain B: a complex pulled apart, as meant
  EXPECT_EQ(pulled_apart_warning(spec, t, pieces), "");
  spec.pulling.enabled = false;  // the same for a force clamp
  spec.force_clamp.enabled = true;
  spec.force_clamp.pulled_beads = {4, 2};
  EXPECT_NE(pulled_apart_warning(spec, t, pieces).find("pulled bead 4 (A:GLY6)"), std::string::npos);
  spec.fixed_beads.clear();  // nothing fixed: the piece is dragged as a whole
  EXPECT_EQ(pulled_apart_warning(spec, t, pieces), "");
}

TEST(BondedPieces, AChainBreakNamesTheMissingResidues) {
  EXPECT_EQ(residues_missing_between(64, 65, true), "");
  EXPECT_EQ(residues_missing_between(64, 66, false), " — residue 65 is not in the model (missing from the file)");
  // Before an inserted residue: its number's own residue and the insertions before it.
  EXPECT_EQ(residues_missing_between(97, 100, false, 'B'),
            " — residues 98 to 100A are not in the model (missing from the file)");
  EXPECT_EQ(residues_missing_between(99, 100, false, 'A'), " — residue 100 is not in the model (missing from the file)");
  EXPECT_EQ(residues_missing_between(100, 100, false, 'A'), "");
  // Under one number: 100 to 100B lacks 100A, 100A to 100C lacks 100B.
  EXPECT_EQ(residues_missing_between(100, 100, false, 'B'), " — residue 100A is not in the model (missing from the file)");
  EXPECT_EQ(residues_missing_between(100, 100, false, 'C', 'A'),
            " — residue 100B is not in the model (missing from the file)");
  EXPECT_EQ(residues_missing_between(10, 14, true),
            " — residues 11 to 13 are not in the model (missing from the file, or HETATM records: --keep-hetero keeps "
            "amino acids there)");
  // Residues in the file left out for want of a C-alpha are not called missing from it alone
  // (an audit's residues 10-11).
  EXPECT_EQ(residues_missing_between(9, 12, false, ' ', ' ', true),
            " — residues 10 to 11 are not in the model (missing from the file, or without a C-alpha atom and "
            "skipped: see the warnings)");
}

}  // namespace
}  // namespace ermak
