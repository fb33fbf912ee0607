// io/structure_model: how the records of a PDB or mmCIF file become residues and chains,
// where writers differ from the standard layout (docs/formats.md#pdb-and-mmcif,
// docs/topology.md#reading-the-structure). Small inline files, plus SOP-GPU's WW domain
// edited in memory as the audit edited it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/ca_model_builder.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "ermak/io/topology_summary.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

// One PDB atom record with the residue name in columns 18-21 (left-justified, as GROMACS's
// `%4.4s` writes it: "HIS " or "HISD"), the chain in column 22 and the segment id in 73-76.
std::string record(const std::string& atom, const std::string& residue, char chain, int number, double x,
                   const std::string& segment = "", const std::string& element = "C") {
  char line[128];
  std::snprintf(line, sizeof line, "ATOM  %5d %-4s %-4s%c%4d    %8.3f%8.3f%8.3f%6.2f%6.2f      %-4s%2s\n", 1,
                atom.size() < 4 ? (" " + atom).c_str() : atom.c_str(), residue.c_str(), chain, number, x, 0.0, 0.0,
                1.0, 10.0, segment.c_str(), element.c_str());
  return line;
}

std::filesystem::path write_file(const std::string& test, const std::string& name, const std::string& text) {
  const auto path = test::fresh_directory("records-" + test) / name;
  std::ofstream(path) << text;
  return path;
}

StructureModel read_model(const std::filesystem::path& file, const StructureReadOptions& options = {}) {
  return extract_structure_model(read_structure_file(file), file.string(), options);
}

bool mentions(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& line : lines)
    if (line.find(part) != std::string::npos) return true;
  return false;
}

std::string shared_file_text(const std::string& relative) {
  const std::string text = test::read_file(test::shared_data() / relative);
  if (text.empty()) ADD_FAILURE() << "cannot read " << (test::shared_data() / relative);
  return text;
}

// Every occurrence of `from` in `text` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
    text.replace(p, from.size(), to);
  return text;
}

std::string fmt_number(int number) {
  char field[8];
  std::snprintf(field, sizeof field, "%4d", number);
  return field;
}

// The ATOM records of a PDB text as a minimal mmCIF atom list (one chain per PDB chain,
// label_asym_id = auth_asym_id).
std::string as_mmcif(const std::string& pdb) {
  std::string cif =
      "data_test\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n"
      "_atom_site.label_atom_id\n_atom_site.label_alt_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n"
      "_atom_site.label_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n"
      "_atom_site.occupancy\n_atom_site.B_iso_or_equiv\n_atom_site.auth_seq_id\n_atom_site.auth_asym_id\n";
  int serial = 0;
  for (std::size_t start = 0; start < pdb.size();) {
    std::size_t end = pdb.find('\n', start);
    if (end == std::string::npos) end = pdb.size();
    const std::string line = pdb.substr(start, end - start);
    start = end + 1;
    if (!line.starts_with("ATOM")) continue;
    const auto field = [&](std::size_t first, std::size_t size) {
      std::string f = line.substr(first, size);
      f.erase(0, f.find_first_not_of(' '));
      f.erase(f.find_last_not_of(' ') + 1);
      return f.empty() ? std::string(".") : f;
    };
    cif += "ATOM " + std::to_string(++serial) + " " + field(76, 2) + " " + field(12, 4) + " . " + field(17, 3) + " " +
           field(21, 1) + " . " + field(30, 8) + " " + field(38, 8) + " " + field(46, 8) + " " + field(54, 6) + " " +
           field(60, 6) + " " + field(22, 4) + " " + field(21, 1) + "\n";
  }
  return cif + "#\n";
}

// A 4-letter residue name in columns 18-21 (GROMACS, VMD, AMBER) is the residue's name; its
// chain is column 22 alone, also when that is blank (a segment id then names the chain). The
// old reader cut the name to HIS and made the 4th letter a chain id's first character.
TEST(IoStructureRecords, AFourLetterResidueNameStaysInItsChain) {
  struct Case {
    const char* what;
    std::string residue;
    char chain;
    std::string segment, expected_chain;
  };
  for (const Case& c : {Case{"chain A", "HISD", 'A', "", "A"}, Case{"blank chain", "HISH", ' ', "", "A"},
                        Case{"blank chain, segment id", "HISE", ' ', "PROT", "PROT"},
                        Case{"another protonation state", "LYSH", 'B', "", "B"}}) {
    SCOPED_TRACE(c.what);
    const std::string pdb = record("CA", "ALA", c.chain, 1, 0.0, c.segment) +
                            record("CA", c.residue, c.chain, 2, 3.8, c.segment) +
                            record("CA", "ALA", c.chain, 3, 7.6, c.segment) + "END\n";
    const StructureModel model = read_model(write_file("four-letter", "gmx.pdb", pdb));
    ASSERT_EQ(model.residues.size(), 3u);
    for (const StructureResidue& residue : model.residues) EXPECT_EQ(residue.chain_id, c.expected_chain);
    EXPECT_EQ(model.residues[1].name, c.residue);
    EXPECT_EQ(model.residues[1].number, 2);
    EXPECT_FALSE(mentions(model.warnings, "appears again")) << model.warnings.front();
    const BuiltTopology built = build_topology(model, {});
    EXPECT_EQ(built.topology.bonds.size(), 2u);
    EXPECT_EQ(built.topology.beads[1].residue_name, c.residue);
    EXPECT_GT(built.topology.beads[1].mass_amu, 100.0f);  // weighed as its standard residue
  }
}

// Chains named by their segment ids (a blank chain column, CHARMM): selected by those names,
// each that gives beads is not said to give none (the warning took the name of the residue
// after the chain's last, and read past the chain for a one-residue segment).
TEST(IoStructureRecords, SegmentNamedChainsSelectedByNameAreNotCalledEmpty) {
  std::string pdb = record("CA", "ALA", ' ', 1, 0.0, "PROA");
  for (int k = 0; k < 4; ++k) pdb += record("CA", "GLY", ' ', 1 + k, 30.0 + 3.8 * k, "PROB");
  const auto file = write_file("segment-chains", "seg2.pdb", pdb + "END\n");
  StructureReadOptions both;
  both.chains = {"PROA", "PROB"};
  const StructureModel model = read_model(file, both);
  EXPECT_EQ(model.residues.size(), 5u);
  EXPECT_FALSE(mentions(model.warnings, "gives no beads")) << (model.warnings.empty() ? "" : model.warnings.front());
  StructureReadOptions one;
  one.chains = {"PROA"};
  EXPECT_FALSE(mentions(read_model(file, one).warnings, "gives no beads"));
  // A chain of HETATM amino acids only: no beads without --keep-hetero, which the warning names.
  std::string het;
  for (int k = 0; k < 2; ++k) {
    std::string line = record("CA", "MSE", 'H', 1 + k, 60.0 + 3.8 * k);
    het += "HETATM" + line.substr(6);
  }
  const auto het_file = write_file("segment-chains-het", "het.pdb", pdb + het + "END\n");
  StructureReadOptions with_het;
  with_het.chains = {"PROB", "H"};
  EXPECT_TRUE(mentions(read_model(het_file, with_het).warnings,
                       "chain H (asked for) holds no amino-acid residue with a C-alpha atom: it gives no beads (its "
                       "amino acids are HETATM records: --keep-hetero includes them)"));
}

// A file of two-character chain ids in columns 21-22 (gemmi writes them so for large
// complexes): "HISAB" there is HIS of chain AB, as the file's other residues show.
TEST(IoStructureRecords, TwoCharacterChainIdsAreNotReadAsFourLetterNames) {
  const auto two_columns = [](const std::string& residue3, int number, double x) {
    std::string line = record("CA", residue3, 'B', number, x);
    line[20] = 'A';  // column 21: the chain is AB
    return line;
  };
  const std::string pdb = two_columns("ALA", 1, 0.0) + two_columns("HIS", 2, 3.8) + two_columns("ALA", 3, 7.6) + "END\n";
  const StructureModel model = read_model(write_file("two-character", "big.pdb", pdb));
  ASSERT_EQ(model.residues.size(), 3u);
  EXPECT_EQ(model.residues[1].name, "HIS");
  for (const StructureResidue& residue : model.residues) EXPECT_EQ(residue.chain_id, "AB");
}

// The audit's case: SOP-GPU's WW domain with HIS 27 written as GROMACS writes HISD, with
// chain A, a blank chain, or a blank chain and a segment id, gives the WW model (34 beads,
// 33 bonds, 75 contacts), not a chain split in three with bonded neighbours made contacts.
TEST(IoStructureRecords, WwWithHisdGivesTheWwModel) {
  const std::string ww = shared_file_text("sopgpu/ww/ww.pdb");
  ASSERT_NE(ww.find("HIS A  27"), std::string::npos);
  std::string blank_segment;  // every ATOM record with a blank chain and segment PROT
  for (std::size_t start = 0; start < ww.size();) {
    std::size_t end = ww.find('\n', start);
    if (end == std::string::npos) end = ww.size();
    std::string line = ww.substr(start, end - start);
    if (line.starts_with("ATOM") && line.size() >= 76) {
      line[21] = ' ';
      line.replace(72, 4, "PROT");
    }
    blank_segment += line + "\n";
    start = end + 1;
  }
  struct Case {
    const char* what;
    std::string text;
  };
  for (const Case& c : {Case{"HISDA", replaced(ww, "HIS A  27", "HISDA  27")},
                        Case{"HISH, blank chain", replaced(replaced(ww, " A  ", "    "), "HIS    27", "HISH   27")},
                        Case{"HISD, blank chain, segment", replaced(blank_segment, "HIS    27", "HISD   27")}}) {
    SCOPED_TRACE(c.what);
    const BuiltTopology built = build_topology(read_model(write_file("ww-hisd", "ww.pdb", c.text)), {});
    EXPECT_EQ(built.topology.bead_count(), 34);
    EXPECT_EQ(built.topology.bonds.size(), 33u);
    EXPECT_EQ(built.topology.native_contacts.size(), 75u);
    for (const BeadInfo& bead : built.topology.beads) EXPECT_EQ(bead.chain_id, built.topology.beads[0].chain_id);
  }
  // [input] structure's builder reads the file the same way.
  const Topology ca = build_ca_model(write_file("ww-hisd-ca", "ww.pdb", replaced(ww, "HIS A  27", "HISDA  27")), {});
  EXPECT_EQ(ca.bead_count(), 34);
  EXPECT_EQ(ca.bonds.size(), 33u);
}

// Deuterium written without an element column: a 4-character name in columns 13-16 (DD11,
// DG12), whose columns 13-14 are no element, is a hydrogen as HD11 is; 3-character names
// (" DB2"), 2-letter elements (FE) and `1HB`-style names keep working. The old reader took
// DD11 for a side-chain heavy atom.
TEST(IoStructureRecords, DeuteriumWithoutAnElementColumnIsAHydrogen) {
  const auto no_element = [](const std::string& atom, const std::string& residue, int number, double x) {
    std::string line = record(atom, residue, 'A', number, x);
    return line.substr(0, 66) + "\n";  // columns 67-80 (segment, element) gone
  };
  std::string pdb = no_element("CA", "LEU", 1, 0.0) + no_element("CB", "LEU", 1, 0.5) + no_element("CD1", "LEU", 1, 1.0) +
                    no_element("DD11", "LEU", 1, 1.5) + no_element("DG", "LEU", 1, 1.6) + no_element("DB2", "LEU", 1, 1.7) +
                    no_element("HD12", "LEU", 1, 1.8) + no_element("1HB", "LEU", 1, 1.9) +
                    // A 2-letter element in columns 13-14 (as an iron's FE) stays a heavy atom.
                    no_element("FE  ", "LEU", 1, 2.0) + no_element("CA", "GLY", 2, 3.8);
  const StructureModel model = read_model(write_file("deuterium", "d.pdb", pdb + "END\n"));
  ASSERT_EQ(model.residues.size(), 2u);
  std::vector<std::string> names;
  for (const StructureAtom& atom : model.residues[0].atoms) names.push_back(atom.name);
  EXPECT_EQ(names, (std::vector<std::string>{"CA", "CB", "CD1", "FE"}));
  EXPECT_EQ(model.hydrogens_ignored, 5);
}

// Only records that follow one another are one residue. The audit's case: the WW domain
// without residue 23 and with 24-39 renumbered 4-19 (a chain numbered domain by domain) reuses
// SER 18's number and name; the old reader joined the second SER 18 to the first and dropped
// it, then said residue 18 was missing from the file.
TEST(IoStructureRecords, AResidueBackUnderItsNumberAndNameIsAnotherResidue) {
  std::string renumbered;
  const std::string ww = shared_file_text("sopgpu/ww/ww.pdb");
  for (std::size_t start = 0; start < ww.size();) {
    std::size_t end = ww.find('\n', start);
    if (end == std::string::npos) end = ww.size();
    std::string line = ww.substr(start, end - start);
    start = end + 1;
    if (line.starts_with("ATOM")) {
      const int number = std::stoi(line.substr(22, 4));
      if (number == 23) continue;
      if (number > 23) line.replace(22, 4, fmt_number(number - 20));
    }
    renumbered += line + "\n";
  }
  for (const bool cif : {false, true}) {
    SCOPED_TRACE(cif ? "mmCIF" : "PDB");
    const auto file = cif ? write_file("renumbered", "ww.cif", as_mmcif(renumbered))
                          : write_file("renumbered", "ww.pdb", renumbered);
    const StructureModel model = read_model(file);
    ASSERT_EQ(model.residues.size(), 33u);
    int ser18 = 0;
    for (const StructureResidue& residue : model.residues) ser18 += residue.name == "SER" && residue.number == 18;
    EXPECT_EQ(ser18, 2);
    const BuiltTopology built = build_topology(model, {});
    EXPECT_FALSE(mentions(built.warnings, "residue 18 is not in the model"));
    EXPECT_FALSE(mentions(model.warnings, "C-alpha atoms without alternate-location labels"));
    EXPECT_TRUE(mentions(model.warnings, "residue numbers are each used by more than one residue"));
    // The second SER 18 is bonded to its neighbours 17 and 19 of the renumbered part.
    EXPECT_EQ(built.topology.bonds.size(), 31u);  // 32 less the gap where 23 was
  }
}

// A TER record inside a continuous chain (the audit's ww with TER between residues 22 and 23)
// splits it into parts A and A-2 as documented; the warning says that the parts' facing ends
// are at bond distance and not bonded — the old reader said only that TER ends a chain.
TEST(IoStructureRecords, PartsOfAChainAtBondDistanceAreNamed) {
  const std::string ww = shared_file_text("sopgpu/ww/ww.pdb");
  const std::size_t first_23 = ww.find("ATOM    138  N   TYR A  23");
  ASSERT_NE(first_23, std::string::npos);
  const std::size_t line_start = ww.rfind('\n', first_23) + 1;
  const std::string split = ww.substr(0, line_start) + "TER\n" + ww.substr(line_start);
  const auto file = write_file("ter-no-gap", "ww.pdb", split);
  const BuiltTopology built = build_topology(read_model(file), {});
  EXPECT_EQ(built.topology.bonds.size(), 32u);
  const std::string expected = "A:VAL 22 and A-2:TYR 23, the facing ends of two parts of chain A";
  EXPECT_TRUE(mentions(built.warnings, expected));
  EXPECT_TRUE(mentions(built.warnings, "are 3.80 A apart, within bond distance (<= 4.5 A), but not bonded"));
  std::vector<std::string> warnings;
  build_ca_model(file, {}, &warnings);
  EXPECT_TRUE(mentions(warnings, expected));
  // Parts farther apart than a bond: no such warning.
  TopologyOptions strict;
  strict.break_distance_A = 3.7;
  EXPECT_FALSE(mentions(build_topology(read_model(file), strict).warnings, "facing ends"));
}

// mmCIF: two molecules (label_asym_id A and B) under one auth_asym_id A stay apart, as two
// parts (A, A-2) with an mmCIF warning; the old reader merged the second into the first and
// dropped it, suggesting a TER record.
TEST(IoStructureRecords, TwoMoleculesUnderOneAuthChainStayApart) {
  std::string pdb;
  for (int copy = 0; copy < 2; ++copy)
    for (int k = 1; k <= 4; ++k) pdb += record("CA", k == 2 ? "SER" : "ALA", 'A', k, 3.8 * (k - 1) + 30.0 * copy);
  std::string cif = as_mmcif(pdb);
  // The second copy's rows (the last 4) get label_asym_id B.
  std::size_t row = 0;
  for (std::size_t p = cif.find("\nATOM "); p != std::string::npos; p = cif.find("\nATOM ", p + 1))
    if (++row > 4) {
      const std::size_t label = cif.find(" A . ", p);
      cif.replace(label, 5, " B . ");
    }
  const StructureModel model = read_model(write_file("two-molecules", "two.cif", cif));
  ASSERT_EQ(model.residues.size(), 8u);
  EXPECT_EQ(model.residues[3].chain_id, "A");
  EXPECT_EQ(model.residues[4].chain_id, "A-2");
  EXPECT_EQ(model.residues[4].subchain, "B");
  EXPECT_TRUE(mentions(model.warnings, "chain A (auth_asym_id) holds another molecule after molecule A (label_asym_id "
                                       "B, from residue ALA 1): its part is named A-2"));
  EXPECT_FALSE(mentions(model.warnings, "TER"));
  EXPECT_EQ(build_topology(model, {}).topology.bonds.size(), 6u);
  std::vector<std::string> warnings;
  EXPECT_EQ(build_ca_model(write_file("two-molecules-ca", "two.cif", cif), {}, &warnings).bead_count(), 8);
  EXPECT_TRUE(mentions(warnings, "holds another molecule"));
}

// Models numbered 0, 5 and 7: the summary says which of the file's models it used ("model 5,
// the first of 3", not "model 5 of 3"), and --model 0 takes the file's MODEL 0 (the old
// reader read 0 as "the first model" and the command refused it).
TEST(IoStructureRecords, ModelsNumberedOtherwiseAreNamedAndFound) {
  std::string pdb;
  for (const int number : {5, 0, 7}) {
    char model[32];
    std::snprintf(model, sizeof model, "MODEL     %4d\n", number);
    pdb += model + record("CA", "ALA", 'A', 1, 0.0) + record("CA", "ALA", 'A', 2, 3.8 + 0.1 * number) + "ENDMDL\n";
  }
  const auto file = write_file("models", "nmr.pdb", pdb + "END\n");
  const auto summary_input_line = [&](const StructureModel& model) {
    const std::string summary = format_topology_summary(model, build_topology(model, {}), TopologyRunInfo{});
    const std::size_t start = summary.find("input ");
    return summary.substr(start, summary.find('\n', start) - start);
  };
  const StructureModel first = read_model(file);
  EXPECT_EQ(first.model_name, "5");
  EXPECT_NE(summary_input_line(first).find("(PDB, model 5, the first of 3)"), std::string::npos)
      << summary_input_line(first);
  StructureReadOptions zero;
  zero.model = 0;
  const StructureModel model_0 = read_model(file, zero);
  EXPECT_EQ(model_0.model_name, "0");
  EXPECT_DOUBLE_EQ(model_0.residues[1].atoms[0].position_A.x, 3.8);
  EXPECT_NE(summary_input_line(model_0).find("(PDB, model 0, the second of 3)"), std::string::npos);
  // A file numbered 1, 2, …: as before.
  const StructureModel ww = read_model(test::shared_data() / "sopgpu/ww/ww.pdb");
  EXPECT_NE(summary_input_line(ww).find("(PDB, model 1 of 1)"), std::string::npos);
}

// Blank occupancy columns (villin_nle_native.pdb, as MD programs write) are absent, not 0:
// occupancy 1 and no "occupancy 0 (not observed …)" warning; the old reader said 35
// C-alphas were unobserved and wrote occupancy 0 to the .etop. A written 0 is still 0.
TEST(IoStructureRecords, ABlankOccupancyColumnIsNotZero) {
  const auto blank_occupancy = [](int number, double x, const char* occupancy) {
    std::string line = record("CA", "ALA", 'A', number, x);
    line.replace(54, 6, occupancy);
    return line;
  };
  const auto file = write_file("occupancy", "md.pdb",
                               blank_occupancy(1, 0.0, "      ") + blank_occupancy(2, 3.8, "      ") +
                                   blank_occupancy(3, 7.6, "  0.00") + "END\n");
  const StructureModel model = read_model(file);
  ASSERT_EQ(model.residues.size(), 3u);
  EXPECT_FLOAT_EQ(model.residues[0].atoms[0].occupancy, 1.0f);
  EXPECT_FLOAT_EQ(model.residues[1].atoms[0].occupancy, 1.0f);
  EXPECT_FLOAT_EQ(model.residues[2].atoms[0].occupancy, 0.0f);
  EXPECT_TRUE(mentions(model.warnings, "1 C-alpha atom has occupancy 0 (not observed"));
  // The file that showed it, with its blank columns.
  const auto villin = test::shared_data() / "forcefields/villin-nle/villin_nle_native.pdb";
  const StructureModel nle = read_model(villin);
  EXPECT_FALSE(mentions(nle.warnings, "occupancy 0"));
  EXPECT_FLOAT_EQ(build_topology(nle, {}).topology.beads[0].occupancy, 1.0f);
}

// A file whose lines end in CR alone: an error that says so, not "no amino-acid residue …
// (is it a protein structure?)" as before.
TEST(IoStructureRecords, CarriageReturnLineEndingsAreNamed) {
  std::string pdb = record("CA", "ALA", 'A', 1, 0.0) + record("CA", "ALA", 'A', 2, 3.8) + "END\n";
  for (char& c : pdb)
    if (c == '\n') c = '\r';
  for (const char* name : {"mac.pdb", "mac.cif"}) {
    try {
      read_structure_file(write_file("cr-only", name, pdb));
      ADD_FAILURE() << "a CR-only file was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the file's lines end in a carriage return alone"), std::string::npos)
          << e.what();
    }
  }
}

// mmCIF auth_seq_id '?': the residue takes its label_seq_id, with a note, or without one the
// file is refused at the atom's line (it was silently residue 0).
TEST(IoStructureRecords, AnUnknownAuthSeqIdTakesTheLabelSeqId) {
  const std::string pdb = record("CA", "ALA", 'A', 1, 0.0) + record("CA", "SER", 'A', 2, 3.8) +
                          record("CA", "ALA", 'A', 3, 7.6);
  std::string cif = as_mmcif(pdb);
  // as_mmcif writes label_seq_id '.', then x y z occupancy B auth_seq_id auth_asym_id: give the
  // SER row label_seq_id 12 and auth_seq_id '?'.
  const std::size_t ser = cif.find(" SER ");
  std::string row = cif.substr(ser, cif.find('\n', ser) - ser);
  std::string changed = row;
  changed.replace(changed.find(" A . "), 5, " A 12 ");
  changed.replace(changed.rfind(" 2 A"), 4, " ? A");
  const std::string labelled = replaced(cif, row, changed);
  const StructureModel model = read_model(write_file("seq-q", "q.cif", labelled));
  ASSERT_EQ(model.residues.size(), 3u);
  EXPECT_EQ(model.residues[1].number, 12);
  EXPECT_TRUE(mentions(model.warnings, "1 atom(s) have no auth_seq_id ('?'): their label_seq_id numbers their "
                                       "residues (e.g. atom 2: residue 12)"));
  std::string unnumbered = row;
  unnumbered.replace(unnumbered.rfind(" 2 A"), 4, " ? A");
  try {
    read_structure_file(write_file("seq-q-none", "none.cif", replaced(cif, row, unnumbered)));
    ADD_FAILURE() << "an atom without a residue number was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("none.cif:19: _atom_site.auth_seq_id: '?' (atom 2): its residue has no "
                                         "number — no auth_seq_id, and label_seq_id '.' is none either"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ermak
