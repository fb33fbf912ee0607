// `ermak topology` reproduces SOP-GPU's sop-top exactly for the WW domain: the reference
// ww.top / ww_cg.pdb were written by SOP-GPU's own tool from ww.pdb with ww_top.sop
// (R_limit_bond 8 Å, SC_limit_bond 5.2 Å, eh 1.5). Also: the written topology runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/sopgpu_top.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "ermak/io/topology_file.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

fs::path ww_dir() { return test::shared_data() / "sopgpu/ww"; }

std::string five_decimals(float value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.5f", value);
  return buffer;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

BuiltTopology build_ww(EpsilonSource eh = EpsilonSource::Constant) {
  const fs::path pdb = ww_dir() / "ww.pdb";
  const StructureModel model = extract_structure_model(read_structure_file(pdb), pdb.string(), {});
  TopologyOptions options;  // the defaults are ww_top.sop's settings
  options.r_limit_A = 8.0;
  options.sc_limit_A = 5.2;
  options.eh_kcal_per_mol = 1.5;
  options.eh_source = eh;
  return build_topology(model, options);
}

TEST(TopologyWwReference, SameBeadsBondsNativesAndPairsAsSopGpu) {
  const BuiltTopology built = build_ww();
  const Topology& ours = built.topology;
  const fs::path top = ww_dir() / "reference/ww.top";
  const Topology ref = read_sopgpu_top(top);
  const auto ref_pairs = read_sopgpu_top_pairs(top);

  ASSERT_EQ(ours.bead_count(), ref.bead_count());
  ASSERT_EQ(ours.bead_count(), 34);
  for (int b = 0; b < ref.bead_count(); ++b) {
    EXPECT_EQ(ours.beads[b].residue_number, ref.beads[b].residue_number) << b;
    EXPECT_EQ(ours.beads[b].residue_name, ref.beads[b].residue_name) << b;
    EXPECT_EQ(ours.beads[b].chain_id, ref.beads[b].chain_id) << b;
    EXPECT_FLOAT_EQ(ours.beads[b].occupancy, ref.beads[b].occupancy) << b;
    EXPECT_NEAR(ours.beads[b].b_factor, ref.beads[b].b_factor, 1e-4) << b;  // .top "mass" holds B
  }

  ASSERT_EQ(ours.bonds.size(), ref.bonds.size());
  ASSERT_EQ(ours.bonds.size(), 33u);
  for (std::size_t k = 0; k < ref.bonds.size(); ++k) {
    EXPECT_EQ(ours.bonds[k].i, ref.bonds[k].i) << k;
    EXPECT_EQ(ours.bonds[k].j, ref.bonds[k].j) << k;
    EXPECT_NEAR(ours.bonds[k].r0_A, ref.bonds[k].r0_A, 1e-5) << k;
    EXPECT_EQ(five_decimals(ours.bonds[k].r0_A), five_decimals(ref.bonds[k].r0_A)) << k;
  }

  ASSERT_EQ(ours.native_contacts.size(), ref.native_contacts.size());
  ASSERT_EQ(ours.native_contacts.size(), 75u);
  int by_sidechain = 0;
  for (std::size_t k = 0; k < ref.native_contacts.size(); ++k) {
    const NativeContact& a = ours.native_contacts[k];
    const NativeContact& b = ref.native_contacts[k];
    EXPECT_EQ(a.i, b.i) << k;
    EXPECT_EQ(a.j, b.j) << k;
    EXPECT_NEAR(a.r0_A, b.r0_A, 1e-5) << k;
    EXPECT_EQ(five_decimals(a.r0_A), five_decimals(b.r0_A)) << "contact " << a.i << "-" << a.j;
    EXPECT_FLOAT_EQ(a.eh_kcal_per_mol, b.eh_kcal_per_mol) << k;
    by_sidechain += built.contact_reasons[k] == ContactReason::SidechainAtoms ? 1 : 0;
  }
  EXPECT_EQ(by_sidechain, 10) << "65 by C-alpha distance, 10 only through side-chain atoms";

  const auto pairs = list_repulsive_pairs(ours);
  EXPECT_EQ(pairs.size(), 453u);
  EXPECT_EQ(pairs, ref_pairs);
  EXPECT_EQ(built.repulsive_pairs, 453);

  // Native coordinates = SOP-GPU's coarse-grained PDB.
  const auto cg = read_pdb_coordinates(ww_dir() / "reference/ww_cg.pdb");
  ASSERT_EQ(cg.size(), 34u);
  for (int b = 0; b < 34; ++b) {
    EXPECT_DOUBLE_EQ(ours.native_positions_A[b].x, cg[b].x);
    EXPECT_DOUBLE_EQ(ours.native_positions_A[b].y, cg[b].y);
    EXPECT_DOUBLE_EQ(ours.native_positions_A[b].z, cg[b].z);
  }
}

// SOP-GPU's protofilament model: its C-alpha trace PF8_sop.pdb names histidines HSD (CA
// only). They are amino acids, so the model is SOP-GPU's PF8.top — the same beads, bonds
// and native-contact pairs (PF8.top's ε_h, 1.0 between dimers and 1.9 otherwise, were set
// by hand, and its r0 come from other coordinates to ~3·10⁻⁵ Å: compared loosely).
TEST(TopologyPf8Reference, CalphaTraceWithCharmmHistidinesGivesSopGpusModel) {
  const fs::path pdb = test::shared_data() / "sopgpu/pf8/PF8_sop.pdb";
  const StructureModel model = extract_structure_model(read_structure_file(pdb), pdb.string(), {});
  TopologyOptions options;
  options.r_limit_A = 8.0;
  options.sc_limit_A = 5.2;
  const BuiltTopology built = build_topology(model, options);
  const Topology& ours = built.topology;
  const Topology ref = read_sopgpu_top(test::shared_data() / "sopgpu/pf8/PF8.top");
  ASSERT_EQ(ours.bead_count(), 6928);
  ASSERT_EQ(ref.bead_count(), 6928);
  EXPECT_EQ(built.chain_breaks, 0);
  int hsd = 0;
  for (int b = 0; b < ref.bead_count(); ++b) {
    EXPECT_EQ(ours.beads[b].residue_number, ref.beads[b].residue_number) << b;
    hsd += ours.beads[b].residue_name == "HSD";
  }
  EXPECT_EQ(hsd, 184);
  auto pairs = [](const auto& list) {
    std::vector<std::pair<int, int>> p;
    for (const auto& x : list) p.emplace_back(x.i, x.j);
    return p;
  };
  EXPECT_EQ(pairs(ours.bonds), pairs(ref.bonds));
  ASSERT_EQ(ours.native_contacts.size(), 21734u);
  EXPECT_EQ(pairs(ours.native_contacts), pairs(ref.native_contacts));
  for (std::size_t k = 0; k < ref.native_contacts.size(); ++k)
    ASSERT_NEAR(ours.native_contacts[k].r0_A, ref.native_contacts[k].r0_A, 1e-4) << k;
}

// SOP-GPU's eh B / eh O: sqrt of the product of the two C-alphas' column values.
TEST(TopologyWwReference, EpsilonFromBfactorAndOccupancyColumns) {
  const Topology ref = read_sopgpu_top(ww_dir() / "reference/ww.top");
  const BuiltTopology b = build_ww(EpsilonSource::BFactor);
  ASSERT_EQ(b.topology.native_contacts.size(), 75u);
  for (const NativeContact& c : b.topology.native_contacts)
    EXPECT_NEAR(c.eh_kcal_per_mol, std::sqrt(ref.beads[c.i].b_factor * ref.beads[c.j].b_factor), 1e-4);
  const BuiltTopology o = build_ww(EpsilonSource::Occupancy);
  for (const NativeContact& c : o.topology.native_contacts) EXPECT_FLOAT_EQ(c.eh_kcal_per_mol, 1.0f);
}

std::string run_ermak(const std::string& args, int* status) {
  std::string output;
  *status = test::run_command(test::ermak_binary().string() + " " + args, &output);
  return output;
}

// The command writes SOP-GPU's file: every line but the header comment equals ww.top.
TEST(TopologyWwReference, CommandWritesSopGpusTopAndCoordinatesAndTheyRun) {
  const fs::path dir = test::fresh_directory("topology-ww-cli");
  int status = 0;
  const std::string out = run_ermak("topology " + (ww_dir() / "ww.pdb").string() + " -o " + (dir / "model").string() +
                                        " --r-limit 8 --sc-limit 5.2 --eh 1.5",
                                    &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("native contacts  75 (C-alpha distance 65, side-chain atoms only 10)"), std::string::npos) << out;
  EXPECT_NE(out.find("repulsive pairs  453"), std::string::npos) << out;
  const std::string ours = read_file(dir / "model/ww.top"), ref = read_file(ww_dir() / "reference/ww.top");
  ASSERT_FALSE(ours.empty());
  EXPECT_EQ(ours.substr(ours.find('\n')), ref.substr(ref.find('\n')));
  EXPECT_EQ(read_pdb_coordinates(dir / "model/ww.pdb").size(), 34u);
  const std::string cg = read_file(ww_dir() / "reference/ww_cg.pdb");
  const std::string pdb = read_file(dir / "model/ww.pdb");
  std::istringstream a(cg), b(pdb);
  std::string la, lb;
  int compared = 0;
  while (std::getline(a, la) && la.starts_with("ATOM")) {
    while (std::getline(b, lb) && !lb.starts_with("ATOM")) {}
    EXPECT_EQ(la.substr(30, 24), lb.substr(30, 24)) << "x y z of bead " << compared;
    ++compared;
  }
  EXPECT_EQ(compared, 34);
  // The bonds as CONECT records, line for line those of SOP-GPU's ww_cg.pdb.
  auto conect_lines = [](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.starts_with("CONECT")) lines.push_back(line);
    return lines;
  };
  EXPECT_EQ(conect_lines(cg).size(), 33u);
  EXPECT_EQ(conect_lines(pdb), conect_lines(cg));
  EXPECT_EQ(read_topology_file(dir / "model/ww.etop").native_contacts.size(), 75u);
  const std::string summary = read_file(dir / "model/ww_summary.txt");
  EXPECT_NE(summary.find("timing"), std::string::npos);
  // Depths from a column: their range is stated (raw B-factors make deep wells).
  const std::string from_b = run_ermak("topology " + (ww_dir() / "ww.pdb").string() + " -o " +
                                           (dir / "model-eh-b").string() + " --eh B",
                                       &status);
  ASSERT_EQ(status, 0) << from_b;
  EXPECT_NE(from_b.find("epsilon_h        sqrt(B_i B_j) from the B-factor column; "), std::string::npos) << from_b;
  EXPECT_NE(from_b.find(" kcal/mol over the contacts"), std::string::npos) << from_b;

  // `ermak run` takes the SOP-GPU pair (.top + coarse-grained PDB) and the .etop.
  for (const char* topology : {"ww.top", "ww.etop"}) {
    const std::string input = "topology = \"" + (dir / "model" / topology).string() + "\"\ncoordinates = \"" +
                              (dir / "model/ww.pdb").string() + "\"\n";
    { std::ofstream c(dir / "run.toml");
      c << "[input]\n" << input << "[run]\nsteps = 200\nseed = 3\n[output]\ndirectory = \"run\"\nenergy_every = 100\n"
        << "trajectory_every = 0\ncheckpoint_every = 0\n"; }
    const std::string run = run_ermak("run --quiet --force " + (dir / "run.toml").string(), &status);
    EXPECT_EQ(status, 0) << run;
    EXPECT_TRUE(fs::exists(dir / "run/replica_000/energies.tsv")) << run;
  }
}

}  // namespace
}  // namespace ermak
