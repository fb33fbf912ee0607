// io/ca_model_builder: all-atom PDB/mmCIF → C-alpha SOP model, checked against
// independent counts (gemmi's C-alpha coordinates, brute force O(N²)).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
#include <gemmi/pdb.hpp>

#include "ermak/core/error.h"
#include "ermak/io/ca_model_builder.h"
#include "ermak/io/pair_search.h"
#include "ermak/model/chain_positions.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

const std::filesystem::path kUbiquitin = "/usr/share/freesasa/test-data/1ubq.pdb";

// One fixed-column PDB ATOM/HETATM record (PDB 3.3 layout).
std::string atom(int serial, const char* name, const char* residue, char chain, int number,
                 double x, double y, double z, double occupancy = 1.0, char altloc = ' ',
                 const char* record = "ATOM", const char* element = "C") {
  char line[128];
  std::snprintf(line, sizeof line, "%-6s%5d %-4s%c%3s %c%4d    %8.3f%8.3f%8.3f%6.2f%6.2f          %2s\n",
                record, serial, name, altloc, residue, chain, number, x, y, z, occupancy, 10.0, element);
  return line;
}

std::filesystem::path write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const auto path = test::fresh_directory(dir) / name;
  std::ofstream(path) << text;
  return path;
}

std::string error_message(const std::filesystem::path& file, const ModelBuildSpec& spec = {}) {
  try {
    build_ca_model(file, spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& line : lines)
    if (line.find(part) != std::string::npos) return true;
  return false;
}

TEST(IoCaModel, UbiquitinMatchesBruteForceOverGemmiCalpha) {
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(kUbiquitin, ModelBuildSpec{}, &warnings);
  EXPECT_EQ(top.name, "1ubq");
  ASSERT_EQ(top.bead_count(), 76);
  EXPECT_EQ(top.bonds.size(), 75u);
  ASSERT_EQ(top.native_positions_A.size(), 76u);
  for (const BeadInfo& bead : top.beads) EXPECT_NE(bead.residue_name, "HOH");
  EXPECT_EQ(top.beads.front().residue_name, "MET");
  EXPECT_EQ(top.beads.front().residue_number, 1);
  EXPECT_EQ(top.beads.back().residue_name, "GLY");
  EXPECT_EQ(top.beads.back().residue_number, 76);
  EXPECT_EQ(top.beads.front().chain_id, "A");

  // Independent reference: every CA of the first model, all pairs.
  const gemmi::Structure st = gemmi::read_pdb_file(kUbiquitin.string());
  std::vector<gemmi::Position> ca;
  for (const gemmi::Residue& r : st.models[0].chains[0].residues)
    if (const gemmi::Atom* a = r.get_ca()) ca.push_back(a->pos);
  ASSERT_EQ(ca.size(), 76u);
  std::size_t expected = 0;
  for (std::size_t i = 0; i < ca.size(); ++i)
    for (std::size_t j = i + 3; j < ca.size(); ++j)
      if (ca[i].dist(ca[j]) < 8.0) ++expected;
  EXPECT_EQ(top.native_contacts.size(), expected);
  for (const NativeContact& c : top.native_contacts) {
    EXPECT_GT(c.j - c.i, 2);
    EXPECT_NEAR(c.r0_A, ca[c.i].dist(ca[c.j]), 1e-5);
    EXPECT_FLOAT_EQ(c.eh_kcal_per_mol, 1.5f);
  }
  for (const Bond& b : top.bonds) {
    EXPECT_EQ(b.j, b.i + 1);
    EXPECT_NEAR(b.r0_A, ca[b.i].dist(ca[b.j]), 1e-5);
  }
  EXPECT_FALSE(contains(warnings, "chain break"));
}

TEST(IoCaModel, FiveResiduesKnownContactsWaterAndLigandSkipped) {
  // Square then up: (0,3) at 3.8 Å and (0,4) at 5.37 Å are native with cutoff 6 Å,
  // (1,4) at 6.58 Å is not; |i−j| ≤ 2 pairs never are.
  std::string pdb = atom(1, " CA", "ALA", 'A', 1, 0, 0, 0) + atom(2, " CA", "GLY", 'A', 2, 3.8, 0, 0) +
                    atom(3, " CA", "LYS", 'A', 3, 3.8, 3.8, 0) + atom(4, " CA", "MSE", 'A', 4, 0, 3.8, 0, 1.0, ' ', "HETATM") +
                    atom(5, " CA", "TRP", 'A', 5, 0, 3.8, 3.8) + atom(6, " N", "SER", 'A', 6, 20, 20, 20, 1.0, ' ', "ATOM", "N") +
                    atom(7, " O", "HOH", 'A', 101, 1, 1, 1, 1.0, ' ', "HETATM", "O") +
                    atom(8, "CA", "CA", 'A', 102, 2, 2, 2, 1.0, ' ', "HETATM", "CA") +
                    atom(9, " C1", "NAG", 'A', 103, 5, 5, 5, 1.0, ' ', "HETATM") + "END\n";
  const auto file = write_file("io-five", "five.pdb", pdb);
  ModelBuildSpec spec;
  spec.native_cutoff_A = 6.0;
  spec.native_energy_kcal_per_mol = 0.7;
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(file, spec, &warnings);
  ASSERT_EQ(top.bead_count(), 5);
  EXPECT_EQ(top.beads[3].residue_name, "MSE");
  EXPECT_EQ(top.name, "five");
  ASSERT_EQ(top.bonds.size(), 4u);
  ASSERT_EQ(top.native_contacts.size(), 2u);
  EXPECT_EQ(top.native_contacts[0].i, 0);
  EXPECT_EQ(top.native_contacts[0].j, 3);
  EXPECT_NEAR(top.native_contacts[0].r0_A, 3.8, 1e-5);
  EXPECT_EQ(top.native_contacts[1].j, 4);
  EXPECT_NEAR(top.native_contacts[1].r0_A, std::sqrt(2 * 3.8 * 3.8), 1e-5);
  EXPECT_FLOAT_EQ(top.native_contacts[1].eh_kcal_per_mol, 0.7f);
  EXPECT_TRUE(contains(warnings, "SER 6 has no C-alpha")) << warnings.size();
  EXPECT_TRUE(contains(warnings, "skipped 2 non-protein residue(s) (ligands, nucleotides, ions): CA (1), NAG (1)"));
  EXPECT_TRUE(contains(warnings, file.string()));
}

TEST(IoCaModel, TwoChainsNoBondAcrossAndAllCloseInterchainPairsNative) {
  std::string pdb;
  const double a[3][2] = {{0, 0}, {3.8, 0}, {7.6, 0}};
  const double b[3][2] = {{7.6, 3.8}, {3.8, 3.8}, {0, 3.8}};
  for (int k = 0; k < 3; ++k) pdb += atom(k + 1, " CA", "ALA", 'A', k + 1, a[k][0], a[k][1], 0);
  pdb += "TER\n";
  for (int k = 0; k < 3; ++k) pdb += atom(k + 5, " CA", "ALA", 'B', k + 1, b[k][0], b[k][1], 0);
  const auto file = write_file("io-two-chains", "two.pdb", pdb + "END\n");
  const Topology top = build_ca_model(file, ModelBuildSpec{});
  ASSERT_EQ(top.bead_count(), 6);
  EXPECT_EQ(top.beads[2].chain_id, "A");
  EXPECT_EQ(top.beads[3].chain_id, "B");
  ASSERT_EQ(top.bonds.size(), 4u);
  for (const Bond& bond : top.bonds) EXPECT_FALSE(bond.i == 2 && bond.j == 3);
  // Across chains |i−j| does not matter: (2,3) is 3.8 Å apart and native.
  std::vector<std::pair<int, int>> pairs;
  for (const NativeContact& c : top.native_contacts) pairs.emplace_back(c.i, c.j);
  const std::vector<std::pair<int, int>> expected = {{0, 4}, {0, 5}, {1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}};
  EXPECT_EQ(pairs, expected);
}

// One name for two molecules — chain A, then B, then A again — stays two chains: the
// second A is named A-2 (with a warning), so that its first residue is not bonded to the
// first part's last, the |Δresnum| rule does not apply across, and "A:1" names one bead.
TEST(IoCaModel, AChainNameGivenTwiceStaysTwoChains) {
  std::string pdb;
  for (int k = 0; k < 3; ++k) pdb += atom(k + 1, " CA", "ALA", 'A', k + 1, 3.8 * k, 0, 0);
  pdb += "TER\n";
  for (int k = 0; k < 3; ++k) pdb += atom(k + 5, " CA", "ALA", 'B', k + 1, 3.8 * k, 30, 0);
  pdb += "TER\n";
  // The second A starts 3.8 Å from the first A's last bead, residue numbers 1.. again.
  for (int k = 0; k < 3; ++k) pdb += atom(k + 9, " CA", "ALA", 'A', k + 1, 3.8 * (k + 3), 0, 0);
  const auto file = write_file("io-chain-twice", "twice.pdb", pdb + "END\n");
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(file, ModelBuildSpec{}, &warnings);
  ASSERT_EQ(top.bead_count(), 9);
  EXPECT_EQ(top.beads[0].chain_id, "A");
  EXPECT_EQ(top.beads[3].chain_id, "B");
  EXPECT_EQ(top.beads[6].chain_id, "A-2");
  EXPECT_TRUE(contains(warnings, "chain A appears again after other chains: its second part is named A-2"));
  for (const Bond& bond : top.bonds) EXPECT_FALSE(bond.i == 2 && bond.j == 6) << "bonded across the two parts";
  EXPECT_EQ(top.bonds.size(), 6u);
  // Beads 2 (A:3) and 6 (A-2:1) are 3.8 Å apart in different chains: native.
  bool across = false;
  for (const NativeContact& c : top.native_contacts) across = across || (c.i == 2 && c.j == 6);
  EXPECT_TRUE(across);

  // A blank chain column: each CHARMM segment is a chain of its own.
  std::string charmm;
  for (int k = 0; k < 6; ++k) {
    const std::string line = atom(k + 1, " CA", "ALA", ' ', k % 3 + 1, 3.8 * k, 0, 0);
    charmm += line.substr(0, 72) + (k < 3 ? "PRO3" : "PRO4") + "\n";  // segment id, columns 73-76
  }
  const Topology segments = build_ca_model(write_file("io-segments", "seg.pdb", charmm + "END\n"), ModelBuildSpec{});
  ASSERT_EQ(segments.bead_count(), 6);
  EXPECT_EQ(segments.beads[0].chain_id, "PRO3");
  EXPECT_EQ(segments.beads[5].chain_id, "PRO4");
  EXPECT_EQ(segments.bonds.size(), 4u);
}

// A whole chain given twice under one name: after a TER record (molecules of an MD snapshot)
// the second copy is a chain of its own, A-2, not bonded to the first; without one, the copies
// are one chain (records of a residue are one residue only where they follow one another), and
// one warning for the chain says that its residues come back under their numbers and names.
// Each residue's records given twice one after the other keep the first C-alpha, with one
// warning for the chain rather than one per residue.
TEST(IoCaModel, AChainGivenTwiceUnderOneNameIsOneWarning) {
  for (const bool ter : {true, false}) {
    std::string pdb;
    for (int copy = 0; copy < 2; ++copy) {
      // The copies' ends 3.8 A apart: only the TER keeps them from being bonded.
      for (int k = 0; k < 5; ++k) pdb += atom(copy * 5 + k + 1, " CA", "ALA", ' ', k + 1, 3.8 * (copy * 5 + k), 0, 0);
      if (ter) pdb += "TER\n";
    }
    std::vector<std::string> warnings;
    const Topology top = build_ca_model(write_file("io-chain-copies", "copies.pdb", pdb + "END\n"), {}, &warnings);
    if (ter) {
      ASSERT_EQ(top.bead_count(), 10);
      EXPECT_EQ(top.beads[4].chain_id, "A");
      EXPECT_EQ(top.beads[5].chain_id, "A-2");
      EXPECT_EQ(top.beads[5].residue_number, 1);
      EXPECT_EQ(top.bonds.size(), 8u);  // 4 in each copy, none across the TER
      for (const Bond& bond : top.bonds) EXPECT_EQ(bond.i < 5, bond.j < 5) << bond.i << "-" << bond.j;
      EXPECT_TRUE(contains(warnings, "chain A continues after a TER record: the part after it is named A-2"));
      EXPECT_TRUE(contains(warnings, "A:ALA 5 and A-2:ALA 1, the facing ends of two parts of chain A"));
    } else {
      ASSERT_EQ(top.bead_count(), 10);
      EXPECT_EQ(top.beads[5].chain_id, "A");
      EXPECT_EQ(top.bonds.size(), 9u);  // one chain, its copies' ends 3.8 A apart
      EXPECT_TRUE(contains(warnings, "chain A: 5 residues appear again under their number and name after other "
                                     "residues (e.g. A:ALA 1; a chain given twice under one name without TER"));
      EXPECT_FALSE(contains(warnings, "C-alpha atoms"));
    }
  }
  // Each residue's records twice in a row (two copies merged residue by residue).
  std::string merged;
  for (int k = 0; k < 5; ++k)
    for (int copy = 0; copy < 2; ++copy) merged += atom(2 * k + copy + 1, " CA", "ALA", 'A', k + 1, 3.8 * k, 40.0 * copy, 0);
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(write_file("io-chain-merged", "merged.pdb", merged + "END\n"), {}, &warnings);
  EXPECT_EQ(top.bead_count(), 5);
  EXPECT_TRUE(contains(warnings, "chain A: 5 residues have two C-alpha atoms without alternate-location labels "
                                 "(A:ALA 1 to A:ALA 5): each residue's records are given twice"));
  EXPECT_FALSE(contains(warnings, "residue A:ALA 3 has 2 C-alpha atoms"));
}

TEST(IoCaModel, ChainBreakByGeometry) {
  std::string pdb = atom(1, " CA", "ALA", 'A', 1, 0, 0, 0) + atom(2, " CA", "ALA", 'A', 2, 3.8, 0, 0) +
                    atom(3, " CA", "ALA", 'A', 3, 9.8, 0, 0) + atom(4, " CA", "ALA", 'A', 4, 13.6, 0, 0);
  const auto file = write_file("io-break", "gap.pdb", pdb);
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(file, ModelBuildSpec{}, &warnings);
  ASSERT_EQ(top.bonds.size(), 2u);
  EXPECT_EQ(top.bonds[0].j, 1);
  EXPECT_EQ(top.bonds[1].i, 2);
  EXPECT_TRUE(contains(warnings, "chain break")) << (warnings.empty() ? "" : warnings[0]);
  ModelBuildSpec loose;
  loose.chain_break_A = 7.0;
  EXPECT_EQ(build_ca_model(file, loose).bonds.size(), 3u);
}

TEST(IoCaModel, FirstModelOnly) {
  const std::string model1 = atom(1, " CA", "ALA", 'A', 1, 0, 0, 0) + atom(2, " CA", "ALA", 'A', 2, 3.8, 0, 0);
  const std::string model2 = atom(1, " CA", "ALA", 'A', 1, 9, 9, 9) + atom(2, " CA", "ALA", 'A', 2, 12.8, 9, 9) +
                             atom(3, " CA", "ALA", 'A', 3, 16.6, 9, 9);
  const auto file = write_file("io-models", "nmr.pdb",
                               "MODEL        1\n" + model1 + "ENDMDL\nMODEL        2\n" + model2 + "ENDMDL\nEND\n");
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(file, ModelBuildSpec{}, &warnings);
  ASSERT_EQ(top.bead_count(), 2);
  EXPECT_DOUBLE_EQ(top.native_positions_A[1].x, 3.8);
  EXPECT_TRUE(contains(warnings, "the file has 2 models; model 1 (the first) is used"));
}

TEST(IoCaModel, AltlocKeepsHighestOccupancy) {
  std::string pdb = atom(1, " CA", "ALA", 'A', 1, 0, 0, 0) +
                    atom(2, " CA", "SER", 'A', 2, 3.8, 0, 0, 0.30, 'A') +
                    atom(3, " CA", "SER", 'A', 2, 3.7, 0.5, 0, 0.70, 'B') +
                    atom(4, " CA", "ALA", 'A', 3, 7.6, 0, 0, 0.60, 'A') +
                    atom(5, " CA", "ALA", 'A', 3, 7.4, 1, 0, 0.40, 'B');
  const auto file = write_file("io-altloc", "alt.pdb", pdb);
  const Topology top = build_ca_model(file, ModelBuildSpec{});
  ASSERT_EQ(top.bead_count(), 3);
  EXPECT_DOUBLE_EQ(top.native_positions_A[1].x, 3.7);
  EXPECT_DOUBLE_EQ(top.native_positions_A[1].y, 0.5);
  EXPECT_FLOAT_EQ(top.beads[1].occupancy, 0.70f);
  EXPECT_DOUBLE_EQ(top.native_positions_A[2].x, 7.6);
}

// Two residues under one number without altloc labels are two beads (the builder of
// `ermak topology` does the same: TopologyBuilder.AReusedResidueNumberKeepsBothResiduesAndWarns).
TEST(IoCaModel, AReusedResidueNumberKeepsBothResidues) {
  const std::string pdb = atom(1, " CA", "ALA", 'A', 19, 0, 0, 0) + atom(2, " CA", "SER", 'A', 20, 3.8, 0, 0) +
                          atom(3, " CA", "ASP", 'A', 20, 7.6, 0, 0) + atom(4, " CA", "THR", 'A', 22, 11.4, 0, 0);
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(write_file("io-reused", "reused.pdb", pdb + "END\n"), {}, &warnings);
  ASSERT_EQ(top.bead_count(), 4);
  EXPECT_EQ(top.bonds.size(), 3u);
  EXPECT_TRUE(contains(warnings, "residues A:SER 20, A:ASP 20 share one number"));
}

// A residue whose records appear twice in a row (no altloc labels) keeps its first C-alpha and
// says so; one that comes back after other residues is another residue (a bead, with a
// warning); labelled alternatives (above) do not warn.
TEST(IoCaModel, ARepeatedResidueWarns) {
  const std::string pdb = atom(1, " CA", "ALA", 'A', 1, 0, 0, 0) + atom(2, " CA", "SER", 'A', 2, 3.8, 0, 0) +
                          atom(3, " CA", "SER", 'A', 2, 53.8, 0, 0) + atom(4, " CA", "ALA", 'A', 3, 7.6, 0, 0);
  const auto file = write_file("io-repeated", "rep.pdb", pdb);
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(file, ModelBuildSpec{}, &warnings);
  ASSERT_EQ(top.bead_count(), 3);
  EXPECT_DOUBLE_EQ(top.native_positions_A[1].x, 3.8);
  EXPECT_TRUE(contains(warnings, "residue A:SER 2 has 2 C-alpha atoms without alternate-location labels"));
  std::vector<std::string> again;
  const Topology later = build_ca_model(
      write_file("io-repeated-later", "later.pdb",
                 atom(1, " CA", "ALA", 'A', 1, 0, 0, 0) + atom(2, " CA", "SER", 'A', 2, 3.8, 0, 0) +
                     atom(3, " CA", "ALA", 'A', 3, 7.6, 0, 0) + atom(4, " CA", "SER", 'A', 2, 11.4, 0, 0)),
      ModelBuildSpec{}, &again);
  ASSERT_EQ(later.bead_count(), 4);
  EXPECT_EQ(later.bonds.size(), 3u);
  EXPECT_TRUE(contains(again, "residue A:SER 2 appears again after other residues"));
  EXPECT_FALSE(contains(again, "C-alpha atoms"));
  std::vector<std::string> none;
  build_ca_model(write_file("io-altloc-quiet", "alt.pdb",
                            atom(1, " CA", "ALA", 'A', 1, 0, 0, 0) + atom(2, " CA", "SER", 'A', 2, 3.8, 0, 0, 0.3, 'A') +
                                atom(3, " CA", "SER", 'A', 2, 3.7, 0.5, 0, 0.7, 'B')),
                 ModelBuildSpec{}, &none);
  EXPECT_FALSE(contains(none, "without alternate-location labels"));
}

// mmCIF written here from gemmi's reading of the PDB: the same model must come out.
TEST(IoCaModel, MmcifGivesSameModelAsPdb) {
  const gemmi::Structure st = gemmi::read_pdb_file(kUbiquitin.string());
  std::string cif =
      "data_1UBQ\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n"
      "_atom_site.label_atom_id\n_atom_site.label_alt_id\n_atom_site.label_comp_id\n"
      "_atom_site.label_asym_id\n_atom_site.label_entity_id\n_atom_site.label_seq_id\n"
      "_atom_site.pdbx_PDB_ins_code\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n"
      "_atom_site.occupancy\n_atom_site.B_iso_or_equiv\n_atom_site.auth_seq_id\n"
      "_atom_site.auth_asym_id\n_atom_site.pdbx_PDB_model_num\n";
  int serial = 0;
  for (const gemmi::Residue& r : st.models[0].chains[0].residues)
    for (const gemmi::Atom& a : r.atoms) {
      const bool water = r.is_water();
      char line[256];
      std::snprintf(line, sizeof line, "%s %d %s %s . %s %s %d %s ? %.3f %.3f %.3f %.2f %.2f %d A 1\n",
                    water ? "HETATM" : "ATOM", ++serial, a.element.name(), a.name.c_str(), r.name.c_str(),
                    water ? "B" : "A", water ? 2 : 1, water ? "." : std::to_string(*r.seqid.num).c_str(),
                    a.pos.x, a.pos.y, a.pos.z, a.occ, a.b_iso, *r.seqid.num);
      cif += line;
    }
  const auto file = write_file("io-mmcif", "1ubq.cif", cif);
  const Topology from_cif = build_ca_model(file, ModelBuildSpec{});
  const Topology from_pdb = build_ca_model(kUbiquitin, ModelBuildSpec{});
  ASSERT_EQ(from_cif.bead_count(), from_pdb.bead_count());
  ASSERT_EQ(from_cif.bonds.size(), from_pdb.bonds.size());
  ASSERT_EQ(from_cif.native_contacts.size(), from_pdb.native_contacts.size());
  for (std::size_t k = 0; k < from_pdb.native_contacts.size(); ++k) {
    EXPECT_EQ(from_cif.native_contacts[k].i, from_pdb.native_contacts[k].i);
    EXPECT_EQ(from_cif.native_contacts[k].j, from_pdb.native_contacts[k].j);
    EXPECT_FLOAT_EQ(from_cif.native_contacts[k].r0_A, from_pdb.native_contacts[k].r0_A);
  }
  EXPECT_EQ(from_cif.beads[10].residue_name, from_pdb.beads[10].residue_name);
  EXPECT_EQ(from_cif.beads[10].residue_number, from_pdb.beads[10].residue_number);
  EXPECT_EQ(from_cif.beads[10].chain_id, "A");

  // Detected by content when the extension says nothing.
  const auto plain = write_file("io-mmcif-plain", "ubiquitin.txt", cif);
  EXPECT_EQ(build_ca_model(plain, ModelBuildSpec{}).bead_count(), 76);
}

// 1CWP (capsid asymmetric unit) is in the old layout with "1CWP 381" in columns 73-80,
// which gemmi 0.5.7 alone refuses; its pdb2cif mmCIF must give the same model.
TEST(IoCaModel, OldLayoutPdbMatchesItsMmcif) {
  std::vector<std::string> warnings;
  const Topology pdb = build_ca_model(test::shared_data() / "pdb/1CWP.pdb", ModelBuildSpec{}, &warnings);
  EXPECT_TRUE(contains(warnings, "old PDB layout"));
  EXPECT_EQ(pdb.bead_count(), 149 + 164 + 164);
  EXPECT_EQ(pdb.beads.front().chain_id, "A");
  EXPECT_EQ(pdb.beads.back().chain_id, "C");
  const Topology cif = build_ca_model(test::shared_data() / "derived/1CWP_pdb2cif.cif", ModelBuildSpec{});
  ASSERT_EQ(cif.bead_count(), pdb.bead_count());
  EXPECT_EQ(cif.bonds.size(), pdb.bonds.size());
  EXPECT_EQ(cif.native_contacts.size(), pdb.native_contacts.size());
  for (int b = 0; b < pdb.bead_count(); b += 50) {
    EXPECT_EQ(cif.beads[b].residue_number, pdb.beads[b].residue_number);
    EXPECT_NEAR(cif.native_positions_A[b].x, pdb.native_positions_A[b].x, 1e-3);
  }
}

// SOP-GPU's fibrinogen input: CHARMM names (HSD), "CA" shifted to column 13 (gemmi
// infers calcium), glycans. PROVENANCE.md counts 2964 amino acids in 6 chains.
TEST(IoCaModel, CharmmStyleModelKeepsEveryAminoAcid) {
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(test::shared_data() / "derived/fibrinogen_fullfg_sopgpu_model.pdb",
                                      ModelBuildSpec{}, &warnings);
  EXPECT_EQ(top.bead_count(), 2964);
  // CHARMM's histidines (HSD) are histidines: kept under their name, with HIS's mass, and
  // not reported as unknown residues.
  int histidines = 0;
  for (const BeadInfo& b : top.beads)
    if (b.residue_name == "HSD") {
      ++histidines;
      EXPECT_NEAR(b.mass_amu, 155.15, 0.01);  // neutral free histidine, C6H9N3O2
    }
  EXPECT_GT(histidines, 0);
  // Lysine and arginine too weigh as the neutral free amino acids (the table lists cations).
  for (const BeadInfo& b : top.beads) {
    if (b.residue_name == "LYS") EXPECT_NEAR(b.mass_amu, 146.19, 0.01);
    if (b.residue_name == "ARG") EXPECT_NEAR(b.mass_amu, 174.20, 0.01);
    if (b.residue_name == "GLY") EXPECT_NEAR(b.mass_amu, 75.07, 0.01);
  }
  EXPECT_FALSE(contains(warnings, "HSD"));
  EXPECT_TRUE(contains(warnings, "skipped 44 non-protein"));
  for (const Bond& b : top.bonds) EXPECT_EQ(top.beads[b.i].chain_id, top.beads[b.j].chain_id);
}

// A capsid deposited as its asymmetric unit: the model is the file's chains, and the
// warning points to ermak topology --assembly ncs for the whole particle.
TEST(IoCaModel, AnAsymmetricUnitWithNcsOperatorsSaysHowToBuildTheParticle) {
  std::vector<std::string> warnings;
  const Topology top = build_ca_model(test::shared_data() / "derived/1CWP_pdb2cif.cif", ModelBuildSpec{}, &warnings);
  EXPECT_EQ(top.bead_count(), 477);
  EXPECT_TRUE(contains(warnings, "the file lists 59 NCS operators that generate further copies of its chains"));
  EXPECT_TRUE(contains(warnings, "--assembly ncs"));
}

TEST(IoCaModel, ErrorsNameTheFile) {
  const auto missing = test::fresh_directory("io-missing") / "absent.pdb";
  EXPECT_NE(error_message(missing).find("absent.pdb"), std::string::npos);
  EXPECT_NE(error_message(missing).find("not found"), std::string::npos);

  const auto empty = write_file("io-empty", "empty.pdb", "");
  EXPECT_NE(error_message(empty).find("empty.pdb"), std::string::npos);
  EXPECT_NE(error_message(empty).find("empty"), std::string::npos);

  // Cut in the middle of y on line 3.
  std::string good = atom(1, " CA", "ALA", 'A', 1, 0, 0, 0) + atom(2, " CA", "ALA", 'A', 2, 3.8, 0, 0);
  const auto truncated = write_file("io-trunc", "cut.pdb", good + good.substr(0, 40));
  const std::string cut = error_message(truncated);
  EXPECT_NE(cut.find("cut.pdb:3:"), std::string::npos) << cut;
  EXPECT_NE(cut.find("truncated"), std::string::npos) << cut;

  std::string bad = atom(3, " CA", "ALA", 'A', 3, 7.6, 0, 0);
  bad.replace(40, 3, "1x3");  // inside y, columns 39-46
  const auto garbled = write_file("io-garbled", "garbled.pdb", good + bad);
  const std::string g = error_message(garbled);
  EXPECT_NE(g.find("garbled.pdb:3: y:"), std::string::npos) << g;

  // Damaged records that gemmi would read without complaint into a wrong model: a record
  // shifted right (skipped) or left by a column (another residue name), a residue number,
  // occupancy or B-factor that is not a number (read as 0).
  auto damaged = [&](const std::string& name, auto&& damage) {
    std::string line = atom(3, " CA", "ALA", 'A', 3, 7.6, 0, 0);
    damage(line);
    return error_message(write_file("io-damaged", name, good + line));
  };
  const std::string right = damaged("right.pdb", [](std::string& l) { l.insert(0, " "); });
  EXPECT_NE(right.find("right.pdb:3: record: the record name must start in column 1"), std::string::npos) << right;
  const std::string left = damaged("left.pdb", [](std::string& l) { l.erase(6, 1); });
  EXPECT_NE(left.find("left.pdb:3: resSeq: '  3 ' in columns 23-26 does not end in column 26"), std::string::npos)
      << left;
  const std::string number = damaged("number.pdb", [](std::string& l) { l.replace(22, 4, "  X3"); });
  EXPECT_NE(number.find("number.pdb:3: resSeq: '  X3' in columns 23-26 is not an integer"), std::string::npos)
      << number;
  const std::string occupancy = damaged("occupancy.pdb", [](std::string& l) { l.replace(56, 1, "x"); });
  EXPECT_NE(occupancy.find("occupancy.pdb:3: occupancy: '  x.00' in columns 55-60 is not a number"),
            std::string::npos)
      << occupancy;
  const std::string b_factor = damaged("bfactor.pdb", [](std::string& l) { l.replace(62, 1, "b"); });
  EXPECT_NE(b_factor.find("bfactor.pdb:3: tempFactor: ' 1b.00' in columns 61-66 is not a number"), std::string::npos) << b_factor;
  // Beyond single precision gemmi's float would be inf, written to the .etop and .top and
  // read back by nothing (an audit's 1.0e39).
  const std::string huge_b = damaged("hugeb.pdb", [](std::string& l) { l.replace(60, 6, "1.0e39"); });
  EXPECT_NE(huge_b.find("hugeb.pdb:3: tempFactor: '1.0e39' in columns 61-66 is beyond single precision"),
            std::string::npos)
      << huge_b;
  const std::string huge_o = damaged("hugeo.pdb", [](std::string& l) { l.replace(54, 6, "-2e+39"); });
  EXPECT_NE(huge_o.find("hugeo.pdb:3: occupancy: '-2e+39' in columns 55-60 is beyond single precision"),
            std::string::npos)
      << huge_o;
  // Hybrid-36 residue numbers (A00A = 10010, which gemmi decodes) are numbers.
  EXPECT_EQ(error_message(write_file("io-damaged", "hybrid.pdb", good + [&] {
              std::string l = atom(3, " CA", "ALA", 'A', 3, 7.6, 0, 0);
              l.replace(22, 4, "A00A");
              return l;
            }())),
            "");

  const auto waters = write_file("io-noca", "waters.pdb",
                                 atom(1, " O", "HOH", 'A', 1, 0, 0, 0, 1, ' ', "HETATM", "O") + "END\n");
  const std::string w = error_message(waters);
  EXPECT_NE(w.find("waters.pdb"), std::string::npos);
  EXPECT_NE(w.find("no C-alpha"), std::string::npos) << w;

  const auto text = write_file("io-text", "notes.pdb", "this is not a structure file\n");
  EXPECT_NE(error_message(text).find("notes.pdb"), std::string::npos);

  const auto broken_cif = write_file("io-badcif", "bad.cif", "data_x\nloop_\n_a.b\n'unterminated\n");
  const std::string c = error_message(broken_cif);
  EXPECT_NE(c.find("bad.cif:4:"), std::string::npos) << c;

  // An atom list without coordinates or B-factors: gemmi reads no atom from it, and the
  // message names the missing columns at the loop's line rather than "no atoms found".
  const auto no_xyz = write_file("io-cif-columns", "noxyz.cif",
                                 "data_x\n#\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n"
                                 "_atom_site.label_atom_id\n_atom_site.label_alt_id\n_atom_site.label_comp_id\n"
                                 "_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.occupancy\n"
                                 "_atom_site.auth_seq_id\n"
                                 "ATOM 1 C CA . ALA A 1 1.0 1\nATOM 2 C CA . ALA A 2 1.0 2\n");
  // Values that are not numbers, named by line, column and atom: gemmi would read a '?'
  // coordinate as NaN and a B-factor of 'b' as a default.
  const std::string cif_head =
      "data_x\n#\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
      "_atom_site.label_alt_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n"
      "_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.occupancy\n"
      "_atom_site.B_iso_or_equiv\n_atom_site.auth_seq_id\n"
      "ATOM 1 C CA . ALA A 1 0.0 0.0 0.0 1.0 10.0 1\n";
  auto cif_error = [&](const std::string& name, const std::string& row) {
    return error_message(write_file("io-cif-values", name, cif_head + row));
  };
  const std::string q = cif_error("q.cif", "ATOM 2 C CA . ALA A 2 ? 0.0 0.0 1.0 10.0 2\n");
  EXPECT_NE(q.find("q.cif:19: _atom_site.Cartn_x: '?' (atom 2) is not a number"), std::string::npos) << q;
  // A coordinate beyond what the model's PDB files hold, at its line too.
  const std::string far = cif_error("far.cif", "ATOM 2 C CA . ALA A 2 3.8 0.0\n-2e7 1.0 10.0 2\n");
  EXPECT_NE(far.find("far.cif:20: _atom_site.Cartn_z: '-2e7' (atom 2) is not finite or of magnitude 10⁷ Å or more"),
            std::string::npos)
      << far;
  const std::string b = cif_error("b.cif", "ATOM 2 C CA . ALA A 2\n3.8 0.0 0.0 1.0 b 2\n");
  EXPECT_NE(b.find("b.cif:20: _atom_site.B_iso_or_equiv: 'b' (atom 2) is not a number"), std::string::npos) << b;
  const std::string seq = cif_error("seq.cif", "ATOM 2 C CA . ALA A 2 3.8 0.0 0.0 1.0 10.0 X2\n");
  EXPECT_NE(seq.find("seq.cif:19: _atom_site.auth_seq_id: 'X2' (atom 2) is not an integer"), std::string::npos)
      << seq;
  const std::string big = cif_error("big.cif", "ATOM 2 C CA . ALA A 2 3.8 0.0 0.0 1.0 1e39 2\n");
  EXPECT_NE(big.find("big.cif:19: _atom_site.B_iso_or_equiv: '1e39' (atom 2) is beyond single precision"),
            std::string::npos)
      << big;
  // Unknown occupancy and B-factor are allowed, and so are standard uncertainties.
  EXPECT_EQ(cif_error("unknown.cif", "ATOM 2 C CA . ALA A 2 3.8(2) 0.0 0.0 ? . 2\n"), "");

  const std::string x = error_message(no_xyz);
  EXPECT_NE(x.find("noxyz.cif:3: _atom_site: the atom list lacks the column(s) _atom_site.Cartn_x, "
                   "_atom_site.Cartn_y, _atom_site.Cartn_z, _atom_site.B_iso_or_equiv"),
            std::string::npos)
      << x;
  // Atom and residue names: gemmi takes the auth_ column or else the label_ one, and without
  // either stopped with its own words and no line; the same message as for the others.
  auto without = [&](const std::string& name, const std::string& column) {
    std::string head = cif_head;
    head.erase(head.find("_atom_site." + column + "\n"), column.size() + 12);
    std::string row = "ATOM 1 C CA . ALA A 1 0.0 0.0 0.0 1.0 10.0 1\n";
    row.erase(row.find(column == "label_atom_id" ? "CA " : "ALA "), column == "label_atom_id" ? 3 : 4);
    return error_message(write_file("io-cif-names", name, head.substr(0, head.rfind("ATOM")) + row));
  };
  const std::string no_atom_id = without("noatomid.cif", "label_atom_id");
  EXPECT_NE(no_atom_id.find("noatomid.cif:3: _atom_site: the atom list lacks the column(s) "
                            "_atom_site.label_atom_id (or _atom_site.auth_atom_id), without which no atom can be read"),
            std::string::npos)
      << no_atom_id;
  const std::string no_comp_id = without("nocompid.cif", "label_comp_id");
  EXPECT_NE(no_comp_id.find("nocompid.cif:3: _atom_site: the atom list lacks the column(s) "
                            "_atom_site.label_comp_id (or _atom_site.auth_comp_id)"),
            std::string::npos)
      << no_comp_id;
}

// The i, i+2 exclusion counts along the bonded chain (model/chain_positions.h), as
// ermak topology does: residues 3 and 10 with a chain break between them (5.09 Å > 4.5 Å)
// are 7 apart, so the pairs across the break may be native; numbered 3 and 4 they are
// neighbours in sequence. A numbering gap within a bonded chain changes nothing.
TEST(IoCaModel, NativeContactsCountAlongTheBondedChain) {
  auto contacts_of = [](const std::string& tag, const int numbers[5], double x3) {
    const double xyz[5][3] = {{0, 0, 0}, {3.8, 0, 0}, {3.8, 3.8, 0}, {x3, 5.5, 0}, {x3, 9.3, 0}};
    const char* names[5] = {"ALA", "GLY", "LYS", "SER", "TRP"};
    std::string pdb;
    for (int k = 0; k < 5; ++k) pdb += atom(k + 1, "CA", names[k], 'A', numbers[k], xyz[k][0], xyz[k][1], xyz[k][2]);
    const Topology top = build_ca_model(write_file("ca-along-" + tag, "x.pdb", pdb + "END\n"), ModelBuildSpec{});
    std::set<std::pair<int, int>> pairs;
    for (const NativeContact& c : top.native_contacts) pairs.insert({c.i, c.j});
    return std::pair{top.bonds.size(), pairs};
  };
  const int gap[5] = {1, 2, 3, 10, 11}, consecutive[5] = {1, 2, 3, 4, 5};
  EXPECT_EQ(contacts_of("gap", gap, -1.0), (std::pair{std::size_t(3), std::set<std::pair<int, int>>{{0, 3}, {1, 3}, {2, 3}, {2, 4}}}));
  EXPECT_EQ(contacts_of("consecutive", consecutive, -1.0), (std::pair{std::size_t(3), std::set<std::pair<int, int>>{{0, 3}}}));
  // Bead 3 moved to 3.8 Å from bead 2 (bonded): the renumbered chain is unbroken.
  const auto bonded = contacts_of("renumbered", gap, 3.8 - 1.7);
  EXPECT_EQ(bonded.first, 4u);
  for (const auto& [i, j] : bonded.second) EXPECT_GT(j - i, 2) << i << "-" << j;
}

TEST(IoCaModel, NativeContactsCellListEqualsBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coord(-30.0, 30.0);
  std::vector<Vec3d> positions(1500);
  std::vector<std::int32_t> chain(positions.size());
  std::vector<ChainResidue> residues(positions.size());
  for (std::size_t k = 0; k < positions.size(); ++k) {
    positions[k] = {coord(rng), coord(rng), coord(rng)};
    chain[k] = static_cast<std::int32_t>(k / 400);
    residues[k] = {chain[k], int(k), true};
  }
  const auto contacts = find_native_contacts(positions, residues, 8.0, 1.0);
  std::vector<std::pair<int, int>> brute;
  for (std::size_t i = 0; i < positions.size(); ++i)
    for (std::size_t j = i + 1; j < positions.size(); ++j)
      if ((chain[i] != chain[j] || j - i > 2) && norm(positions[j] - positions[i]) < 8.0)
        brute.emplace_back(static_cast<int>(i), static_cast<int>(j));
  ASSERT_EQ(contacts.size(), brute.size());
  for (std::size_t k = 0; k < brute.size(); ++k) {
    EXPECT_EQ(contacts[k].i, brute[k].first);
    EXPECT_EQ(contacts[k].j, brute[k].second);
  }
}

// Residue numbers across a break that differ by more than an int holds (mmCIF allows them):
// far apart along the chain, not within two (the difference overflowed an int).
TEST(IoCaModel, ChainPositionsOfResidueNumbersFarApart) {
  const std::vector<ChainResidue> residues = {{0, -1999999971, false}, {0, 2147483638, false}, {0, 2147483639, true}};
  const std::vector<std::int64_t> position = chain_positions(residues);
  EXPECT_EQ(position[1] - position[0], 4147483609);
  EXPECT_FALSE(within_two_along_chain(residues, position, 0, 1));
  EXPECT_TRUE(within_two_along_chain(residues, position, 1, 2));
}

// Points beyond the grid's 2²⁰ cells per axis (a tiny cutoff, or far points) share its last
// cell, where their pairs are still found by distance; the cell index no longer overflows.
TEST(IoCaModel, CellListOfATinyCutoffFindsThePairsOfItsLastCell) {
  const std::vector<Vec3d> points = {{0, 0, 0}, {0, 0, 0}, {1e6, 0, 0}, {1e6, 0, 0}, {1e6, 1, 0}};
  for (const double cutoff : {1e-9, 1e-3}) {
    std::set<std::pair<int, int>> pairs;
    CellList(points, cutoff).for_each_pair([&](std::int32_t i, std::int32_t j, double) { pairs.insert({i, j}); });
    EXPECT_EQ(pairs, (std::set<std::pair<int, int>>{{0, 1}, {2, 3}})) << cutoff;
  }
  // 10⁻³⁰⁰ Å: cells beyond any 64-bit integer (the cast overflowed; its square is 0, so
  // no pair is closer).
  int pairs = 0;
  CellList(points, 1e-300).for_each_pair([&](std::int32_t, std::int32_t, double) { ++pairs; });
  EXPECT_EQ(pairs, 0);
}

TEST(IoCaModel, NativeContactsOfHundredThousandBeadsTakeSeconds) {
  // Protein density: about one residue per 120 Å^3.
  const std::size_t n = 100000;
  const double side = std::cbrt(120.0 * n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> coord(0.0, side);
  std::vector<Vec3d> positions(n);
  for (auto& p : positions) p = {coord(rng), coord(rng), coord(rng)};
  positions[n - 1] = {1e6, -1e6, 5e5};  // a far outlier must not blow up memory
  std::vector<ChainResidue> residues(n);
  for (std::size_t k = 0; k < n; ++k) residues[k] = {0, int(k), true};
  const auto start = std::chrono::steady_clock::now();
  const auto contacts = find_native_contacts(positions, residues, 8.0, 1.0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(contacts.size(), n);
  EXPECT_LT(seconds, 10.0);
}

// One model whichever route builds it (docs/config.md#input--the-model): `[input] structure` and
// `ermak topology --sc-limit 0 --disulfides none` give the same bonds and contacts, r0 to the
// bit — both through SOP-GPU's float distances.
TEST(IoCaModel, StructureModelIsErmakTopologysModelBitForBit) {
  TopologyOptions options;
  options.sc_limit_A = 0.0;
  options.disulfides = DisulfideSource::None;
  for (const std::filesystem::path& file :
       {kUbiquitin, test::shared_data() / "pdb/1TIT.pdb", test::shared_data() / "pdb/1LMB.pdb"}) {
    SCOPED_TRACE(file.string());
    const Topology from_structure = build_ca_model(file, ModelBuildSpec{});
    const Topology from_topology =
        build_topology(extract_structure_model(read_structure_file(file), file.string(), {}), options).topology;
    ASSERT_EQ(from_structure.bonds.size(), from_topology.bonds.size());
    for (std::size_t k = 0; k < from_structure.bonds.size(); ++k) {
      EXPECT_EQ(from_structure.bonds[k].i, from_topology.bonds[k].i);
      EXPECT_EQ(from_structure.bonds[k].j, from_topology.bonds[k].j);
      EXPECT_EQ(from_structure.bonds[k].r0_A, from_topology.bonds[k].r0_A) << "bond " << k;
    }
    ASSERT_EQ(from_structure.native_contacts.size(), from_topology.native_contacts.size());
    for (std::size_t k = 0; k < from_structure.native_contacts.size(); ++k) {
      EXPECT_EQ(from_structure.native_contacts[k].i, from_topology.native_contacts[k].i);
      EXPECT_EQ(from_structure.native_contacts[k].j, from_topology.native_contacts[k].j);
      EXPECT_EQ(from_structure.native_contacts[k].r0_A, from_topology.native_contacts[k].r0_A) << "contact " << k;
    }
  }
}

TEST(IoCaModel, APairWithinARoundingOfTheCutoffIsDecidedInFloatAsSopGpuDoes) {
  // C-alphas 7.99999987 Å apart in double, 8 Å in SOP-GPU's float arithmetic: not native
  // (strictly below the cutoff), as ermak topology decides; the earlier double rule, which
  // runs started before 2026-11-29 resume with, counted it with r0 = 8.
  const std::string pdb = atom(1, "CA", "ALA", 'A', 1, 0.0, 0.0, 0.0) + "TER\n" +
                          atom(2, "CA", "ALA", 'B', 1, 5.011, 0.254, 6.231) + "END\n";
  const auto file = write_file("io-cutoff-rounding", "pair.pdb", pdb);
  EXPECT_TRUE(build_ca_model(file, ModelBuildSpec{}).native_contacts.empty());
  const Topology earlier = build_ca_model(file, ModelBuildSpec{}, nullptr, CaDistances::double_precision);
  ASSERT_EQ(earlier.native_contacts.size(), 1u);
  EXPECT_EQ(earlier.native_contacts[0].r0_A, 8.0f);
}

}  // namespace
}  // namespace ermak
