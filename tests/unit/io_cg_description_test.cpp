// io/cg_description: sop-top2's coarse-graining descriptions (aa_to_cg.inp) read into
// plain data, checked against the shared example files line by line, and malformed
// descriptions rejected with file:line errors.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/cg_description.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

fs::path titin() { return test::shared_data() / "sopgpu/titin"; }

TEST(CgDescription, ReadsTheCalphaCbetaExample) {
  const CgDescription d = read_cg_description(titin() / "aa_to_cg.inp");
  EXPECT_EQ(d.residues.size(), 31u);  // grep -c ^RESI aa_to_cg.inp
  ASSERT_EQ(d.masses.size(), 5u);
  EXPECT_EQ(d.masses[1].symbol, "C");
  EXPECT_DOUBLE_EQ(d.masses[1].mass_amu, 12.011);

  const CgResidue* ala = d.find("ALA");
  ASSERT_NE(ala, nullptr);
  ASSERT_EQ(ala->beads.size(), 2u);
  const CgBead& ca = ala->beads[0];
  EXPECT_EQ(ca.name, "CA");
  EXPECT_EQ(ca.type, "CA");
  EXPECT_EQ(ca.represented, (std::vector<std::string>{"N", "HN", "CA", "HA", "C", "O"}));
  EXPECT_EQ(ca.coordinate_atoms, std::vector<std::string>{"CA"});
  ASSERT_EQ(ca.connections.size(), 2u);
  EXPECT_EQ(ca.connections[0].residue_offset, 1);  // +CA: the next residue's CA
  EXPECT_EQ(ca.connections[0].bead, "CA");
  EXPECT_EQ(ca.connections[1].residue_offset, 0);
  EXPECT_EQ(ca.connections[1].bead, "CB");
  // Mass as sop-top2 sums it: N + H + C + H + C + O by first letter.
  EXPECT_NEAR(ca.mass_amu, 14.007 + 1.008 + 12.011 + 1.008 + 12.011 + 15.999, 1e-9);
  const CgBead& cb = ala->beads[1];
  EXPECT_EQ(cb.name, "CB");
  EXPECT_EQ(cb.type, "SC");
  EXPECT_NEAR(cb.mass_amu, 12.011 + 3 * 1.008, 1e-9);
  EXPECT_TRUE(cb.connections.empty());

  EXPECT_DOUBLE_EQ(d.find("ARG")->beads[1].charge, 1.0);
  EXPECT_DOUBLE_EQ(d.find("ASP")->beads[1].charge, -1.0);
  // Several COOR atoms: the bead sits at their centre.
  EXPECT_EQ(d.find("PHE")->beads[1].coordinate_atoms.size(), 6u);
  // Glycine: the C-alpha bead only.
  EXPECT_EQ(d.find("GLY")->beads.size(), 1u);
  // Proline's side-chain bead is bonded to the previous residue's C-alpha.
  const CgBead& pro_cd = d.find("PRO")->beads[1];
  ASSERT_EQ(pro_cd.connections.size(), 1u);
  EXPECT_EQ(pro_cd.connections[0].residue_offset, -1);
  EXPECT_EQ(pro_cd.connections[0].bead, "CA");
  // Tryptophan: two side-chain beads bonded to each other.
  EXPECT_EQ(d.find("TRP")->beads.size(), 3u);
  EXPECT_EQ(d.find("HIS"), nullptr) << "CHARMM names: HSD, HSE, HSP";
  EXPECT_NE(d.find("HSD"), nullptr);
}

TEST(CgDescription, ReadsTheCalphaOnlyExample) {
  const CgDescription d = read_cg_description(titin() / "aa_to_cg_ca.inp");
  EXPECT_EQ(d.residues.size(), 23u);
  for (const CgResidue& r : d.residues) {
    ASSERT_EQ(r.beads.size(), 1u) << r.name;
    EXPECT_EQ(r.beads[0].name, "CA") << r.name;
    EXPECT_EQ(r.beads[0].represented, std::vector<std::string>{"CA"}) << r.name;
    EXPECT_EQ(r.beads[0].coordinate_atoms, std::vector<std::string>{"CA"}) << r.name;
  }
}

struct BadCase {
  const char* text;
  int line;
  const char* record;
  const char* says;
};

TEST(CgDescription, MalformedRecordsGiveFileLineErrors) {
  const fs::path dir = test::fresh_directory("cg-description-bad");
  const std::string good_residue = "RESI GLY\nBEAD CA CA\nREPR CA\nCOOR CA\nCONN +CA\nENDBEAD\nENDRESI\n";
  const BadCase cases[] = {
      {"MASS 1 C\n", 1, "MASS", "expected 'MASS index symbol mass'"},
      {"MASS 1 C heavy\n", 1, "MASS", "is not a number > 0"},
      {"BEAD CA CA\n", 1, "BEAD", "outside RESI"},
      {"RESI ALA\nBEAD CA\n", 2, "BEAD", "expected 'BEAD name type'"},
      {"RESI ALA\nREPR CA\n", 2, "REPR", "outside BEAD"},
      {"RESI ALA\nBEAD CA CA\nCOOR\n", 3, "COOR", "expected one or more atom names"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nCHAR minus\n", 4, "CHAR", "'minus' is not a number"},
      {"RESI ALA\nBEAD CA CA\nREPR CA\nENDBEAD\n", 4, "ENDBEAD", "has no COOR record"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nBEAD CB SC\n", 4, "BEAD", "is not closed by ENDBEAD"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nENDRESI\n", 4, "ENDRESI", "is not closed by ENDBEAD"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nENDBEAD\n", 5, "end of file", "RESI ALA (line 1) is not closed by ENDRESI"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nCONN XX\nENDBEAD\nENDRESI\n", 4, "CONN", "which is no bead of ALA"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nCONN CA\n", 4, "CONN", "cannot connect to itself"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nCONN +\n", 4, "CONN", "names no bead"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nENDBEAD\nBEAD CA SC\n", 5, "BEAD", "already has a bead CA (line 2)"},
      {"RESI ALA\nENDRESI\n", 2, "ENDRESI", "has no BEAD"},
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nENDBEAD\nCOOR CB\n", 5, "COOR", "outside BEAD"},
      {"ATOM CA\n", 1, "ATOM", "unknown record 'ATOM'"},
      // A second REPR, COOR or CHAR would replace the first without a word.
      {"RESI ALA\nBEAD CA CA\nCOOR CA\nCOOR CB\n", 4, "COOR", "COOR given twice for bead CA of ALA (first at line 3)"},
      {"RESI ALA\nBEAD CA CA\nREPR CA\nCOOR CA\nREPR N\n", 5, "REPR", "REPR given twice for bead CA of ALA (first at line 3)"},
      {"RESI ALA\nBEAD CA CA\nCHAR 1\nCOOR CA\nCHAR 0\n", 5, "CHAR", "CHAR given twice for bead CA of ALA (first at line 3)"},
      {"ENDRESI\n", 1, "ENDRESI", "ENDRESI without RESI"},
  };
  int k = 0;
  for (const BadCase& c : cases) {
    const fs::path file = dir / ("bad" + std::to_string(k++) + ".inp");
    { std::ofstream(file) << c.text; }
    try {
      read_cg_description(file);
      ADD_FAILURE() << "no error for:\n" << c.text;
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), file.string()) << c.text;
      EXPECT_EQ(e.line(), c.line) << e.what();
      EXPECT_EQ(e.field(), c.record) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
  // A residue described twice, and a file with no residue at all.
  { std::ofstream(dir / "twice.inp") << good_residue << "\n" << good_residue; }
  try {
    read_cg_description(dir / "twice.inp");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 9);
    EXPECT_NE(std::string(e.what()).find("residue GLY is already described on line 1"), std::string::npos) << e.what();
  }
  { std::ofstream(dir / "empty.inp") << "MASS 1 C 12.011 ! carbon\n"; }
  EXPECT_THROW(read_cg_description(dir / "empty.inp"), Error);
  EXPECT_THROW(read_cg_description(dir / "missing.inp"), Error);
  // Comments after '!' and lower-case records are fine.
  { std::ofstream(dir / "ok.inp") << "mass 1 C 12.011 ! carbon\n! a comment line\n" << good_residue; }
  const CgDescription ok = read_cg_description(dir / "ok.inp");
  ASSERT_EQ(ok.residues.size(), 1u);
  EXPECT_DOUBLE_EQ(ok.residues[0].beads[0].mass_amu, 12.011);
}

}  // namespace
}  // namespace ermak
