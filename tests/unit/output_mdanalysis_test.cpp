// io/psf_writer + io/dcd_writer read back by an independent implementation: MDAnalysis
// (Debian python3-mdanalysis, installed by scripts/setup.sh). A missing MDAnalysis is a
// failure, not a skip: these files exist to be read by such tools.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/dcd_writer.h"
#include "ermak/io/psf_writer.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

// Two chains: chain A has CA+CB beads (side chains), chain `second_chain` CA only.
Topology make_topology(const std::string& second_chain, int first_resid) {
  Topology t;
  t.name = "two chains";
  auto bead = [&](const std::string& chain, int resid, const char* res, const char* name,
                  float mass) {
    BeadInfo b;
    b.chain_id = chain;
    b.residue_number = resid;
    b.residue_name = res;
    b.atom_name = name;
    b.mass_amu = mass;
    t.beads.push_back(b);
  };
  const char* names[] = {"ALA", "GLY", "TRP", "LYS", "SER"};
  for (int r = 0; r < 5; ++r) {
    bead("A", first_resid + r, names[r], "CA", 110.0f);
    if (r != 1) bead("A", first_resid + r, names[r], "CB", 0.0f);  // mass 0 → written as 1.0
  }
  const int chain_a = t.bead_count();
  for (int r = 0; r < 4; ++r) bead(second_chain, r + 1, "VAL", "CA", 99.5f);
  // FENE bonds: CA(i)–CA(i+1) along each chain, CA–CB within residues.
  std::vector<int> ca_a;
  for (int i = 0; i < chain_a; ++i)
    if (t.beads[i].atom_name == "CA") ca_a.push_back(i);
  for (std::size_t k = 0; k + 1 < ca_a.size(); ++k) t.bonds.push_back({ca_a[k], ca_a[k + 1], 3.8f});
  for (int i = 0; i < chain_a; ++i)
    if (t.beads[i].atom_name == "CB") t.bonds.push_back({i - 1, i, 3.0f});
  for (int i = chain_a; i + 1 < t.bead_count(); ++i) t.bonds.push_back({i, i + 1, 3.8f});
  // Native contacts, one of which duplicates a bond (must not be written twice).
  t.native_contacts.push_back({0, chain_a, 6.0f, 1.0f});
  t.native_contacts.push_back({2, chain_a + 2, 7.0f, 1.0f});
  t.native_contacts.push_back({ca_a[0], ca_a[3], 8.0f, 1.0f});
  t.native_contacts.push_back({ca_a[1], ca_a[0], 3.8f, 1.0f});  // same pair as a FENE bond
  return t;
}

float coord(int f, int i, int c) { return -20.0f + 1.7f * float(i) + 0.37f * float(f * (c + 1)) + 0.123f * float(c); }

// Runs a python script; returns key=value lines it printed.
std::map<std::string, std::string> run_python(const std::filesystem::path& dir,
                                              const std::string& script) {
  const auto script_path = dir / "check.py";
  std::ofstream(script_path) << script;
  std::string out;
  const int rc = test::run_command(test::python() + " -W ignore " + script_path.string(), &out);
  EXPECT_EQ(rc, 0) << "python failed (MDAnalysis is installed by scripts/setup.sh):\n" << out;
  std::map<std::string, std::string> kv;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}

struct Written {
  std::filesystem::path psf, dcd, expected;
  int atoms = 0, frames = 0;
};

Written write_system(const std::filesystem::path& dir, const Topology& t, bool contacts) {
  Written w;
  w.psf = dir / "model.psf";
  w.dcd = dir / "trajectory.dcd";
  w.expected = dir / "expected.txt";
  w.atoms = t.bead_count();
  w.frames = 4;
  write_psf(w.psf, t, contacts, false);
  DcdWriter dcd = DcdWriter::create(w.dcd, w.atoms, /*first_step=*/2000, 1000, 0.5, false);
  std::ofstream expected(w.expected);
  for (int f = 0; f < w.frames; ++f) {
    std::vector<float> x, y, z;
    for (int i = 0; i < w.atoms; ++i) {
      x.push_back(coord(f, i, 0));
      y.push_back(coord(f, i, 1));
      z.push_back(coord(f, i, 2));
      char line[128];
      std::snprintf(line, sizeof line, "%.9g %.9g %.9g\n", x.back(), y.back(), z.back());
      expected << line;
    }
    dcd.write_frame(x.data(), y.data(), z.data());
  }
  return w;
}

std::string checker(const Written& w) {
  return "import numpy as np\n"
         "import MDAnalysis as mda\n"
         "u = mda.Universe('" + w.psf.string() + "', '" + w.dcd.string() + "')\n"
         "exp = np.loadtxt('" + w.expected.string() + "').reshape(" + std::to_string(w.frames) +
         ", " + std::to_string(w.atoms) + ", 3)\n"
         "diff = 0.0\n"
         "times = []\n"
         "for ts in u.trajectory:\n"
         "    diff = max(diff, float(np.abs(u.atoms.positions - exp[ts.frame]).max()))\n"
         "    times.append(ts.time)\n"
         "print('times_ps=%s' % ','.join('%.6g' % t for t in times))\n"
         "print('n_atoms=%d' % u.atoms.n_atoms)\n"
         "print('n_frames=%d' % u.trajectory.n_frames)\n"
         "print('n_bonds=%d' % len(u.bonds))\n"
         "print('max_diff=%.9g' % diff)\n"
         "print('dt_ps=%.9g' % u.trajectory.dt)\n"
         "print('segids=%s' % ','.join(u.segments.segids))\n"
         "print('resids=%s' % ','.join(str(r) for r in u.atoms.resids))\n"
         "print('names=%s' % ','.join(u.atoms.names))\n"
         "print('resnames=%s' % ','.join(u.residues.resnames))\n"
         "print('masses=%s' % ','.join('%g' % m for m in u.atoms.masses))\n"
         "print('bonds=%s' % ','.join('%d-%d' % tuple(sorted(b.indices)) for b in u.bonds))\n";
}

std::string join_masses(const Topology& t) {
  std::string s;
  for (const BeadInfo& b : t.beads) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", b.mass_amu > 0 ? double(b.mass_amu) : 1.0);
    s += (s.empty() ? "" : ",") + std::string(buf);
  }
  return s;
}

TEST(OutputMdanalysis, ReadsStandardPsfWithDcd) {
  std::string out;
  ASSERT_EQ(test::run_command(test::python() + " -W ignore -c 'import MDAnalysis'", &out), 0)
      << "MDAnalysis must be importable (scripts/setup.sh installs python3-mdanalysis):\n" << out;

  const auto dir = test::fresh_directory("output-mda-standard");
  const Topology t = make_topology("B", 1);
  const Written w = write_system(dir, t, /*native_contacts_as_bonds=*/true);
  {
    std::ifstream in(w.psf);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first, "PSF");  // every field fits the standard columns
  }
  auto kv = run_python(dir, checker(w));
  EXPECT_EQ(kv["n_atoms"], std::to_string(t.bead_count()));
  EXPECT_EQ(kv["n_frames"], "4");
  // FENE bonds plus 3 native contacts (the 4th repeats a bond).
  EXPECT_EQ(kv["n_bonds"], std::to_string(t.bonds.size() + 3));
  ASSERT_FALSE(kv["max_diff"].empty());
  EXPECT_LE(std::stod(kv["max_diff"]), 1e-4);
  // 1000 steps × 0.5 ps, through DELTA in AKMA units (float).
  ASSERT_FALSE(kv["dt_ps"].empty());
  EXPECT_NEAR(std::stod(kv["dt_ps"]), 500.0, 500.0 * 1e-6);
  // Frame times are step × timestep: ISTART holds the step of the first frame.
  EXPECT_EQ(kv["times_ps"], "1000,1500,2000,2500");
  EXPECT_EQ(kv["segids"], "A,B");
  EXPECT_EQ(kv["resids"], "1,1,2,3,3,4,4,5,5,1,2,3,4");
  EXPECT_EQ(kv["names"], "CA,CB,CA,CA,CB,CA,CB,CA,CB,CA,CA,CA,CA");
  EXPECT_EQ(kv["resnames"], "ALA,GLY,TRP,LYS,SER,VAL,VAL,VAL,VAL");
  EXPECT_EQ(kv["masses"], join_masses(t));
  EXPECT_NE(kv["bonds"].find("0-9"), std::string::npos) << kv["bonds"];  // a native contact

  // Without native contacts only the FENE bonds are bonds.
  const auto dir2 = test::fresh_directory("output-mda-fene-only");
  const Written w2 = write_system(dir2, t, false);
  auto kv2 = run_python(dir2, checker(w2));
  EXPECT_EQ(kv2["n_bonds"], std::to_string(t.bonds.size()));
}

TEST(OutputMdanalysis, ReadsExtendedPsfWhenAFieldNeedsIt) {
  const auto dir = test::fresh_directory("output-mda-ext");
  const Topology t = make_topology("LONGSEG", 9998);  // 7-character segment, 5-digit resids
  const Written w = write_system(dir, t, true);
  {
    std::ifstream in(w.psf);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first, "PSF EXT");
  }
  auto kv = run_python(dir, checker(w));
  EXPECT_EQ(kv["n_atoms"], std::to_string(t.bead_count()));
  EXPECT_EQ(kv["n_frames"], "4");
  EXPECT_EQ(kv["n_bonds"], std::to_string(t.bonds.size() + 3));
  ASSERT_FALSE(kv["max_diff"].empty());
  EXPECT_LE(std::stod(kv["max_diff"]), 1e-4);
  EXPECT_EQ(kv["segids"], "A,LONGSEG");
  EXPECT_EQ(kv["resids"], "9998,9998,9999,10000,10000,10001,10001,10002,10002,1,2,3,4");
  EXPECT_EQ(kv["masses"], join_masses(t));
}

TEST(OutputPsf, LayoutRefusalAndUnrepresentableNames) {
  const auto dir = test::fresh_directory("output-psf");
  const Topology t = make_topology("B", 1);
  const auto path = dir / "model.psf";
  write_psf(path, t, false, false);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GT(lines.size(), 10u);
  EXPECT_EQ(lines[0], "PSF");
  EXPECT_EQ(lines[1], "");
  EXPECT_NE(lines[2].find("!NTITLE"), std::string::npos);
  // Sections every reader looks for, in order.
  std::size_t k = 0;
  for (const char* s : {"!NATOM", "!NBOND", "!NTHETA", "!NPHI", "!NIMPHI", "!NDON", "!NACC",
                        "!NNB", "!NGRP"}) {
    while (k < lines.size() && lines[k].find(s) == std::string::npos) ++k;
    EXPECT_LT(k, lines.size()) << "missing " << s;
  }
  // First atom line in the standard fixed columns (I8,1X,A4,1X,A4,1X,A4,1X,A4,1X,A4,...).
  std::size_t natom = 0;
  while (lines[natom].find("!NATOM") == std::string::npos) ++natom;
  EXPECT_EQ(lines[natom], "      13 !NATOM");
  const std::string& a = lines[natom + 1];
  EXPECT_EQ(a.substr(0, 8), "       1");
  EXPECT_EQ(a.substr(9, 4), "A   ");
  EXPECT_EQ(a.substr(14, 4), "1   ");
  EXPECT_EQ(a.substr(19, 4), "ALA ");
  EXPECT_EQ(a.substr(24, 4), "CA  ");
  EXPECT_EQ(a.substr(29, 4), "CA  ");
  EXPECT_DOUBLE_EQ(std::stod(a.substr(34, 14)), 0.0);
  EXPECT_DOUBLE_EQ(std::stod(a.substr(48, 14)), 110.0);

  // Refuses to replace an existing file unless asked.
  try {
    write_psf(path, t, false, false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path.string());
    EXPECT_NE(std::string(e.what()).find("exists"), std::string::npos);
  }
  EXPECT_NO_THROW(write_psf(path, t, true, true));

  // A segment name longer than EXT's 8 columns cannot be written faithfully.
  Topology bad = t;
  bad.beads[3].chain_id = "WAYTOOLONG";
  try {
    write_psf(dir / "bad.psf", bad, false, false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "beads[3].chain_id");
  }
}

}  // namespace
}  // namespace ermak
