#include "ermak/io/cg_description.h"

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>

#include "ermak/core/error.h"
#include "ermak/io/input_file.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

class Reader {
 public:
  explicit Reader(const std::filesystem::path& file) : file_(file.string()) { out_.source = file_; }

  CgDescription read(std::istream& in) {
    std::string raw;
    while (std::getline(in, raw)) {
      ++line_;
      std::string_view text(raw);
      if (auto bang = text.find('!'); bang != std::string_view::npos) text = text.substr(0, bang);
      const auto columns = text::split_columns(text);
      if (columns.empty()) continue;
      record_ = upper(columns[0]);
      const std::vector<std::string_view> args(columns.begin() + 1, columns.end());
      if (record_ == "MASS") mass(args);
      else if (record_ == "RESI") begin_residue(args);
      else if (record_ == "ENDRESI") end_residue(args);
      else if (record_ == "BEAD") begin_bead(args);
      else if (record_ == "ENDBEAD") end_bead(args);
      else if (record_ == "REPR") once_per_bead().represented = names(args, "atom names");
      else if (record_ == "COOR") {
        once_per_bead().coordinate_atoms = names(args, "atom names");
        bead_->coor_line = line_;
      } else if (record_ == "CHAR") charge(args);
      else if (record_ == "CONN") connections(args);
      else
        fail("unknown record '" + std::string(columns[0]) +
             "' (expected MASS, RESI, BEAD, REPR, COOR, CHAR, CONN, ENDBEAD or ENDRESI)");
    }
    ++line_;
    record_ = "end of file";
    if (bead_) fail("BEAD " + bead_->name + " (line " + std::to_string(bead_->line) + ") is not closed by ENDBEAD");
    if (residue_)
      fail("RESI " + residue_->name + " (line " + std::to_string(residue_->line) + ") is not closed by ENDRESI");
    if (out_.residues.empty()) throw Error(file_, 0, "RESI", "no residue (RESI ... ENDRESI) in the file");
    compute_masses();
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(file_, line_, record_, what); }

  void expect_count(const std::vector<std::string_view>& args, std::size_t n, const char* form) const {
    if (args.size() != n)
      fail("expected '" + std::string(form) + "', found " + std::to_string(args.size()) + " field(s) after " +
           record_);
  }

  std::vector<std::string> names(const std::vector<std::string_view>& args, const char* what) const {
    if (args.empty()) fail(std::string("expected one or more ") + what);
    std::vector<std::string> out;
    for (std::string_view a : args) out.emplace_back(a);
    return out;
  }

  void mass(const std::vector<std::string_view>& args) {
    if (residue_) fail("MASS inside RESI " + residue_->name + "; masses come before the residues");
    expect_count(args, 3, "MASS index symbol mass");
    if (!text::parse_number<int>(args[0])) fail("index '" + std::string(args[0]) + "' is not an integer");
    const auto m = text::parse_number<double>(args[2]);
    if (!m || *m <= 0.0) fail("mass '" + std::string(args[2]) + "' is not a number > 0 (amu)");
    const std::string symbol(args[1]);
    for (const CgMass& other : out_.masses)
      if (other.symbol.front() == symbol.front())
        fail("a mass for atom names starting with '" + std::string(1, symbol.front()) + "' is already given on line " +
             std::to_string(other.line));
    out_.masses.push_back({symbol, *m, line_});
  }

  void begin_residue(const std::vector<std::string_view>& args) {
    if (bead_) fail("BEAD " + bead_->name + " (line " + std::to_string(bead_->line) + ") is not closed by ENDBEAD");
    if (residue_)
      fail("RESI " + residue_->name + " (line " + std::to_string(residue_->line) + ") is not closed by ENDRESI");
    expect_count(args, 1, "RESI name");
    const std::string name(args[0]);
    for (const CgResidue& r : out_.residues)
      if (r.name == name) fail("residue " + name + " is already described on line " + std::to_string(r.line));
    residue_ = CgResidue{};
    residue_->name = name;
    residue_->line = line_;
  }

  void end_residue(const std::vector<std::string_view>& args) {
    if (!residue_) fail("ENDRESI without RESI");
    if (bead_) fail("BEAD " + bead_->name + " (line " + std::to_string(bead_->line) + ") is not closed by ENDBEAD");
    expect_count(args, 0, "ENDRESI");
    if (residue_->beads.empty()) fail("residue " + residue_->name + " has no BEAD");
    for (const CgBead& b : residue_->beads)
      for (const CgConnection& c : b.connections)
        if (c.residue_offset == 0 && !residue_->find(c.bead))
          throw Error(file_, c.line, "CONN",
                      "bead " + b.name + " of " + residue_->name + " connects to '" + c.bead +
                          "', which is no bead of " + residue_->name + " (use +NAME / -NAME for the next / previous "
                          "residue)");
    out_.residues.push_back(std::move(*residue_));
    residue_.reset();
  }

  void begin_bead(const std::vector<std::string_view>& args) {
    if (!residue_) fail("BEAD outside RESI ... ENDRESI");
    if (bead_) fail("BEAD " + bead_->name + " (line " + std::to_string(bead_->line) + ") is not closed by ENDBEAD");
    expect_count(args, 2, "BEAD name type");
    const std::string name(args[0]);
    if (const CgBead* other = residue_->find(name))
      fail("residue " + residue_->name + " already has a bead " + name + " (line " + std::to_string(other->line) + ")");
    bead_ = CgBead{};
    bead_records_.clear();
    bead_->name = name;
    bead_->type = std::string(args[1]);
    bead_->line = line_;
  }

  void end_bead(const std::vector<std::string_view>& args) {
    if (!bead_) fail("ENDBEAD without BEAD");
    expect_count(args, 0, "ENDBEAD");
    if (bead_->coordinate_atoms.empty())
      fail("bead " + bead_->name + " of " + residue_->name + " has no COOR record: its position is undefined");
    residue_->beads.push_back(std::move(*bead_));
    bead_.reset();
  }

  CgBead& bead_here() {
    if (!bead_) fail(record_ + " outside BEAD ... ENDBEAD");
    return *bead_;
  }

  // REPR, COOR and CHAR describe a bead once: a second one would silently replace the
  // first (a bead moved to other atoms), so it is refused.
  CgBead& once_per_bead() {
    CgBead& b = bead_here();
    const auto [seen, first] = bead_records_.emplace(record_, line_);
    if (!first)
      fail(record_ + " given twice for bead " + b.name + " of " + residue_->name + " (first at line " +
           std::to_string(seen->second) + ")");
    return b;
  }

  void charge(const std::vector<std::string_view>& args) {
    CgBead& b = once_per_bead();
    expect_count(args, 1, "CHAR charge");
    const auto q = text::parse_number<double>(args[0]);
    if (!q) fail("charge '" + std::string(args[0]) + "' is not a number");
    b.charge = *q;
  }

  void connections(const std::vector<std::string_view>& args) {
    CgBead& b = bead_here();
    for (const std::string& name : names(args, "bead names (NAME, +NAME or -NAME)")) {
      CgConnection c;
      c.line = line_;
      c.bead = name;
      if (name.front() == '+' || name.front() == '-') {
        c.residue_offset = name.front() == '+' ? 1 : -1;
        c.bead = name.substr(1);
      }
      if (c.bead.empty()) fail("'" + name + "' names no bead");
      if (c.residue_offset == 0 && c.bead == b.name) fail("bead " + b.name + " cannot connect to itself");
      b.connections.push_back(c);
    }
  }

  // As sop-top2: a bead's mass is the sum, over its REPR names, of the MASS whose symbol
  // is the name's first letter (names without a matching MASS add nothing).
  void compute_masses() {
    for (CgResidue& r : out_.residues)
      for (CgBead& b : r.beads)
        for (const std::string& atom : b.represented)
          for (const CgMass& m : out_.masses)
            if (m.symbol.front() == atom.front()) b.mass_amu += m.mass_amu;
  }

  std::string file_;
  int line_ = 0;
  std::string record_;
  CgDescription out_;
  std::optional<CgResidue> residue_;
  std::optional<CgBead> bead_;
  std::map<std::string, int> bead_records_;  // REPR/COOR/CHAR of the open bead: their line
};

}  // namespace

const CgBead* CgResidue::find(const std::string& bead_name) const {
  for (const CgBead& b : beads)
    if (b.name == bead_name) return &b;
  return nullptr;
}

const CgResidue* CgDescription::find(const std::string& residue_name) const {
  for (const CgResidue& r : residues)
    if (r.name == residue_name) return &r;
  return nullptr;
}

CgDescription read_cg_description(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw Error(file.string(), 0, "cgconfig", "coarse-graining description not found (or not a file)");
  std::ifstream in(file);
  if (!in) {
    const int open_errno = errno;
    throw Error(file.string(), 0, "cgconfig", cannot_open_input(file, open_errno));
  }
  return Reader(file).read(in);
}

}  // namespace ermak
