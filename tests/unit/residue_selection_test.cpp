// model/residue_selection: the syntax of residue selections in bead lists
// (docs/config.md#bead-selections) and which beads of a model they name, with the
// messages for selections that name none.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/model/residue_selection.h"

namespace ermak {
namespace {

// Chain A: residues 1, 2, 3 (a CA and a CB bead each), 3A (inserted, CA); chain B: 10, 11 (CA).
Topology two_chains() {
  Topology t;
  auto add = [&](const char* chain, int residue, char insertion, const char* atom) {
    BeadInfo b;
    b.chain_id = chain;
    b.residue_number = residue;
    b.insertion_code = insertion;
    b.atom_name = atom;
    t.beads.push_back(b);
  };
  for (int r = 1; r <= 3; ++r) {
    add("A", r, ' ', "CA");
    add("A", r, ' ', "CB");
  }
  add("A", 3, 'A', "CA");  // bead 6
  add("B", 10, ' ', "CA");  // bead 7
  add("B", 11, ' ', "CA");  // bead 8
  return t;
}

ResidueSelection parsed(const std::string& text) {
  std::string why;
  const auto s = parse_residue_selection(text, &why);
  EXPECT_TRUE(s.has_value()) << text << ": " << why;
  return s.value_or(ResidueSelection{});
}

std::vector<std::int32_t> selected(const std::string& text) {
  std::string why;
  const auto beads = select_beads(two_chains(), parsed(text), &why);
  EXPECT_FALSE(beads.empty()) << text << ": " << why;
  return beads;
}

std::string refusal(const std::string& text) {
  std::string why;
  const auto beads = select_beads(two_chains(), parsed(text), &why);
  EXPECT_TRUE(beads.empty()) << text;
  return why;
}

std::string syntax_error(const std::string& text) {
  std::string why;
  EXPECT_FALSE(parse_residue_selection(text, &why).has_value()) << text;
  return why;
}

TEST(ResidueSelection, ParsesResiduesRangesChainsAndAtoms) {
  const ResidueSelection one = parsed("A:76");
  EXPECT_EQ(one.chain_id, "A");
  EXPECT_EQ(one.first, 76);
  EXPECT_EQ(one.last, 76);
  EXPECT_FALSE(one.range);
  EXPECT_EQ(one.atom_name, "CA");
  EXPECT_EQ(parsed("A:52B").insertion_code, 'B');
  EXPECT_EQ(parsed("A:-3").first, -3);
  const ResidueSelection range = parsed("AB:-5-10:*");
  EXPECT_EQ(range.chain_id, "AB");
  EXPECT_TRUE(range.range);
  EXPECT_EQ(range.first, -5);
  EXPECT_EQ(range.last, 10);
  EXPECT_EQ(range.atom_name, "*");
  EXPECT_TRUE(parsed("B:*").whole_chain);
  EXPECT_EQ(parsed("A:7:CB").atom_name, "CB");
  EXPECT_EQ(parsed("A:first").end, ResidueSelection::End::kFirst);
  EXPECT_EQ(parsed("A:last:*").end, ResidueSelection::End::kLast);
}

TEST(ResidueSelection, MalformedTextSaysWhatIsExpected) {
  EXPECT_NE(syntax_error("A76").find("two or three parts"), std::string::npos);
  EXPECT_NE(syntax_error("A:1:CA:x").find("two or three parts"), std::string::npos);
  EXPECT_NE(syntax_error(":76").find("chain id is empty"), std::string::npos);
  EXPECT_NE(syntax_error("A:seven").find("residue must be a number"), std::string::npos);
  EXPECT_NE(syntax_error("A:99999999999").find("the residue number is out of range"), std::string::npos);
  EXPECT_NE(syntax_error("A:5-2").find("last residue comes before its first"), std::string::npos);
  EXPECT_NE(syntax_error("A:1A-5").find("without insertion codes"), std::string::npos);
  EXPECT_NE(syntax_error("A:1:").find("atom name is empty"), std::string::npos);
  EXPECT_NE(syntax_error("A:x").find("e.g. \"A:76\""), std::string::npos);
}

TEST(ResidueSelection, SelectsTheNamedBeadsInBeadOrder) {
  EXPECT_EQ(selected("A:2"), (std::vector<std::int32_t>{2}));
  EXPECT_EQ(selected("A:2:CB"), (std::vector<std::int32_t>{3}));
  EXPECT_EQ(selected("A:3A"), (std::vector<std::int32_t>{6}));
  EXPECT_EQ(selected("A:3"), (std::vector<std::int32_t>{4})) << "without its insertion code: not 3A";
  EXPECT_EQ(selected("A:2-3"), (std::vector<std::int32_t>{2, 4, 6})) << "a range takes inserted residues";
  EXPECT_EQ(selected("A:2-3:*"), (std::vector<std::int32_t>{2, 3, 4, 5, 6}));
  EXPECT_EQ(selected("B:*"), (std::vector<std::int32_t>{7, 8}));
  EXPECT_EQ(selected("A:*:CB"), (std::vector<std::int32_t>{1, 3, 5}));
  // The termini by position in the model, whatever their numbers: chain A ends with 3A.
  EXPECT_EQ(selected("A:first"), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(selected("A:first:*"), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(selected("A:last"), (std::vector<std::int32_t>{6}));
  EXPECT_EQ(selected("B:first"), (std::vector<std::int32_t>{7}));
  EXPECT_EQ(selected("B:last"), (std::vector<std::int32_t>{8}));
  EXPECT_EQ(describe_bead(two_chains(), 6), "chain A residue 3A CA");
  EXPECT_EQ(chain_summary(two_chains(), 12), "A 1–3 (7 beads), B 10–11 (2 beads)");
  EXPECT_EQ(chain_summary(two_chains(), 1), "A 1–3 (7 beads), and 1 more");
  // The extent the run log and the topology summary print, for placing tips and surfaces.
  std::vector<Vec3d> at(9);
  for (std::size_t i = 0; i < at.size(); ++i) at[i] = {double(i), -2.0 * double(i), i == 7 ? -5.0 : 1.0};
  EXPECT_EQ(extent_summary(two_chains(), at),
            "x 0.0 … 8.0, y -16.0 … 0.0, z -5.0 … 1.0 Å; centre (4.00, -8.00, 0.33) Å; lowest z: B:10 (bead 7), "
            "highest z: A:1 (bead 0)");
}

// A chain numbered domain by domain (1, 2, 1, 2): its termini are still its end beads, while
// a number takes every residue that has it.
TEST(ResidueSelection, TerminiOfAChainThatReusesItsNumbers) {
  Topology t;
  for (int k = 0; k < 4; ++k) {
    for (const char* atom : {"CA", "CB"}) {
      BeadInfo b;
      b.chain_id = "A";
      b.residue_number = k % 2 + 1;
      b.atom_name = atom;
      t.beads.push_back(b);
    }
  }
  std::string why;
  EXPECT_EQ(select_beads(t, parsed("A:first"), &why), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(select_beads(t, parsed("A:first:*"), &why), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(select_beads(t, parsed("A:last"), &why), (std::vector<std::int32_t>{6}));
  EXPECT_EQ(select_beads(t, parsed("A:last:*"), &why), (std::vector<std::int32_t>{6, 7}));
  EXPECT_EQ(select_beads(t, parsed("A:2"), &why), (std::vector<std::int32_t>{2, 6}));
}

// A model without insertion codes (a SOP-GPU .top) asked for an inserted residue: the
// refusal says why the number is there and the residue is not.
TEST(ResidueSelection, AnInsertedResidueOfAModelWithoutInsertionCodesIsExplained) {
  std::string why;
  EXPECT_TRUE(select_beads(two_chains(), parsed("B:10A"), &why).empty());
  EXPECT_NE(why.find("chain B has no residue 10A"), std::string::npos) << why;
  EXPECT_NE(why.find("carry no insertion codes — a SOP-GPU .top holds none"), std::string::npos) << why;
  EXPECT_TRUE(select_beads(two_chains(), parsed("B:12A"), &why).empty());
  EXPECT_EQ(why.find("insertion codes"), std::string::npos) << why;
}

TEST(ResidueSelection, SelectionsThatNameNoBeadSayWhatTheModelHas) {
  EXPECT_NE(refusal("C:1").find("no chain \"C\" (its chains: A, B)"), std::string::npos) << refusal("C:1");
  EXPECT_NE(refusal("C:last").find("no chain \"C\""), std::string::npos) << refusal("C:last");
  EXPECT_NE(refusal("B:12").find("chain B has no residue 12 (its residue numbers run 10 to 11)"), std::string::npos)
      << refusal("B:12");
  EXPECT_NE(refusal("B:20-30").find("the range 20 to 30 runs past chain B, whose residue numbers run 10 to 11"),
            std::string::npos)
      << refusal("B:20-30");
  // A range that overlaps the chain but runs past its end is refused too, not clipped.
  EXPECT_NE(refusal("B:11-12").find("runs past chain B"), std::string::npos) << refusal("B:11-12");
  EXPECT_NE(refusal("A:0-2").find("runs past chain A"), std::string::npos) << refusal("A:0-2");
  EXPECT_NE(refusal("B:10:CB").find("no bead named CB there (its beads: CA"), std::string::npos)
      << refusal("B:10:CB");
}

// An assembly's chains A1 … A60 (the file's chain A copied): "A:42" names the chains that
// begin with A first, and a long list is cut at 20 names.
TEST(ResidueSelection, AMissingChainOfAnAssemblyNamesItsCopies) {
  Topology t;
  for (const char* base : {"A", "B", "C"})
    for (int k = 1; k <= 60; ++k) {
      BeadInfo b;
      b.chain_id = base + std::to_string(k);
      b.residue_number = 42;
      t.beads.push_back(b);
    }
  std::string why;
  EXPECT_TRUE(select_beads(t, parsed("A:42"), &why).empty());
  EXPECT_NE(why.find("60 chains begin with \"A\": A1, A2, A3"), std::string::npos) << why;
  EXPECT_NE(why.find("A20 … and 40 more; 180 chains in all"), std::string::npos) << why;
  EXPECT_TRUE(select_beads(t, parsed("Z:42"), &why).empty());
  EXPECT_NE(why.find("180 chains: A1, A2"), std::string::npos) << why;
  EXPECT_LT(why.size(), 400u) << why;
}

}  // namespace
}  // namespace ermak
