#include "ermak/io/sopgpu_top.h"

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <utility>
#include <string>
#include <string_view>

#include "ermak/core/error.h"
#include "ermak/io/input_file.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

enum class Section { None, Atoms, Bonds, Native, Pairs };

struct PairLine {
  int i = 0, j = 0, line = 0;
};

struct TopContents {
  Topology topology;
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::string> warnings;
};

using text::split_columns;

class LineParser {
 public:
  LineParser(const std::string& file, int line) : file_(file), line_(line) {}

  int to_int(std::string_view text, const std::string& field) const {
    if (auto value = text::parse_number<int>(text)) return *value;
    throw Error(file_, line_, field, "'" + text::shortened(text) + "' is not an integer");
  }
  float to_float(std::string_view text, const std::string& field) const {
    if (auto value = text::parse_number<float>(text)) return *value;
    if (text::parse_number<double>(text))
      throw Error(file_, line_, field, "'" + text::shortened(text) + "' is beyond single precision (±3.4e38)");
    throw Error(file_, line_, field, "'" + text::shortened(text) + "' is not a number");
  }
  // A length or well depth of the model: finite, and > 0 (or ≥ 0 where zero is allowed).
  float checked(float value, const std::string& field, bool zero_allowed) const {
    if (std::isfinite(value) && (value > 0.0f || (zero_allowed && value == 0.0f))) return value;
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.7g", double(value));
    throw Error(file_, line_, field, std::string("must be ") + (zero_allowed ? ">= 0" : "> 0") + " and finite, got " + shown);
  }
  void require_columns(std::size_t have, std::size_t min, std::size_t max,
                       const std::string& section, const char* layout) const {
    if (have < min || have > max)
      throw Error(file_, line_, section,
                  "expected " + (min == max ? std::to_string(min)
                                            : std::to_string(min) + " to " + std::to_string(max)) +
                      " columns (" + layout + "), found " + std::to_string(have));
  }

 private:
  const std::string& file_;
  int line_;
};

Section section_named(std::string name, const std::string& file, int line) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name == "atoms") return Section::Atoms;
  if (name == "bonds") return Section::Bonds;
  if (name == "native") return Section::Native;
  if (name == "pairs") return Section::Pairs;
  throw Error(file, line, "section",
              "unknown section [ " + name + " ]; a SOP-GPU .top has [ atoms ], [ bonds ], "
              "[ native ] and [ pairs ]");
}

TopContents read_top(const std::filesystem::path& path) {
  const std::string file = path.string();
  check_text_input_file(path, "topology");
  std::ifstream in(path);
  if (!in) {
    const int open_errno = errno;
    throw Error(file, 0, "topology", cannot_open_input(path, open_errno));
  }
  TopContents out;
  Topology& top = out.topology;
  top.name = path.stem().string();
  std::vector<int> bond_lines, native_lines, pair_lines;
  Section section = Section::None;
  std::string raw, last_line;
  int line_number = 0;
  while (std::getline(in, raw)) {
    ++line_number;
    last_line = raw;
    std::string_view line(raw);
    if (line_number == 1) line = text::without_bom(line);
    if (auto semicolon = line.find(';'); semicolon != std::string_view::npos)
      line = line.substr(0, semicolon);
    const auto columns = split_columns(line);
    if (columns.empty()) continue;
    const LineParser parse(file, line_number);
    if (columns.front().starts_with("[")) {
      const auto open = line.find('['), close = line.find(']');
      if (close == std::string_view::npos || !split_columns(line.substr(close + 1)).empty())
        throw Error(file, line_number, "section", "malformed section header; expected [ name ]");
      const auto inner = split_columns(line.substr(open + 1, close - open - 1));
      if (inner.size() != 1)
        throw Error(file, line_number, "section", "malformed section header; expected [ name ]");
      section = section_named(std::string(inner[0]), file, line_number);
      continue;
    }
    switch (section) {
      case Section::None:
        throw Error(file, line_number, "section",
                    "data before the first section header ([ atoms ])");
      case Section::Atoms: {
        parse.require_columns(columns.size(), 8, 8, "atoms",
                              "nr type resnr residue atom cgnr charge mass");
        const int nr = parse.to_int(columns[0], "atoms.nr");
        if (nr != top.bead_count())
          throw Error(file, line_number, "atoms.nr",
                      "atoms must be numbered 0, 1, 2, ... in order; expected " +
                          std::to_string(top.bead_count()) + ", found " + std::to_string(nr));
        BeadInfo bead;
        bead.residue_number = parse.to_int(columns[2], "atoms.resnr");
        bead.residue_name = std::string(columns[3]);
        bead.atom_name = std::string(columns[4]);
        bead.chain_id = std::string(columns[5]);
        bead.occupancy = parse.to_float(columns[6], "atoms.charge");
        bead.b_factor = parse.to_float(columns[7], "atoms.mass");
        top.beads.push_back(std::move(bead));
        break;
      }
      case Section::Bonds: {
        parse.require_columns(columns.size(), 4, 7, "bonds", "ai aj funct c0 [c1 c2 c3]");
        Bond bond;
        bond.i = parse.to_int(columns[0], "bonds.ai");
        bond.j = parse.to_int(columns[1], "bonds.aj");
        parse.to_int(columns[2], "bonds.funct");
        bond.r0_A = parse.checked(parse.to_float(columns[3], "bonds.c0"), "bonds.c0", false);
        for (std::size_t c = 4; c < columns.size(); ++c) parse.to_float(columns[c], "bonds.c" + std::to_string(c - 3));
        top.bonds.push_back(bond);
        bond_lines.push_back(line_number);
        break;
      }
      case Section::Native: {
        parse.require_columns(columns.size(), 5, 7, "native", "ai aj funct c0=r0 c1=eh [c2 c3]");
        NativeContact contact;
        contact.i = parse.to_int(columns[0], "native.ai");
        contact.j = parse.to_int(columns[1], "native.aj");
        parse.to_int(columns[2], "native.funct");
        contact.r0_A = parse.checked(parse.to_float(columns[3], "native.c0"), "native.c0", false);
        contact.eh_kcal_per_mol = parse.checked(parse.to_float(columns[4], "native.c1"), "native.c1", true);
        for (std::size_t c = 5; c < columns.size(); ++c) parse.to_float(columns[c], "native.c" + std::to_string(c - 3));
        top.native_contacts.push_back(contact);
        native_lines.push_back(line_number);
        break;
      }
      case Section::Pairs: {
        parse.require_columns(columns.size(), 3, 7, "pairs", "ai aj funct [c0 c1 c2 c3]");
        const int i = parse.to_int(columns[0], "pairs.ai");
        const int j = parse.to_int(columns[1], "pairs.aj");
        parse.to_int(columns[2], "pairs.funct");
        // SOP-GPU reads c0-c3 of a pair line (TOPPair::read, atof) and uses only ai and aj;
        // a column that is there must still be a number, as in [ bonds ] and [ native ]
        // (docs/formats.md): "junk" there is a damaged line, not an unused value.
        for (std::size_t c = 3; c < columns.size(); ++c) parse.to_float(columns[c], "pairs.c" + std::to_string(c - 3));
        out.pairs.emplace_back(i, j);
        pair_lines.push_back(line_number);
        break;
      }
    }
  }
  if (top.beads.empty()) throw Error(file, 0, "atoms", "no [ atoms ] entries; is this a SOP-GPU .top file?");

  // Sections may come in any order, so indices are checked once all atoms are known.
  const int n = top.bead_count();
  auto check = [&](int i, int j, int line, const char* section) {
    for (int index : {i, j})
      if (index < 0 || index >= n)
        throw Error(file, line, std::string(section) + (index == i ? ".ai" : ".aj"),
                    "bead index " + std::to_string(index) + " out of range 0.." + std::to_string(n - 1));
    if (i == j) throw Error(file, line, section, "a bead cannot pair with itself");
  };
  // A pair listed twice among bonds and native contacts, at the line of its second entry.
  std::map<std::pair<int, int>, int> listed;  // pair → line
  auto once = [&](int i, int j, int line, const char* section) {
    const auto [it, inserted] = listed.emplace(std::minmax(i, j), line);
    if (!inserted)
      throw Error(file, line, section,
                  "pair (" + std::to_string(i) + ", " + std::to_string(j) + ") is listed already, at line " +
                      std::to_string(it->second) + " (a pair is either one bond or one native contact)");
  };
  for (std::size_t k = 0; k < top.bonds.size(); ++k) {
    check(top.bonds[k].i, top.bonds[k].j, bond_lines[k], "bonds");
    once(top.bonds[k].i, top.bonds[k].j, bond_lines[k], "bonds");
  }
  for (std::size_t k = 0; k < top.native_contacts.size(); ++k) {
    check(top.native_contacts[k].i, top.native_contacts[k].j, native_lines[k], "native");
    once(top.native_contacts[k].i, top.native_contacts[k].j, native_lines[k], "native");
  }
  for (std::size_t k = 0; k < out.pairs.size(); ++k)
    check(out.pairs[k].first, out.pairs[k].second, pair_lines[k], "pairs");
  // A .top has no counts: a file cut short reads as a smaller model. SOP-GPU and ermak end
  // every line with a newline, so a last line without one may have been cut — even inside
  // its last number, which then reads as another value (an audit's cut ε_h 1.50000 → 1).
  in.clear();
  in.seekg(0, std::ios::end);
  if (in.tellg() > 0) {
    in.seekg(-1, std::ios::end);
    // The unterminated last line, if it holds data (a blank or a comment there is harmless).
    const std::string_view data = std::string_view(last_line).substr(0, last_line.find(';'));
    if (in.get() != '\n' && data.find_first_not_of(" \t\r") != std::string_view::npos)
      out.warnings.push_back(file + ":" + std::to_string(line_number) +
                             ": the file does not end with a newline — was it cut short? Its last line is read as '" +
                             text::shortened(last_line, 60) + "'; lines after it may be missing");
  }
  return out;
}

// Right-aligned in `width` like SOP-GPU's printf, but never glued to the previous column.
void put(std::string& out, const std::string& text, int width) {
  if (static_cast<int>(text.size()) < width) out.append(width - text.size(), ' ');
  else out.push_back(' ');
  out.append(text);
}

std::string token(const std::string& text, const std::string& file, std::int32_t bead,
                  const char* field) {
  const bool bad = text.empty() || text.front() == ';' || text.front() == '[' ||
                   std::any_of(text.begin(), text.end(),
                               [](unsigned char c) { return std::isspace(c); });
  if (bad)
    throw Error(file, 0, "beads[" + std::to_string(bead) + "]." + field,
                "'" + text + "' cannot be written as one .top column");
  return text;
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace

Topology read_sopgpu_top(const std::filesystem::path& file, std::vector<std::string>* warnings) {
  TopContents contents = read_top(file);
  if (warnings) warnings->insert(warnings->end(), contents.warnings.begin(), contents.warnings.end());
  return std::move(contents.topology);
}

std::vector<std::pair<int, int>> read_sopgpu_top_pairs(const std::filesystem::path& file) {
  return read_top(file).pairs;
}

void write_sopgpu_top(const Topology& topology, const std::filesystem::path& path,
                      const std::vector<std::pair<int, int>>* repulsive_pairs) {
  const std::string file = path.string();
  std::string out = "; Created by ermak " ERMAK_VERSION "\n\n[ atoms ]\n";
  out += ";   nr       type  resnr residue  atom   cgnr     charge       mass\n";
  for (std::int32_t b = 0; b < topology.bead_count(); ++b) {
    const BeadInfo& bead = topology.beads[b];
    const std::string atom = token(bead.atom_name, file, b, "atom_name");
    put(out, std::to_string(b), 6);
    put(out, atom, 11);
    put(out, std::to_string(bead.residue_number), 7);
    put(out, token(bead.residue_name, file, b, "residue_name"), 7);
    put(out, atom, 7);
    put(out, token(bead.chain_id, file, b, "chain_id"), 7);
    put(out, fixed(bead.occupancy, 2), 11);
    put(out, fixed(bead.b_factor, 3), 11);
    out += '\n';
  }
  auto pair_columns = [&](std::int32_t i, std::int32_t j) {
    put(out, std::to_string(i), 5);
    put(out, std::to_string(j), 6);
    put(out, "1", 6);
  };
  out += "\n[ bonds ]\n;  ai    aj funct            c0            c1            c2            c3\n";
  for (const Bond& bond : topology.bonds) {
    pair_columns(bond.i, bond.j);
    put(out, fixed(bond.r0_A, 5), 11);
    out += '\n';
  }
  out += "\n[ native ]\n;  ai    aj funct            c0            c1            c2            c3\n";
  for (const NativeContact& contact : topology.native_contacts) {
    pair_columns(contact.i, contact.j);
    put(out, fixed(contact.r0_A, 5), 11);
    put(out, fixed(contact.eh_kcal_per_mol, 5), 11);
    out += '\n';
  }
  if (repulsive_pairs) {
    out += "\n[ pairs ]\n;  ai    aj funct            c0            c1            c2            c3\n";
    for (const auto& [i, j] : *repulsive_pairs) {
      pair_columns(i, j);
      out += '\n';
    }
  }
  std::ofstream stream(path, std::ios::binary);
  if (!stream) throw Error(file, 0, "topology", "cannot open the file for writing");
  stream << out;
  if (!stream.flush()) throw WriteError(file, "topology", "write failed", errno);
}

}  // namespace ermak
