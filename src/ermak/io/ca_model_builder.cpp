#include "ermak/io/ca_model_builder.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <gemmi/model.hpp>
#include <gemmi/pdb.hpp>
#include <gemmi/resinfo.hpp>
#if __has_include(<tao/pegtl.hpp>)
// gemmi's CIF parser needs PEGTL (Debian: tao-pegtl-dev); without it only PDB is read.
#include <gemmi/cif.hpp>
#include <gemmi/mmcif.hpp>
#define ERMAK_HAVE_MMCIF 1
#endif

#include "ermak/core/error.h"

namespace ermak {
namespace {

enum class Format { Pdb, Mmcif };

std::string read_whole_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw Error(name, 0, "structure", "file not found");
  if (std::filesystem::is_directory(file, ec))
    throw Error(name, 0, "structure", "is a directory, not a structure file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(name, 0, "structure", "cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool ends_with_ci(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

// By extension first (what the user said), by content for anything else.
Format detect_format(const std::filesystem::path& file, const std::string& text) {
  const std::string name = file.filename().string();
  if (ends_with_ci(name, ".pdb") || ends_with_ci(name, ".ent")) return Format::Pdb;
  if (ends_with_ci(name, ".cif") || ends_with_ci(name, ".mmcif")) return Format::Mmcif;
  std::size_t p = text.find_first_not_of(" \t\r\n");
  while (p != std::string::npos && text[p] == '#') {  // CIF comments
    p = text.find('\n', p);
    if (p != std::string::npos) p = text.find_first_not_of(" \t\r\n", p);
  }
  if (p != std::string::npos && text.compare(p, 5, "data_") == 0) return Format::Mmcif;
  if (p != std::string::npos && text[p] == '{')
    throw Error(file.string(), 0, "structure", "mmJSON is not supported; use PDB or mmCIF");
  return Format::Pdb;
}

bool parses_as_number(std::string_view field) {
  while (!field.empty() && field.front() == ' ') field.remove_prefix(1);
  while (!field.empty() && field.back() == ' ') field.remove_suffix(1);
  if (field.empty()) return false;
  double value = 0.0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return ec == std::errc() && end == field.data() + field.size() && std::isfinite(value);
}

// gemmi 0.5.7 refuses the old PDB layout whose columns 73-80 hold the entry id and a
// line count ("1CWP 381"; read as a charge); a C-alpha model needs none of segment id,
// element or charge there, so such columns are blanked.
bool valid_charge_columns(char digit, char sign) {
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  if (is_digit(sign)) std::swap(digit, sign);
  return !is_digit(digit) || sign == '+' || sign == '-' || sign == ' ' || sign == '\0';
}

// gemmi reads coordinate columns leniently (a cut "12.3" or "1.0x0" passes), which would
// silently build a wrong model from a truncated download; check them strictly first.
void prepare_pdb_text(const std::string& file, std::string& text, std::vector<std::string>& notes) {
  static constexpr std::array<const char*, 3> kAxis = {"x", "y", "z"};
  int line_number = 0, blanked = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_number;
    const std::size_t line_start = start;
    start = end + 1;
    if (!(line.starts_with("ATOM") || line.starts_with("HETATM"))) continue;
    if (line.size() < 54)
      throw Error(file, line_number, "coordinates",
                  "the ATOM/HETATM record is truncated (" + std::to_string(line.size()) +
                      " characters; x, y, z need columns 31-54)");
    for (int axis = 0; axis < 3; ++axis) {
      std::string_view field = line.substr(30 + 8 * axis, 8);
      if (!parses_as_number(field))
        throw Error(file, line_number, kAxis[axis],
                    "'" + std::string(field) + "' in columns " + std::to_string(31 + 8 * axis) +
                        "-" + std::to_string(38 + 8 * axis) + " is not a number");
    }
    if (line.size() > 78 && !valid_charge_columns(line[78], line.size() > 79 ? line[79] : '\0')) {
      std::fill(text.begin() + line_start + 72, text.begin() + line_start + line.size(), ' ');
      ++blanked;
    }
  }
  if (blanked > 0)
    notes.push_back("columns 73-80 of " + std::to_string(blanked) +
                    " ATOM/HETATM records hold no segment/element/charge (old PDB layout); ignored");
}

// gemmi reports "Problem in line N: ..." (PDB) or "name:N:C: ..." (CIF).
int line_from_gemmi_message(const std::string& message, const std::string& source) {
  auto digits_at = [&](std::size_t p) {
    int value = 0;
    std::from_chars(message.data() + p, message.data() + message.size(), value);
    return value;
  };
  if (auto p = message.find("line "); p != std::string::npos) return digits_at(p + 5);
  if (message.starts_with(source + ":")) return digits_at(source.size() + 1);
  return 0;
}

gemmi::Structure parse_structure(const std::filesystem::path& file, std::string& text,
                                 std::vector<std::string>& notes) {
  const std::string name = file.string();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(name, 0, "structure", "the file is empty");
  const Format format = detect_format(file, text);
  try {
    if (format == Format::Pdb) {
      prepare_pdb_text(name, text, notes);
      return gemmi::read_pdb_from_memory(text.data(), text.size(), name);
    }
#ifdef ERMAK_HAVE_MMCIF
    return gemmi::make_structure(gemmi::cif::read_memory(text.data(), text.size(), name.c_str()));
#else
    throw Error(name, 0, "structure",
                "this ermak was built without mmCIF support (install tao-pegtl-dev and rebuild)");
#endif
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    const std::string message = e.what();
    throw Error(name, line_from_gemmi_message(message, name), "structure",
                std::string(format == Format::Pdb ? "PDB" : "mmCIF") + " parse error: " + message);
  }
}

std::string residue_label(const std::string& chain, const gemmi::Residue& r) {
  return chain + ":" + r.name + " " + r.seqid.str();
}

// Modified or force-field-named residues missing from gemmi's table (HSD, ...) still
// count when they carry a peptide backbone.
bool has_backbone(const gemmi::Residue& r) {
  return r.find_atom("N", '*') && r.find_atom("CA", '*') && r.find_atom("C", '*');
}

bool is_amino_acid(const gemmi::Residue& r) {
  const gemmi::ResidueInfo info = gemmi::find_tabulated_residue(r.name);
  return info.found() ? info.is_amino_acid() : has_backbone(r);
}

// The C-alpha of the highest-occupancy conformer (first one on ties). Matched by name
// only: CHARMM-style files shift "CA" to column 13, where gemmi infers calcium, and an
// amino acid has no other atom of that name.
const gemmi::Atom* best_ca(const gemmi::Residue& r) {
  const gemmi::Atom* best = nullptr;
  for (const gemmi::Atom& a : r.atoms)
    if (a.name == "CA" && (!best || a.occ > best->occ)) best = &a;
  return best;
}

struct CaBead {
  BeadInfo info;
  Vec3d position_A;
  std::int32_t chain = 0;
};

std::vector<CaBead> collect_ca_beads(const gemmi::Model& model, std::vector<std::string>& notes) {
  std::vector<CaBead> beads;
  std::int32_t chain_index = 0;
  int skipped_ligands = 0;
  std::vector<std::string> untabulated;  // residue names taken as amino acids by backbone
  for (const gemmi::Chain& chain : model.chains) {
    std::string chain_id = chain.name;
    if (chain_id.empty()) chain_id = chain.residues.empty() ? "A" : chain.residues[0].segment;
    if (chain_id.empty()) chain_id = "A";
    const auto& residues = chain.residues;
    bool chain_has_beads = false;
    // Residues sharing a sequence id are alternative residues (microheterogeneity).
    for (std::size_t first = 0; first < residues.size();) {
      std::size_t last = first;
      while (last + 1 < residues.size() && residues[last + 1].seqid == residues[first].seqid) ++last;
      const gemmi::Residue* chosen = nullptr;
      const gemmi::Atom* chosen_ca = nullptr;
      bool any_amino_acid = false, all_water = true;
      for (std::size_t k = first; k <= last; ++k) {
        const gemmi::Residue& r = residues[k];
        all_water = all_water && r.is_water();
        if (!is_amino_acid(r)) continue;
        any_amino_acid = true;
        if (!gemmi::find_tabulated_residue(r.name).found() &&
            std::find(untabulated.begin(), untabulated.end(), r.name) == untabulated.end())
          untabulated.push_back(r.name);
        const gemmi::Atom* ca = best_ca(r);
        if (ca && (!chosen_ca || ca->occ > chosen_ca->occ)) {
          chosen = &r;
          chosen_ca = ca;
        }
      }
      if (!any_amino_acid && !all_water) ++skipped_ligands;
      if (any_amino_acid && !chosen_ca)
        notes.push_back("residue " + residue_label(chain_id, residues[first]) +
                        " has no C-alpha atom; skipped");
      first = last + 1;
      if (!chosen_ca) continue;
      CaBead bead;
      bead.info.chain_id = chain_id;
      bead.info.residue_number = chosen->seqid.num.has_value() ? *chosen->seqid.num : 0;
      bead.info.insertion_code = chosen->seqid.icode;
      bead.info.residue_name = chosen->name;
      bead.info.atom_name = "CA";
      bead.info.occupancy = chosen_ca->occ;
      bead.info.b_factor = chosen_ca->b_iso;
      bead.info.mass_amu = gemmi::find_tabulated_residue(chosen->name).weight;
      bead.position_A = {chosen_ca->pos.x, chosen_ca->pos.y, chosen_ca->pos.z};
      bead.chain = chain_index;
      beads.push_back(std::move(bead));
      chain_has_beads = true;
    }
    if (chain_has_beads) ++chain_index;
  }
  if (!untabulated.empty()) {
    std::string names;
    for (const std::string& n : untabulated) names += (names.empty() ? "" : ", ") + n;
    notes.push_back("residue name(s) " + names +
                    " not in gemmi's table; taken as amino acids (they have N, CA and C atoms)");
  }
  if (skipped_ligands > 0)
    notes.push_back("skipped " + std::to_string(skipped_ligands) +
                    " non-protein residue(s) (ligands, nucleotides, ions)");
  return beads;
}

}  // namespace

std::vector<NativeContact> find_native_contacts(const std::vector<Vec3d>& positions_A,
                                                const std::vector<std::int32_t>& chain_of_bead,
                                                double cutoff_A, double eh_kcal_per_mol) {
  std::vector<NativeContact> contacts;
  const std::size_t n = positions_A.size();
  if (chain_of_bead.size() != n)
    throw Error("", 0, "chain_of_bead", "needs one chain index per position");
  if (n < 2 || !(cutoff_A > 0.0)) return contacts;
  // Cells of edge cutoff_A: partners of a bead lie in its own or the 26 adjacent cells.
  // Occupied cells are found by binary search in the sorted cell keys, so memory stays
  // O(N) however sparse the structure is.
  Vec3d lo = positions_A[0];
  for (const Vec3d& p : positions_A) {
    lo.x = std::min(lo.x, p.x);
    lo.y = std::min(lo.y, p.y);
    lo.z = std::min(lo.z, p.z);
  }
  constexpr std::int64_t kAxisCells = 1 << 20;
  auto cell_coord = [&](double v, double origin) {
    return std::min<std::int64_t>(static_cast<std::int64_t>((v - origin) / cutoff_A), kAxisCells - 2);
  };
  auto key_of = [](std::int64_t x, std::int64_t y, std::int64_t z) {
    return static_cast<std::uint64_t>((x * kAxisCells + y) * kAxisCells + z);
  };
  std::vector<std::array<std::int64_t, 3>> cell(n);
  std::vector<std::pair<std::uint64_t, std::int32_t>> sorted(n);
  for (std::size_t b = 0; b < n; ++b) {
    cell[b] = {cell_coord(positions_A[b].x, lo.x), cell_coord(positions_A[b].y, lo.y),
               cell_coord(positions_A[b].z, lo.z)};
    sorted[b] = {key_of(cell[b][0], cell[b][1], cell[b][2]), static_cast<std::int32_t>(b)};
  }
  std::sort(sorted.begin(), sorted.end());
  const double cutoff2 = cutoff_A * cutoff_A;
  for (std::size_t b = 0; b < n; ++b) {
    const auto i = static_cast<std::int32_t>(b);
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const std::int64_t cx = cell[b][0] + dx, cy = cell[b][1] + dy, cz = cell[b][2] + dz;
          if (cx < 0 || cy < 0 || cz < 0) continue;
          const std::uint64_t key = key_of(cx, cy, cz);
          auto it = std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(key, i + 1));
          for (; it != sorted.end() && it->first == key; ++it) {
            const std::int32_t j = it->second;  // j > i: each pair once
            if (chain_of_bead[i] == chain_of_bead[j] && j - i <= 2) continue;
            const double d2 = norm2(positions_A[j] - positions_A[i]);
            if (d2 < cutoff2)
              contacts.push_back({i, j, static_cast<float>(std::sqrt(d2)),
                                  static_cast<float>(eh_kcal_per_mol)});
          }
        }
  }
  std::sort(contacts.begin(), contacts.end(), [](const NativeContact& a, const NativeContact& b) {
    return a.i != b.i ? a.i < b.i : a.j < b.j;
  });
  return contacts;
}

Topology build_ca_model(const std::filesystem::path& structure_file, const ModelBuildSpec& spec,
                        std::vector<std::string>* warnings) {
  const std::string name = structure_file.string();
  std::string text = read_whole_file(structure_file);
  std::vector<std::string> notes;
  const gemmi::Structure st = parse_structure(structure_file, text, notes);
  text = {};

  std::vector<CaBead> beads;
  if (!st.models.empty()) beads = collect_ca_beads(st.models[0], notes);
  if (beads.empty())
    throw Error(name, 0, "structure",
                "no C-alpha atoms of amino-acid residues found (is it a protein structure?)");

  Topology topology;
  topology.name = structure_file.stem().string();
  std::vector<std::int32_t> chain_of_bead;
  for (const CaBead& bead : beads) {
    topology.beads.push_back(bead.info);
    topology.native_positions_A.push_back(bead.position_A);
    chain_of_bead.push_back(bead.chain);
  }
  for (std::size_t b = 0; b + 1 < beads.size(); ++b) {
    if (beads[b].chain != beads[b + 1].chain) continue;
    const double distance_A = norm(beads[b + 1].position_A - beads[b].position_A);
    if (distance_A > spec.chain_break_A) {
      char distances[96];
      std::snprintf(distances, sizeof distances, "C-alpha distance %.2f A > chain_break_A %g A",
                    distance_A, spec.chain_break_A);
      notes.push_back("chain break between " + beads[b].info.chain_id + ":" +
                      beads[b].info.residue_name + " " + std::to_string(beads[b].info.residue_number) +
                      " and " + beads[b + 1].info.residue_name + " " +
                      std::to_string(beads[b + 1].info.residue_number) + " (" + distances +
                      "): no bond");
      continue;
    }
    topology.bonds.push_back({static_cast<std::int32_t>(b), static_cast<std::int32_t>(b + 1),
                              static_cast<float>(distance_A)});
  }
  topology.native_contacts = find_native_contacts(topology.native_positions_A, chain_of_bead,
                                                  spec.native_cutoff_A,
                                                  spec.native_energy_kcal_per_mol);
  if (warnings)
    for (std::string& note : notes) warnings->push_back(name + ": " + note);
  validate_topology(topology, name);
  return topology;
}

}  // namespace ermak
