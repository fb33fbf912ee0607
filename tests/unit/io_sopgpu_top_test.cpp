// io/sopgpu_top: SOP-GPU .top files read as SOP-GPU writes them, and written back.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/sopgpu_top.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

std::filesystem::path ww_top() { return test::shared_data() / "sopgpu/ww/reference/ww.top"; }

// Data lines per section, counted independently of the reader.
std::map<std::string, int> section_line_counts(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::map<std::string, int> counts;
  std::string line, section;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first[0] == ';') continue;
    if (first == "[") {
      words >> section;
      continue;
    }
    ++counts[section];
  }
  return counts;
}

Error error_of(const std::string& text, const std::string& name = "bad.top") {
  const auto file = test::fresh_directory("io-top-error") / name;
  std::ofstream(file) << text;
  try {
    read_sopgpu_top(file);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return Error("none");
}

const std::string kAtoms =
    "[ atoms ]\n"
    ";   nr       type  resnr residue  atom   cgnr     charge       mass\n"
    "     0         CA      1    MET     CA      A       1.00      0.000\n"
    "     1         CA      2    ARG     CA      A       1.00      0.000\n"
    "     2         CA      3    GLU     CA      A       1.00      0.000\n";

TEST(IoSopgpuTop, ReadsWwAsSopGpuWritesIt) {
  const auto counts = section_line_counts(ww_top());
  const Topology top = read_sopgpu_top(ww_top());
  const auto pairs = read_sopgpu_top_pairs(ww_top());
  ASSERT_EQ(top.bead_count(), 34);
  EXPECT_EQ(counts.at("atoms"), 34);
  EXPECT_EQ(static_cast<int>(top.bonds.size()), counts.at("bonds"));
  EXPECT_EQ(static_cast<int>(top.native_contacts.size()), counts.at("native"));
  EXPECT_EQ(static_cast<int>(pairs.size()), counts.at("pairs"));
  EXPECT_EQ(top.name, "ww");
  EXPECT_TRUE(top.native_positions_A.empty());

  const BeadInfo& first = top.beads[0];
  EXPECT_EQ(first.residue_number, 6);
  EXPECT_EQ(first.residue_name, "LYS");
  EXPECT_EQ(first.atom_name, "CA");
  EXPECT_EQ(first.chain_id, "A");
  EXPECT_FLOAT_EQ(first.occupancy, 1.0f);
  EXPECT_FLOAT_EQ(first.b_factor, 43.76f);
  EXPECT_EQ(top.bonds[0].i, 0);
  EXPECT_EQ(top.bonds[0].j, 1);
  EXPECT_FLOAT_EQ(top.bonds[0].r0_A, 3.81188f);
  EXPECT_EQ(top.native_contacts[0].j, 30);
  EXPECT_FLOAT_EQ(top.native_contacts[0].r0_A, 10.72262f);
  EXPECT_FLOAT_EQ(top.native_contacts[0].eh_kcal_per_mol, 1.5f);
  EXPECT_EQ(pairs.front(), std::make_pair(0, 2));
  EXPECT_EQ(pairs.back(), std::make_pair(31, 33));
  validate_topology(top, ww_top().string());
}

TEST(IoSopgpuTop, WriteReadRoundTrip) {
  const Topology top = read_sopgpu_top(ww_top());
  const auto pairs = read_sopgpu_top_pairs(ww_top());
  const auto file = test::fresh_directory("io-top-roundtrip") / "ww.top";
  write_sopgpu_top(top, file, &pairs);
  const Topology back = read_sopgpu_top(file);
  EXPECT_EQ(read_sopgpu_top_pairs(file), pairs);
  ASSERT_EQ(back.bead_count(), top.bead_count());
  for (int b = 0; b < top.bead_count(); ++b) {
    EXPECT_EQ(back.beads[b].residue_name, top.beads[b].residue_name);
    EXPECT_EQ(back.beads[b].residue_number, top.beads[b].residue_number);
    EXPECT_EQ(back.beads[b].chain_id, top.beads[b].chain_id);
    EXPECT_FLOAT_EQ(back.beads[b].b_factor, top.beads[b].b_factor);
  }
  ASSERT_EQ(back.bonds.size(), top.bonds.size());
  for (std::size_t k = 0; k < top.bonds.size(); ++k) EXPECT_NEAR(back.bonds[k].r0_A, top.bonds[k].r0_A, 1e-5);
  ASSERT_EQ(back.native_contacts.size(), top.native_contacts.size());
  for (std::size_t k = 0; k < top.native_contacts.size(); ++k) {
    EXPECT_EQ(back.native_contacts[k].i, top.native_contacts[k].i);
    EXPECT_EQ(back.native_contacts[k].j, top.native_contacts[k].j);
    EXPECT_NEAR(back.native_contacts[k].r0_A, top.native_contacts[k].r0_A, 1e-5);
    EXPECT_FLOAT_EQ(back.native_contacts[k].eh_kcal_per_mol, top.native_contacts[k].eh_kcal_per_mol);
  }
  // Byte-identical to SOP-GPU's own layout for the data lines.
  std::ifstream original(ww_top()), written(file);
  std::string a, b;
  std::getline(original, a);
  std::getline(written, b);  // header comment differs
  int compared = 0;
  while (std::getline(original, a) && std::getline(written, b)) {
    EXPECT_EQ(a, b);
    ++compared;
  }
  EXPECT_GT(compared, 200);

  // Without pairs: no [ pairs ] section, like PF8.top.
  write_sopgpu_top(top, file);
  EXPECT_TRUE(read_sopgpu_top_pairs(file).empty());
}

TEST(IoSopgpuTop, ReadsPf8WithItsCoordinates) {
  const auto dir = test::shared_data() / "sopgpu/pf8";
  const Topology top = read_sopgpu_top(dir / "PF8.top");
  EXPECT_EQ(top.bead_count(), 6928);
  const auto counts = section_line_counts(dir / "PF8.top");
  EXPECT_EQ(static_cast<int>(top.bonds.size()), counts.at("bonds"));
  EXPECT_EQ(static_cast<int>(top.native_contacts.size()), counts.at("native"));
  EXPECT_EQ(counts.count("pairs"), 0u);
  EXPECT_TRUE(read_sopgpu_top_pairs(dir / "PF8.top").empty());
  EXPECT_EQ(read_pdb_coordinates(dir / "PF8_sop.pdb").size(), 6928u);
  EXPECT_EQ(top.beads.back().chain_id, "B");
  EXPECT_FLOAT_EQ(top.native_contacts[0].eh_kcal_per_mol, 1.9f);
}

TEST(IoSopgpuTop, MalformedLinesNameFileLineAndField) {
  Error e = error_of(kAtoms + "\n[ bonds ]\n    0     x     1    3.8\n");
  EXPECT_EQ(e.line(), 8);
  EXPECT_EQ(e.field(), "bonds.aj");
  EXPECT_NE(std::string(e.what()).find("bad.top:8: bonds.aj:"), std::string::npos) << e.what();

  e = error_of(kAtoms + "[ bonds ]\n    0     1     1\n");
  EXPECT_EQ(e.line(), 7);
  EXPECT_NE(std::string(e.what()).find("columns"), std::string::npos) << e.what();

  e = error_of(kAtoms + "[ native ]\n    0     7     1   5.0   1.5\n");
  EXPECT_EQ(e.line(), 7);
  EXPECT_EQ(e.field(), "native.aj");
  EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos);

  e = error_of(kAtoms + "[ angles ]\n    0     1     2\n");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.field(), "section");

  e = error_of("[ atoms ]\n 0 CA 1 MET CA A 1.00 abc\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.field(), "atoms.mass");

  e = error_of("[ atoms ]\n 1 CA 1 MET CA A 1.00 0.0\n");
  EXPECT_EQ(e.field(), "atoms.nr");

  e = error_of(kAtoms + "[ pairs ]\n    0     1\n");
  EXPECT_EQ(e.line(), 7);
  // Every column of a pair line that is there parses, as in [ bonds ] and [ native ]
  // (SOP-GPU uses only ai and aj, but junk there is a damaged line).
  e = error_of(kAtoms + "[ pairs ]\n    0     2     1\n    0     2     1  junk\n");
  EXPECT_EQ(e.line(), 8);
  EXPECT_EQ(e.field(), "pairs.c0");
  EXPECT_NE(std::string(e.what()).find("bad.top:8: pairs.c0: 'junk' is not a number"), std::string::npos) << e.what();
  e = error_of(kAtoms + "[ pairs ]\n    0     2     1   0.0   0.0   0.0   x\n");
  EXPECT_EQ(e.field(), "pairs.c3");
  e = error_of(kAtoms + "[ pairs ]\n    0     2     x\n");
  EXPECT_EQ(e.field(), "pairs.funct");

  // Values of the model at their lines: r0 > 0, ε_h ≥ 0, finite, within single precision;
  // a pair listed twice names both lines.
  e = error_of(kAtoms + "[ bonds ]\n    0     1     1   -3.8\n");
  EXPECT_EQ(e.line(), 7);
  EXPECT_EQ(e.field(), "bonds.c0");
  EXPECT_NE(std::string(e.what()).find("must be > 0 and finite, got -3.8"), std::string::npos) << e.what();
  e = error_of(kAtoms + "[ native ]\n    0     2     1   5.0   -1.5\n");
  EXPECT_EQ(e.field(), "native.c1");
  EXPECT_NE(std::string(e.what()).find("must be >= 0 and finite, got -1.5"), std::string::npos) << e.what();
  e = error_of(kAtoms + "[ native ]\n    0     2     1   1e39   1.5\n");
  EXPECT_EQ(e.field(), "native.c0");
  EXPECT_NE(std::string(e.what()).find("beyond single precision"), std::string::npos) << e.what();
  e = error_of(kAtoms + "[ bonds ]\n    0     1     1   3.8\n[ native ]\n    1     0     1   5.0   1.5\n");
  EXPECT_EQ(e.line(), 9);
  EXPECT_NE(std::string(e.what()).find("pair (1, 0) is listed already, at line 7"), std::string::npos) << e.what();

  e = error_of("");
  EXPECT_NE(std::string(e.what()).find("bad.top"), std::string::npos);

  try {
    read_sopgpu_top(test::fresh_directory("io-top-missing") / "none.top");
    ADD_FAILURE();
  } catch (const Error& missing) {
    EXPECT_NE(std::string(missing.what()).find("none.top"), std::string::npos);
  }
}

// A .top has no counts, so a file cut short reads as a smaller model — even cut inside its
// last number (an audit's ε_h 1.50000 cut to 1). Every .top SOP-GPU or ermak writes ends with a
// newline: a last line without one is warned, naming it; a whole file reads without a word.
TEST(IoSopgpuTop, ALastLineWithoutItsNewlineIsWarned) {
  const auto dir = test::fresh_directory("io-top-cut");
  const std::string whole = kAtoms + "[ native ]\n     0     2     1    5.46463    1.50000\n";
  std::ofstream(dir / "whole.top") << whole;
  std::ofstream(dir / "cut.top") << whole.substr(0, whole.size() - 6);  // "    1." of 1.50000 left
  std::vector<std::string> warnings;
  EXPECT_EQ(read_sopgpu_top(dir / "whole.top", &warnings).native_contacts.size(), 1u);
  EXPECT_TRUE(warnings.empty());
  const Topology cut = read_sopgpu_top(dir / "cut.top", &warnings);
  ASSERT_EQ(cut.native_contacts.size(), 1u);
  EXPECT_FLOAT_EQ(cut.native_contacts[0].eh_kcal_per_mol, 1.0f) << "the cut number reads as another value";
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cut.top:7: the file does not end with a newline — was it cut short? Its last line is "
                             "read as '     0     2     1    5.46463    1.'"),
            std::string::npos)
      << warnings[0];
  // An unterminated blank or comment after the data: no warning.
  std::ofstream(dir / "comment.top") << whole << "; end";
  std::ofstream(dir / "blank.top") << whole << "   ";
  warnings.clear();
  read_sopgpu_top(dir / "comment.top", &warnings);
  read_sopgpu_top(dir / "blank.top", &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
}

}  // namespace
}  // namespace ermak
