#include "ermak/model/residue_selection.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace ermak {

namespace {

std::vector<std::string_view> split_colons(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) return parts;
    start = colon + 1;
  }
}

// "76", "-3" or "52B": a residue number with an optional one-letter insertion code.
bool parse_residue_number(std::string_view text, int& number, char& insertion, bool allow_insertion) {
  insertion = ' ';
  if (!text.empty() && allow_insertion && std::isalpha(static_cast<unsigned char>(text.back()))) {
    insertion = text.back();
    text.remove_suffix(1);
  }
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, number);
  return ec == std::errc() && ptr == end;
}

bool printable_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isgraph(static_cast<unsigned char>(c)) && c != '"' && c != '\\';
  });
}

// The model's chains for an error about `wanted`: those whose names begin with it first (an
// assembly's copies A1 … A60 of the file's chain A), then the others; at most 20 named.
std::string chain_list(const Topology& topology, const std::string& wanted) {
  std::vector<std::string> chains;
  std::string previous;
  for (const BeadInfo& b : topology.beads) {
    if (b.chain_id == previous) continue;
    previous = b.chain_id;
    if (std::find(chains.begin(), chains.end(), b.chain_id) == chains.end()) chains.push_back(b.chain_id);
  }
  std::vector<std::string> prefixed;
  for (const std::string& c : chains)
    if (!wanted.empty() && c.rfind(wanted, 0) == 0) prefixed.push_back(c);
  constexpr std::size_t kShown = 20;
  auto shown = [&](const std::vector<std::string>& list) {
    const std::vector<std::string> head(list.begin(), list.begin() + std::ptrdiff_t(std::min(list.size(), kShown)));
    return fmt::format("{}{}", fmt::join(head, ", "),
                       list.size() > kShown ? fmt::format(" … and {} more", list.size() - kShown) : std::string());
  };
  if (!prefixed.empty())
    return fmt::format("{} chains begin with \"{}\": {}; {} chains in all", prefixed.size(), wanted, shown(prefixed),
                       chains.size());
  return chains.size() > kShown ? fmt::format("{} chains: {}", chains.size(), shown(chains)) : shown(chains);
}

std::string residue_text(int number, char insertion) {
  return insertion == ' ' ? std::to_string(number) : std::to_string(number) + insertion;
}

}  // namespace

bool looks_like_residue_selection(std::string_view text) { return text.find(':') != std::string_view::npos; }

bool looks_like_position_selection(std::string_view text) {
  const std::size_t axis = text.find_first_not_of(' ');
  if (axis == std::string_view::npos || (text[axis] != 'x' && text[axis] != 'y' && text[axis] != 'z')) return false;
  const std::size_t op = text.find_first_not_of(' ', axis + 1);
  return op != std::string_view::npos && (text[op] == '<' || text[op] == '>');
}

std::optional<PositionSelection> parse_position_selection(std::string_view text, std::string* why) {
  const auto fail = [&]() -> std::optional<PositionSelection> {
    *why = fmt::format("\"{}\" is not a position selection (write an axis, < or > and a coordinate in Å, e.g. "
                       "\"z<-131.5\" for every bead below z = −131.5 Å at the input coordinates)",
                       text);
    return std::nullopt;
  };
  if (!looks_like_position_selection(text)) return fail();
  PositionSelection s;
  s.text = std::string(text);
  const std::size_t axis = text.find_first_not_of(' ');
  s.axis = text[axis] - 'x';
  const std::size_t op = text.find_first_not_of(' ', axis + 1);
  s.below = text[op] == '<';
  std::string_view number = text.substr(op + 1);
  while (!number.empty() && number.front() == ' ') number.remove_prefix(1);
  while (!number.empty() && number.back() == ' ') number.remove_suffix(1);
  if (number.empty()) return fail();
  const char* end = number.data() + number.size();
  const auto [ptr, ec] = std::from_chars(number.data(), end, s.value_A);
  if (ec != std::errc() || ptr != end || !std::isfinite(s.value_A)) return fail();
  return s;
}

std::vector<std::int32_t> select_beads_at(const std::vector<Vec3d>& positions_A, const PositionSelection& selection,
                                          std::string* why) {
  std::vector<std::int32_t> beads;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < positions_A.size(); ++i) {
    const Vec3d& p = positions_A[i];
    const double c = selection.axis == 0 ? p.x : selection.axis == 1 ? p.y : p.z;
    lo = std::min(lo, c);
    hi = std::max(hi, c);
    if (selection.below ? c < selection.value_A : c > selection.value_A) beads.push_back(std::int32_t(i));
  }
  if (beads.empty())
    *why = positions_A.empty()
               ? fmt::format("\"{}\" selects by position, and no positions are known here", selection.text)
               : fmt::format("\"{}\" selects no bead: the model's {} runs from {:.2f} to {:.2f} Å at the input "
                             "coordinates (the run log's extent line)",
                             selection.text, char('x' + selection.axis), lo, hi);
  return beads;
}

std::optional<ResidueSelection> parse_residue_selection(std::string_view text, std::string* why) {
  const auto fail = [&](const std::string& reason) -> std::optional<ResidueSelection> {
    *why = fmt::format("\"{}\" is not a residue selection: {} (write CHAIN:RESIDUE, e.g. \"A:76\", "
                       "\"A:1-10\", \"A:last\", \"B:*\", with an optional :ATOM such as :CB or :*; or a "
                       "position selection, a lower-case axis: \"z<-131.5\", \"x > 20\")",
                       text, reason);
    return std::nullopt;
  };
  const auto parts = split_colons(text);
  if (parts.size() < 2 || parts.size() > 3) return fail("expected two or three parts separated by ':'");
  ResidueSelection s;
  s.text = std::string(text);
  if (!printable_name(parts[0])) return fail("the chain id is empty or has blanks or quotes");
  s.chain_id = std::string(parts[0]);
  const std::string_view residues = parts[1];
  if (residues == "*") {
    s.whole_chain = true;
  } else if (residues == "first" || residues == "last") {
    s.end = residues == "first" ? ResidueSelection::End::kFirst : ResidueSelection::End::kLast;
  } else {
    // A range's dash follows the first number (which may itself start with '-').
    const std::size_t dash = residues.find('-', 1);
    if (dash == std::string_view::npos) {
      if (!parse_residue_number(residues, s.first, s.insertion_code, true)) {
        // Digits that do not fit an int: say so, not that they are no number.
        const std::string_view digits = residues.substr(residues.size() > 1 && residues[0] == '-' ? 1 : 0);
        if (!digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
          return fail("the residue number is out of range (a PDB's are at most 4 digits; ermak's at most 2147483647)");
        return fail("the residue must be a number with an optional insertion code, a range FIRST-LAST, first, last "
                    "or *");
      }
      s.last = s.first;
    } else {
      char unused = ' ';
      s.range = true;
      if (!parse_residue_number(residues.substr(0, dash), s.first, unused, false) ||
          !parse_residue_number(residues.substr(dash + 1), s.last, unused, false))
        return fail("a range is FIRST-LAST, two residue numbers without insertion codes");
      if (s.last < s.first) return fail("the range's last residue comes before its first");
    }
  }
  if (parts.size() == 3) {
    if (!printable_name(parts[2])) return fail("the atom name is empty or has blanks or quotes");
    s.atom_name = std::string(parts[2]);
  }
  return s;
}

std::vector<std::int32_t> select_beads(const Topology& topology, const ResidueSelection& selection,
                                       std::string* why) {
  // "first"/"last": the residue of the chain's first or last bead, then as a single residue
  // — only the beads beside that one (from..to) when the chain uses its number again (a
  // chain numbered domain by domain), so that a terminus stays a terminus.
  ResidueSelection s = selection;
  std::int32_t from = 0, to = topology.bead_count() - 1;
  if (s.end != ResidueSelection::End::kNone) {
    std::int32_t end_bead = -1;
    for (std::int32_t i = 0; i < topology.bead_count(); ++i)
      if (topology.beads[std::size_t(i)].chain_id == s.chain_id) {
        end_bead = i;
        if (s.end == ResidueSelection::End::kFirst) break;
      }
    if (end_bead >= 0) {
      const BeadInfo& end = topology.beads[std::size_t(end_bead)];
      s.first = s.last = end.residue_number;
      s.insertion_code = end.insertion_code;
      const auto same_residue = [&](std::int32_t i) {
        const BeadInfo& b = topology.beads[std::size_t(i)];
        return b.chain_id == end.chain_id && b.residue_number == end.residue_number &&
               b.insertion_code == end.insertion_code;
      };
      int copies = 0;
      for (std::int32_t i = 0; i < topology.bead_count(); ++i)
        copies += same_residue(i) && topology.beads[std::size_t(i)].atom_name == end.atom_name;
      if (copies > 1) {
        from = to = end_bead;
        while (from > 0 && same_residue(from - 1)) --from;
        while (to + 1 < topology.bead_count() && same_residue(to + 1)) ++to;
      }
    }
  }
  std::vector<std::int32_t> beads;
  bool chain_found = false, residue_found = false;
  int lowest = 0, highest = 0;
  std::vector<std::string> atoms_seen;
  for (std::int32_t i = 0; i < topology.bead_count(); ++i) {
    const BeadInfo& b = topology.beads[std::size_t(i)];
    if (b.chain_id != s.chain_id) continue;
    if (!chain_found || b.residue_number < lowest) lowest = b.residue_number;
    if (!chain_found || b.residue_number > highest) highest = b.residue_number;
    chain_found = true;
    const bool residue = (i >= from && i <= to) && (s.whole_chain ||
                         (s.range ? b.residue_number >= s.first && b.residue_number <= s.last
                                  : b.residue_number == s.first && b.insertion_code == s.insertion_code));
    if (!residue) continue;
    residue_found = true;
    if (std::find(atoms_seen.begin(), atoms_seen.end(), b.atom_name) == atoms_seen.end())
      atoms_seen.push_back(b.atom_name);
    if (s.atom_name == "*" || b.atom_name == s.atom_name) beads.push_back(i);
  }
  // A range must lie within the chain's numbering (gaps inside it are fine): "A:30-50" on
  // a chain that ends at 39 is a mistake, not residues 30-39.
  if (s.range && chain_found && (s.first < lowest || s.last > highest)) {
    *why = fmt::format("\"{}\": the range {} to {} runs past chain {}, whose residue numbers run {} to {}", s.text,
                       s.first, s.last, s.chain_id, lowest, highest);
    return {};
  }
  if (!beads.empty()) return beads;
  if (!chain_found)
    *why = fmt::format("\"{}\": the model has no chain \"{}\" (its chains: {})", s.text, s.chain_id,
                       chain_list(topology, s.chain_id));
  else if (!residue_found) {
    *why = fmt::format("\"{}\": chain {} has no residue {} (its residue numbers run {} to {})", s.text, s.chain_id,
                       s.range ? fmt::format("from {} to {}", s.first, s.last) : residue_text(s.first, s.insertion_code),
                       lowest, highest);
    // An inserted residue in a model without insertion codes (a SOP-GPU .top holds none).
    const bool number_there = std::any_of(topology.beads.begin(), topology.beads.end(), [&](const BeadInfo& b) {
      return b.chain_id == s.chain_id && b.residue_number == s.first;
    });
    if (!s.range && s.insertion_code != ' ' && number_there)
      *why += fmt::format("; the model's beads of residue {} carry no insertion codes — a SOP-GPU .top holds none: "
                          "give the bead's index, or use the .etop that ermak topology writes beside it",
                          s.first);
  }
  else
    *why = fmt::format("\"{}\": no bead named {} there (its beads: {}; :* takes them all)", s.text, s.atom_name,
                       fmt::join(atoms_seen, ", "));
  return beads;
}

std::string describe_bead(const Topology& topology, std::int32_t bead) {
  const BeadInfo& b = topology.beads.at(std::size_t(bead));
  return fmt::format("chain {} residue {} {}", b.chain_id, residue_text(b.residue_number, b.insertion_code),
                     b.atom_name);
}

std::string chain_summary(const Topology& topology, std::size_t max_chains) {
  struct Chain {
    std::string id;
    int lowest = 0, highest = 0;
    std::size_t beads = 0;
  };
  std::vector<Chain> chains;
  for (const BeadInfo& b : topology.beads) {
    auto it = std::find_if(chains.begin(), chains.end(), [&](const Chain& c) { return c.id == b.chain_id; });
    if (it == chains.end()) {
      chains.push_back({b.chain_id, b.residue_number, b.residue_number, 0});
      it = chains.end() - 1;
    }
    it->lowest = std::min(it->lowest, b.residue_number);
    it->highest = std::max(it->highest, b.residue_number);
    ++it->beads;
  }
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < chains.size() && k < max_chains; ++k)
    parts.push_back(fmt::format("{} {}–{} ({} beads)", chains[k].id, chains[k].lowest, chains[k].highest,
                                chains[k].beads));
  if (chains.size() > max_chains) parts.push_back(fmt::format("and {} more", chains.size() - max_chains));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string extent_summary(const Topology& topology, const std::vector<Vec3d>& positions_A) {
  if (positions_A.empty()) return "no beads";
  Vec3d lo = positions_A[0], hi = positions_A[0], sum{0, 0, 0};
  std::size_t lowest = 0, highest = 0;
  for (std::size_t i = 0; i < positions_A.size(); ++i) {
    const Vec3d& p = positions_A[i];
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    sum += p;
    if (p.z < positions_A[lowest].z) lowest = i;
    if (p.z > positions_A[highest].z) highest = i;
  }
  const Vec3d centre = (1.0 / double(positions_A.size())) * sum;
  // + 0.0 prints a negative zero as 0.0.
  lo = lo + Vec3d{0.0, 0.0, 0.0};
  hi = hi + Vec3d{0.0, 0.0, 0.0};
  auto bead = [&](std::size_t i) {
    const BeadInfo& b = topology.beads[i];
    return fmt::format("{}:{} (bead {})", b.chain_id, b.residue_number, i);
  };
  return fmt::format("x {:.1f} … {:.1f}, y {:.1f} … {:.1f}, z {:.1f} … {:.1f} Å; centre ({:.2f}, {:.2f}, {:.2f}) Å; "
                     "lowest z: {}, highest z: {}",
                     lo.x, hi.x, lo.y, hi.y, lo.z, hi.z, centre.x + 0.0, centre.y + 0.0, centre.z + 0.0, bead(lowest),
                     bead(highest));
}

}  // namespace ermak
