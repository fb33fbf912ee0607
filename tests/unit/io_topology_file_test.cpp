// io/topology_file: ermak's .etop format round-trips bit for bit and reports
// malformed input as file:line: field.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/ca_model_builder.h"
#include "ermak/io/sopgpu_top.h"
#include "ermak/io/topology_file.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

void expect_identical(const Topology& a, const Topology& b) {
  EXPECT_EQ(a.name, b.name);
  ASSERT_EQ(a.bead_count(), b.bead_count());
  for (int k = 0; k < a.bead_count(); ++k) {
    const BeadInfo &x = a.beads[k], &y = b.beads[k];
    EXPECT_EQ(x.chain_id, y.chain_id);
    EXPECT_EQ(x.residue_number, y.residue_number);
    EXPECT_EQ(x.insertion_code, y.insertion_code);
    EXPECT_EQ(x.residue_name, y.residue_name);
    EXPECT_EQ(x.atom_name, y.atom_name);
    EXPECT_EQ(x.occupancy, y.occupancy);
    EXPECT_EQ(x.b_factor, y.b_factor);
    EXPECT_EQ(x.mass_amu, y.mass_amu);
  }
  ASSERT_EQ(a.native_positions_A.size(), b.native_positions_A.size());
  for (std::size_t k = 0; k < a.native_positions_A.size(); ++k) {
    EXPECT_EQ(a.native_positions_A[k].x, b.native_positions_A[k].x);
    EXPECT_EQ(a.native_positions_A[k].y, b.native_positions_A[k].y);
    EXPECT_EQ(a.native_positions_A[k].z, b.native_positions_A[k].z);
  }
  ASSERT_EQ(a.bonds.size(), b.bonds.size());
  for (std::size_t k = 0; k < a.bonds.size(); ++k) {
    EXPECT_EQ(a.bonds[k].i, b.bonds[k].i);
    EXPECT_EQ(a.bonds[k].j, b.bonds[k].j);
    EXPECT_EQ(a.bonds[k].r0_A, b.bonds[k].r0_A);
  }
  ASSERT_EQ(a.native_contacts.size(), b.native_contacts.size());
  for (std::size_t k = 0; k < a.native_contacts.size(); ++k) {
    EXPECT_EQ(a.native_contacts[k].i, b.native_contacts[k].i);
    EXPECT_EQ(a.native_contacts[k].j, b.native_contacts[k].j);
    EXPECT_EQ(a.native_contacts[k].r0_A, b.native_contacts[k].r0_A);
    EXPECT_EQ(a.native_contacts[k].eh_kcal_per_mol, b.native_contacts[k].eh_kcal_per_mol);
  }
}

TEST(IoTopologyFile, RoundTripIsExact) {
  Topology top = build_ca_model("/usr/share/freesasa/test-data/1ubq.pdb", ModelBuildSpec{});
  top.name = "ubiquitin with spaces";
  top.beads[0].chain_id = "";  // empty strings and insertion codes survive too
  top.beads[1].chain_id = "LONGCHAIN";
  top.beads[2].insertion_code = 'A';
  top.beads[3].occupancy = 0.1f + 0.2f;  // not exactly representable in decimal
  top.native_positions_A[4].x = 1.0 / 3.0;
  top.bonds[0].r0_A = 3.14159274f;
  top.native_contacts[0].eh_kcal_per_mol = 1.0f / 7.0f;
  const auto file = test::fresh_directory("io-etop") / "ubq.etop";
  write_topology_file(top, file);
  expect_identical(top, read_topology_file(file));

  // No native coordinates (e.g. from a SOP-GPU .top).
  Topology ww = read_sopgpu_top(test::shared_data() / "sopgpu/ww/reference/ww.top");
  write_topology_file(ww, file);
  expect_identical(ww, read_topology_file(file));
}

TEST(IoTopologyFile, FormatIsReadable) {
  Topology top;
  top.name = "tiny";
  top.beads.resize(3);
  top.native_positions_A = {{0, 0, 0}, {3.8, 0, 0}, {7.6, 0, 0}};
  top.bonds = {{0, 1, 3.8f}, {1, 2, 3.8f}};
  top.native_contacts = {{0, 2, 7.6f, 1.5f}};
  const auto file = test::fresh_directory("io-etop-tiny") / "tiny.etop";
  write_topology_file(top, file);
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.substr(0, text.find('\n')), "# ermak topology 1");
  EXPECT_NE(text.find("\nbeads 3\n"), std::string::npos);
  EXPECT_NE(text.find("\n1 A 0 . GLY CA 1 0 0 3.7999999999999998 0 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nbonds 2\n"), std::string::npos);
  EXPECT_NE(text.find("\nnative_contacts 1\n"), std::string::npos);
  EXPECT_NE(text.find("\n0 2 7.5999999 1.5\n"), std::string::npos) << text;
}

// `directory`: one per test, which ctest runs side by side.
std::filesystem::path write_text(const std::string& text, const std::string& directory = "io-etop-error") {
  const auto file = test::fresh_directory(directory) / "bad.etop";
  std::ofstream(file) << text;
  return file;
}

Error error_of(const std::string& text, const std::string& directory = "io-etop-error") {
  const auto file = write_text(text, directory);
  try {
    read_topology_file(file);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return Error("none");
}

const std::string kHead = "# ermak topology 1\nname t\nbeads 2\n0 A 1 . ALA CA 1 0 0\n1 A 2 . ALA CA 1 0 0\n";

TEST(IoTopologyFile, ErrorsNameFileLineAndField) {
  Error e = error_of("# ermak topology 7\n");
  EXPECT_EQ(e.line(), 1);
  EXPECT_EQ(e.field(), "version");
  e = error_of("beads 1\n");
  EXPECT_EQ(e.field(), "version");
  e = error_of(kHead + "bonds 1\n0 1 abc\n");
  EXPECT_EQ(e.line(), 7);
  EXPECT_EQ(e.field(), "bonds[0].r0_A");
  EXPECT_NE(std::string(e.what()).find("bad.etop:7: bonds[0].r0_A:"), std::string::npos) << e.what();
  e = error_of(kHead + "bonds 1\n0 2 3.8\n");
  EXPECT_EQ(e.field(), "bonds[0].j");
  EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos);
  e = error_of(kHead + "native_contacts 2\n0 1 5 1.5\n");
  EXPECT_NE(std::string(e.what()).find("ends after 1 of 2"), std::string::npos) << e.what();
  e = error_of(kHead + "angles 0\n");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.field(), "keyword");
  e = error_of("# ermak topology 1\nbeads 2\n0 A 1 . ALA CA 1 0\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.field(), "beads[0]");
  e = error_of("# ermak topology 1\nbeads 1\n0 A 1 . ALA CA 1 0 0 1.0 2.0 z\n");
  EXPECT_EQ(e.field(), "beads[0].z_A");
  // A count too large for its type is out of range, not "not an integer" (a fuzzing audit's).
  e = error_of(kHead + "native_contacts 999999999999\n");
  EXPECT_NE(std::string(e.what()).find("'999999999999' is out of range (-2147483648 to 2147483647)"),
            std::string::npos)
      << e.what();
  e = error_of(kHead + "native_contacts 12x\n");
  EXPECT_NE(std::string(e.what()).find("'12x' is not an integer"), std::string::npos) << e.what();
  e = error_of(kHead + "bonds 1\n0 1 3.8\nnative_contacts 1\n1 0 3.8 1\n");  // duplicate pair
  EXPECT_NE(std::string(e.what()).find("bad.etop"), std::string::npos);
  // A file cut inside its last line: "1.5" cut to "1" still reads as a number (the code
  // review's ε_h of 1.5 read as 1 without a word). Without its newline, the line is refused.
  e = error_of(kHead + "bonds 1\n0 1 3.8\nnative_contacts 1\n0 1 5 1");
  EXPECT_EQ(e.line(), 9);
  EXPECT_EQ(e.field(), "end");
  EXPECT_NE(std::string(e.what()).find("the last line has no newline"), std::string::npos) << e.what();
  // A comment or blank without one is harmless.
  EXPECT_NO_THROW(read_topology_file(write_text(kHead + "bonds 1\n0 1 3.8\n# end")));
}

// A data line after a section's last counted line (the count one too small, or a line too
// many) names the section and its count; a word that is no keyword is an unknown keyword,
// whatever its column count (not "32: expected '32 COUNT'" or "foo: expected 'foo COUNT'").
TEST(IoTopologyFile, ALineBeyondASectionsCountNamesTheSection) {
  const auto error_of = [](const std::string& text) { return ermak::error_of(text, "io-etop-count"); };
  Error e = error_of(kHead + "bonds 1\n0 1 3.8\n1 0 3.8\nnative_contacts 0\n");
  EXPECT_EQ(e.line(), 8);
  EXPECT_EQ(e.field(), "bonds");
  EXPECT_STREQ(e.what(), (e.file() + ":8: bonds: 2 bond lines, but 'bonds' says 1 (expected 'native_contacts "
                                     "COUNT' or the end of the file)").c_str());
  e = error_of(kHead + "bonds 1\n0 1 3.8\nnative_contacts 1\n0 1 5 1.5\n1 0 5 1.5\n");
  EXPECT_EQ(e.line(), 10);
  EXPECT_NE(std::string(e.what()).find(
                "native_contacts: 2 native-contact lines, but 'native_contacts' says 1 (expected the end of the file)"),
            std::string::npos)
      << e.what();
  e = error_of("# ermak topology 1\nbeads 1\n0 A 1 . ALA CA 1 0 0\n1 A 2 . ALA CA 1 0 0\n");
  EXPECT_NE(std::string(e.what()).find(":4: beads: 2 bead lines, but 'beads' says 1 (expected 'bonds COUNT', "
                                       "'native_contacts COUNT' or the end of the file)"),
            std::string::npos)
      << e.what();
  e = error_of(kHead + "bonds 0\n0 1 3.8\n");
  EXPECT_NE(std::string(e.what()).find("bonds: 1 bond line, but 'bonds' says 0"), std::string::npos) << e.what();
  for (const char* word : {"foo\n", "foo 3\n", "foo 1 2\n"}) {
    e = error_of(kHead + word);
    EXPECT_EQ(e.line(), 6);
    EXPECT_EQ(e.field(), "keyword");
    EXPECT_NE(std::string(e.what()).find("unknown keyword 'foo'; expected name, beads, bonds or native_contacts"),
              std::string::npos)
        << e.what();
  }
  // A number before any section is no line of one.
  e = error_of("# ermak topology 1\n0 A 1 . ALA CA 1 0 0\n");
  EXPECT_EQ(e.field(), "keyword");
}

// The writer replaces a file whole (a sibling temporary renamed over it): no temporary left,
// and an unwritable place leaves the old file as it was.
TEST(IoTopologyFile, WritesAreWholeOrNothing) {
  const auto dir = test::fresh_directory("io-etop-atomic");
  Topology ww = read_sopgpu_top(test::shared_data() / "sopgpu/ww/reference/ww.top");
  write_topology_file(ww, dir / "ww.etop");
  EXPECT_FALSE(std::filesystem::exists(dir / "ww.etop.tmp"));
  expect_identical(ww, read_topology_file(dir / "ww.etop"));
  EXPECT_THROW(write_topology_file(ww, dir / "missing" / "ww.etop"), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));
  // A write that fails (its temporary's place taken by a directory) leaves the old file whole.
  const std::string before = test::read_file(dir / "ww.etop");
  std::filesystem::create_directory(dir / "ww.etop.tmp");
  Topology other = ww;
  other.name = "another";
  EXPECT_THROW(write_topology_file(other, dir / "ww.etop"), Error);
  EXPECT_EQ(test::read_file(dir / "ww.etop"), before);
  std::filesystem::remove(dir / "ww.etop.tmp");
  // Through a symbolic link the file it names is replaced; the link stays.
  std::filesystem::create_symlink(dir / "ww.etop", dir / "link.etop");
  write_topology_file(other, dir / "link.etop");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.etop"));
  EXPECT_EQ(read_topology_file(dir / "ww.etop").name, "another");
  // A name that holds no regular file is refused, not replaced by the rename: a FIFO here
  // (standing in for /dev/null, which a test must not risk).
  ASSERT_EQ(::mkfifo((dir / "fifo.etop").c_str(), 0600), 0);
  try {
    write_topology_file(other, dir / "fifo.etop");
    ADD_FAILURE() << "a FIFO was replaced";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a regular file (a FIFO)"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_fifo(dir / "fifo.etop"));
  EXPECT_FALSE(std::filesystem::exists(dir / "fifo.etop.tmp"));
}

}  // namespace
}  // namespace ermak
