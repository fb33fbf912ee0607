#include "ermak/io/topology_file.h"

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/atomic_file.h"
#include "ermak/io/input_file.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

constexpr const char* kVersionLine = "# ermak topology ";
constexpr const char* kEmpty = ".";  // stands for an empty string / blank insertion code

using text::split_columns;

// Reads lines, skipping blank ones and comments, and knows where it is for messages.
class Reader {
 public:
  explicit Reader(const std::filesystem::path& path) : file_(path.string()), in_(path) {
    if (!in_) {
      const int open_errno = errno;
      throw Error(file_, 0, "topology", cannot_open_input(path, open_errno));
    }
  }
  // The raw first line (the version line is a comment to everything else).
  bool raw_line(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  // Next line with content, split into columns; false at end of file.
  // A content line without its newline ends a file that may have been cut short: "1.5" cut
  // to "1" still reads as a number (ermak writes .etop files whole: write_file_atomically).
  bool next(std::vector<std::string_view>& columns) {
    while (raw_line(text_)) {
      columns = split_columns(text_);
      if (!columns.empty() && !columns.front().starts_with("#")) {
        if (in_.eof())
          fail("end", "the last line has no newline: the file may have been cut short (a number cut to its first "
                      "digits still reads as one); if the file is whole, end it with a newline");
        return true;
      }
    }
    return false;
  }
  const std::string& text() const { return text_; }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw Error(file_, line_, field, what);
  }
  template <class T>
  T number(std::string_view text, const std::string& field) const {
    if (auto value = text::parse_number<T>(text)) return *value;
    std::string what = "'";
    what += text::shortened(text);
    what += "' is ";
    // Digits too many for the type (an audit's count of 999999999999) are out of range.
    if constexpr (std::is_integral_v<T>) {
      const std::string_view digits = text.substr(!text.empty() && text[0] == '-' ? 1 : 0);  // '+5' is no integer here
      if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos)
        fail(field, what + "out of range (" + std::to_string(std::numeric_limits<T>::min()) + " to " +
                        std::to_string(std::numeric_limits<T>::max()) + ")");
    }
    what += "not ";
    // from_chars reads "inf"/"nan"; say why such a number is refused.
    bool infinite = false;
    if constexpr (std::is_floating_point_v<T>) {
      T any{};
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), any);
      infinite = ec == std::errc() && end == text.data() + text.size();
    }
    what += infinite ? "finite" : text::kind_of_number<T>();
    fail(field, what);
  }
  std::int32_t index(std::string_view text, const std::string& field, std::int32_t bead_count) const {
    const auto i = number<std::int32_t>(text, field);
    if (i < 0 || i >= bead_count)
      fail(field, "bead index " + std::to_string(i) + " out of range 0.." + std::to_string(bead_count - 1));
    return i;
  }
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  std::string file_;
  std::ifstream in_;
  std::string text_;
  int line_ = 0;
};

std::string decode_string(std::string_view column) {
  return column == kEmpty ? std::string() : std::string(column);
}

void read_beads(Reader& in, Topology& top, std::int32_t count) {
  std::vector<std::string_view> c;
  bool with_positions = false;
  for (std::int32_t b = 0; b < count; ++b) {
    if (!in.next(c))
      in.fail("beads", "the file ends after " + std::to_string(b) + " of " +
                           std::to_string(count) + " bead lines");
    const std::string field = "beads[" + std::to_string(b) + "]";
    if (b == 0) with_positions = c.size() == 12;
    if (c.size() != (with_positions ? 12u : 9u))
      in.fail(field, "expected " + std::string(with_positions ? "12" : "9") +
                         " columns (index chain residue icode resname atom occupancy b_factor "
                         "mass_amu" + (with_positions ? " x_A y_A z_A" : "") + "), found " +
                         std::to_string(c.size()));
    if (in.number<std::int32_t>(c[0], field + ".index") != b)
      in.fail(field + ".index", "beads must be numbered 0, 1, 2, ... in order; expected " +
                                    std::to_string(b) + ", found " + std::string(c[0]));
    BeadInfo bead;
    bead.chain_id = decode_string(c[1]);
    bead.residue_number = in.number<int>(c[2], field + ".residue");
    if (c[3].size() != 1) in.fail(field + ".icode", "an insertion code is one character ('.' for none)");
    bead.insertion_code = c[3] == kEmpty ? ' ' : c[3][0];
    bead.residue_name = decode_string(c[4]);
    bead.atom_name = decode_string(c[5]);
    bead.occupancy = in.number<float>(c[6], field + ".occupancy");
    bead.b_factor = in.number<float>(c[7], field + ".b_factor");
    bead.mass_amu = in.number<float>(c[8], field + ".mass_amu");
    top.beads.push_back(std::move(bead));
    if (with_positions)
      top.native_positions_A.push_back({in.number<double>(c[9], field + ".x_A"),
                                        in.number<double>(c[10], field + ".y_A"),
                                        in.number<double>(c[11], field + ".z_A")});
  }
}

template <class Entry, class Parse>
void read_pairs(Reader& in, std::vector<Entry>& out, std::int32_t count, const char* section,
                std::size_t columns, const char* layout, Parse parse) {
  std::vector<std::string_view> c;
  for (std::int32_t k = 0; k < count; ++k) {
    if (!in.next(c))
      in.fail(section, "the file ends after " + std::to_string(k) + " of " +
                           std::to_string(count) + " lines");
    const std::string field = std::string(section) + "[" + std::to_string(k) + "]";
    if (c.size() != columns)
      in.fail(field, "expected " + std::to_string(columns) + " columns (" + layout + "), found " +
                         std::to_string(c.size()));
    out.push_back(parse(c, field));
  }
}

// A section and its count, for a data line that comes after the count's last line.
struct SectionRead {
  const char* keyword = nullptr;  // "beads", "bonds", "native_contacts"; nullptr before any
  const char* line_kind = "";     // "bead", "bond", "native-contact"
  std::int32_t count = 0;
};

// What may follow the sections read so far: the sections not yet seen, or the file's end.
std::string what_may_follow(bool seen_bonds, bool seen_native) {
  std::string out;
  if (!seen_bonds) out += "'bonds COUNT', ";
  if (!seen_native) out += "'native_contacts COUNT', ";
  if (!out.empty()) out.replace(out.size() - 2, 2, " or ");
  return out + "the end of the file";
}

std::string encode_string(const std::string& text, const std::string& file, std::int32_t bead,
                          const char* field) {
  if (text.empty()) return kEmpty;
  const bool bad = text == kEmpty || text.front() == '#' ||
                   std::any_of(text.begin(), text.end(), [](unsigned char ch) { return std::isspace(ch); });
  if (bad)
    throw Error(file, 0, "beads[" + std::to_string(bead) + "]." + field,
                "'" + text + "' cannot be written as one .etop column");
  return text;
}

void append(std::string& out, const char* format, auto... values) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, format, values...);
  out += buffer;
}

}  // namespace

void write_topology_file(const Topology& top, const std::filesystem::path& path) {
  const std::string file = path.string();
  const bool with_positions = !top.native_positions_A.empty();
  if (with_positions && top.native_positions_A.size() != top.beads.size())
    throw Error(file, 0, "native_positions_A", "count differs from the bead count");
  std::string out = kVersionLine + std::to_string(kTopologyFileVersion) + "\n";
  out += "# Written by ermak " ERMAK_VERSION ". Format: docs/formats.md (.etop). Units: A, kcal/mol.\n";
  std::string name = top.name;
  std::replace_if(name.begin(), name.end(), [](unsigned char ch) { return ch == '\n' || ch == '\r'; }, ' ');
  out += "name " + name + "\n";
  out += "beads " + std::to_string(top.bead_count()) + "\n";
  out += "# index chain residue icode resname atom occupancy b_factor mass_amu";
  out += with_positions ? " x_A y_A z_A\n" : "\n";
  for (std::int32_t b = 0; b < top.bead_count(); ++b) {
    const BeadInfo& bead = top.beads[b];
    const char icode[2] = {bead.insertion_code, '\0'};
    if (bead.insertion_code != ' ' && (bead.insertion_code == '.' || bead.insertion_code == '#' ||
                                       !std::isgraph(static_cast<unsigned char>(bead.insertion_code))))
      throw Error(file, 0, "beads[" + std::to_string(b) + "].insertion_code",
                  "cannot be written as one .etop column");
    out += std::to_string(b) + " " + encode_string(bead.chain_id, file, b, "chain_id") + " " +
           std::to_string(bead.residue_number) + " " + (bead.insertion_code == ' ' ? kEmpty : icode) +
           " " + encode_string(bead.residue_name, file, b, "residue_name") + " " +
           encode_string(bead.atom_name, file, b, "atom_name");
    append(out, " %.9g %.9g %.9g", bead.occupancy, bead.b_factor, bead.mass_amu);
    if (with_positions) {
      const Vec3d& p = top.native_positions_A[b];
      append(out, " %.17g %.17g %.17g", p.x, p.y, p.z);
    }
    out += '\n';
  }
  out += "bonds " + std::to_string(top.bonds.size()) + "\n# i j r0_A\n";
  for (const Bond& bond : top.bonds) append(out, "%d %d %.9g\n", bond.i, bond.j, bond.r0_A);
  out += "native_contacts " + std::to_string(top.native_contacts.size()) +
         "\n# i j r0_A eh_kcal_per_mol\n";
  for (const NativeContact& c : top.native_contacts)
    append(out, "%d %d %.9g %.9g\n", c.i, c.j, c.r0_A, c.eh_kcal_per_mol);

  // Whole or not at all: a run or `ermak topology` stopped mid-write must not leave a file
  // that later runs read as a shorter model.
  write_file_atomically(path, out, "topology");
}

Topology read_topology_file(const std::filesystem::path& path) {
  check_text_input_file(path, "topology");
  Reader in(path);
  Topology top;
  top.name = path.stem().string();
  std::string first;
  if (!in.raw_line(first)) in.fail("version", "the file is empty");
  if (!first.starts_with(kVersionLine))
    in.fail("version", "the first line must be '" + std::string(kVersionLine) +
                           std::to_string(kTopologyFileVersion) + "'; is this an ermak .etop file?");
  const std::string version = first.substr(std::string_view(kVersionLine).size());
  if (version != std::to_string(kTopologyFileVersion))
    in.fail("version", "version '" + version + "' is not supported by this ermak (reads " +
                           std::to_string(kTopologyFileVersion) + ")");

  bool seen_beads = false, seen_bonds = false, seen_native = false, seen_name = false;
  SectionRead last;
  std::vector<std::string_view> c;
  while (in.next(c)) {
    const std::string keyword(c[0]);
    if (keyword == "name") {
      if (seen_name || seen_beads) in.fail("name", "'name' must come once, before 'beads'");
      seen_name = true;
      const std::string& text = in.text();
      const std::size_t start = text.find_first_not_of(" \t", text.find("name") + 4);
      top.name = start == std::string::npos ? std::string() : text.substr(start);
      while (!top.name.empty() && std::isspace(static_cast<unsigned char>(top.name.back()))) top.name.pop_back();
      continue;
    }
    // The keyword first: a data line after a section's last counted line (the count one
    // too small, or a line too many) starts with a bead index, and "32: expected '32 COUNT'"
    // would name neither the section nor its count.
    if (keyword != "beads" && keyword != "bonds" && keyword != "native_contacts") {
      if (last.keyword && text::parse_number<std::int32_t>(c[0]))
        in.fail(last.keyword, std::to_string(std::int64_t(last.count) + 1) + " " + last.line_kind +
                                  (last.count == 0 ? " line" : " lines") + ", but '" + last.keyword + "' says " +
                                  std::to_string(last.count) + " (expected " +
                                  what_may_follow(seen_bonds, seen_native) + ")");
      in.fail("keyword", "unknown keyword '" + keyword + "'; expected name, beads, bonds or native_contacts");
    }
    if (c.size() != 2)
      in.fail(keyword, "expected '" + keyword + " COUNT'");
    const auto count = in.number<std::int32_t>(c[1], keyword);
    if (count < 0) in.fail(keyword, "the count must not be negative");
    if (keyword == "beads") {
      if (seen_beads) in.fail("beads", "'beads' appears twice");
      seen_beads = true;
      read_beads(in, top, count);
      last = {"beads", "bead", count};
    } else if (keyword == "bonds" || keyword == "native_contacts") {
      if (!seen_beads) in.fail(keyword, "'" + keyword + "' must come after 'beads'");
      bool& seen = keyword == "bonds" ? seen_bonds : seen_native;
      if (seen) in.fail(keyword, "'" + keyword + "' appears twice");
      seen = true;
      const std::int32_t n = top.bead_count();
      if (keyword == "bonds")
        read_pairs(in, top.bonds, count, "bonds", 3, "i j r0_A", [&](auto& col, const std::string& f) {
          return Bond{in.index(col[0], f + ".i", n), in.index(col[1], f + ".j", n),
                      in.number<float>(col[2], f + ".r0_A")};
        });
      else
        read_pairs(in, top.native_contacts, count, "native_contacts", 4, "i j r0_A eh_kcal_per_mol",
                   [&](auto& col, const std::string& f) {
                     return NativeContact{in.index(col[0], f + ".i", n), in.index(col[1], f + ".j", n),
                                          in.number<float>(col[2], f + ".r0_A"),
                                          in.number<float>(col[3], f + ".eh_kcal_per_mol")};
                   });
      last = keyword == "bonds" ? SectionRead{"bonds", "bond", count}
                                : SectionRead{"native_contacts", "native-contact", count};
    }
  }
  if (!seen_beads) throw Error(in.file(), 0, "beads", "the file has no 'beads' section");
  validate_topology(top, in.file());
  return top;
}

}  // namespace ermak
