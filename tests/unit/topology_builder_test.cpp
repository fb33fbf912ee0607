// io/topology_builder (+ io/structure_model): hand-checkable small structures whose
// beads, bonds and native contacts are worked out in the comments (docs/topology.md).
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/ca_model_builder.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

struct AtomSpec {
  const char* name;
  const char* residue;
  char chain;
  int number;
  double x, y, z;
  double occupancy = 1.0;
  double b_factor = 10.0;
  char altloc = ' ';
  const char* record = "ATOM";
  char icode = ' ';
};

// One fixed-column PDB record; element from the first letter of the name.
std::string atom(const AtomSpec& a) {
  std::string name = a.name;
  const std::string field = name.size() < 4 ? " " + name : name;
  char element[3] = {name[0], '\0', '\0'};
  if (name == "SE") element[1] = 'E';
  char line[128];
  std::snprintf(line, sizeof line, "%-6s%5d %-4s%c%3s %c%4d%c   %8.3f%8.3f%8.3f%6.2f%6.2f          %2s\n",
                a.record, 1, field.c_str(), a.altloc, a.residue, a.chain, a.number, a.icode, a.x, a.y, a.z,
                a.occupancy, a.b_factor, element);
  return line;
}

std::string ca(const char* residue, char chain, int number, double x, double y, double z, double b = 10.0,
               double occupancy = 1.0) {
  return atom({"CA", residue, chain, number, x, y, z, occupancy, b});
}

std::filesystem::path write_file(const std::string& test, const std::string& name, const std::string& text) {
  const auto path = test::fresh_directory("topo-" + test) / name;
  std::ofstream(path) << text;
  return path;
}

StructureModel read_model(const std::filesystem::path& file, const StructureReadOptions& read = {}) {
  return extract_structure_model(read_structure_file(file), file.string(), read);
}

BuiltTopology build(const std::string& test, const std::string& pdb, const TopologyOptions& options = {},
                    const StructureReadOptions& read = {}) {
  const auto file = write_file(test, test + ".pdb", pdb);
  BuiltTopology built = build_topology(read_model(file, read), options);
  validate_topology(built.topology, file.string());
  return built;
}

std::set<std::pair<int, int>> contact_set(const Topology& t) {
  std::set<std::pair<int, int>> out;
  for (const NativeContact& c : t.native_contacts) out.insert({c.i, c.j});
  return out;
}

bool mentions(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Five C-alphas: a square in z = 0, then one up. With r_limit 6 Å the pairs more than two
// residues apart are (1,4) at 3.8 Å and (1,5) at 5.37 Å: native; (2,5) at 6.58 Å is not.
const double kFive[5][3] = {{0, 0, 0}, {3.8, 0, 0}, {3.8, 3.8, 0}, {0, 3.8, 0}, {0, 3.8, 3.8}};

std::string five(const int numbers[5]) {
  std::string pdb;
  const char* names[5] = {"ALA", "GLY", "LYS", "SER", "TRP"};
  for (int k = 0; k < 5; ++k) pdb += ca(names[k], 'A', numbers[k], kFive[k][0], kFive[k][1], kFive[k][2]);
  return pdb + "END\n";
}

TEST(TopologyBuilder, FiveResidueChain) {
  const int numbers[5] = {1, 2, 3, 4, 5};
  TopologyOptions o;
  o.r_limit_A = 6.0;
  o.eh_kcal_per_mol = 0.7;
  const BuiltTopology b = build("five", five(numbers), o);
  const Topology& t = b.topology;
  ASSERT_EQ(t.bead_count(), 5);
  EXPECT_EQ(t.beads[2].residue_name, "LYS");
  EXPECT_EQ(t.beads[2].atom_name, "CA");
  ASSERT_EQ(t.bonds.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(t.bonds[k].i, k);
    EXPECT_EQ(t.bonds[k].j, k + 1);
    EXPECT_NEAR(t.bonds[k].r0_A, 3.8, 1e-5);
    EXPECT_EQ(b.bond_kinds[k], BondKind::Backbone);
  }
  EXPECT_EQ(contact_set(t), (std::set<std::pair<int, int>>{{0, 3}, {0, 4}}));
  EXPECT_NEAR(t.native_contacts[0].r0_A, 3.8, 1e-5);
  EXPECT_NEAR(t.native_contacts[1].r0_A, std::sqrt(2.0) * 3.8, 1e-5);
  EXPECT_FLOAT_EQ(t.native_contacts[1].eh_kcal_per_mol, 0.7f);
  EXPECT_EQ(b.repulsive_pairs, 10 - 4 - 2);
  EXPECT_EQ(b.chains.size(), 1u);
  EXPECT_EQ(b.chains[0].first_number, 1);
  EXPECT_EQ(b.chains[0].last_number, 5);  // A C-alpha trace: the side-chain criterion can find nothing, and says so.
  EXPECT_TRUE(mentions(b.warnings, "the structure has no side-chain atoms (a C-alpha trace?)"));
}

// "Along the chain" (model/chain_positions.h): bonded neighbours are one apart whatever
// their numbers, so a renumbered but unbroken chain (1 2 3 10 11, a Kabat-style gap) keeps
// its i, i+2 pairs repulsive, as the consecutively numbered one does; across a chain
// break the residue numbers count (SOP-GPU's rule there).
TEST(TopologyBuilder, SequenceSeparationFollowsTheBondedChain) {
  const int renumbered[5] = {1, 2, 3, 10, 11};
  TopologyOptions o;
  o.r_limit_A = 6.0;
  const BuiltTopology b = build("renumbered", five(renumbered), o);
  EXPECT_EQ(b.topology.bonds.size(), 4u);
  EXPECT_EQ(contact_set(b.topology), (std::set<std::pair<int, int>>{{0, 3}, {0, 4}}));
  // Residues 3 and 10 5.09 Å apart (a chain break, 4.5 Å): 7 residues lie between them.
  auto broken = [](int fourth, int fifth) {
    return ca("ALA", 'A', 1, 0, 0, 0) + ca("GLY", 'A', 2, 3.8, 0, 0) + ca("LYS", 'A', 3, 3.8, 3.8, 0) +
           ca("SER", 'A', fourth, -1.0, 5.5, 0) + ca("TRP", 'A', fifth, -1.0, 9.3, 0) + "END\n";
  };
  const BuiltTopology gap = build("gap", broken(10, 11), TopologyOptions{});
  EXPECT_EQ(gap.topology.bonds.size(), 3u);
  EXPECT_EQ(contact_set(gap.topology), (std::set<std::pair<int, int>>{{0, 3}, {1, 3}, {2, 3}, {2, 4}}));
  // The same break with consecutive numbers: residues 3 and 4 are neighbours in sequence.
  EXPECT_EQ(contact_set(build("gap-consecutive", broken(4, 5), TopologyOptions{}).topology),
            (std::set<std::pair<int, int>>{{0, 3}}));
}

// Two residues whose C-alphas are 10 Å apart but whose side chains touch: native only
// through the side-chain criterion; hydrogens closer than that do not count.
std::string side_chain_pair(double gap_A, bool hydrogens_touch) {
  std::string pdb;
  pdb += ca("ALA", 'A', 1, 0, 0, 0) + ca("ALA", 'A', 2, 3.8, 0, -1) + ca("ALA", 'A', 3, 7.6, 0, 0);
  pdb += atom({"N", "LEU", 'A', 10, 0, 10, 0}) + atom({"CA", "LEU", 'A', 10, 0, 10, 0.5});
  pdb += atom({"CB", "LEU", 'A', 10, 0, 10 - 5 + gap_A / 2, 0.5});  // side chain towards y = 5
  pdb += atom({"CA", "PHE", 'A', 20, 0, 0.5, 0.5}) + atom({"CB", "PHE", 'A', 20, 0, 5 - gap_A / 2, 0.5});
  if (hydrogens_touch) pdb += atom({"HB2", "PHE", 'A', 20, 0, 9.5, 0.5});  // 0.5 Å from LEU CA
  return pdb + "END\n";
}

TEST(TopologyBuilder, SideChainCriterionAndHydrogensIgnored) {
  // Beads: 0-2 ALA 1-3, 3 LEU 10 at y = 10, 4 PHE 20 near the origin.
  TopologyOptions o;
  const BuiltTopology near = build("sc-near", side_chain_pair(4.0, false), o);
  auto has = [](const BuiltTopology& b, int i, int j) { return contact_set(b.topology).count({i, j}) > 0; };
  ASSERT_EQ(near.topology.bead_count(), 5);
  EXPECT_TRUE(has(near, 3, 4)) << "CB-CB 4 Å < 5.2 Å";
  const auto& contacts = near.topology.native_contacts;
  for (std::size_t k = 0; k < contacts.size(); ++k)
    if (contacts[k].i == 3 && contacts[k].j == 4) {
      EXPECT_EQ(near.contact_reasons[k], ContactReason::SidechainAtoms);
      EXPECT_NEAR(contacts[k].r0_A, 9.5, 1e-5) << "r0 is the C-alpha distance";
    }
  const BuiltTopology far = build("sc-far", side_chain_pair(6.0, true), o);
  EXPECT_FALSE(has(far, 3, 4)) << "CB-CB 6 Å; the hydrogen 0.5 Å from the CA does not count";
  o.sc_limit_A = 0.0;
  EXPECT_FALSE(has(build("sc-off", side_chain_pair(4.0, false), o), 3, 4)) << "--sc-limit 0 disables";
  // Pairs within two residue numbers are never native (ALA 1-3 among themselves).
  for (const NativeContact& c : near.topology.native_contacts)
    EXPECT_GT(std::abs(near.topology.beads[c.i].residue_number - near.topology.beads[c.j].residue_number), 2);
}

// Cys 3 and Cys 30 with SG atoms 2.04 Å apart and C-alphas 5.5 Å apart.
std::string disulfide_pdb(const std::string& records = "") {
  std::string pdb = records;
  for (int k = 1; k <= 4; ++k) pdb += ca(k == 3 ? "CYS" : "ALA", 'A', k, 3.8 * (k - 1), 0, 0);
  pdb += atom({"SG", "CYS", 'A', 3, 7.6, 1.7, 0});
  for (int k = 30; k <= 31; ++k) pdb += ca(k == 30 ? "CYS" : "ALA", 'A', k, 7.6 + 3.8 * (k - 30), 5.5, 0);
  pdb += atom({"SG", "CYS", 'A', 30, 7.6, 3.74, 0});
  return pdb + "END\n";
}

TEST(TopologyBuilder, DisulfideFromGeometryRecordsOrNone) {
  TopologyOptions o;
  // No SSBOND record: found by the SG-SG distance; the bond replaces the native contact.
  BuiltTopology b = build("ss-geometry", disulfide_pdb(), o);
  // Backbone 1-2, 2-3, 3-4 and 30-31 (4 → 30 is 6.7 Å: a chain break), plus the disulfide.
  ASSERT_EQ(b.topology.bonds.size(), 5u);
  int disulfides = 0;
  for (std::size_t k = 0; k < b.topology.bonds.size(); ++k)
    if (b.bond_kinds[k] == BondKind::Disulfide) {
      ++disulfides;
      EXPECT_EQ(b.topology.bonds[k].i, 2);
      EXPECT_EQ(b.topology.bonds[k].j, 4);
      EXPECT_NEAR(b.topology.bonds[k].r0_A, 5.5, 1e-5);
    }
  EXPECT_EQ(disulfides, 1);
  EXPECT_EQ(contact_set(b.topology).count({2, 4}), 0u);

  // The same disulfide from an SSBOND record.
  const std::string record = "SSBOND   1 CYS A    3    CYS A   30                          1555   1555  2.04\n";
  b = build("ss-record", disulfide_pdb(record), o);
  EXPECT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Disulfide), 1);
  EXPECT_FALSE(mentions(b.warnings, "SG atoms are"));
  // A record whose sulfurs are far apart is kept, with a warning (SG 30 moved 7 Å away).
  std::string far = disulfide_pdb(record);
  far.replace(far.find("   3.740"), 8, "  10.740");
  b = build("ss-record-far", far, o);
  EXPECT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Disulfide), 1);
  EXPECT_TRUE(mentions(b.warnings, "disulfide record A:3-A:30: its SG atoms are 9.04 Å apart")) << b.warnings.size();

  // A record joining a cysteine to itself: skipped with a warning (it stopped the build as
  // "two beads at one position").
  b = build("ss-record-self",
            disulfide_pdb("SSBOND   1 CYS A    3    CYS A    3                          1555   1555  2.04\n"), o);
  EXPECT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Disulfide), 0);
  EXPECT_TRUE(mentions(b.warnings, "disulfide record A:3-A:3 joins a cysteine to itself; ignored"));

  // A third cysteine whose SG lies within the cutoff of both (2.25 Å, farther than their
  // 2.04): a cysteine makes one disulfide, the closest pair's, and the others are named (an
  // audit's --ss-distance 100 bonded each of 8 cysteines to all 7 others).
  std::string three = disulfide_pdb();
  three.replace(three.find("END\n"), 4,
                ca("CYS", 'A', 50, 30, 30, 30) + atom({"SG", "CYS", 'A', 50, 7.6, 2.72, 2.0}) + "END\n");
  b = build("ss-three", three, o);
  ASSERT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Disulfide), 1);
  for (std::size_t k = 0; k < b.topology.bonds.size(); ++k)
    if (b.bond_kinds[k] == BondKind::Disulfide) EXPECT_EQ(b.topology.bonds[k].j, 4);
  EXPECT_TRUE(mentions(b.warnings, "are within --ss-distance (2.25 Å < 2.5 Å), but one of them is already bonded"))
      << (b.warnings.empty() ? "" : b.warnings.back());

  o.disulfides = DisulfideSource::None;
  b = build("ss-none", disulfide_pdb(record), o);
  EXPECT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Disulfide), 0);
  EXPECT_EQ(contact_set(b.topology).count({2, 4}), 1u) << "no bond: the pair is native (CA 5.5 Å)";
}

TEST(TopologyBuilder, DisulfideRecordsBeatGeometry) {
  // The file lists only 1-4 (not cysteines): no bond at all, a warning, and the 3-30 pair
  // that geometry would find is not bonded because records exist (--disulfides auto).
  const std::string record = "SSBOND   1 CYS A    1    CYS A    4                          1555   1555  2.04\n";
  const BuiltTopology b = build("ss-records-only", disulfide_pdb(record), TopologyOptions{});
  EXPECT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Disulfide), 0);
  EXPECT_TRUE(mentions(b.warnings, "does not join two cysteines"));
  TopologyOptions geometry;
  geometry.disulfides = DisulfideSource::Geometry;
  const BuiltTopology g = build("ss-geometry-forced", disulfide_pdb(record), geometry);
  EXPECT_EQ(std::count(g.bond_kinds.begin(), g.bond_kinds.end(), BondKind::Disulfide), 1);
}

// Chains A and B side by side 3.8 Å apart, both numbered 1 2 3: no bond across chains,
// and every interchain pair within 8 Å is native whatever the residue numbers.
TEST(TopologyBuilder, TwoChainsInContact) {
  std::string pdb;
  for (int k = 0; k < 3; ++k) pdb += ca("ALA", 'A', k + 1, 3.8 * k, 0, 0);
  pdb += "TER\n";
  for (int k = 0; k < 3; ++k) pdb += ca("ALA", 'B', k + 1, 3.8 * k, 3.8, 0);
  const BuiltTopology b = build("two-chains", pdb + "END\n");
  const Topology& t = b.topology;
  ASSERT_EQ(t.bead_count(), 6);
  EXPECT_EQ(t.beads[3].chain_id, "B");
  ASSERT_EQ(t.bonds.size(), 4u);
  for (const Bond& bond : t.bonds) EXPECT_EQ(t.beads[bond.i].chain_id, t.beads[bond.j].chain_id);
  // Distances A_k–B_l = sqrt((3.8(k−l))² + 3.8²): 3.8, 5.37, 8.50 Å; (0,5) and (2,3) are 8.5.
  std::set<std::pair<int, int>> expected;
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l)
      if (std::abs(k - l) <= 1) expected.insert({k, 3 + l});
  EXPECT_EQ(contact_set(t), expected);
  ASSERT_EQ(b.chains.size(), 2u);
  EXPECT_EQ(b.chains[1].id, "B");
  EXPECT_EQ(b.chains[1].first_bead, 3);
}

// Molecules of an MD snapshot: one (blank) chain name, TER between them, numbers that go on
// (2-4, 7-9) and ends 3.8 A apart. TER ends a chain: two chains, A and A-2, no bond between
// them, and their pairs are contacts across chains (the rule of numbers does not apply).
TEST(TopologyBuilder, TerEndsAChainUnderTheSameName) {
  std::string pdb;
  for (int k = 0; k < 3; ++k) pdb += ca("ALA", ' ', 2 + k, 3.8 * k, 0, 0);
  pdb += "TER\n";
  for (int k = 0; k < 3; ++k) pdb += ca("ALA", ' ', 7 + k, 3.8 * (3 + k), 0, 0);
  const StructureModel model = read_model(write_file("ter-split", "ter-split.pdb", pdb + "END\n"));
  EXPECT_TRUE(mentions(model.warnings, "chain A continues after a TER record: the part after it is named A-2"));
  const BuiltTopology b = build_topology(model, {});
  const Topology& t = b.topology;
  ASSERT_EQ(t.bead_count(), 6);
  EXPECT_EQ(t.beads[2].chain_id, "A");
  EXPECT_EQ(t.beads[3].chain_id, "A-2");
  ASSERT_EQ(t.bonds.size(), 4u);
  for (const Bond& bond : t.bonds) EXPECT_EQ(t.beads[bond.i].chain_id, t.beads[bond.j].chain_id);
  ASSERT_EQ(b.chains.size(), 2u);
  // 3.8 A apart across the TER: a contact (bonded neighbours would be excluded).
  EXPECT_TRUE(contact_set(t).count({2, 3}));
}

// A molecule with a blank chain id beside the file's chain A: the blank one takes the first
// name the file does not use (B), so that A keeps its name and "A:1" means the file's chain A
// (an audit's peptide took the name A and the file's chain A became A-2).
TEST(TopologyBuilder, ABlankChainDoesNotTakeTheNameOfTheFilesChainA) {
  std::string pdb;
  for (int k = 0; k < 3; ++k) pdb += ca("ALA", ' ', 1 + k, 3.8 * k, 0, 0);
  pdb += "TER\n";
  for (int k = 0; k < 3; ++k) pdb += ca("ALA", 'A', 1 + k, 3.8 * k, 10, 0);
  const auto file = write_file("blank-beside-a", "blank-beside-a.pdb", pdb + "END\n");
  const StructureModel model = read_model(file);
  EXPECT_FALSE(mentions(model.warnings, "appears again"));
  const Topology t = build_topology(model, {}).topology;
  ASSERT_EQ(t.bead_count(), 6);
  EXPECT_EQ(t.beads[0].chain_id, "B");
  EXPECT_EQ(t.beads[3].chain_id, "A");
  StructureReadOptions only_a;
  only_a.chains = {"A"};
  EXPECT_EQ(read_model(file, only_a).residues.size(), 3u);
  EXPECT_EQ(read_model(file, only_a).residues[0].chain_id, "A");
}

TEST(TopologyBuilder, ChainBreakByGeometry) {
  const std::string pdb = ca("ALA", 'A', 1, 0, 0, 0) + ca("ALA", 'A', 2, 3.8, 0, 0) + ca("ALA", 'A', 3, 9.8, 0, 0) +
                          ca("ALA", 'A', 4, 13.6, 0, 0) + "END\n";
  BuiltTopology b = build("break", pdb);
  ASSERT_EQ(b.topology.bonds.size(), 2u);
  EXPECT_EQ(b.topology.bonds[1].i, 2);
  EXPECT_EQ(b.chain_breaks, 1);
  EXPECT_TRUE(mentions(b.warnings, "chain break between A:ALA 2 and A:ALA 3 (C-alpha distance 6.00 A > 4.5 A)"));
  TopologyOptions loose;
  loose.break_distance_A = 7.0;
  EXPECT_EQ(build("break-loose", pdb, loose).topology.bonds.size(), 3u);
}

// Residue 2 has two conformers, A (occupancy 0.3) and B (0.7). B's C-alpha and side chain
// are used: its CB lies far from residue 10, A's CB would touch it.
TEST(TopologyBuilder, AltlocKeepsHighestOccupancyConformer) {
  std::string pdb = ca("ALA", 'A', 1, 0, 0, 0);
  pdb += atom({"CA", "SER", 'A', 2, 3.8, 0, 0, 0.3, 10, 'A'});
  pdb += atom({"CB", "SER", 'A', 2, 3.8, 6.0, 0, 0.3, 10, 'A'});
  pdb += atom({"CA", "SER", 'A', 2, 3.7, 0.5, 0, 0.7, 10, 'B'});
  pdb += atom({"CB", "SER", 'A', 2, 3.7, -1.5, 0, 0.7, 10, 'B'});
  pdb += ca("ALA", 'A', 3, 7.5, 0.5, 0);
  pdb += atom({"CA", "LEU", 'A', 10, 3.8, 12, 0}) + atom({"CB", "LEU", 'A', 10, 3.8, 10, 0});
  const BuiltTopology b = build("altloc", pdb + "END\n");
  const Topology& t = b.topology;
  ASSERT_EQ(t.bead_count(), 4);
  EXPECT_DOUBLE_EQ(t.native_positions_A[1].x, 3.7);
  EXPECT_DOUBLE_EQ(t.native_positions_A[1].y, 0.5);
  EXPECT_FLOAT_EQ(t.beads[1].occupancy, 0.7f);
  EXPECT_EQ(contact_set(t).count({1, 3}), 0u) << "conformer A's CB (4 Å from LEU CB) is not used";
  // The choice is stated; so is a C-alpha of zero occupancy used as given.
  const auto warnings = read_model(write_file("altloc-notes", "alt.pdb", pdb + ca("GLY", 'A', 11, 3.8, 15.8, 0, 10, 0.0) +
                                                                    "END\n"))
                            .warnings;
  EXPECT_TRUE(mentions(warnings, "1 residue has alternate locations: each bead takes its residue's highest-occupancy "
                                 "conformer (the first on ties), e.g. A:SER 2 (C-alpha altloc B, occupancy 0.70)"));
  EXPECT_TRUE(mentions(warnings, "1 C-alpha atom has occupancy 0 (not observed: modelled by the depositors?), used as "
                                 "given, e.g. A:GLY 11"));
}

// Two residues under one number without altloc labels (a renumbering slip, or a chain
// numbered domain by domain) are two residues, each a bead, and a warning says so; labelled
// alternatives (above) stay one.
TEST(TopologyBuilder, AReusedResidueNumberKeepsBothResiduesAndWarns) {
  const std::string pdb = ca("ALA", 'A', 19, 0, 0, 0) + ca("SER", 'A', 20, 3.8, 0, 0) + ca("ASP", 'A', 20, 7.6, 0, 0) +
                          ca("THR", 'A', 22, 11.4, 0, 0);
  const BuiltTopology b = build("reused", pdb + "END\n");
  ASSERT_EQ(b.topology.bead_count(), 4);
  EXPECT_EQ(b.topology.beads[2].residue_name, "ASP");
  EXPECT_EQ(b.topology.bonds.size(), 3u) << "no chain break";
  EXPECT_FALSE(mentions(b.warnings, "chain break"));
  const auto read_warnings = [](const std::string& test, const std::string& text) {
    return read_model(write_file(test, test + ".pdb", text)).warnings;
  };
  EXPECT_TRUE(mentions(read_warnings("reused-read", pdb + "END\n"),
                       "residues A:SER 20, A:ASP 20 share one number without alternate-location labels: each is a "
                       "bead"));
  EXPECT_FALSE(mentions(read_warnings("altloc-quiet", ca("ALA", 'A', 1, 0, 0, 0) +
                                                          atom({"CA", "SER", 'A', 2, 3.8, 0, 0, 0.3, 10, 'A'}) +
                                                          atom({"CA", "PRO", 'A', 2, 3.7, 0.5, 0, 0.7, 10, 'B'}) +
                                                          "END\n"),
                        "share one number"));
  // A chain numbered per domain: one warning for the chain.
  std::string domains;
  for (int k = 0; k < 8; ++k) domains += ca(k < 4 ? "ALA" : "GLY", 'A', k % 4 + 1, 3.8 * k, 0, 0);
  EXPECT_EQ(build("domains", domains + "END\n").topology.bead_count(), 8);
  EXPECT_TRUE(mentions(read_warnings("domains-read", domains + "END\n"), "chain A: 4 residue numbers are each used by more than one residue (e.g. A:ALA 1 "
                                   "and A:GLY 1; a chain numbered domain by domain?)"));
}

TEST(TopologyBuilder, InsertionCodesAndResidueNumbers) {
  std::string pdb = ca("ALA", 'A', 52, 0, 0, 0) + atom({"CA", "GLY", 'A', 52, 3.8, 0, 0, 1, 10, ' ', "ATOM", 'A'}) +
                    ca("SER", 'A', 53, 7.6, 0, 0) + ca("THR", 'A', 54, 7.6, 3.8, 0) + ca("VAL", 'A', 55, 3.8, 3.8, 0);
  const BuiltTopology b = build("icode", pdb + "END\n");
  const Topology& t = b.topology;
  ASSERT_EQ(t.bead_count(), 5);
  EXPECT_EQ(t.beads[1].residue_number, 52);
  EXPECT_EQ(t.beads[1].insertion_code, 'A');
  EXPECT_EQ(t.bonds.size(), 4u);
  // 52A–55 is 3.8 Å and |52 − 55| = 3: native; 52–54 (|Δ| = 2) and 52A–54 are not.
  EXPECT_EQ(contact_set(t), (std::set<std::pair<int, int>>{{0, 4}, {1, 4}}));
}

TEST(TopologyBuilder, HeteroResiduesSkippedUnlessAskedAndParentNames) {
  std::string pdb = ca("ALA", 'A', 1, 0, 0, 0) + ca("GLY", 'A', 2, 3.8, 0, 0) +
                    atom({"N", "MSE", 'A', 3, 5.5, 1, 0, 1, 10, ' ', "HETATM"}) +
                    atom({"CA", "MSE", 'A', 3, 7.6, 0, 0, 1, 10, ' ', "HETATM"}) +
                    atom({"C", "MSE", 'A', 3, 8.5, 1, 0, 1, 10, ' ', "HETATM"}) +
                    atom({"SE", "MSE", 'A', 3, 7.6, -2, 0, 1, 10, ' ', "HETATM"}) + ca("LYS", 'A', 4, 11.4, 0, 0) +
                    atom({"O", "HOH", 'A', 101, 1, 1, 1, 1, 10, ' ', "HETATM"}) +
                    atom({"C1", "NAG", 'A', 102, 5, 5, 5, 1, 10, ' ', "HETATM"});
  const auto file = write_file("hetero", "hetero.pdb", pdb + "END\n");
  StructureModel m = read_model(file);
  ASSERT_EQ(m.residues.size(), 3u);
  EXPECT_EQ(m.skipped_hetero_amino_acids, 1);
  EXPECT_EQ(m.skipped_water, 1);
  EXPECT_EQ(m.skipped_other, 1);
  EXPECT_TRUE(mentions(m.warnings, "--keep-hetero"));
  EXPECT_EQ(build_topology(m, {}).chain_breaks, 1) << "the left-out MSE leaves a gap";

  StructureReadOptions keep;
  keep.keep_hetero = true;
  m = read_model(file, keep);
  ASSERT_EQ(m.residues.size(), 4u);
  EXPECT_EQ(m.residues[2].name, "MET");
  EXPECT_EQ(m.residues[2].file_name, "MSE");
  EXPECT_TRUE(m.residues[2].hetatm);
  EXPECT_TRUE(mentions(m.warnings, "MSE->MET"));
  const BuiltTopology b = build_topology(m, {});
  EXPECT_EQ(b.topology.beads[2].residue_name, "MET");
  EXPECT_EQ(b.chain_breaks, 0);
  EXPECT_EQ(parent_residue_name("SEP"), "SER");
  EXPECT_EQ(parent_residue_name("HIS"), "HIS");
  EXPECT_EQ(parent_residue_name("XYZ"), "XYZ");
}

TEST(TopologyBuilder, ResidueWithoutCalphaSkippedWithWarning) {
  const std::string pdb = ca("ALA", 'A', 1, 0, 0, 0) + atom({"N", "SER", 'A', 2, 2, 0, 0}) +
                          atom({"CB", "SER", 'A', 2, 2, 1, 0}) + ca("ALA", 'A', 3, 3.8, 0, 0) + "END\n";
  const auto file = write_file("noca", "noca.pdb", pdb);
  const StructureModel m = read_model(file);
  EXPECT_EQ(m.residues.size(), 2u);
  EXPECT_EQ(m.skipped_no_ca, 1);
  EXPECT_TRUE(mentions(m.warnings, "A:SER 2 has no C-alpha atom; skipped"));
}

TEST(TopologyBuilder, ModelSelection) {
  const std::string m1 = ca("ALA", 'A', 1, 0, 0, 0) + ca("ALA", 'A', 2, 3.8, 0, 0);
  const std::string m2 = ca("ALA", 'A', 1, 9, 9, 9) + ca("ALA", 'A', 2, 12.8, 9, 9) + ca("ALA", 'A', 3, 16.6, 9, 9);
  const auto file = write_file("models", "nmr.pdb",
                               "MODEL        1\n" + m1 + "ENDMDL\nMODEL        2\n" + m2 + "ENDMDL\nEND\n");
  StructureModel first = read_model(file);
  EXPECT_EQ(first.residues.size(), 2u);
  EXPECT_EQ(first.model_count, 2);
  EXPECT_TRUE(mentions(first.warnings, "2 models"));
  StructureReadOptions second;
  second.model = 2;
  const StructureModel m = read_model(file, second);
  ASSERT_EQ(m.residues.size(), 3u);
  EXPECT_DOUBLE_EQ(m.residues[0].atoms[0].position_A.x, 9.0);
  second.model = 3;
  const std::string e = error_of([&] { read_model(file, second); });
  EXPECT_NE(e.find("nmr.pdb"), std::string::npos) << e;
  EXPECT_NE(e.find("no model 3"), std::string::npos) << e;

  // The number after MODEL wherever it stands (some tools write "MODEL 1"): gemmi 0.5.7
  // reads columns 11-14 only, past the end of such a line, and numbered these models 0 and 4.
  const auto loose = write_file("models-loose", "loose.pdb", "MODEL 1\n" + m1 + "ENDMDL\nMODEL\t2  \n" + m2 + "ENDMDL\nEND\n");
  first = read_model(loose);
  EXPECT_EQ(first.model_name, "1");
  EXPECT_TRUE(mentions(first.warnings, "the file has 2 models; model 1 (the first) is used"));
  second.model = 2;
  EXPECT_EQ(read_model(loose, second).residues.size(), 3u);
  second.model = 4;
  const std::string none = error_of([&] { read_model(loose, second); });
  EXPECT_NE(none.find("there is no model 4; the file has 2 model(s): 1, 2"), std::string::npos) << none;
  // A MODEL record without a number is an error at its line.
  const auto bare = write_file("models-bare", "bare.pdb", "MODEL 1\n" + m1 + "ENDMDL\nMODEL  X\n" + m2 + "ENDMDL\n");
  const std::string x = error_of([&] { read_model(bare); });
  EXPECT_NE(x.find("bare.pdb:5: MODEL: 'MODEL  X': the model number (an integer from 0 to 9999 after MODEL, in "
                   "columns 11-14) is 'X'"),
            std::string::npos)
      << x;
}

// C-alpha–C-beta model of ALA-GLY-PHE-LEU: beads CA1 CB1 CA2 CA3 CB3 CA4 CB4 (glycine has no
// side-chain bead); CB at the side-chain heavy-atom centroid (or at CB with --sidechain-bead cb).
std::string cacb_pdb() {
  std::string pdb;
  pdb += atom({"N", "ALA", 'A', 1, -1, 1, 0}) + atom({"CA", "ALA", 'A', 1, 0, 0, 0}) + atom({"C", "ALA", 'A', 1, 1, 1, 0}) +
         atom({"O", "ALA", 'A', 1, 1, 2, 0}) + atom({"CB", "ALA", 'A', 1, 0, -1.5, 0});
  pdb += atom({"N", "GLY", 'A', 2, 3, 0, 0}) + atom({"CA", "GLY", 'A', 2, 3.8, 0, 0}) + atom({"C", "GLY", 'A', 2, 4, 1, 0});
  pdb += atom({"CA", "PHE", 'A', 3, 7.6, 0, 0}) + atom({"CB", "PHE", 'A', 3, 7.6, -1.5, 0}) +
         atom({"CG", "PHE", 'A', 3, 7.6, -3.0, 0}) + atom({"CZ", "PHE", 'A', 3, 7.6, -4.5, 0}) +
         atom({"HZ", "PHE", 'A', 3, 7.6, -5.5, 0}) + atom({"OXT", "PHE", 'A', 3, 9, 0, 0});
  pdb += atom({"CA", "LEU", 'A', 10, 7.6, -9.5, 0}) + atom({"CB", "LEU", 'A', 10, 7.6, -8.0, 0}) +
         atom({"CG", "LEU", 'A', 10, 7.6, -7.0, 1.0});
  return pdb + "END\n";
}

TEST(TopologyBuilder, CalphaCbetaModel) {
  TopologyOptions o;
  o.model_type = ModelType::CAlphaCBeta;
  const BuiltTopology b = build("cacb", cacb_pdb(), o);
  const Topology& t = b.topology;
  ASSERT_EQ(t.bead_count(), 7);
  const char* names[7] = {"CA", "CB", "CA", "CA", "CB", "CA", "CB"};
  for (int k = 0; k < 7; ++k) EXPECT_EQ(t.beads[k].atom_name, names[k]) << k;
  EXPECT_EQ(t.beads[1].residue_name, "ALA");
  EXPECT_EQ(b.sidechain_bead[4], 1);
  // PHE side-chain centroid: CB, CG, CZ (hydrogen and OXT excluded) → (7.6, −3, 0).
  EXPECT_DOUBLE_EQ(t.native_positions_A[4].x, 7.6);
  EXPECT_NEAR(t.native_positions_A[4].y, -3.0, 1e-12);
  // LEU centroid: (7.6, −7.5, 0.5).
  EXPECT_NEAR(t.native_positions_A[6].y, -7.5, 1e-12);
  EXPECT_NEAR(t.native_positions_A[6].z, 0.5, 1e-12);
  // Bonds: CA1-CB1, CA1-CA2, CA2-CA3, CA3-CB3, CA4-CB4 (CA3-CA4 is 9.5 Å: chain break).
  std::set<std::pair<int, int>> bonds;
  int cacb = 0;
  for (std::size_t k = 0; k < t.bonds.size(); ++k) {
    bonds.insert({t.bonds[k].i, t.bonds[k].j});
    cacb += b.bond_kinds[k] == BondKind::CaCb ? 1 : 0;
  }
  EXPECT_EQ(bonds, (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {2, 3}, {3, 4}, {5, 6}}));
  EXPECT_EQ(cacb, 3);
  EXPECT_NEAR(t.bonds[0].r0_A, 1.5, 1e-6);
  // Natives (residues 1,2,3 vs 10: |Δ| > 2): bead pairs within 8 Å:
  // CB3(7.6,−3)–CA4(7.6,−9.5) 6.5; CB3–CB4 4.53; CA3–CB4 7.52; CB1(0,−1.5)–CB4 8.9 no;
  // CA3–CA4 9.5 no. CB-CB of PHE–LEU also by side-chain atoms (CZ–CB 3.5 Å).
  EXPECT_EQ(contact_set(t), (std::set<std::pair<int, int>>{{3, 6}, {4, 5}, {4, 6}}));

  o.sidechain_bead = SidechainBead::CBeta;
  const BuiltTopology cb = build("cacb-cb", cacb_pdb(), o);
  EXPECT_NEAR(cb.topology.native_positions_A[4].y, -1.5, 1e-12);
  EXPECT_NEAR(cb.topology.native_positions_A[6].y, -8.0, 1e-12);

  // The bead represents the side chain's heavy atoms wherever it sits: its B-factor and
  // occupancy (which --eh B/O make contact energies) are their means with CB placement too
  // (an audit found the CB atom's own, up to 107 % off in ε_h).
  const auto phe_atom = [](const char* name, double y, double b) {
    return atom({name, "PHE", 'A', 3, 7.6, y, 0, 1.0, b});
  };
  std::string varied = cacb_pdb();
  for (const auto& [name, y, b] : {std::tuple{"CB", -1.5, 20.0}, {"CG", -3.0, 40.0}, {"CZ", -4.5, 60.0}}) {
    const std::string plain = phe_atom(name, y, 10.0);
    ASSERT_NE(varied.find(plain), std::string::npos) << plain;
    varied.replace(varied.find(plain), plain.size(), phe_atom(name, y, b));
  }
  for (const SidechainBead placement : {SidechainBead::Centroid, SidechainBead::CBeta}) {
    o.sidechain_bead = placement;
    const BuiltTopology with_b = build("cacb-b", varied, o);
    EXPECT_NEAR(with_b.topology.beads[4].b_factor, 40.0, 1e-4) << int(placement);
  }
}

TEST(TopologyBuilder, EpsilonFromBfactorOrOccupancy) {
  std::string pdb;
  const double b[4] = {4.0, 9.0, 16.0, 25.0};
  const double occ[4] = {1.0, 0.5, 0.25, 0.81};
  for (int k = 0; k < 4; ++k) pdb += ca("ALA", 'A', k + 1, 3.8 * (k % 2), 3.8 * (k / 2), 0, b[k], occ[k]);
  TopologyOptions o;
  o.eh_source = EpsilonSource::BFactor;
  BuiltTopology built = build("eh-b", pdb + "END\n", o);
  ASSERT_EQ(built.topology.native_contacts.size(), 1u);  // residues 1 and 4 (|Δ| = 3)
  EXPECT_NEAR(built.topology.native_contacts[0].eh_kcal_per_mol, std::sqrt(4.0 * 25.0), 1e-5);
  o.eh_source = EpsilonSource::Occupancy;
  built = build("eh-o", pdb + "END\n", o);
  EXPECT_NEAR(built.topology.native_contacts[0].eh_kcal_per_mol, std::sqrt(1.0 * 0.81), 1e-6);
  // Negative values are no well depths, not even two of them (a positive product).
  std::string negative;
  for (int k = 0; k < 4; ++k) negative += ca("ALA", 'A', k + 1, 3.8 * (k % 2), 3.8 * (k / 2), 0, -5.0, occ[k]);
  o.eh_source = EpsilonSource::BFactor;
  try {
    build("eh-negative", negative + "END\n", o);
    ADD_FAILURE() << "negative B-factors were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has B-factor -5; eh, the geometric mean"), std::string::npos) << e.what();
  }
}

std::filesystem::path extra_bonds(const std::string& test, const std::string& text) {
  return write_file(test + "-bonds", "bonds.txt", text);
}

TEST(TopologyBuilder, ExtraBondsFile) {
  const int numbers[5] = {1, 2, 3, 4, 5};
  TopologyOptions o;
  o.r_limit_A = 6.0;
  o.extra_bonds_file = extra_bonds("extra-ok", "# crosslink\nA 1 CA  A 4 CA   # replaces the native 1-4\nA 2 A 5\n");
  const BuiltTopology b = build("extra", five(numbers), o);
  ASSERT_EQ(b.topology.bonds.size(), 6u);
  EXPECT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Extra), 2);
  EXPECT_EQ(contact_set(b.topology), (std::set<std::pair<int, int>>{{0, 4}}));
  for (std::size_t k = 0; k < b.topology.bonds.size(); ++k)
    if (b.topology.bonds[k].i == 1 && b.topology.bonds[k].j == 4)
      EXPECT_NEAR(b.topology.bonds[k].r0_A, std::sqrt(3.0) * 3.8, 1e-5);

  auto error = [&](const std::string& test, const std::string& text, TopologyOptions opts = {}) {
    opts.extra_bonds_file = extra_bonds(test, text);
    return error_of([&] { build(test, five(numbers), opts); });
  };
  std::string e = error("extra-cols", "A 1 CA A 4\n");
  EXPECT_NE(e.find("bonds.txt:1: extra bonds: expected"), std::string::npos) << e;
  e = error("extra-residue", "\n# x\nA 1 CA B 4 CA\n");
  EXPECT_NE(e.find("bonds.txt:3: second partner: no residue B:4"), std::string::npos) << e;
  e = error("extra-number", "A one CA A 4 CA\n");
  EXPECT_NE(e.find("bonds.txt:1: first partner: 'one' is not a residue number"), std::string::npos) << e;
  e = error("extra-cb", "A 1 CB A 4 CA\n");
  EXPECT_NE(e.find("needs --model-type cacb"), std::string::npos) << e;
  e = error("extra-dup", "A 1 A 2\n");
  EXPECT_NE(e.find("already bonded (backbone bond)"), std::string::npos) << e;
  e = error("extra-self", "A 1 CA A 1 CA\n");
  EXPECT_NE(e.find("same bead"), std::string::npos) << e;
  TopologyOptions missing;
  missing.extra_bonds_file = test::fresh_directory("extra-missing") / "none.txt";
  e = error_of([&] { build("extra-missing-file", five(numbers), missing); });
  EXPECT_NE(e.find("none.txt: extra bonds: file not found"), std::string::npos) << e;
}

TEST(TopologyBuilder, SopgpuDistanceRoundsLikeSopTop) {
  // ww.pdb: C-alphas of LEU 7 / TRP 11 and ARG 14 / TYR 24. Exact distances 5.85792506 and
  // 5.663075 Å print as 5.85793 and 5.66308; SOP-GPU's float arithmetic gives 5.85792 and
  // 5.66307, which ww.top holds.
  auto text = [](float d) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.5f", d);
    return std::string(buffer);
  };
  const Vec3d leu7{42.659, 12.340, 49.864}, trp11{38.388, 8.411, 49.066};
  const Vec3d arg14{42.123, 0.545, 45.549}, tyr24{40.510, 5.542, 43.428};
  EXPECT_EQ(text(sopgpu_distance(leu7, trp11)), "5.85792");
  EXPECT_EQ(text(sopgpu_distance(arg14, tyr24)), "5.66307");
  EXPECT_NEAR(sopgpu_distance(leu7, trp11), norm(leu7 - trp11), 1e-5);
}

TEST(TopologyBuilder, CoincidentBeadsAreAnError) {
  const std::string pdb = ca("ALA", 'A', 1, 0, 0, 0) + ca("ALA", 'A', 2, 3.8, 0, 0) + ca("ALA", 'A', 3, 7.6, 0, 0) +
                          ca("ALA", 'B', 1, 0, 0, 0) + "END\n";
  const std::string e = error_of([&] { build("coincident", pdb); });
  EXPECT_NE(e.find("coincident.pdb: structure: beads A:ALA 1 CA and B:ALA 1 CA are at the same position"),
            std::string::npos) << e;
}

// A coordinate beyond what a PDB file holds (1.0e+20 fits the 8 columns and parses) is
// refused at its line and column before any cell grid is built — the C-alpha model's
// builder too (an audit's overflowed the cell list's integer cells).
TEST(TopologyBuilder, CoordinatesBeyondWhatAPdbHoldsAreAnError) {
  std::string far = ca("ALA", 'A', 2, 3.8, 0, 0);
  far.replace(30, 8, " 1.0e+20");
  const std::string pdb = ca("ALA", 'A', 1, 0, 0, 0) + far + ca("ALA", 'A', 3, 7.6, 0, 0) + "END\n";
  const std::string at_line = "pdb:2: x: ' 1.0e+20' in columns 31-38 is not finite or of magnitude 10⁷ Å or more";
  std::string e = error_of([&] { build("far-atom", pdb); });
  EXPECT_NE(e.find("far-atom." + at_line), std::string::npos) << e;
  e = error_of([&] { build_ca_model(write_file("far-atom-ca", "far.pdb", pdb), ModelBuildSpec{}); });
  EXPECT_NE(e.find("far." + at_line), std::string::npos) << e;
}

// A PDB cut at a record's end parses: a file ending in an atom record (no TER, ENDMDL or END
// after it) within a residue that has fewer atoms than the file's other residues of its name
// is noted; one that ends with a whole residue and has no SEQRES is not (that is the SEQRES test below).
TEST(TopologyBuilder, AFileCutWithinAResidueIsNoted) {
  auto residue = [](const char* name, int number, double x, bool whole) {
    std::string text = atom({"N", name, 'A', number, x - 1.2, 0.5, 0}) + atom({"CA", name, 'A', number, x, 0, 0}) +
                       atom({"C", name, 'A', number, x + 1.2, 0.5, 0});
    if (whole) text += atom({"O", name, 'A', number, x + 1.2, 1.7, 0});
    return text;
  };
  const std::string chain = residue("ALA", 1, 0, true) + residue("ALA", 2, 3.8, true);
  const auto notes = [](const std::string& test, const std::string& text) {
    return read_model(write_file(test, test + ".pdb", text)).warnings;
  };
  EXPECT_TRUE(mentions(notes("cut", chain + residue("ALA", 3, 7.6, false)),
                       "the file ends at line 11 with an atom record, without TER, ENDMDL or END, within residue ALA 3 "
                       "(3 of the 4 atoms other ALA residues have)"));
  EXPECT_FALSE(mentions(notes("whole", chain + residue("ALA", 3, 7.6, true)), "with an atom record"));
  // The alternate locations of an atom are one atom: a whole last residue with its CA at
  // altlocs A and B (5 records, 4 atoms) is no fifth atom for the file's other ALA residues,
  // and a cut one is still 3 of 4.
  const std::string altloc_ca = atom({"CA", "ALA", 'A', 3, 7.6, 0, 0, 0.6, 10, 'A'}) +
                                atom({"CA", "ALA", 'A', 3, 7.7, 0, 0, 0.4, 10, 'B'});
  const std::string whole_altloc = atom({"N", "ALA", 'A', 3, 6.4, 0.5, 0}) + altloc_ca +
                                   atom({"C", "ALA", 'A', 3, 8.8, 0.5, 0}) + atom({"O", "ALA", 'A', 3, 8.8, 1.7, 0});
  EXPECT_FALSE(mentions(notes("altloc-first", whole_altloc + chain), "with an atom record"));
  EXPECT_FALSE(mentions(notes("altloc-last", chain + whole_altloc), "with an atom record"));
  EXPECT_TRUE(mentions(notes("altloc-cut", chain + atom({"N", "ALA", 'A', 3, 6.4, 0.5, 0}) + altloc_ca),
                       "within residue ALA 3 (2 of the 4 atoms other ALA residues have)"));
  EXPECT_FALSE(mentions(notes("ended", chain + residue("ALA", 3, 7.6, false) + "END\n"), "with an atom record"));
}

// A PDB without END that ends in an atom record at a residue's end, with its last chain short
// of its SEQRES, is noted (a download cut short: the audit's `head -n 700 1TIT.pdb` built 35
// of its 89 (SEQRES: 98) with no warning); missing residues alone are not (a file with END, or TER
// after its last chain, or no SEQRES).
TEST(TopologyBuilder, APdbWithoutEndShortOfItsSeqresIsNoted) {
  const std::string seqres = "SEQRES   1 A    5  ALA ALA ALA ALA ALA                                  \n";
  const std::string chain = ca("ALA", 'A', 1, 0, 0, 0) + ca("ALA", 'A', 2, 3.8, 0, 0) + ca("ALA", 'A', 3, 7.6, 0, 0);
  const auto notes = [](const std::string& test, const std::string& text) {
    return read_model(write_file(test, test + ".pdb", text)).warnings;
  };
  EXPECT_TRUE(mentions(notes("seqres-cut", seqres + chain),
                       "the file ends at line 4 without an END record (its last record is an atom record, with no "
                       "TER or ENDMDL after it), and chain A has 3 of the 5 residues its SEQRES records list, the "
                       "last one read being ALA 3: is it complete?"));
  EXPECT_FALSE(mentions(notes("seqres-end", seqres + chain + "END\n"), "without an END record"));
  EXPECT_FALSE(mentions(notes("seqres-ter", seqres + chain + "TER\n"), "without an END record"));
  EXPECT_FALSE(mentions(notes("no-seqres", chain), "without an END record"));
  // Every residue SEQRES lists is there: complete.
  const std::string seqres3 = "SEQRES   1 A    3  ALA ALA ALA                                          \n";
  EXPECT_FALSE(mentions(notes("seqres-whole", seqres3 + chain), "without an END record"));
  // The real file: 1TIT cut at line 700 (no END, no TER) and whole.
  const std::string titin = test::read_file(test::shared_data() / "pdb/1TIT.pdb");
  std::string cut;
  std::size_t at = 0;
  for (int line = 0; line < 700; ++line) at = titin.find('\n', at) + 1;
  EXPECT_TRUE(mentions(notes("titin-cut", titin.substr(0, at)), "chain A has 35 of the 98 residues its SEQRES"));
  EXPECT_TRUE(read_model(test::shared_data() / "pdb/1TIT.pdb").warnings.empty());
}

TEST(TopologyBuilder, ReadErrorsNameTheFile) {
  const auto empty = write_file("err-empty", "empty.pdb", "");
  std::string e = error_of([&] { read_structure_file(empty); });
  EXPECT_NE(e.find("empty.pdb"), std::string::npos) << e;
  EXPECT_NE(e.find("empty"), std::string::npos) << e;

  const auto waters = write_file("err-water", "water.pdb", atom({"O", "HOH", 'A', 1, 0, 0, 0, 1, 10, ' ', "HETATM"}) + "END\n");
  e = error_of([&] { read_model(waters); });
  EXPECT_NE(e.find("water.pdb"), std::string::npos) << e;
  EXPECT_NE(e.find("no amino-acid residue"), std::string::npos) << e;

  const auto only_mse = write_file("err-mse", "mse.pdb", atom({"CA", "MSE", 'A', 1, 0, 0, 0, 1, 10, ' ', "HETATM"}) + "END\n");
  e = error_of([&] { read_model(only_mse); });
  EXPECT_NE(e.find("--keep-hetero"), std::string::npos) << e;

  const auto cif = write_file("err-cif", "bad.cif", "data_x\nloop_\n_a.b\n'unterminated\n");
  e = error_of([&] { read_structure_file(cif); });
  EXPECT_NE(e.find("bad.cif:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("mmCIF parse error"), std::string::npos) << e;

  const auto missing = test::fresh_directory("err-missing") / "absent.cif";
  e = error_of([&] { read_structure_file(missing); });
  EXPECT_NE(e.find("absent.cif: structure: file not found"), std::string::npos) << e;

  // What a file is when it is no PDB or mmCIF text: compressed, binary, PDB named .cif.
  const auto gz = write_file("err-gz", "x.pdb.gz", std::string("\x1f\x8b\x08\x00rest", 8));
  e = error_of([&] { read_structure_file(gz); });
  EXPECT_NE(e.find("x.pdb.gz: structure: the file is gzip-compressed; decompress it first"), std::string::npos) << e;
  const auto binary = write_file("err-binary", "x.pdb", std::string("ATOM\0\0\x01", 7));
  e = error_of([&] { read_structure_file(binary); });
  EXPECT_NE(e.find("the file is binary (it holds NUL bytes)"), std::string::npos) << e;
  const auto named_cif = write_file("err-named-cif", "x.cif", ca("ALA", 'A', 1, 0, 0, 0) + "END\n");
  e = error_of([&] { read_structure_file(named_cif); });
  EXPECT_NE(e.find("named as mmCIF, but it holds PDB records"), std::string::npos) << e;
  // The reverse: an mmCIF atom list, whose rows start with ATOM too, named .pdb (the PDB
  // reader called its coordinates "not a number").
  const std::string cif_text = "data_ww\n#\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.Cartn_x\n"
                               "ATOM 1 45.848\n";
  e = error_of([&] { read_structure_file(write_file("err-named-pdb", "x.pdb", cif_text)); });
  EXPECT_NE(e.find("x.pdb: structure: named as PDB, but it holds mmCIF (a data_ block with loop_/_atom_site "
                   "items), not PDB records: rename it .cif"),
            std::string::npos)
      << e;
  // A topology given as a structure: what it is and where it goes, not "no C-alpha atom".
  const std::string top = "; Created by ermak\n\n[ atoms ]\n     0         CA      1    MET     CA      A       "
                          "1.00      0.000\n\n[ bonds ]\n";
  e = error_of([&] { read_model(write_file("err-top", "ww.top", top)); });
  EXPECT_NE(e.find("ww.top: structure: holds a SOP-GPU topology ([ atoms ], [ bonds ] sections), not a structure: "
                   "give it as the topology — input.topology of a run, --topology of ermak energy — with its "
                   "coordinates"),
            std::string::npos)
      << e;
  e = error_of([&] { read_model(write_file("err-etop", "model.etop", "# ermak topology 1\nbeads 0\n")); });
  EXPECT_NE(e.find("model.etop: structure: holds an ermak topology (.etop), not a structure: give it as the "
                   "topology — input.topology of a run, --topology of ermak energy"),
            std::string::npos)
      << e;
}

// `cat a.pdb b.pdb` of files that end in END: gemmi stops at the first END and the second
// structure was lost without a word; now an error at its first atom record, naming the END.
// Records other than atoms after END (CONECT, MASTER) are still read as before.
TEST(TopologyBuilder, AtomRecordsAfterEndAreAnError) {
  const std::string a = ca("ALA", 'A', 1, 0, 0, 0) + ca("ALA", 'A', 2, 3.8, 0, 0) + "END\n";
  const std::string b = "HEADER    SECOND\n" + ca("GLY", 'B', 1, 0, 5, 0) + ca("GLY", 'B', 2, 3.8, 5, 0) + "END\n";
  const std::string e = error_of([&] { read_structure_file(write_file("end-concat", "ab.pdb", a + b)); });
  EXPECT_NE(e.find("ab.pdb:5: END: an ATOM/HETATM record after the END record of line 3: the file holds records "
                   "after its END (two files concatenated, or the frames of a trajectory?)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("remove the END line(s) to read them as one structure where they are parts of one, or keep only "
                   "the file or frame you want (split the file)"),
            std::string::npos)
      << e;
  const std::string trailer = "CONECT    1    2\nMASTER        0    0    0    0    0    0    0    0    2    0    2    0\n";
  EXPECT_EQ(read_model(write_file("end-trailer", "trailer.pdb", a + trailer)).residues.size(), 2u);
  // ENDMDL is no END: the models of an ensemble are read.
  const std::string models = "MODEL        1\n" + ca("ALA", 'A', 1, 0, 0, 0) + "ENDMDL\nMODEL        2\n" +
                             ca("ALA", 'A', 1, 0, 0, 0) + "ENDMDL\nEND\n";
  EXPECT_EQ(read_structure_file(write_file("end-models", "models.pdb", models)).structure.models.size(), 2u);
}

// A residue number of 5 digits in columns 23-27 ("10000"): gemmi read it as 1000 with
// insertion code '0'. A letter there is an insertion code, as before.
TEST(TopologyBuilder, AFiveDigitResidueNumberIsAnError) {
  std::string record = ca("ALA", 'A', 1000, 0, 0, 0);
  record.replace(22, 5, "10000");
  const std::string e = error_of([&] { read_structure_file(write_file("resseq5", "r.pdb", ca("ALA", 'A', 999, 3.8, 0, 0) + record)); });
  EXPECT_NE(e.find("r.pdb:2: resSeq/iCode: '10000' in columns 23-27: the residue number seems to have 5 digits, "
                   "and PDB holds 4"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("hybrid-36 (A000 = 10000) or use mmCIF"), std::string::npos) << e;
  const StructureModel inserted =
      read_model(write_file("resseq-icode", "i.pdb", atom({"CA", "ALA", 'A', 1000, 0, 0, 0, 1, 10, ' ', "ATOM", 'A'})));
  ASSERT_EQ(inserted.residues.size(), 1u);
  EXPECT_EQ(inserted.residues[0].number, 1000);
  EXPECT_EQ(inserted.residues[0].icode, 'A');
}

// An mmCIF atom list of ALA residues, the last `last_atoms` of its 4 atoms, then `after`.
std::string alanine_cif(int residues, int last_atoms, const std::string& after) {
  std::string text = "data_x\n#\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n"
                     "_atom_site.label_atom_id\n_atom_site.label_alt_id\n_atom_site.label_comp_id\n"
                     "_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n"
                     "_atom_site.Cartn_z\n_atom_site.occupancy\n_atom_site.B_iso_or_equiv\n_atom_site.auth_seq_id\n";
  const char* names[4] = {"N", "CA", "C", "O"};
  const double dx[4] = {-1.2, 0, 1.2, 1.2}, dy[4] = {0.5, 0, 0.5, 1.7};
  int id = 0;
  for (int r = 1; r <= residues; ++r)
    for (int k = 0; k < (r == residues ? last_atoms : 4); ++k) {
      char row[128];
      std::snprintf(row, sizeof row, "ATOM %d %c %s . ALA A %d %.3f %.3f 0.0 1.0 10.0 %d\n", ++id, names[k][0],
                    names[k], r, 3.8 * (r - 1) + dx[k], dy[k], r);
      text += row;
    }
  return text + after;
}

// An mmCIF cut within its atom list at a row's end (an interrupted download) parses: it is
// noted as a PDB cut within a residue is; one that ends with the `#` after the loop, or with
// another category, or with a whole residue, is not.
TEST(TopologyBuilder, AnMmcifCutWithinItsAtomListIsNoted) {
  const auto notes = [](const std::string& test, const std::string& text) {
    return read_model(write_file(test, test + ".cif", text)).warnings;
  };
  EXPECT_TRUE(mentions(notes("cif-cut", alanine_cif(3, 3, "")),
                       "the file ends at line 28 with a row of the _atom_site loop, without a '#' line or another "
                       "category after it, within residue ALA 3 (3 of the 4 atoms other ALA residues have): is it "
                       "complete?"));
  EXPECT_TRUE(mentions(notes("cif-cut-blank", alanine_cif(3, 2, "\n\n")), "the file ends at line 27 with a row"));
  EXPECT_FALSE(mentions(notes("cif-hash", alanine_cif(3, 3, "#\n")), "the file ends"));
  EXPECT_FALSE(mentions(notes("cif-category", alanine_cif(3, 3, "_struct.title 'x'\n")), "the file ends"));
  EXPECT_FALSE(mentions(notes("cif-whole", alanine_cif(3, 4, "")), "the file ends"));
  // Real files end their loops with '#': no note.
  const auto whole = read_model(test::shared_data() / "derived/1CWP_pdb2cif.cif");
  EXPECT_FALSE(mentions(whole.warnings, "the file ends")) << whole.warnings.size();
}

// --eh B / O take ε_h from a column: an atom record without a value there got gemmi's
// default (PDB B 20, occupancy 1; mmCIF B 50) as a contact energy, silently. Without --eh
// B / O nothing changes.
TEST(TopologyBuilder, EpsilonFromAColumnNeedsAValueInEveryAtomRecord) {
  const std::string whole = ca("ALA", 'A', 1, 0, 0, 0) + ca("ALA", 'A', 2, 3.8, 0, 0);
  const std::string record = ca("ALA", 'A', 3, 7.6, 0, 0);
  const auto file = [&](const std::string& name, const std::string& last) {
    return write_file("eh-missing", name, whole + last + "END\n");
  };
  const auto short_b = file("short.pdb", record.substr(0, 60) + "\n");
  std::string e = error_of([&] { read_structure_file(short_b, EpsilonSource::BFactor); });
  EXPECT_NE(e.find("short.pdb:3: tempFactor: the record ends at column 60, without the whole tempFactor field "
                   "(columns 61-66), and ε_h is read from it (eh B)"),
            std::string::npos)
      << e;
  EXPECT_EQ(error_of([&] { read_structure_file(short_b, EpsilonSource::Occupancy); }), "");
  EXPECT_EQ(error_of([&] { read_structure_file(short_b); }), "");
  e = error_of([&] { read_structure_file(file("cut54.pdb", record.substr(0, 54) + "\n"), EpsilonSource::Occupancy); });
  EXPECT_NE(e.find("cut54.pdb:3: occupancy: the record ends at column 54, without the whole occupancy field "
                   "(columns 55-60), and ε_h is read from it (eh O)"),
            std::string::npos)
      << e;
  std::string blank = record;
  blank.replace(60, 6, "      ");
  e = error_of([&] { read_structure_file(file("blank.pdb", blank), EpsilonSource::BFactor); });
  EXPECT_NE(e.find("blank.pdb:3: tempFactor: columns 61-66 are blank, and ε_h is read from it (eh B)"),
            std::string::npos)
      << e;
  // mmCIF: '?' and '.' are unknown values, allowed unless ε_h is read from their column.
  std::string cif = alanine_cif(2, 4, "#\n");
  cif.replace(cif.rfind("1.0 10.0"), 8, "1.0 ?");
  const auto unknown_b = write_file("eh-missing-cif", "q.cif", cif);
  e = error_of([&] { read_structure_file(unknown_b, EpsilonSource::BFactor); });
  EXPECT_NE(e.find("q.cif:25: _atom_site.B_iso_or_equiv: '?' (atom 8) holds no value, and ε_h is read from this "
                   "column (eh B)"),
            std::string::npos)
      << e;
  EXPECT_EQ(error_of([&] { read_structure_file(unknown_b, EpsilonSource::Occupancy); }), "");
  EXPECT_EQ(error_of([&] { read_structure_file(unknown_b); }), "");
}

// A UTF-8 byte-order mark at the start (some editors write one): mmCIF failed ("expected
// block header"), PDB lost its first record, a file without extension was taken for PDB.
TEST(TopologyBuilder, AByteOrderMarkIsIgnored) {
  const std::string bom = "\xEF\xBB\xBF";
  const std::string pdb = ca("ALA", 'A', 1, 0, 0, 0) + ca("ALA", 'A', 2, 3.8, 0, 0) + "END\n";
  const StructureModel from_pdb = read_model(write_file("bom", "bom.pdb", bom + pdb));
  EXPECT_EQ(from_pdb.residues.size(), 2u);
  EXPECT_TRUE(mentions(from_pdb.warnings, "a UTF-8 byte-order mark at the start of the file was ignored"));
  EXPECT_EQ(read_model(write_file("bom-cif", "bom.cif", bom + alanine_cif(2, 4, "#\n"))).residues.size(), 2u);
  const ParsedStructure no_extension = read_structure_file(write_file("bom-noext", "structure", bom + alanine_cif(2, 4, "#\n")));
  EXPECT_EQ(no_extension.format, StructureFormat::Mmcif);
}

}  // namespace
}  // namespace ermak
