#include "ermak/io/sopgpu_topology_config.h"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "ermak/core/closest_name.h"
#include "ermak/core/error.h"
#include "ermak/io/input_file.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

struct Entry {
  std::string key;
  std::string value;  // after macro expansion, trimmed
  int line = 0;
};

constexpr int kMaxMacroDepth = 16;

class ConfigReader {
 public:
  explicit ConfigReader(std::string file) : file_(std::move(file)) {}

  // SOP-GPU's layout: the first word is the key, the rest of the line up to '#' the value.
  // Lines starting with '#' or a blank are skipped (SOP-GPU skips indented lines too).
  void read_lines(std::istream& in, std::vector<std::string>& notes) {
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
      ++line;
      if (line == 1) raw = std::string(text::without_bom(raw));
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      // A NUL would end the key where no reader of the text sees it (an audit's "name\0 ww"
      // surfaced lines later as an undefined macro).
      if (raw.find('\0') != std::string::npos)
        throw Error(file_, line, "", "the line holds a NUL byte: a damaged file, or not a text file");
      if (raw.empty() || raw.front() == '#') continue;
      if (raw.front() == ' ' || raw.front() == '\t') {
        if (!text::split_columns(raw.substr(0, raw.find('#'))).empty())
          notes.push_back(file_ + ":" + std::to_string(line) +
                          ": line starts with a blank: ignored, as SOP-GPU ignores such lines");
        continue;
      }
      std::string_view text(raw);
      text = text.substr(0, text.find('#'));
      const std::size_t end = std::min(text.find_first_of(" \t"), text.size());
      Entry e;
      e.key = std::string(text.substr(0, end));
      e.value = std::string(text::trim(text.substr(end)));
      e.line = line;
      if (auto it = first_line_.find(e.key); it != first_line_.end())
        throw Error(file_, line, e.key, "given twice (first on line " + std::to_string(it->second) + ")");
      first_line_.emplace(e.key, line);
      raw_.emplace(e.key, e.value);
      entries_.push_back(std::move(e));
    }
  }

  // `<key>` in a value is replaced by the value of that key (itself expanded).
  void expand_macros() {
    for (Entry& e : entries_) e.value = expand(e.value, e, 0);
  }

  const std::set<std::string>& macro_names() const { return macro_names_; }
  std::vector<Entry>& entries() { return entries_; }

 private:
  std::string expand(const std::string& value, const Entry& where, int depth) {
    if (depth > kMaxMacroDepth)
      throw Error(file_, where.line, where.key, "macros nest deeper than " + std::to_string(kMaxMacroDepth) +
                                                    " levels (a macro that refers to itself?)");
    std::string out;
    std::size_t p = 0;
    while (p < value.size()) {
      const std::size_t open = value.find('<', p);
      const std::size_t close = open == std::string::npos ? std::string::npos : value.find('>', open);
      if (close == std::string::npos) {
        out += value.substr(p);
        break;
      }
      const std::string name = value.substr(open + 1, close - open - 1);
      auto it = raw_.find(name);
      if (it == raw_.end())
        throw Error(file_, where.line, where.key,
                    "macro <" + name + ">: the file has no key '" + name + "' to take the value from");
      macro_names_.insert(name);
      out += value.substr(p, open - p);
      out += expand(it->second, where, depth + 1);
      p = close + 1;
    }
    return out;
  }

  std::string file_;
  std::vector<Entry> entries_;
  std::map<std::string, int> first_line_;
  std::map<std::string, std::string> raw_;
  std::set<std::string> macro_names_;
};

// Interprets the entries: one function per kind of value, errors "file:line: key: what".
class Interpreter {
 public:
  Interpreter(const std::string& file, SopTopologyConfig& out) : file_(file), out_(out) {}

  [[noreturn]] void fail(const Entry& e, const std::string& what) const {
    throw Error(file_, e.line, text::shortened(e.key), what);
  }

  void note(const Entry& e, const std::string& what) {
    out_.notes.push_back(file_ + ":" + std::to_string(e.line) + ": " + e.key + ": " + what);
  }

  std::string word(const Entry& e) const {
    const auto columns = text::split_columns(e.value);
    if (columns.empty()) fail(e, "missing value");
    if (columns.size() > 1) fail(e, "expected one value, found '" + e.value + "'");
    return std::string(columns[0]);
  }

  double number(const Entry& e, double minimum, bool inclusive) const {
    const std::string w = word(e);
    const auto v = text::parse_number<double>(w);
    if (!v) fail(e, "'" + text::shortened(w) + "' is not a number");
    if (inclusive ? *v < minimum : *v <= minimum)
      fail(e, "'" + w + "' must be " + (inclusive ? ">= " : "> ") + std::string(minimum == 0.0 ? "0" : "the minimum"));
    return *v;
  }

  // SOP-GPU's yes/no values (yes, y, on, true; no, n, off, false), any case.
  bool yes_no(const Entry& e) const {
    std::string w = word(e);
    std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return std::tolower(c); });
    if (w == "yes" || w == "y" || w == "on" || w == "true") return true;
    if (w == "no" || w == "n" || w == "off" || w == "false") return false;
    fail(e, "'" + e.value + "' is not yes/no (on/off, true/false)");
  }

  // An optional output/input path; SOP-GPU's "NONE" means none.
  std::filesystem::path path(const Entry& e) const {
    const std::string w = word(e);
    return w == "NONE" ? std::filesystem::path() : std::filesystem::path(w);
  }

  void eh(const Entry& e) {
    const std::string w = word(e);
    out_.eh_text = w;
    if (w == "B" || w == "b") {
      out_.eh_source = EpsilonSource::BFactor;
    } else if (w == "O" || w == "o") {
      out_.eh_source = EpsilonSource::Occupancy;
    } else {
      const auto v = text::parse_number<double>(w);
      // ε_h is stored as a float (as ermak topology --eh bounds it).
      if (!v || *v <= 0.0 || *v > double(std::numeric_limits<float>::max()))
        fail(e, "'" + w + "' is neither a value > 0 and ≤ 3.4e38 (kcal/mol) nor B nor O");
      out_.eh_source = EpsilonSource::Constant;
      out_.eh_kcal_per_mol = *v;
    }
  }

 private:
  std::string file_;
  SopTopologyConfig& out_;
};

bool is_tandem_key(const std::string& key) {
  return key == "linkerLength" || key == "monomerCount" || key == "tandemDirection" || key == "tandemVectorX" ||
         key == "tandemVectorY" || key == "tandemVectorZ" || key == "fixedEnd" || key == "pulledEnd";
}

bool is_linker_key(const std::string& key) {
  return key == "covLinkersCutoff" ||
         (key.starts_with("covLinker") && key.size() > 9 &&
          std::all_of(key.begin() + 9, key.end(), [](unsigned char c) { return std::isdigit(c); }));
}

}  // namespace

SopTopologyConfig read_sopgpu_topology_config(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw Error(name, 0, "", "configuration file not found");
  check_text_input_file(file, "");  // a directory, device or CR-only lines: said as such
  std::ifstream in(file);
  if (!in) {
    const int open_errno = errno;
    throw Error(name, 0, "", cannot_open_input(file, open_errno));
  }

  SopTopologyConfig out;
  out.source = name;
  ConfigReader reader(name);
  reader.read_lines(in, out.notes);
  // A run configuration given to `ermak topology`: say so before its macros (<run>) fail.
  for (const Entry& e : reader.entries())
    if (e.key == "numsteps" || e.key == "timestep" || e.key == "outputtiming")
      throw Error(name, e.line, e.key,
                  "a key of SOP-GPU's run configurations: run it with `ermak run " +
                      std::filesystem::path(name).filename().string() +
                      "`; `ermak topology` takes the topology-creation configuration (sop-top, sop-top2)");
  reader.expand_macros();
  Interpreter read(name, out);

  std::map<std::string, const Entry*> by_key;
  for (const Entry& e : reader.entries()) {
    by_key.emplace(e.key, &e);
    out.key_lines.emplace(e.key, e.line);
  }
  const auto has = [&](const char* key) { return by_key.count(key) > 0; };
  out.style = has("cgconfig") ? SopTopologyStyle::SopTop2 : SopTopologyStyle::SopTop;
  out.sc_limit_A = out.style == SopTopologyStyle::SopTop2 ? 5.0 : 0.0;
  const bool tandem = has("createTandem") && read.yes_no(*by_key["createTandem"]);
  if (tandem) read.fail(*by_key["createTandem"], "tandems (createTandem) are not supported yet");

  for (const Entry& e : reader.entries()) {
    const std::string& k = e.key;
    if (k == "structure") out.structure = read.path(e);
    else if (k == "topology") out.topology = read.path(e);
    else if (k == "coordinates") out.coordinates = read.path(e);
    else if (k == "cgconfig") out.cgconfig = read.path(e);
    else if (k == "topology_psf") out.topology_psf = read.path(e);
    else if (k == "topology_natpsf") out.topology_natpsf = read.path(e);
    else if (k == "additional_bonds") {
      out.additional_bonds = read.path(e);
      if (out.style != SopTopologyStyle::SopTop2 && !out.additional_bonds.empty())
        read.fail(e, "a sop-top2 key: it needs a coarse-graining description (cgconfig); for a C-alpha model "
                     "use `ermak topology STRUCTURE --extra-bonds FILE`");
    } else if (k == "R_limit_bond") out.r_limit_A = read.number(e, 0.0, true);
    else if (k == "SC_limit_bond") out.sc_limit_A = read.number(e, 0.0, true);
    else if (k == "eh") read.eh(e);
    else if (k == "pairs_threshold") out.pairs_threshold_A = read.number(e, -1e300, true);  // <= 0: no [ pairs ]
    else if (k == "covalent_cutoff") out.break_distance_A = read.number(e, 0.0, false);
    else if (k == "covalentRepulsion") {
      if (read.yes_no(e))
        read.fail(e, "covalentRepulsion on (bonded pairs also repel) is not supported yet: ermak never applies the "
                     "repulsion to bonded pairs");
    } else if (k == "createTandem") {
      // off (on was refused above)
    } else if (is_tandem_key(k)) {
      read.note(e, "no effect (createTandem is off)");
    } else if (k == "covLinkersCount") {
      const double count = read.number(e, 0.0, true);
      if (count > 0)
        read.fail(e, "covalent linkers (covLinker1, ...) are not supported yet; use `ermak topology STRUCTURE "
                     "--extra-bonds FILE` (docs/topology.md#extra-bonds-file)");
    } else if (is_linker_key(k)) {
      read.note(e, "no effect (covLinkersCount is 0 or not given)");
    } else if (k == "SS_cutoff") {
      read.number(e, 0.0, false);
      read.note(e, out.style == SopTopologyStyle::SopTop
                       ? "no effect: SSBOND records are bonded whatever their C-alpha distance (docs/topology.md#"
                         "covalent-bonds-fene)"
                       : "no effect: sop-top2 configs add disulfides only through additional_bonds");
    } else if (k == "a") {
      read.number(e, 0.0, false);
      read.note(e, "no effect on the topology: a (the repulsion radius sigma) is a run parameter");
    } else if (k == "Ks") {
      read.number(e, 0.0, false);
      read.note(e, "no effect on the topology: the .top holds no spring constant; the FENE k is a run parameter "
                   "(kspring_cov)");
    } else if (k == "pairs_cutoff") {
      read.number(e, 0.0, false);
      read.note(e, "no effect on the topology: the repulsion cutoff is a run parameter");
    } else if (k == "use_chains") {
      read.yes_no(e);
      read.note(e, "no effect: ermak always tells chains apart by the chain column (a blank chain takes the "
                   "segment id)");
    } else if (k == "name" || k == "author") {
      // informational (and macro sources)
    } else if (reader.macro_names().count(k) == 0) {
      static constexpr std::string_view kKeys[] = {
          "structure", "topology",   "coordinates", "cgconfig",       "topology_psf",      "topology_natpsf",
          "additional_bonds", "R_limit_bond", "SC_limit_bond", "eh", "pairs_threshold", "covalent_cutoff",
          "covalentRepulsion", "createTandem", "covLinkersCount", "SS_cutoff", "a", "Ks", "pairs_cutoff",
          "use_chains", "name", "author"};
      read.fail(e, "unknown key" + did_you_mean(k, kKeys) +
                       ": not a SOP-GPU topology-creation key (docs/topology.md#sop-gpu-topology-creation-"
                       "configs), and no <" + text::shortened(k) + "> macro uses it");
    }
  }

  auto require = [&](const std::filesystem::path& p, const char* key) {
    if (p.empty()) throw Error(name, 0, key, "required key missing (or NONE)");
  };
  require(out.structure, "structure");
  require(out.topology, "topology");
  require(out.coordinates, "coordinates");
  if (out.style == SopTopologyStyle::SopTop2 && !has("eh"))
    throw Error(name, 0, "eh", "required by sop-top2 configs (a value in kcal/mol, or B / O)");
  if (out.r_limit_A == 0.0 && out.sc_limit_A == 0.0)
    throw Error(name, 0, "R_limit_bond", "R_limit_bond and SC_limit_bond are both 0: no native contact could form");
  return out;
}

}  // namespace ermak
