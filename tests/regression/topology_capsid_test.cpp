// The CCMV capsid (1CWP): the asymmetric unit (chains A 149, B 164, C 164 residues; RNA
// D-F) and its 59 NCS operators to generate give 60 × 3 = 180 protein chains and 28,620
// residues (PROVENANCE.md). Read literally, the MTRIX operators put 60 C-alpha pairs of
// neighbouring copies 0.97 Å apart; they are written in the frame ORIGX maps the entry's
// coordinates to, and applied there (--ncs-frame origx) no two chains come closer than
// 4.1 Å (docs/topology.md#ncs-operators-and-origx). Four such capsids side by side (user symmetry operators) are
// 114,480 residues, built in seconds by the cell lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "ermak/io/assembly.h"
#include "ermak/io/pair_search.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

StructureModel read(const std::filesystem::path& file) {
  return extract_structure_model(read_structure_file(file), file.string(), {});
}

TEST(TopologyCapsid, NcsExpansionOfTheAsymmetricUnitGivesTheWholeCapsid) {
  StructureModel cif = read(test::shared_data() / "derived/1CWP_pdb2cif.cif");
  ASSERT_EQ(cif.residues.size(), 149u + 164u + 164u);
  ASSERT_EQ(cif.ncs_operators.size(), 59u);
  EXPECT_TRUE(cif.assemblies.empty()) << "pdb2cif wrote no _pdbx_struct_assembly_gen";
  const ExpansionReport r = expand_assembly(cif, "ncs");
  EXPECT_EQ(r.operators, 60);
  EXPECT_EQ(r.chains_after, 180);
  ASSERT_EQ(cif.residues.size(), 28620u);
  std::map<std::string, int> per_chain;
  for (const StructureResidue& res : cif.residues) ++per_chain[res.chain_id];
  ASSERT_EQ(per_chain.size(), 180u);
  EXPECT_EQ(per_chain["A1"], 149);
  EXPECT_EQ(per_chain["B60"], 164);
  EXPECT_EQ(per_chain["C37"], 164);

  const BuiltTopology b = build_topology(cif, {});
  EXPECT_EQ(b.topology.bead_count(), 28620);
  EXPECT_EQ(b.chain_breaks, 0);
  EXPECT_EQ(b.topology.bonds.size(), 28620u - 180u) << "one backbone bond per consecutive pair";
  // The capsid is a shell of radius 92-140 Å about the origin (PROVENANCE.md).
  for (const Vec3d& p : b.topology.native_positions_A) {
    const double radius = norm(p);
    ASSERT_GT(radius, 85.0);
    ASSERT_LT(radius, 145.0);
  }
  // Subunits touch: contacts between chains; each copy has the ASU's internal contacts.
  std::int64_t interchain = 0;
  for (const NativeContact& c : b.topology.native_contacts)
    interchain += b.topology.beads[c.i].chain_id != b.topology.beads[c.j].chain_id;
  EXPECT_GT(interchain, 20000);
  // 60 copies of every contact, up to a few pairs at a cutoff that the rounding of the
  // 6-decimal operators moves across it.
  EXPECT_NEAR(static_cast<double>(b.topology.native_contacts.size()) / 60.0, 2030.0, 5.0);

  // The same capsid from the original PDB entry (MTRIX records, old column layout).
  StructureModel pdb = read(test::shared_data() / "pdb/1CWP.pdb");
  expand_assembly(pdb, "ncs");
  ASSERT_EQ(pdb.residues.size(), cif.residues.size());
  for (std::size_t r = 0; r < pdb.residues.size(); r += 997) {
    EXPECT_EQ(pdb.residues[r].chain_id, cif.residues[r].chain_id);
    EXPECT_NEAR(pdb.residues[r].atoms[1].position_A.x, cif.residues[r].atoms[1].position_A.x, 2e-3);
  }
  EXPECT_EQ(build_topology(pdb, {}).topology.native_contacts.size(), b.topology.native_contacts.size());
}

TEST(TopologyCapsid, NcsOperatorsInTheOrigxFrameGiveAClashFreeCapsid) {
  for (const char* file : {"derived/1CWP_pdb2cif.cif", "pdb/1CWP.pdb"}) {
    SCOPED_TRACE(file);
    StructureModel literal = read(test::shared_data() / file);
    ASSERT_TRUE(literal.origx.has_value()) << "ORIGX of the 1995 entry is not the identity";
    StructureModel m = literal;
    expand_assembly(literal, "ncs");
    EXPECT_EQ(build_topology(literal, {}).close_bead_pairs, 60) << "C THR 48 on VAL 28 of a neighbour";

    expand_assembly(m, "ncs", NcsFrame::Origx);
    ASSERT_EQ(m.residues.size(), 28620u);
    const BuiltTopology b = build_topology(m, {});
    EXPECT_EQ(b.close_bead_pairs, 0);
    EXPECT_EQ(b.chain_breaks, 0);
    EXPECT_EQ(b.topology.bonds.size(), 28620u - 180u);
    // Closest C-alphas of different chains: 4.10 Å (independent check: gemmi, the same
    // operators conjugated by ORIGX); an icosahedral shell, 100 interchain pairs per copy
    // within 6 Å.
    double closest = 1e9;
    std::int64_t within_6 = 0;
    for_each_close_pair(b.topology.native_positions_A, 6.0, [&](auto i, auto j, double d2) {
      if (b.topology.beads[i].chain_id == b.topology.beads[j].chain_id) return;
      closest = std::min(closest, std::sqrt(d2));
      ++within_6;
    });
    EXPECT_NEAR(closest, 4.10, 0.01);
    EXPECT_EQ(within_6, 6000);
    // 60 copies of every contact, up to a few at the cutoff (6-decimal operators).
    EXPECT_NEAR(static_cast<double>(b.topology.native_contacts.size()) / 60.0,
                std::round(static_cast<double>(b.topology.native_contacts.size()) / 60.0), 0.1);
  }
}

TEST(TopologyCapsid, HundredThousandResiduesInSeconds) {
  StructureModel m = read(test::shared_data() / "derived/1CWP_pdb2cif.cif");
  expand_assembly(m, "ncs");
  const BuiltTopology one = build_topology(m, {});
  // Four capsids 400 Å apart (diameter < 290 Å): nothing touches across copies.
  std::vector<SymmetryOperator> ops(4);
  for (int k = 0; k < 4; ++k) {
    ops[k].t[0] = 400.0 * (k % 2);
    ops[k].t[1] = 400.0 * (k / 2);
  }
  replicate_by_operators(m, ops, "four capsids");
  ASSERT_EQ(m.residues.size(), 114480u);
  const auto start = std::chrono::steady_clock::now();
  const BuiltTopology four = build_topology(m, {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ topology ] 114480 residues (C-alpha + side-chain criteria): %.2f s\n", seconds);
  EXPECT_EQ(four.topology.bead_count(), 114480);
  EXPECT_EQ(four.topology.bonds.size(), 4 * one.topology.bonds.size());
  EXPECT_EQ(four.topology.native_contacts.size(), 4 * one.topology.native_contacts.size());
  EXPECT_LT(seconds, 20.0) << "cell lists: linear in the number of atoms";
}

}  // namespace
}  // namespace ermak
