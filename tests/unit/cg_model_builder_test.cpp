// io/cg_model_builder: a hand-checkable 4-residue chain coarse-grained by a two-bead
// description, worked out in the comments (docs/topology.md#models-from-a-coarse-graining-description).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/cg_description.h"
#include "ermak/io/cg_model_builder.h"
#include "ermak/io/structure_model.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

std::string atom(const char* name, const char* residue, int number, double x, double y, double b) {
  char line[128];
  std::snprintf(line, sizeof line, "ATOM  %5d  %-3s %3s A%4d    %8.3f%8.3f%8.3f%6.2f%6.2f           %c\n", number,
                name, residue, number, x, y, 0.0, 1.0, b, name[0]);
  return line;
}

// Residue i: CA at (3.8 i, 0, 0) with B 2, CB at (3.8 i, 1.5, 0) with B 8.
StructureModel chain(const fs::path& dir, const char* residue = "ALA", const char* side_atom = "CB") {
  std::string pdb;
  for (int i = 0; i < 4; ++i) {
    pdb += atom("N", residue, i + 1, 3.8 * i - 1.0, -1.0, 2.0);
    pdb += atom("CA", residue, i + 1, 3.8 * i, 0.0, 2.0);
    pdb += atom("C", residue, i + 1, 3.8 * i + 1.0, -1.0, 2.0);
    pdb += atom(side_atom, residue, i + 1, 3.8 * i, 1.5, 8.0);
  }
  const fs::path file = dir / "chain.pdb";
  std::ofstream(file) << pdb << "END\n";
  return extract_structure_model(read_structure_file(file), file.string(), {});
}

CgDescription two_beads(const fs::path& dir, const std::string& residue = "ALA",
                        const std::string& masses = "MASS 1 C 12.0\nMASS 2 N 14.0\n") {
  const fs::path file = dir / "two.inp";
  std::ofstream(file) << masses << "RESI " << residue
                      << "\nBEAD CA CA\nREPR N CA C\nCOOR CA\nCHAR 0.5\nCONN +CA CB\nENDBEAD\n"
                         "BEAD CB SC\nREPR CB\nCOOR CB\nENDBEAD\nENDRESI\n";
  return read_cg_description(file);
}

std::set<std::pair<int, int>> contact_pairs(const Topology& t) {
  std::set<std::pair<int, int>> out;
  for (const NativeContact& c : t.native_contacts) out.emplace(c.i, c.j);
  return out;
}

TEST(CgModelBuilder, BeadsBondsAndTheBondGraphExclusions) {
  const fs::path dir = test::fresh_directory("cg-builder-chain");
  CgModelOptions o;
  o.r_limit_A = 100.0;  // every pair by distance: only the exclusions decide
  o.sc_limit_A = 0.0;
  const BuiltTopology b = build_cg_topology(chain(dir), two_beads(dir), o);
  const Topology& t = b.topology;
  // Beads CA0 CB0 CA1 CB1 CA2 CB2 CA3 CB3 = 0..7.
  ASSERT_EQ(t.bead_count(), 8);
  EXPECT_EQ(t.beads[1].atom_name, "CB");
  EXPECT_DOUBLE_EQ(t.native_positions_A[3].y, 1.5);
  EXPECT_FLOAT_EQ(t.beads[0].occupancy, 0.5f);   // CHAR
  EXPECT_FLOAT_EQ(t.beads[0].b_factor, 38.0f);   // mass: N + C + C from MASS (12 + 14 + 12)
  // Bonds: CA-CA (3) and CA-CB (4).
  std::set<std::pair<int, int>> bonds;
  for (const Bond& bond : t.bonds) bonds.emplace(bond.i, bond.j);
  EXPECT_EQ(bonds, (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {2, 3}, {2, 4}, {4, 5}, {4, 6}, {6, 7}}));
  // 28 pairs − 7 bonded − 8 sharing a bonded neighbour (CB0-CA1, CA0-CB1, CA0-CA2, CB1-CA2,
  // CA1-CB2, CA1-CA3, CB2-CA3, CA2-CB3) = 13 native contacts; CB0-CB1 (1-4) is one of them.
  EXPECT_EQ(t.native_contacts.size(), 13u);
  const auto natives = contact_pairs(t);
  for (auto excluded : {std::pair{1, 2}, std::pair{0, 3}, std::pair{0, 4}, std::pair{3, 4}, std::pair{2, 5},
                        std::pair{2, 6}, std::pair{5, 6}, std::pair{4, 7}})
    EXPECT_EQ(natives.count(excluded), 0u) << excluded.first << "-" << excluded.second;
  EXPECT_EQ(natives.count({1, 3}), 1u);
  EXPECT_EQ(natives.count({0, 6}), 1u);
  EXPECT_EQ(b.repulsive_pairs, 28 - 7 - 13);
}

TEST(CgModelBuilder, AtomCriterionAndEpsilonFromBfactors) {
  const fs::path dir = test::fresh_directory("cg-builder-atoms");
  CgModelOptions o;
  o.r_limit_A = 0.0;  // atoms only
  o.sc_limit_A = 4.0;
  o.eh_source = EpsilonSource::BFactor;
  const BuiltTopology b = build_cg_topology(chain(dir), two_beads(dir), o);
  // Represented atoms closer than 4 A in pairs not excluded: CB(i)-CB(i+1) at 3.8 A (CA(i)-CB(i+1)
  // is 4.085 A; N/C atoms of neighbours are 1-3 excluded or farther). r0 = bead distance 3.8,
  // eh = sqrt(8 · 8) from the CB atoms' B-factors.
  const auto natives = contact_pairs(b.topology);
  EXPECT_EQ(natives, (std::set<std::pair<int, int>>{{1, 3}, {3, 5}, {5, 7}}));
  for (const NativeContact& c : b.topology.native_contacts) {
    EXPECT_NEAR(c.r0_A, 3.8, 1e-5);
    EXPECT_FLOAT_EQ(c.eh_kcal_per_mol, 8.0f);
    EXPECT_EQ(b.contact_reasons[&c - b.topology.native_contacts.data()], ContactReason::SidechainAtoms);
  }
}

TEST(CgModelBuilder, ChainBreakUnknownResidueAndMissingCoordinateAtoms) {
  const fs::path dir = test::fresh_directory("cg-builder-errors");
  CgModelOptions o;
  o.break_distance_A = 3.0;  // every consecutive pair (3.8 A) is a break: no +CA bonds
  BuiltTopology b = build_cg_topology(chain(dir), two_beads(dir), o);
  EXPECT_EQ(b.chain_breaks, 3);
  EXPECT_EQ(b.topology.bonds.size(), 4u);

  // HIS in the structure, HSD in the description: used, with a warning.
  b = build_cg_topology(chain(dir, "HIS"), two_beads(dir, "HSD"), {});
  EXPECT_EQ(b.topology.bead_count(), 8);
  EXPECT_NE(b.warnings.front().find("residues HIS are coarse-grained as HSD"), std::string::npos);

  try {
    build_cg_topology(chain(dir, "SER"), two_beads(dir), {});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("describes no residue SER"), std::string::npos) << e.what();
  }
  try {
    build_cg_topology(chain(dir, "ALA", "OG"), two_beads(dir), {});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has none of the atoms CB that place bead CB"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("two.inp:12: COOR"), std::string::npos) << e.what();
  }
}

// Masses only reach the outputs (B-factor column, PSF), but a description without MASS
// records, or one whose MASS symbols match no REPR atom, gets a warning naming the beads.
TEST(CgModelBuilder, BeadsWithoutMassAreNamedInAWarning) {
  const fs::path dir = test::fresh_directory("cg-builder-masses");
  const auto mass_warnings = [](const BuiltTopology& b) {
    std::vector<std::string> found;
    for (const std::string& w : b.warnings)
      if (w.find("have mass 0") != std::string::npos) found.push_back(w);
    return found;
  };
  EXPECT_TRUE(mass_warnings(build_cg_topology(chain(dir), two_beads(dir), {})).empty());

  BuiltTopology b = build_cg_topology(chain(dir), two_beads(dir, "ALA", ""), {});
  EXPECT_FLOAT_EQ(b.topology.beads[0].mass_amu, 0.0f);
  std::vector<std::string> w = mass_warnings(b);
  ASSERT_EQ(w.size(), 1u);  // once for the description, not once per residue
  EXPECT_NE(w[0].find("bead(s) ALA/CA, ALA/CB have mass 0: "), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("two.inp has no MASS records"), std::string::npos) << w[0];

  b = build_cg_topology(chain(dir), two_beads(dir, "ALA", "MASS 1 N 14.0\n"), {});
  EXPECT_FLOAT_EQ(b.topology.beads[0].mass_amu, 14.0f);  // N of REPR N CA C
  w = mass_warnings(b);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("bead(s) ALA/CB have mass 0: no MASS record of "), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("matches the first letter of their REPR atoms"), std::string::npos) << w[0];
}

}  // namespace
}  // namespace ermak
