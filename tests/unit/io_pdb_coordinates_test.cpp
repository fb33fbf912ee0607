// io/pdb_coordinates: coarse-grained PDB read (fixed columns) and written so that
// columns never shift, also past 99999 atoms.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/psf_writer.h"
#include "ermak/io/sopgpu_top.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

Topology chain_of(int n) {
  Topology top;
  top.beads.resize(n);
  for (int b = 0; b < n; ++b) {
    top.beads[b].residue_number = b + 1;
    top.beads[b].chain_id = b < n / 2 ? "A1" : "B92";
  }
  return top;
}

TEST(IoPdbCoordinates, ReadsSopGpuCoarseGrainedPdb) {
  const auto ww = read_pdb_coordinates(test::shared_data() / "sopgpu/ww/reference/ww_cg.pdb");
  ASSERT_EQ(ww.size(), 34u);
  EXPECT_DOUBLE_EQ(ww[0].x, 45.525);
  EXPECT_DOUBLE_EQ(ww[0].y, 13.073);
  EXPECT_DOUBLE_EQ(ww[0].z, 52.268);
  const auto pf8 = read_pdb_coordinates(test::shared_data() / "sopgpu/pf8/PF8_sop.pdb");
  ASSERT_EQ(pf8.size(), 6928u);
  EXPECT_DOUBLE_EQ(pf8.back().z, -323.617);  // z glued to y: "-2.202-323.617"
}

// An mmCIF file given as coordinates (its atom rows also start with ATOM) is named as such at
// its data_ line, not reported as a PDB record whose x is not a number.
TEST(IoPdbCoordinates, MmcifContentIsNamed) {
  const auto dir = test::fresh_directory("pdb-coordinates-mmcif");
  const auto file = dir / "ww_cg.pdb";
  std::ofstream(file) << "data_ww\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.Cartn_x\n"
                         "ATOM 1 12.467\n";
  try {
    read_pdb_coordinates(file);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.field(), "coordinates");
    EXPECT_NE(std::string(e.what()).find("holds mmCIF (a data_ block), but coordinates are read from PDB ATOM "
                                         "records"),
              std::string::npos)
        << e.what();
  }
}

TEST(IoPdbCoordinates, Hybrid36) {
  EXPECT_EQ(hybrid36(1, 5), "    1");
  EXPECT_EQ(hybrid36(99999, 5), "99999");
  EXPECT_EQ(hybrid36(100000, 5), "A0000");
  EXPECT_EQ(hybrid36(100001, 5), "A0001");
  EXPECT_EQ(hybrid36(100000 + 26L * 36 * 36 * 36 * 36, 5), "a0000");
  EXPECT_EQ(hybrid36(9999, 4), "9999");
  EXPECT_EQ(hybrid36(10000, 4), "A000");
  EXPECT_EQ(hybrid36(-5, 4), "  -5");
  EXPECT_EQ(hybrid36(-12345, 4), "-999");
}

TEST(IoPdbCoordinates, WriteThenReadBack) {
  Topology top = read_sopgpu_top(test::shared_data() / "sopgpu/ww/reference/ww.top");
  top.beads[3].chain_id = "LONGNAME";
  top.beads[4].insertion_code = 'B';
  top.beads[2].residue_name = "LYSX";  // CHARMM's 4-character names: columns 18-21
  top.beads[7].residue_name = "LONGER";
  const auto cg = read_pdb_coordinates(test::shared_data() / "sopgpu/ww/reference/ww_cg.pdb");
  std::vector<float> x, y, z;
  for (const Vec3d& p : cg) {
    x.push_back(static_cast<float>(p.x));
    y.push_back(static_cast<float>(p.y));
    z.push_back(static_cast<float>(p.z));
  }
  x[5] = -12345.678f;  // does not fit %8.3f: fewer decimals, same columns
  const auto file = test::fresh_directory("io-pdb-write") / "ww.pdb";
  write_pdb(file, top, x.data(), y.data(), z.data(), "ermak test\nsecond line");
  const auto back = read_pdb_coordinates(file);
  ASSERT_EQ(back.size(), 34u);
  for (int b = 0; b < 34; ++b) {
    EXPECT_NEAR(back[b].x, x[b], b == 5 ? 0.05 : 1e-3);
    EXPECT_NEAR(back[b].y, y[b], 1e-3);
    EXPECT_NEAR(back[b].z, z[b], 1e-3);
  }
  const auto lines = lines_of(file);
  EXPECT_EQ(lines[0], "REMARK   ermak test");
  EXPECT_EQ(lines[1], "REMARK   second line");
  std::vector<std::string> atoms;  // the ATOM records, bead by bead
  for (const std::string& line : lines)
    if (line.starts_with("ATOM")) atoms.push_back(line);
  ASSERT_EQ(atoms.size(), 34u);
  const std::string& atom0 = atoms[0];
  EXPECT_EQ(atom0.substr(0, 30), "ATOM      1  CA  LYS A   6    ");
  EXPECT_EQ(atom0.substr(54, 12), "  1.00 43.76");
  EXPECT_EQ(atom0.substr(72, 4), "A   ");
  EXPECT_EQ(atoms[3][21], 'L');
  EXPECT_EQ(atoms[3].substr(72, 4), "LONG");
  EXPECT_EQ(atoms[4][26], 'B');
  EXPECT_EQ(atoms[2].substr(16, 6), " LYSXA");
  EXPECT_EQ(atoms[7].substr(16, 6), " LONGA");
  EXPECT_EQ(atoms[5].substr(30, 8), "-12345.7");
  for (const std::string& atom : atoms) EXPECT_EQ(atom.size(), 76u) << atom;
  // A bare TER after each chain: bead 3 (LONGNAME) is a chain between two parts of A.
  ASSERT_EQ(lines.size(), 2 + 34 + 3 + top.bonds.size() + 1);
  EXPECT_EQ(lines[2 + 3], "TER");
  EXPECT_EQ(lines[2 + 5], "TER");
  EXPECT_EQ(lines[2 + 34 + 2], "TER");
  // The 33 bonds as CONECT records between the ATOM records and END, as in SOP-GPU's ww_cg.pdb.
  EXPECT_EQ(lines[39], "CONECT    1    2");
  EXPECT_EQ(lines[39 + 32], "CONECT   33   34");
  EXPECT_EQ(lines.back(), "END");
}

// One CONECT record per bond, in the topology's order, the lower serial first, in the PDB's
// columns (serials in 7-11 and 12-16); native contacts are no bonds. The reader skips them.
TEST(IoPdbCoordinates, WritesOneConectRecordPerBond) {
  Topology top = chain_of(3);
  top.bonds = {{0, 1, 3.8f}, {2, 1, 3.8f}};
  top.native_contacts = {{0, 2, 7.0f, 1.0f}};
  const std::vector<float> x = {0.0f, 3.75f, 7.5f}, y = {1.25f, -2.5f, 0.0f}, z = {0.0f, 0.5f, -100.125f};
  const auto file = test::fresh_directory("io-pdb-conect") / "three.pdb";
  write_pdb(file, top, x.data(), y.data(), z.data(), "three beads");
  const auto lines = lines_of(file);
  // chain_of: bead 0 is chain A1, beads 1 and 2 chain B92, each ended by TER.
  ASSERT_EQ(lines.size(), 1u + 3u + 2u + 2u + 1u);
  EXPECT_EQ(lines[1].substr(0, 11), "ATOM      1");
  EXPECT_EQ(lines[2], "TER");
  EXPECT_EQ(lines[4].substr(0, 11), "ATOM      3");
  EXPECT_EQ(lines[5], "TER");
  EXPECT_EQ(lines[6], "CONECT    1    2");
  EXPECT_EQ(lines[7], "CONECT    2    3");
  EXPECT_EQ(lines[8], "END");
  const auto back = read_pdb_coordinates(file);
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t b = 0; b < 3; ++b) {
    EXPECT_DOUBLE_EQ(back[b].x, x[b]) << b;
    EXPECT_DOUBLE_EQ(back[b].y, y[b]) << b;
    EXPECT_DOUBLE_EQ(back[b].z, z[b]) << b;
  }
}

TEST(IoPdbCoordinates, MoreThan99999AtomsKeepColumns) {
  const int n = 100005;
  Topology top = chain_of(n);
  for (int b = 0; b + 1 < n; ++b) top.bonds.push_back({b, b + 1, 3.8f});
  std::vector<float> x(n), y(n), z(n);
  for (int b = 0; b < n; ++b) {
    x[b] = 0.01f * b;
    y[b] = -1.5f;
    z[b] = 2.0f;
  }
  const auto file = test::fresh_directory("io-pdb-big") / "big.pdb";
  write_pdb(file, top, x.data(), y.data(), z.data());
  const auto lines = lines_of(file);
  // No CONECT records: their serials would be hybrid-36, which VMD does not decode there.
  // chain_of's two chains, each ended by TER: bead b on line b, or b + 1 after the first TER.
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(n + 3));
  EXPECT_EQ(lines[n / 2], "TER");
  EXPECT_EQ(lines[n + 1], "TER");
  EXPECT_EQ(lines.back(), "END");
  for (int b = 0; b < n; ++b) ASSERT_EQ(lines[b < n / 2 ? b : b + 1].size(), 76u) << b;
  EXPECT_EQ(lines[99998 + 1].substr(6, 5), "99999");
  EXPECT_EQ(lines[99999 + 1].substr(6, 5), "A0000");
  EXPECT_EQ(lines[9998].substr(22, 4), "9999");
  EXPECT_EQ(lines[9999].substr(22, 4), "   0");  // residue 10000: its last four digits
  EXPECT_EQ(lines[12344].substr(22, 4), "2345");
  const auto back = read_pdb_coordinates(file);
  ASSERT_EQ(back.size(), static_cast<std::size_t>(n));
  EXPECT_NEAR(back[n - 1].x, x[n - 1], 1e-3);
}

// 99 999 beads: every serial still fits five decimal columns, and every bond is written.
TEST(IoPdbCoordinates, ConectRecordsUpTo99999Beads) {
  const int n = 99999;
  Topology top = chain_of(n);
  top.bonds = {{0, 1, 3.8f}, {n - 1, n - 2, 3.8f}};
  const std::vector<float> x(n, 1.0f), y(n, 2.0f), z(n, 3.0f);
  std::ostringstream out;
  write_pdb(out, top, x.data(), y.data(), z.data());
  const std::string text = out.str();
  const std::string tail = "ATOM  99999";
  EXPECT_NE(text.find(tail), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 38), "CONECT    1    2\nCONECT9999899999\nEND\n");
}

// The disk-space estimate of a PDB (run/output_size, the .sop outputs) against what write_pdb
// writes for a chain, with its CONECT records and, beyond 99 999 beads, without.
TEST(IoPdbCoordinates, TheSizeEstimateIsWithinAFewPerCentOfTheFile) {
  for (const int n : {1000, 100005}) {
    Topology top = chain_of(n);
    for (int b = 0; b + 1 < n; ++b) top.bonds.push_back({b, b + 1, 3.8f});
    const std::vector<float> x(n, -12.5f), y(n, 123.25f), z(n, 3.0f);
    std::ostringstream out;
    write_pdb(out, top, x.data(), y.data(), z.data(), "a remark");
    const double written = double(out.str().size());
    EXPECT_NEAR(pdb_bytes_estimate(n) / written, 1.0, 0.03) << n << " beads: " << written << " bytes";
  }
}

// VMD and MDAnalysis read what we write: checked with MDAnalysis where Python has it.
TEST(IoPdbCoordinates, MdanalysisReadsWrittenPdb) {
  const int n = 100002;
  Topology top = chain_of(n);
  top.beads[n - 1].residue_name = "HSDX";
  std::vector<float> x(n, 1.0f), y(n, 2.0f), z(n, 3.0f);
  x[n - 1] = 7.25f;
  const auto dir = test::fresh_directory("io-pdb-mda");
  write_pdb(dir / "big.pdb", top, x.data(), y.data(), z.data());
  std::string output;
  const std::string script =
      "import warnings; warnings.simplefilter('ignore')\n"
      "try:\n  import MDAnalysis as mda\nexcept ImportError:\n  print('SKIP'); raise SystemExit\n"
      "u = mda.Universe('" + (dir / "big.pdb").string() + "')\n"
      "print(len(u.atoms), len(u.segments), u.atoms[-1].position[0], u.atoms[-1].segid, u.atoms[0].resname,\n"
      "      u.atoms[-1].resname, u.atoms[-1].resid, len(u.residues))\n";
  std::ofstream(dir / "check.py") << script;
  ASSERT_EQ(test::run_command(test::python() + " " + (dir / "check.py").string(), &output), 0) << output;
  if (output.find("SKIP") != std::string::npos) GTEST_SKIP() << "MDAnalysis not installed";
  // Residue numbers past 9999 come back whole from their last four digits.
  EXPECT_NE(output.find("100002 2 7.25 B92 GLY HSDX 100002 100002"), std::string::npos) << output;
}

// Chains whose names share their first four characters share a PDB segment id: named in
// a warning (the PSF keeps them apart).
TEST(IoPdbCoordinates, SegmentIdClashesAreNamed) {
  Topology top = chain_of(8);  // A1 and B92
  EXPECT_EQ(segment_id_clash(top), "");
  for (int b = 0; b < 8; ++b) top.beads[b].chain_id = b < 3 ? "C60-1" : b < 6 ? "C60-2" : "C60";
  const std::string w = segment_id_clash(top);
  EXPECT_EQ(w.rfind("2 chains share a PDB segment id with another, e.g. C60-1 and C60-2 (segment id C60-)", 0), 0u)
      << w;
  EXPECT_NE(w.find("the PSF keeps every chain apart"), std::string::npos) << w;
  EXPECT_EQ(w.find("7 characters"), std::string::npos) << "C60-1 and C60-2 differ within 7 characters";
  // Names that share their first 7 characters: VMD's psfplugin reads no more of a PSF segment.
  for (int b = 0; b < 8; ++b) top.beads[b].chain_id = b < 4 ? "ABC1-10" : "ABC1-100";
  const std::string vmd = segment_id_clash(top);
  EXPECT_NE(vmd.find("2 chains share the first 7 characters of their name, e.g. ABC1-10 and ABC1-100"),
            std::string::npos)
      << vmd;
  EXPECT_NE(vmd.find("VMD merges those even from the PSF"), std::string::npos) << vmd;
}

// Residue numbers beyond the PDB's four columns are named; names beyond the PSF's 8
// characters are refused before any file is written.
TEST(IoPdbCoordinates, NumbersAndNamesBeyondTheFormatsAreSaid) {
  Topology top = chain_of(3);
  EXPECT_EQ(residue_numbers_beyond_pdb(top), "");
  top.beads[1].residue_number = 10000;
  top.beads[2].residue_number = -1200;
  const std::string wrap = residue_numbers_beyond_pdb(top);
  EXPECT_NE(wrap.find("2 beads have residue numbers the PDB's four columns cannot hold (e.g. 10000)"), std::string::npos)
      << wrap;
  EXPECT_NE(wrap.find("load it as the topology"), std::string::npos) << wrap;
  EXPECT_NO_THROW(check_psf_names(top, "m.psf"));
  top.beads[2].chain_id = "ABC1-1000";
  try {
    check_psf_names(top, "m.psf");
    ADD_FAILURE() << "a 9-character chain name was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("m.psf: beads[2].chain_id: 'ABC1-1000' is longer than the 8 characters"),
              std::string::npos)
        << e.what();
    // …and says where the name comes from and what to do (an audit met it on an mmCIF).
    EXPECT_NE(std::string(e.what()).find("give that chain an id of up to 8 characters there"), std::string::npos)
        << e.what();
  }
}

// A run whose beads drifted beyond a PDB's columns finishes without its final structure
// (run/simulation.cpp, run/sopgpu_outputs.cpp): nothing is written and the first coordinate
// that does not fit is named; a coordinate that fits with fewer decimals is written.
TEST(IoPdbCoordinates, AStructureBeyondThePdbsColumnsIsNotWrittenAndItsCoordinateIsNamed) {
  const Topology top = chain_of(3);
  std::vector<float> x = {0.0f, 3.8f, 7.6f}, y(3, 0.0f), z(3, 0.0f);
  const auto dir = test::fresh_directory("io-pdb-if-it-fits");
  z[1] = -9999999.0f;
  EXPECT_EQ(write_pdb_if_it_fits(dir / "fits.pdb", top, x.data(), y.data(), z.data()), "");
  EXPECT_TRUE(std::filesystem::exists(dir / "fits.pdb"));
  z[1] = -10000010.0f;
  EXPECT_EQ(write_pdb_if_it_fits(dir / "far.pdb", top, x.data(), y.data(), z.data()), "bead 1 z = -10000010 A");
  EXPECT_FALSE(std::filesystem::exists(dir / "far.pdb"));
}

TEST(IoPdbCoordinates, ErrorsNameFileAndLine) {
  const auto dir = test::fresh_directory("io-pdb-errors");
  const std::string good = "ATOM      1  CA  LYS A   6      45.525  13.073  52.268  1.00 43.76\n";
  auto message = [&](const std::string& text) {
    std::ofstream(dir / "c.pdb") << text;
    try {
      read_pdb_coordinates(dir / "c.pdb");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("REMARK x\n" + good + good.substr(0, 45)).find("c.pdb:3: coordinates:"), std::string::npos);
  std::string bad = good;
  bad[50] = '?';
  EXPECT_NE(message(good + bad).find("c.pdb:2: z:"), std::string::npos) << message(good + bad);
  // A number beyond what the model's and final PDBs can hold (a damaged column) is named at
  // its line too, not later without one.
  std::string far = good;
  far.replace(38, 8, " 1.0e+20");
  EXPECT_NE(message(good + far)
                .find("c.pdb:2: y: ' 1.0e+20' in columns 39-46 is not finite or of magnitude 10⁷ Å or more"),
            std::string::npos)
      << message(good + far);
  // The limit itself is refused, as the message says; the largest value the columns hold is not.
  far.replace(38, 8, "10000000");
  EXPECT_NE(message(good + far).find("'10000000' in columns 39-46 is not finite or of magnitude 10⁷ Å or more"),
            std::string::npos)
      << message(good + far);
  far.replace(38, 8, "-999999.");
  EXPECT_EQ(message(good + far), "no error");
  EXPECT_NE(message("REMARK only\nEND\n").find("no ATOM"), std::string::npos);
  // Only the first model.
  EXPECT_EQ(message("MODEL 1\n" + good + "ENDMDL\nMODEL 2\n" + bad), "no error");
  try {
    read_pdb_coordinates(dir / "absent.pdb");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("absent.pdb"), std::string::npos);
  }
}

}  // namespace
}  // namespace ermak
