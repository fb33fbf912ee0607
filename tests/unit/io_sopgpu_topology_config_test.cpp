// io/sopgpu_topology_config: SOP-GPU topology-creation .sop files (sop-top and sop-top2
// styles) — the shared examples, macros, and file:line errors for what ermak refuses.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/sopgpu_topology_config.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

bool has_note(const SopTopologyConfig& c, const std::string& text) {
  for (const std::string& n : c.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(SopTopologyConfig, ReadsTheWwSopTopExample) {
  const fs::path file = test::shared_data() / "sopgpu/ww/ww_top.sop";
  const SopTopologyConfig c = read_sopgpu_topology_config(file);
  EXPECT_EQ(c.style, SopTopologyStyle::SopTop);
  EXPECT_EQ(c.structure, "ww.pdb");  // <name>.pdb with name ww
  EXPECT_EQ(c.topology, "topologies/ww.top");
  EXPECT_EQ(c.coordinates, "structures/ww.pdb");
  EXPECT_TRUE(c.cgconfig.empty());
  EXPECT_DOUBLE_EQ(c.r_limit_A, 8.0);
  EXPECT_DOUBLE_EQ(c.sc_limit_A, 5.2);
  EXPECT_EQ(c.eh_source, EpsilonSource::Constant);
  EXPECT_DOUBLE_EQ(c.eh_kcal_per_mol, 1.5);
  EXPECT_FALSE(c.pairs_threshold_A.has_value());
  EXPECT_TRUE(c.notes.empty());
}

TEST(SopTopologyConfig, ReadsTheTitinSopTop2Example) {
  const fs::path file = test::shared_data() / "sopgpu/titin/1TIT_top.sop";
  const SopTopologyConfig c = read_sopgpu_topology_config(file);
  EXPECT_EQ(c.style, SopTopologyStyle::SopTop2);
  EXPECT_EQ(c.cgconfig, "../aa_to_cg.inp");
  EXPECT_EQ(c.structure, "1TIT.pdb");
  EXPECT_EQ(c.topology, "topologies/1TIT_cacb.top");
  EXPECT_EQ(c.topology_psf, "topologies/1TIT_cacb.psf");
  EXPECT_EQ(c.topology_natpsf, "topologies/1TIT_nat_cacb.psf");
  EXPECT_EQ(c.coordinates, "structures/1TIT_cacb.pdb");
  EXPECT_DOUBLE_EQ(c.r_limit_A, 8.0);
  EXPECT_DOUBLE_EQ(c.sc_limit_A, 0.0);
  EXPECT_EQ(c.eh_source, EpsilonSource::BFactor);
  ASSERT_TRUE(c.pairs_threshold_A.has_value());
  EXPECT_DOUBLE_EQ(*c.pairs_threshold_A, 100.0);
  // Keys with no effect on a topology are accepted with a note naming file and line.
  EXPECT_TRUE(has_note(c, "1TIT_top.sop:21: a: no effect on the topology")) << c.notes.size();
  EXPECT_TRUE(has_note(c, ":28: pairs_cutoff: no effect"));
}

struct Written {
  fs::path file;
};

Written write(const std::string& name, const std::string& text) {
  const fs::path dir = test::fresh_directory("sop-config-" + name);
  Written w{dir / (name + ".sop")};
  std::ofstream(w.file) << text;
  return w;
}

const char* kMinimal = "structure x.pdb\ntopology x.top\ncoordinates x_cg.pdb\n";

TEST(SopTopologyConfig, MacrosExpandAndExtraMacroKeysAreAccepted) {
  const auto w = write("macros",
                       "name prot   # the protein\n"
                       "dir  out/<name>\n"
                       "structure <name>.pdb\n"
                       "topology <dir>/<name>.top\n"
                       "coordinates <dir>/<name>_cg.pdb\n"
                       "  indented_key 7\n"
                       "eh O\n"
                       "SC_limit_bond 0\n"
                       "pairs_threshold 0\n"
                       "covalentRepulsion off\n"
                       "covalent_cutoff 10\n"
                       "createTandem no\n"
                       "linkerLength 3\n");
  const SopTopologyConfig c = read_sopgpu_topology_config(w.file);
  EXPECT_EQ(c.structure, "prot.pdb");
  EXPECT_EQ(c.topology, "out/prot/prot.top");
  EXPECT_EQ(c.coordinates, "out/prot/prot_cg.pdb");
  EXPECT_EQ(c.eh_source, EpsilonSource::Occupancy);
  EXPECT_DOUBLE_EQ(c.sc_limit_A, 0.0);
  EXPECT_DOUBLE_EQ(*c.pairs_threshold_A, 0.0);
  EXPECT_DOUBLE_EQ(*c.break_distance_A, 10.0);
  EXPECT_TRUE(has_note(c, ":6: line starts with a blank: ignored"));
  EXPECT_TRUE(has_note(c, ":13: linkerLength: no effect (createTandem is off)"));
}

TEST(SopTopologyConfig, SopTop2DefaultsFollowSopGpu) {
  const auto w = write("defaults", std::string(kMinimal) + "cgconfig cg.inp\neh 1.0\n");
  const SopTopologyConfig c = read_sopgpu_topology_config(w.file);
  EXPECT_EQ(c.style, SopTopologyStyle::SopTop2);
  EXPECT_DOUBLE_EQ(c.sc_limit_A, 5.0);  // sop-top2's default (sop-top's is 0)
  EXPECT_DOUBLE_EQ(c.r_limit_A, 8.0);
}

struct BadCase {
  std::string text;  // may hold a NUL
  int line;
  const char* key;
  const char* says;
};

TEST(SopTopologyConfig, BadLinesGiveFileLineKeyErrors) {
  const BadCase cases[] = {
      {"numsteps 1000\n", 4, "numsteps", "a key of SOP-GPU's run configurations: run it with `ermak run"},
      {"numstep 1000\n", 4, "numstep", "unknown key: not a SOP-GPU"},
      {"R_limt_bond 8\n", 4, "R_limt_bond", "unknown key (did you mean 'R_limit_bond'?)"},
      {std::string("eh\0 1.5\n", 8), 4, "", "the line holds a NUL byte"},
      {"R_limit_bond eight\n", 4, "R_limit_bond", "'eight' is not a number"},
      {"R_limit_bond -1\n", 4, "R_limit_bond", "must be >= 0"},
      {"eh -1\n", 4, "eh", "neither a value > 0"},
      {"eh 1e39\n", 4, "eh", "≤ 3.4e38"},
      {"eh\n", 4, "eh", "missing value"},
      {"eh 1.5 2\n", 4, "eh", "expected one value"},
      {"structure2 <nothing>.pdb\n", 4, "structure2", "macro <nothing>: the file has no key 'nothing'"},
      {"topology y.top\n", 4, "topology", "given twice (first on line 2)"},
      {"loop <loop>\n", 4, "loop", "macros nest deeper"},
      {"covalentRepulsion on\n", 4, "covalentRepulsion", "not supported yet"},
      {"covalentRepulsion maybe\n", 4, "covalentRepulsion", "is not yes/no"},
      {"createTandem yes\nlinkerLength 3\n", 4, "createTandem", "not supported yet"},
      {"covLinkersCount 1\ncovLinker1 LYS1-ASN5\n", 4, "covLinkersCount", "not supported yet"},
      {"additional_bonds ss.txt\n", 4, "additional_bonds", "needs a coarse-graining description"},
      {"R_limit_bond 0\nSC_limit_bond 0\n", 0, "R_limit_bond", "both 0"},
      {"cgconfig cg.inp\n", 0, "eh", "required by sop-top2 configs"},
  };
  int k = 0;
  for (const BadCase& c : cases) {
    const auto w = write("bad" + std::to_string(k++), std::string(kMinimal) + c.text);
    try {
      read_sopgpu_topology_config(w.file);
      ADD_FAILURE() << "no error for: " << c.text;
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), w.file.string()) << c.text;
      EXPECT_EQ(e.line(), c.line) << e.what();
      EXPECT_EQ(e.field(), c.key) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
  const auto missing = write("missing", "structure x.pdb\ncoordinates c.pdb\n");
  try {
    read_sopgpu_topology_config(missing.file);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "topology");
    EXPECT_NE(std::string(e.what()).find("required key missing"), std::string::npos);
  }
  EXPECT_THROW(read_sopgpu_topology_config(missing.file.parent_path() / "none.sop"), Error);
}

}  // namespace
}  // namespace ermak
