#include "ermak/io/pdb_coordinates.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ermak/core/error.h"
#include "ermak/io/input_file.h"
#include "ermak/model/coordinate_range.h"

namespace ermak {
namespace {

// The largest serial number CONECT records carry (five decimal columns).
constexpr std::int32_t kMaxConectSerial = 99999;

bool record_is(std::string_view line, std::string_view name) {
  if (!line.starts_with(name)) return false;
  // Record names fill columns 1-6; "END" must not match "ENDMDL".
  for (std::size_t c = name.size(); c < std::min<std::size_t>(line.size(), 6); ++c)
    if (line[c] != ' ') return false;
  return true;
}

double coordinate(std::string_view line, int axis, const std::string& file, int line_number) {
  static constexpr std::array<const char*, 3> kAxis = {"x", "y", "z"};
  std::string_view field = line.substr(30 + 8 * axis, 8);
  std::string_view text = field;
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    throw Error(file, line_number, kAxis[axis],
                "'" + std::string(field) + "' in columns " + std::to_string(31 + 8 * axis) + "-" +
                    std::to_string(38 + 8 * axis) + " is not a number");
  if (!coordinate_fits(value)) throw Error(file, line_number, kAxis[axis], out_of_range_field(field, 31 + 8 * axis));
  return value;
}

// %8.3f while it fits the 8 columns, fewer decimals for very large values.
// The value in 8 columns with as many of 3 decimals as fit; "" when none does.
std::string fitted_coordinate(float value) {
  char buffer[64];
  if (!std::isfinite(value)) return "";
  for (int decimals = 3; decimals >= 0; --decimals) {
    const int length = std::snprintf(buffer, sizeof buffer, "%8.*f", decimals, value);
    if (length == 8) return buffer;
  }
  return "";
}

std::string coordinate_field(float value, const std::string& file, std::int32_t bead) {
  if (std::string field = fitted_coordinate(value); !field.empty()) return field;
  throw Error(file, 0, "coordinates",
              "bead " + std::to_string(bead) + " coordinate " + std::to_string(value) +
                  " A does not fit the 8 columns of a PDB coordinate");
}

// Occupancy and B-factor columns are 6 wide: clamp rather than shift every later column.
std::string six_column(float value) {
  char buffer[64];
  const double clamped = std::isfinite(value) ? std::clamp<double>(value, -99.99, 999.99) : 0.0;
  std::snprintf(buffer, sizeof buffer, "%6.2f", clamped);
  return buffer;
}

std::string atom_name_field(const std::string& name) {
  // Names shorter than four start in column 14, as for one-letter elements (" CA ").
  if (name.size() >= 4) return name.substr(0, 4);
  std::string field = " " + name;
  field.resize(4, ' ');
  return field;
}

std::string residue_name_field(const std::string& name) {
  // Column 17 (altLoc) blank, the name in columns 18-20 right-aligned; a 4-character name
  // (CHARMM's) runs on into column 21, where VMD and MDAnalysis read it. Longer names
  // keep their first four characters (the PSF keeps them whole).
  if (name.size() >= 4) return " " + name.substr(0, 4);
  return std::string(4 - name.size(), ' ') + name + " ";
}

// Columns 23-26. Above 9999 the last four digits, as CHARMM and VMD write them (MDAnalysis
// un-wraps a wrapped chain but carries the count into the chains after it; it does not
// decode hybrid-36 residue numbers); below -999 the field's smallest number. The PSF holds
// every number whole; residue_numbers_beyond_pdb warns.
std::string residue_number_field(long number) {
  if (number > 9999) number %= 10000;
  if (number < -999) number = -999;
  const std::string text = std::to_string(number);
  return std::string(4 - text.size(), ' ') + text;
}

void write_records(std::ostream& out, const std::string& file, const Topology& topology,
                   const float* x, const float* y, const float* z, const std::string& remark) {
  std::size_t start = 0;
  while (start < remark.size()) {
    std::size_t end = remark.find('\n', start);
    if (end == std::string::npos) end = remark.size();
    out << "REMARK   " << remark.substr(start, std::min<std::size_t>(end - start, 71)) << '\n';
    start = end + 1;
  }
  std::string line;
  for (std::int32_t b = 0; b < topology.bead_count(); ++b) {
    const BeadInfo& bead = topology.beads[b];
    line.assign("ATOM  ");
    line += hybrid36(b + 1, 5);
    line += ' ';
    line += atom_name_field(bead.atom_name);
    line += residue_name_field(bead.residue_name);
    line += bead.chain_id.empty() ? ' ' : bead.chain_id[0];
    line += residue_number_field(bead.residue_number);
    line += bead.insertion_code ? bead.insertion_code : ' ';
    line += "   ";
    line += coordinate_field(x[b], file, b);
    line += coordinate_field(y[b], file, b);
    line += coordinate_field(z[b], file, b);
    line += six_column(bead.occupancy);
    line += six_column(bead.b_factor);
    line += "      ";
    std::string segment = bead.chain_id.substr(0, 4);
    segment.resize(4, ' ');
    line += segment;
    out << line << '\n';
    // TER ends each chain (a bare record: a serial would shift the CONECT numbering), so that
    // a reader — ermak's own structure input among them — does not join two chains whose
    // one-character names in column 22 coincide (PROA and PROB are both 'P').
    if (b + 1 == topology.bead_count() || topology.beads[b + 1].chain_id != bead.chain_id) out << "TER\n";
  }
  // One CONECT record per bond, lower serial first, as SOP-GPU writes them: a viewer given the
  // PDB alone draws the chain (VMD's distance rule never bonds beads 3.8 A apart). None past
  // 99 999 beads, whose serials are hybrid-36: VMD reads CONECT serials as decimals only, and
  // would bond the wrong beads; the PSF holds the bonds.
  if (topology.bead_count() <= kMaxConectSerial)
    for (const Bond& bond : topology.bonds) {
      const auto [first, second] = std::minmax(bond.i, bond.j);
      out << fmt::format("CONECT{:5d}{:5d}\n", first + 1, second + 1);
    }
  out << "END\n";
}

}  // namespace

std::string residue_numbers_beyond_pdb(const Topology& topology) {
  std::size_t beyond = 0;
  int example = 0;
  for (const BeadInfo& bead : topology.beads)
    if (bead.residue_number > 9999 || bead.residue_number < -999) {
      if (beyond++ == 0) example = bead.residue_number;
    }
  if (beyond == 0) return "";
  return std::to_string(beyond) + " beads have residue numbers the PDB's four columns cannot hold (e.g. " +
         std::to_string(example) + "): the PDB writes the last four digits (below -999: -999), which MDAnalysis "
         "un-wraps for that chain but carries on into the chains after it; the PSF holds every number whole (load "
         "it as the topology)";
}

std::string segment_id_clash(const Topology& topology) {
  // Chains whose names share their first `width` characters: the PDB's segment id holds 4,
  // VMD's psfplugin reads 7 of a PSF's segment name (MDAnalysis 8).
  auto sharing = [&](std::size_t width, const char* label, std::string& example) {
    std::map<std::string, std::vector<std::string>> chains_of_prefix;
    std::string previous;
    for (const BeadInfo& bead : topology.beads) {
      if (bead.chain_id == previous) continue;
      previous = bead.chain_id;
      auto& names = chains_of_prefix[bead.chain_id.substr(0, width)];
      if (std::find(names.begin(), names.end(), bead.chain_id) == names.end()) names.push_back(bead.chain_id);
    }
    std::size_t shared = 0;
    for (const auto& [prefix, names] : chains_of_prefix) {
      if (names.size() < 2) continue;
      shared += names.size();
      if (example.empty()) example = names[0] + " and " + names[1] + " (" + label + " " + prefix + ")";
    }
    return shared;
  };
  std::string pdb_example, vmd_example;
  const std::size_t pdb_shared = sharing(4, "segment id", pdb_example),
                    vmd_shared = sharing(7, "VMD's segment name", vmd_example);
  std::string message;
  if (pdb_shared > 0)
    message = std::to_string(pdb_shared) + " chains share a PDB segment id with another, e.g. " + pdb_example +
              ": a PDB holds only the first four characters of a chain name, so VMD and MDAnalysis merge them when "
              "they read the PDB; the PSF keeps every chain apart (load it as the topology)";
  if (vmd_shared > 0)
    message += std::string(message.empty() ? "" : "; but ") + std::to_string(vmd_shared) +
               " chains share the first 7 characters of their name, e.g. " + vmd_example +
               ", which is all VMD reads of a PSF segment name: VMD merges those even from the PSF (MDAnalysis "
               "reads all 8); shorter chain names keep them apart";
  return message;
}

double pdb_bytes_estimate(std::int64_t beads) {
  return (beads <= kMaxConectSerial ? 77.0 + 17.0 : 77.0) * double(beads) + 200.0;
}

std::string hybrid36(long value, int width) {
  long decimal_limit = 1;
  for (int k = 0; k < width; ++k) decimal_limit *= 10;
  const long negative_limit = -(decimal_limit / 10 - 1);
  if (value < negative_limit) value = negative_limit;  // hybrid-36 has no larger negatives
  if (value < decimal_limit) {
    std::string text = std::to_string(value);
    return std::string(width - text.size(), ' ') + text;
  }
  long block = 26;  // values per alphabet: 26·36^(width-1)
  for (int k = 1; k < width; ++k) block *= 36;
  long offset = value - decimal_limit;
  offset %= 2 * block;  // past the lower-case range serials wrap instead of widening
  const char* digits = offset < block ? "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      : "0123456789abcdefghijklmnopqrstuvwxyz";
  long code = (offset % block) + block / 26 * 10;  // first digit starts at 'A' / 'a'
  std::string out(width, '0');
  for (int k = width - 1; k >= 0; --k) {
    out[k] = digits[code % 36];
    code /= 36;
  }
  return out;
}

std::vector<Vec3d> read_pdb_coordinates(const std::filesystem::path& path) {
  const std::string file = path.string();
  check_text_input_file(path, "coordinates");
  std::ifstream in(path);
  if (!in) {
    const int open_errno = errno;
    throw Error(file, 0, "coordinates", cannot_open_input(path, open_errno));
  }
  std::vector<Vec3d> positions;
  std::string raw;
  int line_number = 0;
  while (std::getline(in, raw)) {
    ++line_number;
    std::string_view line(raw);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (record_is(line, "ENDMDL") || record_is(line, "END")) break;
    // mmCIF's atom rows also start with ATOM; their columns are not PDB's (docs/formats.md).
    if (positions.empty() && line.starts_with("data_"))
      throw Error(file, line_number, "coordinates",
                  "holds mmCIF (a data_ block), but coordinates are read from PDB ATOM records, one per bead: "
                  "write them as PDB (e.g. gemmi convert " + path.filename().string() + " coordinates.pdb)");
    if (!record_is(line, "ATOM") && !record_is(line, "HETATM")) continue;
    if (line.size() < 54)
      throw Error(file, line_number, "coordinates",
                  "the ATOM/HETATM record is truncated (" + std::to_string(line.size()) +
                      " characters; x, y, z need columns 31-54)");
    positions.push_back({coordinate(line, 0, file, line_number), coordinate(line, 1, file, line_number),
                         coordinate(line, 2, file, line_number)});
  }
  if (positions.empty()) throw Error(file, 0, "coordinates", "no ATOM or HETATM records");
  return positions;
}


void write_pdb(std::ostream& out, const Topology& topology, const float* x, const float* y,
               const float* z, const std::string& remark) {
  write_records(out, "<stream>", topology, x, y, z, remark);
}

void write_pdb(const std::filesystem::path& path, const Topology& topology, const float* x,
               const float* y, const float* z, const std::string& remark) {
  const std::string file = path.string();
  // Every record formatted first: a coordinate that does not fit the format leaves no
  // truncated file behind.
  std::ostringstream records;
  write_records(records, file, topology, x, y, z, remark);
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(file, 0, "pdb", std::string("cannot open the file for writing: ") + std::strerror(errno));
  out << records.view();
  if (!out.flush()) {
    // A full disk: no truncated PDB left behind for a viewer to read as the structure.
    const int error = errno;
    const std::string why = error ? std::strerror(error) : "unknown error";
    out.close();
    std::error_code ignored;
    // Only a regular file: a device named as the output (/dev/null, /dev/stdout) stays.
    if (std::filesystem::is_regular_file(path, ignored)) std::filesystem::remove(path, ignored);
    throw WriteError(file, "pdb", "write failed (" + why + "); the partial file is removed", error);
  }
}

std::string write_pdb_if_it_fits(const std::filesystem::path& file, const Topology& topology, const float* x,
                                 const float* y, const float* z, const std::string& remark) {
  for (std::int32_t b = 0; b < topology.bead_count(); ++b)
    for (const auto& [axis, value] : {std::pair{"x", x[b]}, {"y", y[b]}, {"z", z[b]}})
      if (fitted_coordinate(value).empty()) return fmt::format("bead {} {} = {} A", b, axis, value);
  write_pdb(file, topology, x, y, z, remark);
  return "";
}

}  // namespace ermak
