// `ermak topology FILE.sop` with SOP-GPU's own topology-creation configs, laid out as in
// SOP-GPU's examples in a temp dir (paths in a .sop are relative to the current directory):
// - ww_top.sop (sop-top style) reproduces SOP-GPU's reference ww.top and ww_cg.pdb, as
//   `ermak topology ww.pdb` does (tests/regression/topology_ww_reference_test.cpp);
// - 1TIT_top.sop with aa_to_cg.inp (sop-top2 style) gives the C-alpha–side-chain model
//   the description defines, at its native minimum; with aa_to_cg_ca.inp, the C-alpha model.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "ermak/backend/cpu/reference_energy.h"
#include "ermak/io/cg_description.h"
#include "ermak/io/cg_model_builder.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/sopgpu_top.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

fs::path sopgpu() { return test::shared_data() / "sopgpu"; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `ermak topology ARGS` run in `dir`.
std::string topology_in(const fs::path& dir, const std::string& args, int* status) {
  std::string output;
  *status = test::run_ermak_in(dir, "topology " + args, &output);
  return output;
}

TEST(TopologySopConfig, WwSopTopConfigReproducesSopGpusFiles) {
  const fs::path dir = test::fresh_directory("topology-sop-ww");
  fs::copy_file(sopgpu() / "ww/ww_top.sop", dir / "ww_top.sop");
  fs::copy_file(sopgpu() / "ww/ww.pdb", dir / "ww.pdb");
  int status = 0;
  std::string out = topology_in(dir, "ww_top.sop", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("native contacts  75 (bead distance 65, atoms only 10)"), std::string::npos) << out;

  // The same comparison as the `ermak topology ww.pdb` test: every line of the .top but the
  // header comment, and the coordinate columns of every ATOM record of the CG PDB.
  const std::string ours = read_file(dir / "topologies/ww.top"), ref = read_file(sopgpu() / "ww/reference/ww.top");
  ASSERT_FALSE(ours.empty());
  EXPECT_EQ(ours.substr(ours.find('\n')), ref.substr(ref.find('\n')));
  std::istringstream a(read_file(sopgpu() / "ww/reference/ww_cg.pdb")), b(read_file(dir / "structures/ww.pdb"));
  std::string la, lb;
  int compared = 0;
  while (std::getline(a, la) && la.starts_with("ATOM")) {
    while (std::getline(b, lb) && !lb.starts_with("ATOM")) {}
    EXPECT_EQ(la.substr(30, 24), lb.substr(30, 24)) << "x y z of bead " << compared;
    ++compared;
  }
  EXPECT_EQ(compared, 34);

  // Nothing is overwritten without --force; options of the PDB route are refused.
  out = topology_in(dir, "ww_top.sop", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("topologies/ww.top: topology: already exists; use --force"), std::string::npos) << out;
  out = topology_in(dir, "ww_top.sop --force --quiet", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_TRUE(out.empty()) << out;
  out = topology_in(dir, "ww_top.sop --force --model-type cacb", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--model-type: not used with a .sop config"), std::string::npos) << out;
  // An output that is a FIFO (it would block the writer) is refused, even with --force.
  fs::remove(dir / "topologies/ww.top");
  ASSERT_EQ(::mkfifo((dir / "topologies/ww.top").c_str(), 0600), 0);
  out = topology_in(dir, "ww_top.sop --force", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("topologies/ww.top: topology: exists and is a directory, FIFO or socket"), std::string::npos)
      << out;
  EXPECT_TRUE(fs::is_fifo(dir / "topologies/ww.top"));
}

TEST(TopologySopConfig, UnknownKeyIsAFileLineError) {
  const fs::path dir = test::fresh_directory("topology-sop-unknown");
  fs::copy_file(sopgpu() / "ww/ww.pdb", dir / "ww.pdb");
  std::ofstream(dir / "bad.sop") << "name ww\nstructure <name>.pdb\ntopology ww.top\ncoordinates ww_cg.pdb\n"
                                    "R_limt_bond 8.0\n";
  int status = 0;
  const std::string out = topology_in(dir, "bad.sop", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("bad.sop:5: R_limt_bond: unknown key (did you mean 'R_limit_bond'?)"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "ww.top"));
  // A structure that is not there is named at its line, with the path rule.
  std::ofstream(dir / "missing.sop") << "name ww\nstructure nope.pdb\ntopology ww.top\ncoordinates ww_cg.pdb\n";
  const std::string missing = topology_in(dir, "missing.sop", &status);
  EXPECT_EQ(status, 1) << missing;
  EXPECT_NE(missing.find("missing.sop:2: structure: file not found: "), std::string::npos) << missing;
  EXPECT_NE(missing.find("relative to the working directory, as in SOP-GPU"), std::string::npos) << missing;
}

// A capsid's asymmetric unit through SOP-GPU's sop-top route builds the file's chains, as
// SOP-GPU does, and says what `ermak topology --assembly ncs` would build (the structure's
// warnings were not printed on this route at all).
TEST(TopologySopConfig, AnAsymmetricUnitNamesItsNcsOperators) {
  const fs::path dir = test::fresh_directory("topology-sop-ncs");
  fs::copy_file(test::shared_data() / "pdb/1CWP.pdb", dir / "1CWP.pdb");
  std::ofstream(dir / "capsid.sop") << "name 1CWP\nstructure <name>.pdb\ntopology cwp.top\ncoordinates cwp.pdb\n";
  int status = 0;
  const std::string out = topology_in(dir, "capsid.sop", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("warning: the file lists 59 NCS operators"), std::string::npos) << out;
  EXPECT_NE(out.find("--assembly ncs"), std::string::npos) << out;
}

// SOP-GPU's titin example layout: aa_to_cg*.inp one level up (cgconfig ../aa_to_cg.inp).
fs::path titin_layout(const std::string& name, const std::string& description) {
  const fs::path dir = test::fresh_directory(name);
  fs::create_directories(dir / "top");
  fs::copy_file(sopgpu() / "titin/aa_to_cg.inp", dir / "aa_to_cg.inp");
  fs::copy_file(sopgpu() / "titin/aa_to_cg_ca.inp", dir / "aa_to_cg_ca.inp");
  fs::copy_file(sopgpu() / "titin/1TIT.pdb", dir / "top/1TIT.pdb");
  std::string config = read_file(sopgpu() / "titin/1TIT_top.sop");
  const std::string from = "cgconfig ../aa_to_cg.inp";
  config.replace(config.find(from), from.size(), "cgconfig ../" + description);
  std::ofstream(dir / "top/1TIT_top.sop") << config;
  return dir / "top";
}

StructureModel titin_model() {
  const fs::path pdb = sopgpu() / "titin/1TIT.pdb";
  return extract_structure_model(read_structure_file(pdb), pdb.string(), {});
}

TEST(TopologySopConfig, TitinSopTop2ConfigBuildsTheSideChainModelAtItsNativeMinimum) {
  const fs::path dir = titin_layout("topology-sop-titin", "aa_to_cg.inp");
  int status = 0;
  const std::string out = topology_in(dir, "1TIT_top.sop", &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"topologies/1TIT_cacb.top", "topologies/1TIT_cacb.psf", "topologies/1TIT_nat_cacb.psf",
                        "structures/1TIT_cacb.pdb"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  EXPECT_NE(out.find("residues HIS are coarse-grained as HSD"), std::string::npos) << out;

  const Topology top = read_sopgpu_top(dir / "topologies/1TIT_cacb.top");
  const StructureModel model = titin_model();
  const int residues = static_cast<int>(model.residues.size());
  int glycines = 0, prolines_after_first = 0;
  for (int r = 0; r < residues; ++r) {
    glycines += model.residues[r].name == "GLY";
    prolines_after_first += r > 0 && model.residues[r].name == "PRO";
  }
  ASSERT_EQ(residues, 89);  // 1TIT: I27, residues 1-89
  // aa_to_cg.inp: a CA bead per residue plus one side-chain bead (two for TRP), none for GLY.
  int tryptophans = 0;
  for (const auto& r : model.residues) tryptophans += r.name == "TRP";
  EXPECT_EQ(top.bead_count(), residues + (residues - glycines) + tryptophans);

  // Bonds: CA(i)-CA(i+1), CA-side chain in each residue, TRP's two side-chain beads, and
  // PRO's side chain to the previous residue's CA (CONN -CA in aa_to_cg.inp).
  std::map<std::string, int> kinds;
  for (const Bond& b : top.bonds) {
    const BeadInfo &p = top.beads[b.i], &q = top.beads[b.j];
    const bool ca_p = p.atom_name == "CA", ca_q = q.atom_name == "CA";
    if (ca_p && ca_q) {
      EXPECT_EQ(q.residue_number, p.residue_number + 1) << b.i << "-" << b.j;
      ++kinds["CA-CA"];
    } else if (ca_p != ca_q) {
      const BeadInfo& side = ca_p ? q : p;
      const BeadInfo& ca = ca_p ? p : q;
      if (side.residue_number == ca.residue_number) ++kinds["CA-SC"];
      else {
        EXPECT_EQ(side.residue_name, "PRO");
        EXPECT_EQ(ca.residue_number, side.residue_number - 1);
        ++kinds["PRO SC-previous CA"];
      }
    } else {
      EXPECT_EQ(p.residue_name, "TRP");
      ++kinds["SC-SC"];
    }
    EXPECT_GT(b.r0_A, 0.5f);
    EXPECT_LT(b.r0_A, 8.0f);
  }
  EXPECT_EQ(kinds["CA-CA"], residues - 1);
  EXPECT_EQ(kinds["CA-SC"], residues - glycines);
  EXPECT_EQ(kinds["SC-SC"], tryptophans);
  EXPECT_EQ(kinds["PRO SC-previous CA"], prolines_after_first);
  EXPECT_EQ(top.bonds.size(), static_cast<std::size_t>(residues - 1 + residues - glycines + tryptophans +
                                                       prolines_after_first));

  // Native contacts: finite, within R_limit_bond (SC_limit_bond 0), eh from B-factors.
  ASSERT_GT(top.native_contacts.size(), 200u);
  double eh_sum = 0;
  for (const NativeContact& c : top.native_contacts) {
    EXPECT_GT(c.r0_A, 0.0f);
    EXPECT_LT(c.r0_A, 8.0f);
    EXPECT_TRUE(std::isfinite(c.eh_kcal_per_mol));
    EXPECT_GT(c.eh_kcal_per_mol, 0.0f);
    eh_sum += c.eh_kcal_per_mol;
  }
  // The B-factor route: the same model built in-process, eh = sqrt(mean B_i · mean B_j).
  const CgDescription description = read_cg_description(sopgpu() / "titin/aa_to_cg.inp");
  CgModelOptions options;
  options.r_limit_A = 8.0;
  options.sc_limit_A = 0.0;
  options.eh_source = EpsilonSource::BFactor;
  const BuiltTopology built = build_cg_topology(model, description, options);
  ASSERT_EQ(built.topology.native_contacts.size(), top.native_contacts.size());
  for (std::size_t k = 0; k < top.native_contacts.size(); ++k) {
    EXPECT_EQ(built.topology.native_contacts[k].i, top.native_contacts[k].i);
    EXPECT_EQ(built.topology.native_contacts[k].j, top.native_contacts[k].j);
    EXPECT_NEAR(built.topology.native_contacts[k].eh_kcal_per_mol, top.native_contacts[k].eh_kcal_per_mol, 6e-6);
  }
  // E.g. LEU 1's CA bead represents N, CA, C, O (hydrogens are not read): its B is their mean.
  const StructureResidue& leu1 = model.residues[0];
  double b_leu1 = 0;
  for (const char* atom : {"N", "CA", "C", "O"}) b_leu1 += leu1.find(atom)->b_factor;
  b_leu1 /= 4;
  for (const NativeContact& c : built.topology.native_contacts)
    if (c.i == 0 && built.topology.beads[c.j].atom_name == "CA") {
      const StructureResidue& other = model.residues[built.residue_of_bead[c.j]];
      double b_other = 0;
      for (const char* atom : {"N", "CA", "C", "O"}) b_other += other.find(atom)->b_factor;
      b_other /= 4;
      EXPECT_NEAR(c.eh_kcal_per_mol, std::sqrt(b_leu1 * b_other), 1e-6) << "0-" << c.j;
    }

  // At the native coordinates every bond and native contact sits at its minimum: FENE 0,
  // native energy −Σ eh, and without the repulsion no force on any bead.
  SopParameters sop;
  const auto at_native = evaluate_reference(built.topology, sop, built.topology.native_positions_A);
  EXPECT_NEAR(at_native.energy.fene, 0.0, 1e-9);
  EXPECT_NEAR(at_native.energy.native, -eh_sum, 1e-6 * eh_sum);
  sop.repulsion_eps_kcal_per_mol = 0.0f;
  const auto attractive_only = evaluate_reference(built.topology, sop, built.topology.native_positions_A);
  for (std::size_t i = 0; i < attractive_only.forces.size(); ++i)
    EXPECT_LT(norm(attractive_only.forces[i]), 1e-3) << "bead " << i;

  // `ermak energy` on the written files agrees (5-decimal r0, 3-decimal coordinates).
  std::string energy;
  ASSERT_EQ(test::run_command(test::ermak_binary().string() + " energy --topology " +
                                  (dir / "topologies/1TIT_cacb.top").string() + " --coordinates " +
                                  (dir / "structures/1TIT_cacb.pdb").string(),
                              &energy),
            0)
      << energy;
  const auto at = energy.find("\nnative ");
  ASSERT_NE(at, std::string::npos) << energy;
  EXPECT_NEAR(std::stod(energy.substr(at + 8)), -eh_sum, 1e-3 * eh_sum) << energy;

  // The PSFs: bonds, and the native contacts as bonds.
  EXPECT_NE(read_file(dir / "topologies/1TIT_cacb.psf").find(std::to_string(top.bonds.size()) + " !NBOND"),
            std::string::npos);
  EXPECT_NE(read_file(dir / "topologies/1TIT_nat_cacb.psf")
                .find(std::to_string(top.native_contacts.size()) + " !NBOND"),
            std::string::npos);
}

TEST(TopologySopConfig, CalphaOnlyDescriptionGivesTheCalphaModel) {
  const fs::path dir = titin_layout("topology-sop-titin-ca", "aa_to_cg_ca.inp");
  int status = 0;
  const std::string out = topology_in(dir, "1TIT_top.sop", &status);
  ASSERT_EQ(status, 0) << out;
  const Topology written = read_sopgpu_top(dir / "topologies/1TIT_cacb.top");

  const StructureModel model = titin_model();
  TopologyOptions ca;  // 1TIT_top.sop's settings in ermak's C-alpha builder
  ca.r_limit_A = 8.0;
  ca.sc_limit_A = 0.0;
  ca.eh_source = EpsilonSource::BFactor;
  const Topology expected = build_topology(model, ca).topology;
  ASSERT_EQ(expected.bead_count(), 89);
  ASSERT_EQ(written.bead_count(), expected.bead_count());
  for (int b = 0; b < expected.bead_count(); ++b) {
    EXPECT_EQ(written.beads[b].atom_name, "CA");
    EXPECT_EQ(written.beads[b].residue_number, expected.beads[b].residue_number);
  }
  ASSERT_EQ(written.bonds.size(), expected.bonds.size());
  for (std::size_t k = 0; k < expected.bonds.size(); ++k) {
    EXPECT_EQ(written.bonds[k].i, expected.bonds[k].i);
    EXPECT_EQ(written.bonds[k].j, expected.bonds[k].j);
    EXPECT_NEAR(written.bonds[k].r0_A, expected.bonds[k].r0_A, 6e-6);
  }
  ASSERT_EQ(written.native_contacts.size(), expected.native_contacts.size());
  for (std::size_t k = 0; k < expected.native_contacts.size(); ++k) {
    EXPECT_EQ(written.native_contacts[k].i, expected.native_contacts[k].i);
    EXPECT_EQ(written.native_contacts[k].j, expected.native_contacts[k].j);
    EXPECT_NEAR(written.native_contacts[k].r0_A, expected.native_contacts[k].r0_A, 6e-6);
    EXPECT_NEAR(written.native_contacts[k].eh_kcal_per_mol, expected.native_contacts[k].eh_kcal_per_mol, 6e-6);
  }
  // pairs_threshold 100 A: 1TIT is smaller than that, so [ pairs ] lists every other pair.
  const auto pairs = read_sopgpu_top_pairs(dir / "topologies/1TIT_cacb.top");
  EXPECT_EQ(pairs, list_repulsive_pairs(expected));
}

// `eh B` takes ε_h from the B-factor column: a record too short to hold it got gemmi's
// default B of 20 as its energy, silently. Both builders refuse it at its line: the sop-top2
// config (1TIT_top.sop, eh B) and `ermak topology --eh B` of the same file.
TEST(TopologySopConfig, EhBWithARecordWithoutItsBfactorIsAnErrorInBothBuilders) {
  const fs::path dir = titin_layout("topology-sop-eh-missing", "aa_to_cg.inp");
  std::string pdb = read_file(dir / "1TIT.pdb");
  std::size_t line_158 = 0;
  for (int line = 1; line < 158; ++line) line_158 = pdb.find('\n', line_158) + 1;
  ASSERT_EQ(pdb.compare(line_158, 4, "ATOM"), 0);
  pdb.erase(line_158 + 60, pdb.find('\n', line_158) - line_158 - 60);  // the record ends at column 60
  std::ofstream(dir / "1TIT.pdb", std::ios::binary) << pdb;
  const std::string expected = "1TIT.pdb:158: tempFactor: the record ends at column 60, without the whole "
                               "tempFactor field (columns 61-66), and ε_h is read from it (eh B)";
  int status = 0;
  std::string out = topology_in(dir, "1TIT_top.sop", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find(expected), std::string::npos) << out;
  out = topology_in(dir, "1TIT.pdb -o cli --eh B", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find(expected), std::string::npos) << out;
  out = topology_in(dir, "1TIT.pdb -o cli", &status);  // a constant ε_h needs no B-factor
  EXPECT_EQ(status, 0) << out;
}

}  // namespace
}  // namespace ermak
