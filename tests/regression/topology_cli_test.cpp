// `ermak topology` end to end: the output set, refusing to overwrite, the options that
// change the outputs, and clear errors with file names and a non-zero exit for bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/topology_file.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string topology(const std::string& args, int* status) {
  std::string output;
  *status = ermak::test::run_command(ermak::test::ermak_binary().string() + " topology " + args, &output);
  return output;
}

fs::path ww() { return ermak::test::shared_data() / "sopgpu/ww/ww.pdb"; }

TEST(TopologyCli, WritesEveryOutputAndRefusesToOverwriteWithoutForce) {
  const auto dir = ermak::test::fresh_directory("topology-cli-outputs");
  int status = 0;
  std::string out = topology(ww().string() + " -o " + dir.string() + " --name wwdom", &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* f : {"wwdom.etop", "wwdom.top", "wwdom.pdb", "wwdom.psf", "wwdom_summary.txt"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  EXPECT_NE(out.find("beads            34"), std::string::npos) << "the summary is printed: " << out;
  EXPECT_EQ(read_file(dir / "wwdom_summary.txt").find("# ermak topology"), 0u);
  EXPECT_NE(read_file(dir / "wwdom.psf").find("33 !NBOND"), std::string::npos);

  const std::string before = read_file(dir / "wwdom.top");
  { std::ofstream mark(dir / "wwdom.top", std::ios::app); mark << "; mark\n"; }
  out = topology(ww().string() + " -o " + dir.string() + " --name wwdom --eh 2.0", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("wwdom.etop: output: already exists; use --force"), std::string::npos) << out;
  EXPECT_EQ(read_file(dir / "wwdom.top"), before + "; mark\n") << "nothing was touched";

  out = topology(ww().string() + " -o " + dir.string() + " --name wwdom --eh 2.0 --force --psf-native", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(read_file(dir / "wwdom.top").find("2.00000"), std::string::npos);
  EXPECT_NE(read_file(dir / "wwdom.psf").find("108 !NBOND"), std::string::npos) << "33 bonds + 75 natives";

  // The input itself is never an output, even with --force.
  const auto self = ermak::test::fresh_directory("topology-cli-self");
  fs::copy_file(ww(), self / "ww.pdb");
  out = topology((self / "ww.pdb").string() + " -o " + self.string() + " --force", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("would overwrite the input"), std::string::npos) << out;

  // An output name that holds a FIFO (it would block the writer) is refused before anything
  // is written, even with --force; nothing of the model is left beside it.
  const auto fifo = ermak::test::fresh_directory("topology-cli-fifo");
  ASSERT_EQ(::mkfifo((fifo / "wwdom.top").c_str(), 0600), 0);
  out = topology(ww().string() + " -o " + fifo.string() + " --name wwdom --force", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("wwdom.top: output: exists and is not a regular file"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(fifo / "wwdom.pdb"));
  EXPECT_TRUE(fs::is_fifo(fifo / "wwdom.top"));
}

// A capsid deposited as its asymmetric unit (1CWP: 59 NCS operators), built without
// --assembly: the warning `[input] structure` and `ermak energy --structure` give, saying how
// to build the whole particle; with --assembly ncs there is none.
TEST(TopologyCli, AnAsymmetricUnitBuiltAloneNamesItsNcsOperators) {
  const auto dir = ermak::test::fresh_directory("topology-cli-ncs");
  const fs::path capsid = ermak::test::shared_data() / "pdb/1CWP.pdb";
  int status = 0;
  std::string out = topology(capsid.string() + " -o " + dir.string() + " --name au --quiet", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string summary = read_file(dir / "au_summary.txt");
  EXPECT_NE(summary.find("the file lists 59 NCS operators that generate further copies of its chains"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("`ermak topology FILE --assembly ncs` builds the whole particle"), std::string::npos)
      << summary;
  out = topology(capsid.string() + " -o " + dir.string() + " --name whole --assembly ncs --ncs-frame origx --quiet",
                 &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(read_file(dir / "whole_summary.txt").find("NCS operators that generate"), std::string::npos);
}

TEST(TopologyCli, CalphaCbetaModelAndLargeSystemOptions) {
  const auto dir = ermak::test::fresh_directory("topology-cli-cacb");
  int status = 0;
  const std::string out =
      topology(ww().string() + " -o " + dir.string() + " --model-type cacb --top-pairs none --quiet", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_TRUE(out.empty()) << out;
  const ermak::Topology t = ermak::read_topology_file(dir / "ww.etop");
  // 34 residues, 3 of them glycine (10, 20, 39): one side-chain bead for each of the other 31.
  int glycines = 0;
  for (const auto& b : t.beads) glycines += b.residue_name == "GLY" && b.atom_name == "CA";
  EXPECT_EQ(t.bead_count(), 34 + (34 - glycines));
  EXPECT_EQ(t.bonds.size(), 33u + (34u - glycines));
  EXPECT_EQ(read_file(dir / "ww.top").find("[ pairs ]"), std::string::npos);
  EXPECT_NE(read_file(dir / "ww_summary.txt").find("--top-pairs none"), std::string::npos);
  EXPECT_EQ(ermak::read_pdb_coordinates(dir / "ww.pdb").size(), static_cast<std::size_t>(t.bead_count()));
}

TEST(TopologyCli, BadInputsGiveClearErrorsAndNonZeroExit) {
  const auto dir = ermak::test::fresh_directory("topology-cli-bad");
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string empty = write("empty.pdb", "");
  const std::string water = write("water.pdb",
                                  "HETATM    1  O   HOH A   1       0.000   0.000   0.000  1.00 10.00           O\nEND\n");
  const std::string cif = write("broken.cif", "data_x\nloop_\n_atom_site.id\n'unterminated\n");
  const std::string bonds = write("bonds.txt", "A 6 CA A 39 CA\nA 7 CA A 99 CA\n");
  const std::string ops = write("ops.txt", "1 0 0 0\n0 1 0 0\n");
  struct Case {
    std::string args, expected;
  };
  const Case cases[] = {
      {empty, "empty.pdb: structure: the file is empty"},
      {water, "water.pdb: structure: no amino-acid residue with a C-alpha"},
      {cif, "broken.cif:4: structure: mmCIF parse error"},
      {(dir / "absent.pdb").string(), "absent.pdb: structure: file not found"},
      {ww().string() + " --extra-bonds " + bonds, "bonds.txt:2: second partner: no residue A:99"},
      {ww().string() + " --symmetry " + ops, "ops.txt:2: operator 1: the file ends after 2 of the 3 rows"},
      {ww().string() + " --assembly 5", "ww.pdb: assembly: there is no assembly '5'; available: 1"},
      {ww().string() + " --eh X", "--eh: 'X' is neither"},
      {ww().string() + " --eh 1e39", "--eh: '1e39' is neither a value from 0 to 3.4e38"},
      {ww().string() + " --r-limit inf", "--r-limit: must be finite and >= 0"},
      {ww().string() + " --ncs-frame origx", "--ncs-frame: origx applies to the NCS operators"},
      {ww().string() + " --assembly 1 --ncs-frame origx", "ww.pdb: assembly: the ORIGX frame applies to the NCS"},
      {ww().string() + " --model 2", "ww.pdb: model: there is no model 2"},
      {ww().string() + " --model 0", "ww.pdb: model: there is no model 0"},
      {ww().string() + " --name .", "--name: '.' cannot name output files"},
      {ww().string() + " --assembly ''", "--assembly: must name an assembly of the file, or ncs"},
      {ww().string() + " --symmetry " + dir.string(), "symmetry: is a directory; give a file"},
      // Options of another mode are refused, not ignored (an audit's C-alpha model with cb).
      {ww().string() + " --sidechain-bead cb", "--sidechain-bead: places the side-chain beads of --model-type cacb"},
      {ww().string() + " --disulfides none --ss-distance 3", "--ss-distance: finds disulfides by geometry"},
  };
  for (const Case& c : cases) {
    int status = 0;
    const std::string out = topology(c.args + " -o " + (dir / "out").string() + " --force", &status);
    EXPECT_EQ(status, 1) << c.args << ": " << out;
    EXPECT_NE(out.find("ermak: error: "), std::string::npos) << c.args << ": " << out;
    EXPECT_NE(out.find(c.expected), std::string::npos) << c.args << ": " << out;
  }
  int status = 0;
  const std::string out = topology(ww().string() + " -o " + (dir / "out").string() + " --model-type cb", &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("--model-type"), std::string::npos) << out;
}

// A build refused after the structure was read (here a chain id of 10 characters, more than a
// PSF holds) leaves no output directory behind: it is created only once every check has
// passed (an audit found an empty directory after a refused --top-pairs all). The error names
// the input, where the chain id is to be changed.
TEST(TopologyCli, ARefusedBuildCreatesNoOutputDirectory) {
  const auto dir = ermak::test::fresh_directory("topology-cli-refused");
  ermak::test::write_calpha_mmcif(dir / "long.cif", "LONGCHAIN9");
  int status = 0;
  const std::string out = topology((dir / "long.cif").string() + " -o " + (dir / "out").string(), &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("long.cif: beads[0].chain_id: 'LONGCHAIN9' is longer than the 8 characters"), std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir / "out")) << out;
}

// An old-style entry whose MTRIX operator (180 degrees about z) is written in its ORIGX
// frame (90 degrees about z, then (1, 2, 3)): read literally the copy of the bead at
// (0.3, 0, 0) lands 0.6 A from it, and the summary names --ncs-frame origx; in the ORIGX
// frame (180 degrees about the axis through (-2, 1)) the copy is at (-4.3, 2, 0)
// (docs/topology.md#ncs-operators-and-origx).
// --chains keeps the file's chains of those names (docs/topology.md#options): one monomer of
// the λ repressor dimer (chains 3 and 4, with DNA chains 1 and 2); a name the file does not
// have is an error listing the chains it has. [input] chains does the same for a run.
TEST(TopologyCli, ChainsKeepsTheNamedChains) {
  const auto dir = ermak::test::fresh_directory("topology-chains");
  const fs::path lmb = ermak::test::shared_data() / "pdb/1LMB.pdb";
  int status = 0;
  std::string out = topology(lmb.string() + " -o " + (dir / "one").string() + " --chains 3", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string summary = read_file(dir / "one/1LMB_summary.txt");
  EXPECT_NE(summary.find("(PDB, model 1 of 1, chains 3)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("beads            87 "), std::string::npos) << summary;
  EXPECT_NE(summary.find("chains           1\n"), std::string::npos) << summary;
  out = topology(lmb.string() + " -o " + (dir / "both").string() + " --chains 4,3", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(read_file(dir / "both/1LMB_summary.txt").find("chains           2\n"), std::string::npos);
  out = topology(lmb.string() + " -o " + (dir / "bad").string() + " --chains 3,C", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("1LMB.pdb: --chains: no chain 'C' in the file's model (its chains: 1, 2, 3, 4"),
            std::string::npos)
      << out;
  // A chain asked for that gives no bead (DNA) beside one that does: named in a warning.
  out = topology(lmb.string() + " -o " + (dir / "dna3").string() + " --chains 1,3", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("chain 1 (asked for) holds no amino-acid residue with a C-alpha atom: it gives no beads"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("chain 3 (asked for)"), std::string::npos) << out;
  out = topology(lmb.string() + " -o " + (dir / "dna").string() + " --chains 1", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--chains: the chains chosen hold no amino-acid residue with a C-alpha atom"), std::string::npos)
      << out;
  // A run's C-alpha model of one chain, and a chain the file does not have at its line.
  {
    std::ofstream(dir / "run.toml") << "[input]\nstructure = \"" << lmb.string()
                                    << "\"\nchains = [\"4\"]\n[run]\nsteps = 10\n[output]\ndirectory = \"out\"\n";
  }
  std::string run_out;
  status = ermak::test::run_command(ermak::test::ermak_binary().string() + " run --dry-run " +
                                        (dir / "run.toml").string(),
                                    &run_out);
  EXPECT_EQ(status, 0) << run_out;
  EXPECT_NE(run_out.find("model: 92 beads, 91 bonds"), std::string::npos) << run_out;
  EXPECT_NE(run_out.find("chains (for bead selections such as \"A:76\"): 4 1–92 (92 beads)"), std::string::npos)
      << run_out;
  status = ermak::test::run_command(ermak::test::ermak_binary().string() + " run --dry-run " +
                                        (dir / "run.toml").string() + " --set 'input.chains=[\"5\"]'",
                                    &run_out);
  EXPECT_EQ(status, 1) << run_out;
  EXPECT_NE(run_out.find("--set: input.chains: " + lmb.string() + ": no chain '5'"), std::string::npos) << run_out;
  // The dimer: the run's model line counts the contacts between its chains (its interface).
  status = ermak::test::run_command(ermak::test::ermak_binary().string() + " run --dry-run " +
                                        (dir / "run.toml").string() + " --set 'input.chains=[\"3\", \"4\"]'",
                                    &run_out);
  EXPECT_EQ(status, 0) << run_out;
  EXPECT_NE(run_out.find("model: 179 beads, 177 bonds, 473 native contacts (48 between chains), 1 replica"),
            std::string::npos)
      << run_out;
  // Amino acids of HETATM records, which `ermak topology` leaves out by default, are named when
  // a run's structure model includes them (docs/config.md#input--the-model).
  status = ermak::test::run_command(ermak::test::ermak_binary().string() + " energy --structure " +
                                        (ermak::test::shared_data() / "pdb/2F4K.pdb").string(),
                                    &run_out);
  EXPECT_EQ(status, 0) << run_out;
  EXPECT_NE(run_out.find("2 amino-acid residue(s) in HETATM records became beads: NLE (2) (`ermak topology` "
                         "includes them with --keep-hetero)"),
            std::string::npos)
      << run_out;
}

TEST(TopologyCli, NcsFrameHintAndOption) {
  const auto dir = ermak::test::fresh_directory("topology-cli-origx");
  const auto file = dir / "old.pdb";
  std::ofstream(file) << "ORIGX1      0.000000 -1.000000  0.000000        1.00000\n"
                         "ORIGX2      1.000000  0.000000  0.000000        2.00000\n"
                         "ORIGX3      0.000000  0.000000  1.000000        3.00000\n"
                         "MTRIX1   1 -1.000000  0.000000  0.000000        0.00000     \n"
                         "MTRIX2   1  0.000000 -1.000000  0.000000        0.00000     \n"
                         "MTRIX3   1  0.000000  0.000000  1.000000        0.00000     \n"
                         "ATOM      1  CA  ALA A   1       0.300   0.000   0.000  1.00 10.00           C\n"
                         "ATOM      2  CA  ALA A   2       4.100   0.000   0.000  1.00 10.00           C\n"
                         "END\n";
  int status = 0;
  std::string out = topology(file.string() + " -o " + (dir / "entry").string() + " --assembly ncs", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("1 bead pair(s) are closer than 1 A"), std::string::npos) << out;
  EXPECT_NE(out.find("the file has an ORIGX other than the identity"), std::string::npos) << out;
  EXPECT_NE(out.find("--ncs-frame origx"), std::string::npos) << out;

  out = topology(file.string() + " -o " + (dir / "origx").string() + " --assembly ncs --ncs-frame origx", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("in the ORIGX frame"), std::string::npos) << out;
  EXPECT_EQ(out.find("closer than 1 A"), std::string::npos) << out;
  const std::string pdb = read_file(dir / "origx" / "old.pdb");
  EXPECT_NE(pdb.find("  -4.300   2.000   0.000"), std::string::npos) << pdb;
}

}  // namespace
