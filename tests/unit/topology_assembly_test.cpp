// io/assembly: biological assemblies (mmCIF, PDB MTRIX), user symmetry operators and
// their file format, on structures small enough to check by hand (docs/topology.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/assembly.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

std::filesystem::path write_file(const std::string& test, const std::string& name, const std::string& text) {
  const auto path = test::fresh_directory("topo-asm-" + test) / name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

StructureModel read_model(const std::filesystem::path& file) {
  return extract_structure_model(read_structure_file(file), file.string(), {});
}

std::string ca_line(const char* residue, char chain, int number, double x, double y, double z) {
  char line[128];
  std::snprintf(line, sizeof line, "ATOM  %5d  CA  %3s %c%4d    %8.3f%8.3f%8.3f  1.00 10.00           C\n", number,
                residue, chain, number, x, y, z);
  return line;
}

// A 3-residue chain A along x at y = 4 (Cys 1 – Cys 3 listed as a disulfide in
// _struct_conn), a water in chain A.
const char* kCif = R"(data_TOY
loop_
_atom_site.group_PDB
_atom_site.id
_atom_site.type_symbol
_atom_site.label_atom_id
_atom_site.label_alt_id
_atom_site.label_comp_id
_atom_site.label_asym_id
_atom_site.label_entity_id
_atom_site.label_seq_id
_atom_site.pdbx_PDB_ins_code
_atom_site.Cartn_x
_atom_site.Cartn_y
_atom_site.Cartn_z
_atom_site.occupancy
_atom_site.B_iso_or_equiv
_atom_site.auth_seq_id
_atom_site.auth_asym_id
_atom_site.pdbx_PDB_model_num
ATOM 1 C CA . CYS A 1 1 ? 0.000 4.000 0.000 1.00 10.00 1 A 1
ATOM 2 C CA . GLY A 1 2 ? 3.800 4.000 0.000 1.00 10.00 2 A 1
ATOM 3 C CA . CYS A 1 3 ? 7.600 4.000 0.000 1.00 10.00 3 A 1
HETATM 4 O O . HOH B 2 . ? 20.000 20.000 20.000 1.00 10.00 101 A 1
#
loop_
_struct_conn.id
_struct_conn.conn_type_id
_struct_conn.ptnr1_auth_asym_id
_struct_conn.ptnr1_label_comp_id
_struct_conn.ptnr1_label_atom_id
_struct_conn.ptnr1_auth_seq_id
_struct_conn.ptnr2_auth_asym_id
_struct_conn.ptnr2_label_comp_id
_struct_conn.ptnr2_label_atom_id
_struct_conn.ptnr2_auth_seq_id
disulf1 disulf A CYS SG 1 A CYS SG 3
#
loop_
_pdbx_struct_assembly.id
_pdbx_struct_assembly.details
_pdbx_struct_assembly.method_details
_pdbx_struct_assembly.oligomeric_details
_pdbx_struct_assembly.oligomeric_count
1 author_defined_assembly ? dimeric 2
2 author_defined_assembly ? monomeric 1
#
loop_
_pdbx_struct_assembly_gen.assembly_id
_pdbx_struct_assembly_gen.oper_expression
_pdbx_struct_assembly_gen.asym_id_list
1 1,2 A,B
2 1 A
#
loop_
_pdbx_struct_oper_list.id
_pdbx_struct_oper_list.type
_pdbx_struct_oper_list.matrix[1][1]
_pdbx_struct_oper_list.matrix[1][2]
_pdbx_struct_oper_list.matrix[1][3]
_pdbx_struct_oper_list.vector[1]
_pdbx_struct_oper_list.matrix[2][1]
_pdbx_struct_oper_list.matrix[2][2]
_pdbx_struct_oper_list.matrix[2][3]
_pdbx_struct_oper_list.vector[2]
_pdbx_struct_oper_list.matrix[3][1]
_pdbx_struct_oper_list.matrix[3][2]
_pdbx_struct_oper_list.matrix[3][3]
_pdbx_struct_oper_list.vector[3]
1 'identity operation' 1 0 0 0 0 1 0 0 0 0 1 0
2 'crystal symmetry operation' -1 0 0 7.6 0 -1 0 0 0 0 1 0
)";

TEST(TopologyAssembly, MmcifAssemblyGeneratorsAndNames) {
  const auto file = write_file("cif", "toy.cif", kCif);
  StructureModel m = read_model(file);
  ASSERT_EQ(m.assemblies.size(), 2u);
  ASSERT_EQ(m.residues.size(), 3u);
  const ExpansionReport r = expand_assembly(m, "1");
  EXPECT_EQ(r.operators, 2);
  EXPECT_EQ(r.chains_before, 1);
  EXPECT_EQ(r.chains_after, 2);
  ASSERT_EQ(m.residues.size(), 6u);
  EXPECT_EQ(m.residues[0].chain_id, "A1");
  EXPECT_EQ(m.residues[3].chain_id, "A2");
  EXPECT_EQ(m.residues[3].source_chain, "A");
  // Operator 2: 180° about z, then +7.6 Å in x: (0, 4, 0) → (7.6, −4, 0).
  EXPECT_NEAR(m.residues[3].atoms[0].position_A.x, 7.6, 1e-9);
  EXPECT_NEAR(m.residues[3].atoms[0].position_A.y, -4.0, 1e-9);
  // The copies face each other 8 Å apart; no bond across them; the struct_conn disulfide
  // holds in both copies (the SG atoms are not in the file: records, not geometry).
  ASSERT_EQ(m.disulfides.size(), 1u);
  const BuiltTopology b = build_topology(m, {});
  EXPECT_EQ(b.topology.bonds.size(), 6u);
  std::set<std::pair<int, int>> disulfides;
  for (std::size_t k = 0; k < b.topology.bonds.size(); ++k)
    if (b.bond_kinds[k] == BondKind::Disulfide) disulfides.insert({b.topology.bonds[k].i, b.topology.bonds[k].j});
  EXPECT_EQ(disulfides, (std::set<std::pair<int, int>>{{0, 2}, {3, 5}}));
  EXPECT_EQ(b.chains.size(), 2u);

  // One operator: the original names stay.
  StructureModel mono = read_model(file);
  expand_assembly(mono, "2");
  ASSERT_EQ(mono.residues.size(), 3u);
  EXPECT_EQ(mono.residues[0].chain_id, "A");

  StructureModel bad = read_model(file);
  const std::string e = error_of([&] { expand_assembly(bad, "7"); });
  EXPECT_NE(e.find("toy.cif"), std::string::npos) << e;
  EXPECT_NE(e.find("no assembly '7'; available: 1, 2"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { expand_assembly(bad, "ncs"); }).find("no NCS operators"), std::string::npos);
  // A chain selection that left out every chain an assembly names is named as the likely cause
  // (an audit's --assembly 2 --chains A, whose assembly is of chain C).
  StructureModel chosen = read_model(file);
  for (StructureResidue& r : chosen.residues) r.source_chain = r.subchain = "C";  // --chains C kept only C
  chosen.chains_selected = {"C"};
  EXPECT_NE(error_of([&] { expand_assembly(chosen, "1"); }).find("that hold no amino acids, or that --chains C left out"),
            std::string::npos)
      << error_of([&] { expand_assembly(chosen, "1"); });
}

// gemmi skips an assembly category that lacks one of its tags: the file then seems to list no
// assembly, and `--assembly 1` says which category lacks what (an audit's hand-edited file).
TEST(TopologyAssembly, AnAssemblyCategoryMissingATagIsNamedAsTheReason) {
  std::string cif = kCif;
  const std::string count_tag = "_pdbx_struct_assembly.oligomeric_count\n";
  cif.erase(cif.find(count_tag), count_tag.size());
  for (const char* row : {"dimeric 2\n", "monomeric 1\n"}) {
    const std::string r = row;
    cif.replace(cif.find(r), r.size(), r.substr(0, r.find(' ')) + "\n");
  }
  StructureModel m = read_model(write_file("cif-no-count", "toy.cif", cif));
  EXPECT_TRUE(m.assemblies.empty()) << "gemmi read the category after all: this test no longer shows the case";
  std::string e = error_of([&] { expand_assembly(m, "1"); });
  EXPECT_NE(e.find("no assembly '1'; the file lists no biological assembly and no NCS operators — the file's "
                   "_pdbx_struct_assembly lacks .oligomeric_count"),
            std::string::npos)
      << e;

  // Operators without their `type` column: the assemblies are read, their operators not.
  cif = kCif;
  const std::string type_tag = "_pdbx_struct_oper_list.type\n";
  cif.erase(cif.find(type_tag), type_tag.size());
  for (const char* type : {"'identity operation' ", "'crystal symmetry operation' "}) cif.erase(cif.find(type), std::string(type).size());
  StructureModel no_type = read_model(write_file("cif-no-type", "toy.cif", cif));
  e = error_of([&] { expand_assembly(no_type, "1"); });
  EXPECT_NE(e.find("_pdbx_struct_oper_list lacks .type"), std::string::npos) << e;

  // A complete file names nothing.
  StructureModel complete = read_model(write_file("cif-complete", "toy.cif", kCif));
  EXPECT_TRUE(complete.assembly_tags_missing.empty());
  EXPECT_EQ(error_of([&] { expand_assembly(complete, "7"); }).find("lacks"), std::string::npos);
}

// PDB with two MTRIX operators to generate (iGiven blank): identity + 2 copies.
TEST(TopologyAssembly, PdbMtrixNcsExpansion) {
  std::string pdb =
      "MTRIX1   1  1.000000  0.000000  0.000000        0.00000    1\n"
      "MTRIX2   1  0.000000  1.000000  0.000000        0.00000    1\n"
      "MTRIX3   1  0.000000  0.000000  1.000000        0.00000    1\n"
      "MTRIX1   2  1.000000  0.000000  0.000000        0.00000     \n"
      "MTRIX2   2  0.000000  1.000000  0.000000        0.00000     \n"
      "MTRIX3   2  0.000000  0.000000  1.000000       10.00000     \n"
      "MTRIX1   3  1.000000  0.000000  0.000000        0.00000     \n"
      "MTRIX2   3  0.000000  1.000000  0.000000        0.00000     \n"
      "MTRIX3   3  0.000000  0.000000  1.000000       20.00000     \n";
  pdb += ca_line("ALA", 'A', 1, 0, 0, 0) + ca_line("ALA", 'A', 2, 3.8, 0, 0) + "END\n";
  const auto file = write_file("mtrix", "ncs.pdb", pdb);
  StructureModel m = read_model(file);
  ASSERT_EQ(m.ncs_operators.size(), 2u) << "the given identity (iGiven 1) is not generated";
  const std::string e = error_of([&] { expand_assembly(m, "1"); });
  EXPECT_NE(e.find("available: ncs (2 NCS operators)"), std::string::npos) << e;
  const ExpansionReport r = expand_assembly(m, "ncs");
  EXPECT_EQ(r.operators, 3);
  ASSERT_EQ(m.residues.size(), 6u);
  EXPECT_EQ(m.residues[2].chain_id, "A2");
  EXPECT_EQ(m.residues[4].chain_id, "A3");
  EXPECT_DOUBLE_EQ(m.residues[5].atoms[0].position_A.z, 20.0);
}

// The file's own operators must be rotations, as a symmetry file's must: a mirror (MTRIX 2)
// would build the protein's mirror image.
TEST(TopologyAssembly, FileOperatorsThatAreNotRotationsAreRefused) {
  std::string pdb =
      "MTRIX1   2  1.000000  0.000000  0.000000        0.00000     \n"
      "MTRIX2   2  0.000000  1.000000  0.000000        0.00000     \n"
      "MTRIX3   2  0.000000  0.000000 -1.000000       10.00000     \n";
  pdb += ca_line("ALA", 'A', 1, 0, 0, 0) + ca_line("ALA", 'A', 2, 3.8, 0, 0) + "END\n";
  StructureModel m = read_model(write_file("mtrix-mirror", "mirror.pdb", pdb));
  const std::string e = error_of([&] { expand_assembly(m, "ncs"); });
  EXPECT_NE(e.find("NCS operator 2: the 3x3 part is a reflection"), std::string::npos) << e;
}

// An operator given twice for the same chains (a second identity in BIOMT) would put a copy on
// another; it is named, not left to the builder's "beads at one position" (an audit's).
TEST(TopologyAssembly, AnOperatorGivenTwiceForTheSameChainsIsNamed) {
  std::string pdb =
      "REMARK 350 BIOMOLECULE: 1\n"
      "REMARK 350 APPLY THE FOLLOWING TO CHAINS: A\n"
      "REMARK 350   BIOMT1   1  1.000000  0.000000  0.000000        0.00000\n"
      "REMARK 350   BIOMT2   1  0.000000  1.000000  0.000000        0.00000\n"
      "REMARK 350   BIOMT3   1  0.000000  0.000000  1.000000        0.00000\n"
      "REMARK 350   BIOMT1   2 -1.000000  0.000000  0.000000       20.00000\n"
      "REMARK 350   BIOMT2   2  0.000000 -1.000000  0.000000        0.00000\n"
      "REMARK 350   BIOMT3   2  0.000000  0.000000  1.000000        0.00000\n"
      "REMARK 350   BIOMT1   3  1.000000  0.000000  0.000000        0.00000\n"
      "REMARK 350   BIOMT2   3  0.000000  1.000000  0.000000        0.00000\n"
      "REMARK 350   BIOMT3   3  0.000000  0.000000  1.000000        0.00000\n";
  pdb += ca_line("ALA", 'A', 1, 0, 0, 0) + ca_line("ALA", 'A', 2, 3.8, 0, 0) + "END\n";
  StructureModel m = read_model(write_file("biomt-twice", "twice.pdb", pdb));
  const std::string e = error_of([&] { expand_assembly(m, "1"); });
  EXPECT_NE(e.find("assembly '1' operator 3: the same motion as operator 1 ('3' and '1') on the same chains"),
            std::string::npos)
      << e;
}

// An old entry whose MTRIX operator is written in the submitted frame that ORIGX maps the
// entry's coordinates to (as in 1CWP, docs/topology.md#ncs-operators-and-origx). ORIGX: 90
// degrees about z, then (1, 2, 3); MTRIX: 180 degrees about the submitted frame's z axis.
// In the entry's frame that is 180 degrees about the z-parallel axis through (-2, 1), so
// (0, 0, 0) → (-4, 2, 0) and (3.8, 0, 0) → (-7.8, 2, 0); read literally it is 180 degrees
// about the entry's z axis: (3.8, 0, 0) → (-3.8, 0, 0).
TEST(TopologyAssembly, NcsOperatorsInTheOrigxFrame) {
  std::string pdb =
      "ORIGX1      0.000000 -1.000000  0.000000        1.00000\n"
      "ORIGX2      1.000000  0.000000  0.000000        2.00000\n"
      "ORIGX3      0.000000  0.000000  1.000000        3.00000\n"
      "MTRIX1   1 -1.000000  0.000000  0.000000        0.00000     \n"
      "MTRIX2   1  0.000000 -1.000000  0.000000        0.00000     \n"
      "MTRIX3   1  0.000000  0.000000  1.000000        0.00000     \n";
  pdb += ca_line("ALA", 'A', 1, 0, 0, 0) + ca_line("ALA", 'A', 2, 3.8, 0, 0) + "END\n";
  const auto file = write_file("origx", "old.pdb", pdb);

  StructureModel entry = read_model(file);
  ASSERT_TRUE(entry.origx.has_value());
  EXPECT_DOUBLE_EQ(entry.origx->r[1][0], 1.0);
  EXPECT_DOUBLE_EQ(entry.origx->t[2], 3.0);
  expand_assembly(entry, "ncs");
  ASSERT_EQ(entry.residues.size(), 4u);
  EXPECT_NEAR(entry.residues[3].atoms[0].position_A.x, -3.8, 1e-12);
  EXPECT_NEAR(entry.residues[3].atoms[0].position_A.y, 0.0, 1e-12);

  StructureModel submitted = read_model(file);
  const ExpansionReport r = expand_assembly(submitted, "ncs", NcsFrame::Origx);
  EXPECT_NE(r.what.find("ORIGX frame"), std::string::npos) << r.what;
  ASSERT_EQ(submitted.residues.size(), 4u);
  // The identity copy stays where the entry has it.
  EXPECT_NEAR(submitted.residues[1].atoms[0].position_A.x, 3.8, 1e-12);
  EXPECT_NEAR(submitted.residues[1].atoms[0].position_A.y, 0.0, 1e-12);
  const Vec3d a = submitted.residues[2].atoms[0].position_A, b = submitted.residues[3].atoms[0].position_A;
  EXPECT_NEAR(a.x, -4.0, 1e-12);
  EXPECT_NEAR(a.y, 2.0, 1e-12);
  EXPECT_NEAR(a.z, 0.0, 1e-12);
  EXPECT_NEAR(b.x, -7.8, 1e-12);
  EXPECT_NEAR(b.y, 2.0, 1e-12);
  EXPECT_NEAR(b.z, 0.0, 1e-12);

  // Misuse: the ORIGX frame needs a file with an ORIGX, and means NCS operators only.
  const auto plain = write_file("origx-none", "plain.pdb",
                                "MTRIX1   1 -1.000000  0.000000  0.000000        0.00000     \n"
                                "MTRIX2   1  0.000000 -1.000000  0.000000        0.00000     \n"
                                "MTRIX3   1  0.000000  0.000000  1.000000        0.00000     \n" +
                                    ca_line("ALA", 'A', 1, 0, 0, 0) + "END\n");
  StructureModel no_origx = read_model(plain);
  EXPECT_FALSE(no_origx.origx.has_value());
  std::string e = error_of([&] { expand_assembly(no_origx, "ncs", NcsFrame::Origx); });
  EXPECT_NE(e.find("plain.pdb: ORIGX: the file has no ORIGX"), std::string::npos) << e;
  StructureModel again = read_model(file);
  e = error_of([&] { expand_assembly(again, "1", NcsFrame::Origx); });
  EXPECT_NE(e.find("applies to the NCS operators only"), std::string::npos) << e;
}

// F⁻¹ M F for a general (not orthonormal) F: the inverse is exact, so conjugating the
// identity gives the identity, and conjugating by the identity changes nothing.
TEST(TopologyAssembly, ConjugateByFrame) {
  SymmetryOperator f;
  const double rows[3][4] = {{0.9, -0.2, 0.1, 1.5}, {0.3, 1.1, -0.4, -2.0}, {0.0, 0.25, 0.8, 0.7}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) f.r[i][j] = rows[i][j];
    f.t[i] = rows[i][3];
  }
  EXPECT_TRUE(conjugate_by_frame(SymmetryOperator{}, f).is_identity(1e-12));
  SymmetryOperator m;  // 90 degrees about x, then (5, 0, -1)
  m.r[1][1] = 0, m.r[1][2] = -1, m.r[2][1] = 1, m.r[2][2] = 0, m.t[0] = 5, m.t[2] = -1;
  const SymmetryOperator same = conjugate_by_frame(m, SymmetryOperator{});
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(same.t[i], m.t[i], 1e-12);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(same.r[i][j], m.r[i][j], 1e-12);
  }
  // Definition, at a point: F(c(x)) = M(F(x)).
  const SymmetryOperator c = conjugate_by_frame(m, f);
  const Vec3d x{1.25, -3.0, 2.5};
  const Vec3d lhs = f.apply(c.apply(x)), rhs = m.apply(f.apply(x));
  EXPECT_NEAR(lhs.x, rhs.x, 1e-12);
  EXPECT_NEAR(lhs.y, rhs.y, 1e-12);
  EXPECT_NEAR(lhs.z, rhs.z, 1e-12);
  SymmetryOperator singular;
  singular.r[2][2] = 0.0;
  EXPECT_NE(error_of([&] { conjugate_by_frame(m, singular); }).find("singular"), std::string::npos);
}

TEST(TopologyAssembly, SymmetryFileReplicatesWithDisulfidesPerCopy) {
  // Cys 1 – Cys 4 disulfide (SSBOND) in chain "1" (a digit: copies are named 1-1, 1-2).
  std::string pdb = "SSBOND   1 CYS 1    1    CYS 1    4                          1555   1555  2.04\n";
  const double xy[4][2] = {{0, 0}, {3.8, 0}, {3.8, 3.8}, {0, 3.8}};
  for (int k = 0; k < 4; ++k) pdb += ca_line(k == 0 || k == 3 ? "CYS" : "ALA", '1', k + 1, xy[k][0], xy[k][1], 0);
  const auto file = write_file("sym", "square.pdb", pdb + "END\n");
  const auto ops = write_file("sym-ops", "ops.txt",
                              "# identity\n1 0 0 0\n0 1 0 0\n0 0 1 0\n\n"
                              "# 90 degrees about z, 30 A up\n0 -1 0 0\n1 0 0 0  # rows may carry comments\n0 0 1 30\n");
  const std::vector<SymmetryOperator> operators = read_symmetry_file(ops);
  ASSERT_EQ(operators.size(), 2u);
  EXPECT_TRUE(operators[0].is_identity());
  StructureModel m = read_model(file);
  const ExpansionReport r = replicate_by_operators(m, operators, "symmetry file ops.txt");
  EXPECT_EQ(r.chains_after, 2);
  ASSERT_EQ(m.residues.size(), 8u);
  EXPECT_EQ(m.residues[0].chain_id, "1-1");
  EXPECT_EQ(m.residues[4].chain_id, "1-2");
  // (3.8, 0, 0) → (0, 3.8, 30).
  EXPECT_NEAR(m.residues[5].atoms[0].position_A.x, 0.0, 1e-12);
  EXPECT_NEAR(m.residues[5].atoms[0].position_A.y, 3.8, 1e-12);
  EXPECT_NEAR(m.residues[5].atoms[0].position_A.z, 30.0, 1e-12);
  const BuiltTopology b = build_topology(m, {});
  EXPECT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Disulfide), 2)
      << "the SSBOND record holds in every copy";
  EXPECT_EQ(std::count(b.bond_kinds.begin(), b.bond_kinds.end(), BondKind::Backbone), 6);
}

TEST(TopologyAssembly, SymmetryFileErrors) {
  auto error = [](const std::string& test, const std::string& text) {
    const auto file = write_file(test, "ops.txt", text);
    return error_of([&] { read_symmetry_file(file); });
  };
  std::string e = error("sym-cols", "1 0 0 0\n0 1 0\n");
  EXPECT_NE(e.find("ops.txt:2: operator 1 row 2: expected 4 numbers"), std::string::npos) << e;
  e = error("sym-number", "1 0 0 0\n0 1 0 x\n");
  EXPECT_NE(e.find("ops.txt:2: operator 1 row 2: 'x' is not a number"), std::string::npos) << e;
  e = error("sym-short", "1 0 0 0\n0 1 0 0\n0 0 1 0\n1 0 0 5\n");
  EXPECT_NE(e.find("ops.txt:4: operator 2: the file ends after 1 of the 3 rows"), std::string::npos) << e;
  e = error("sym-scale", "# scaled\n2 0 0 0\n0 2 0 0\n0 0 2 0\n");
  EXPECT_NE(e.find("ops.txt:2: operator 1: the 3x3 part is not a rotation"), std::string::npos) << e;
  e = error("sym-mirror", "-1 0 0 0\n0 1 0 0\n0 0 1 0\n");
  EXPECT_NE(e.find("reflection"), std::string::npos) << e;
  // Blamed on the symmetry file at its line, not later on the structure's coordinates or
  // overlapping beads.
  e = error("sym-far", "1 0 0 0\n0 1 0 1e30\n0 0 1 0\n");
  EXPECT_NE(e.find("ops.txt:2: operator 1 row 2: the translation 1e30 Å is beyond the ±10⁶ Å"), std::string::npos)
      << e;
  e = error("sym-nan", "1 0 0 nan\n0 1 0 0\n0 0 1 0\n");
  EXPECT_NE(e.find("ops.txt:1: operator 1 row 1: "), std::string::npos) << e;
  e = error("sym-twice",
            "1 0 0 0\n0 1 0 0\n0 0 1 0\n\n-1 0 0 50\n0 -1 0 0\n0 0 1 0\n\n1 0 0 0\n0 1 0 0\n0 0 1 0.0000001\n");
  EXPECT_NE(e.find("ops.txt:9: operator 3: the same as operator 1 (line 1): its copy would lie on top of that one"),
            std::string::npos)
      << e;
  e = error("sym-empty", "# nothing\n\n");
  EXPECT_NE(e.find("ops.txt: symmetry: the file holds no operator"), std::string::npos) << e;
  const auto missing = test::fresh_directory("topo-asm-missing") / "absent.txt";
  EXPECT_NE(error_of([&] { read_symmetry_file(missing); }).find("absent.txt: symmetry: file not found"),
            std::string::npos);
}

TEST(TopologyAssembly, ChainNames) {
  EXPECT_EQ(expansion_chain_name("A", "12"), "A12");
  EXPECT_EQ(expansion_chain_name("A1", "2"), "A1-2");
  EXPECT_EQ(expansion_chain_name("AB", "1"), "AB1");
}

}  // namespace
}  // namespace ermak
