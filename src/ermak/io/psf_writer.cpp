#include "ermak/io/psf_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ermak/core/error.h"

namespace ermak {
namespace {

// Field widths of the two PSF flavours. Standard: (I8,1X,A4,1X,A4,1X,A4,1X,A4,1X,A4,...);
// EXT: (I10,1X,A8,1X,A8,1X,A8,1X,A8,1X,A6,...). The line formats follow psfgen's, which
// VMD's psfplugin and MDAnalysis' PSFParser both read.
constexpr std::size_t kStandardName = 4;
constexpr std::size_t kExtName = 8;
// Bond lines hold indices in I8 (I10 for EXT) without a guaranteed separator; from 8
// digits on they would run together for whitespace-splitting readers (MDAnalysis), so
// from there on EXT is used — psfgen draws the same line.
constexpr std::int64_t kStandardMaxAtoms = 9'999'999;

// Readers split on whitespace (NAMD-style PSFs, MDAnalysis' fallback), so a field must be
// one non-empty token.
std::string token(std::string s, const char* if_empty) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return if_empty;
  s = s.substr(first, s.find_last_not_of(" \t") - first + 1);
  for (char& c : s)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = '_';
  return s;
}

struct AtomLine {
  std::string segid, resid, resname, name;
  double mass_amu = 1.0;
};

}  // namespace

void check_psf_names(const Topology& topology, const std::string& source) {
  for (std::size_t i = 0; i < topology.beads.size(); ++i) {
    const BeadInfo& b = topology.beads[i];
    const std::pair<const char*, std::string> fields[] = {{"chain_id", token(b.chain_id, "SYS")},
                                                          {"residue_number", std::to_string(b.residue_number)},
                                                          {"residue_name", token(b.residue_name, "UNK")},
                                                          {"atom_name", token(b.atom_name, "CA")}};
    for (const auto& [field, value] : fields)
      if (value.size() > kExtName)
        throw Error(source, 0, "beads[" + std::to_string(i) + "]." + field,
                    "'" + value + "' is longer than the 8 characters a PSF can hold" +
                        (std::string(field) == "chain_id"
                             ? std::string(" (the chain names come from the structure's chain ids — an mmCIF file's "
                                           "auth_asym_id — or an assembly's copies of them: give that chain an id of "
                                           "up to 8 characters there, or leave it out with --chains / [input] chains)")
                             : std::string()));
  }
}

void write_psf(const std::filesystem::path& path, const Topology& topology,
               bool native_contacts_as_bonds, bool overwrite) {
  const std::string file = path.string();
  const std::int32_t n = topology.bead_count();
  check_psf_names(topology, file);

  // --- collect the fields and decide the flavour ---
  std::vector<AtomLine> atoms(static_cast<std::size_t>(n));
  bool ext = n > kStandardMaxAtoms;
  for (std::int32_t i = 0; i < n; ++i) {
    const BeadInfo& b = topology.beads[static_cast<std::size_t>(i)];
    AtomLine& a = atoms[static_cast<std::size_t>(i)];
    // A blank chain id is legal in PDB; "SYS" keeps the column one token wide.
    a.segid = token(b.chain_id, "SYS");
    a.resid = std::to_string(b.residue_number);
    a.resname = token(b.residue_name, "UNK");
    a.name = token(b.atom_name, "CA");
    // Overdamped dynamics is massless; the mass column is informational. Zero masses
    // upset analysis tools (centre of mass, guessers), hence 1.0.
    a.mass_amu = b.mass_amu > 0.0f ? double(b.mass_amu) : 1.0;
    const std::pair<const char*, const std::string*> fields[] = {
        {"chain_id", &a.segid}, {"residue_number", &a.resid},
        {"residue_name", &a.resname}, {"atom_name", &a.name}};
    for (const auto& [field, value] : fields)
      if (value->size() > kStandardName) ext = true;
  }

  // --- bonds: FENE, then native contacts not already bonded ---
  std::vector<std::pair<std::int32_t, std::int32_t>> bonds;
  bonds.reserve(topology.bonds.size() +
                (native_contacts_as_bonds ? topology.native_contacts.size() : 0));
  std::set<std::pair<std::int32_t, std::int32_t>> seen;
  auto add = [&](std::int32_t i, std::int32_t j, const char* what, std::size_t k) {
    if (i < 0 || j < 0 || i >= n || j >= n)
      throw Error(file, 0, std::string(what) + "[" + std::to_string(k) + "]",
                  "bead index out of range");
    if (seen.insert({std::min(i, j), std::max(i, j)}).second) bonds.push_back({i, j});
  };
  for (std::size_t k = 0; k < topology.bonds.size(); ++k)
    add(topology.bonds[k].i, topology.bonds[k].j, "bonds", k);
  if (native_contacts_as_bonds)
    for (std::size_t k = 0; k < topology.native_contacts.size(); ++k)
      add(topology.native_contacts[k].i, topology.native_contacts[k].j, "native_contacts", k);

  // --- format everything in memory, then one write ---
  std::string out;
  out.reserve(std::size_t(n) * 90 + bonds.size() * 20 + 1024);
  char line[256];
  const int count_width = ext ? 10 : 8;    // section counts: I8 / I10
  const int index_width = ext ? 9 : 7;     // " %7d" / " %9d" per index
  auto section = [&](long long count, const char* label) {
    std::snprintf(line, sizeof line, "%*lld %s\n", count_width, count, label);
    out += line;
  };

  out += ext ? "PSF EXT\n\n" : "PSF\n\n";
  section(3, "!NTITLE");
  out += " REMARKS ermak " ERMAK_VERSION " coarse-grained (SOP model) structure\n";
  std::snprintf(line, sizeof line, " REMARKS system %s: %d beads, %zu FENE bonds%s\n",
                token(topology.name, "system").c_str(), n, topology.bonds.size(),
                native_contacts_as_bonds ? " and native contacts as bonds" : "");
  out += line;
  out += " REMARKS charges are zero; masses in amu (1.0 where unknown)\n\n";

  section(n, "!NATOM");
  for (std::int32_t i = 0; i < n; ++i) {
    const AtomLine& a = atoms[static_cast<std::size_t>(i)];
    // id seg resid resname name type charge mass imove (psfgen's x-plor line). The type
    // column is A6 in EXT, so a 7–8 character name is cut there (the name column keeps it).
    if (ext)
      std::snprintf(line, sizeof line, "%10d %-8s %-8s %-8s %-8s %-6s %10.6f    %10.4f  %10d\n",
                    i + 1, a.segid.c_str(), a.resid.c_str(), a.resname.c_str(),
                    a.name.c_str(), a.name.substr(0, 6).c_str(), 0.0, a.mass_amu, 0);
    else
      std::snprintf(line, sizeof line, "%8d %-4s %-4s %-4s %-4s %-4s %10.6f    %10.4f  %10d\n",
                    i + 1, a.segid.c_str(), a.resid.c_str(), a.resname.c_str(),
                    a.name.c_str(), a.name.c_str(), 0.0, a.mass_amu, 0);
    out += line;
  }
  out += "\n";

  section(static_cast<long long>(bonds.size()), "!NBOND: bonds");
  for (std::size_t k = 0; k < bonds.size(); ++k) {
    std::snprintf(line, sizeof line, " %*d %*d", index_width, bonds[k].first + 1, index_width,
                  bonds[k].second + 1);
    out += line;
    if (k % 4 == 3 || k + 1 == bonds.size()) out += "\n";  // 4 pairs per line
  }
  out += "\n";

  section(0, "!NTHETA: angles");
  out += "\n";
  section(0, "!NPHI: dihedrals");
  out += "\n";
  section(0, "!NIMPHI: impropers");
  out += "\n";
  section(0, "!NDON: donors");
  out += "\n";
  section(0, "!NACC: acceptors");
  out += "\n";
  // NNB: no explicit exclusions, then the IBLO array (one entry per atom, 8 per line).
  section(0, "!NNB");
  out += "\n";
  for (std::int32_t i = 0; i < n; ++i) {
    std::snprintf(line, sizeof line, " %*d", index_width, 0);
    out += line;
    if (i % 8 == 7 || i + 1 == n) out += "\n";
  }
  out += "\n";
  std::snprintf(line, sizeof line, "%*d %*d !NGRP\n%*d%*d%*d\n\n", count_width, 1, index_width,
                0, count_width, 0, count_width, 0, count_width, 0);
  out += line;

  // "x" = fail if it exists (C11/C++17 exclusive mode): no race between check and open.
  std::FILE* f = std::fopen(path.c_str(), overwrite ? "wb" : "wbx");
  if (!f) {
    if (errno == EEXIST)
      throw Error(file, 0, "", "output file already exists and overwriting was not requested");
    throw Error(file, 0, "", std::string("cannot create PSF file: ") + std::strerror(errno));
  }
  const bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  const int write_error = ok ? 0 : errno;
  const bool closed = std::fclose(f) == 0;
  const int error = ok ? (closed ? 0 : errno) : write_error;
  if (!ok || !closed) throw WriteError(file, "", std::string("cannot write PSF file: ") + std::strerror(error), error);
}

}  // namespace ermak
