#include "ermak/model/topology.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "ermak/core/error.h"

namespace ermak {

std::int32_t count_unbonded_beads(const Topology& topology) {
  std::vector<bool> bonded(std::size_t(topology.bead_count()), false);
  for (const Bond& b : topology.bonds) bonded[std::size_t(b.i)] = bonded[std::size_t(b.j)] = true;
  return static_cast<std::int32_t>(std::count(bonded.begin(), bonded.end(), false));
}

std::vector<char> contacts_between_chains(const Topology& topology) {
  std::vector<std::int32_t> chain_of(topology.beads.size(), 0);
  for (std::size_t b = 1; b < topology.beads.size(); ++b)
    chain_of[b] = chain_of[b - 1] + (topology.beads[b].chain_id != topology.beads[b - 1].chain_id ? 1 : 0);
  std::vector<char> between(topology.native_contacts.size(), 0);
  for (std::size_t k = 0; k < between.size(); ++k) {
    const NativeContact& c = topology.native_contacts[k];
    between[k] = chain_of[std::size_t(c.i)] != chain_of[std::size_t(c.j)];
  }
  return between;
}

std::size_t count_contacts_between_chains(const Topology& topology) {
  std::size_t between = 0;
  for (const char b : contacts_between_chains(topology)) between += b ? 1 : 0;
  return between;
}

std::pair<float, float> native_energy_range(const Topology& topology) {
  if (topology.native_contacts.empty()) return {0.0f, 0.0f};
  float lo = topology.native_contacts.front().eh_kcal_per_mol, hi = lo;
  for (const NativeContact& c : topology.native_contacts) {
    lo = std::min(lo, c.eh_kcal_per_mol);
    hi = std::max(hi, c.eh_kcal_per_mol);
  }
  return {lo, hi};
}

std::vector<std::int32_t> bonded_pieces(const Topology& topology) {
  const std::size_t n = std::size_t(topology.bead_count());
  std::vector<std::int32_t> parent(n);
  for (std::size_t i = 0; i < n; ++i) parent[i] = std::int32_t(i);
  auto root = [&](std::int32_t i) {
    while (parent[std::size_t(i)] != i) i = parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
    return i;
  };
  for (const Bond& b : topology.bonds) {
    const std::int32_t ri = root(b.i), rj = root(b.j);
    if (ri != rj) parent[std::size_t(std::max(ri, rj))] = std::min(ri, rj);
  }
  std::vector<std::int32_t> piece(n, -1), number_of_root(n, -1);
  std::int32_t pieces = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t& number = number_of_root[std::size_t(root(std::int32_t(i)))];
    if (number < 0) number = pieces++;
    piece[i] = number;
  }
  return piece;
}

void validate_topology(const Topology& topology, const std::string& source) {
  const std::int32_t n = topology.bead_count();
  if (n == 0) throw Error(source, 0, "beads", "the topology has no beads");
  if (!topology.native_positions_A.empty() &&
      static_cast<std::int32_t>(topology.native_positions_A.size()) != n)
    throw Error(source, 0, "coordinates",
                "has " + std::to_string(topology.native_positions_A.size()) +
                    " positions for " + std::to_string(n) + " beads");
  std::set<std::pair<int, int>> seen;
  auto check_pair = [&](std::int32_t i, std::int32_t j, const char* what, std::size_t index) {
    const std::string field = std::string(what) + "[" + std::to_string(index) + "]";
    if (i < 0 || j < 0 || i >= n || j >= n)
      throw Error(source, 0, field,
                  "bead index out of range (" + std::to_string(i) + ", " + std::to_string(j) +
                      "; the system has " + std::to_string(n) + " beads)");
    if (i == j) throw Error(source, 0, field, "a bead cannot interact with itself");
    auto key = std::minmax(i, j);
    if (!seen.insert({key.first, key.second}).second)
      throw Error(source, 0, field,
                  "pair (" + std::to_string(i) + ", " + std::to_string(j) +
                      ") appears twice among bonds and native contacts");
  };
  for (std::size_t b = 0; b < topology.bonds.size(); ++b) {
    const Bond& bond = topology.bonds[b];
    check_pair(bond.i, bond.j, "bonds", b);
    if (!(bond.r0_A > 0.0f) || !std::isfinite(bond.r0_A))
      throw Error(source, 0, "bonds[" + std::to_string(b) + "]", "r0 must be positive");
  }
  for (std::size_t c = 0; c < topology.native_contacts.size(); ++c) {
    const NativeContact& contact = topology.native_contacts[c];
    check_pair(contact.i, contact.j, "native_contacts", c);
    if (!(contact.r0_A > 0.0f) || !std::isfinite(contact.r0_A))
      throw Error(source, 0, "native_contacts[" + std::to_string(c) + "]", "r0 must be positive");
    if (!(contact.eh_kcal_per_mol >= 0.0f) || !std::isfinite(contact.eh_kcal_per_mol))
      throw Error(source, 0, "native_contacts[" + std::to_string(c) + "]",
                  "epsilon_h must be non-negative");
  }
}

bool ExclusionList::excluded(std::int32_t i, std::int32_t j) const {
  auto begin = partners.begin() + offsets[i];
  auto end = partners.begin() + offsets[i + 1];
  return std::binary_search(begin, end, j);
}

ExclusionList build_exclusions(const Topology& topology) {
  const std::int32_t n = topology.bead_count();
  std::vector<std::vector<std::int32_t>> per_bead(n);
  auto add = [&](std::int32_t i, std::int32_t j) {
    per_bead[i].push_back(j);
    per_bead[j].push_back(i);
  };
  for (const Bond& b : topology.bonds) add(b.i, b.j);
  for (const NativeContact& c : topology.native_contacts) add(c.i, c.j);
  ExclusionList list;
  list.offsets.resize(n + 1, 0);
  for (std::int32_t i = 0; i < n; ++i) {
    std::sort(per_bead[i].begin(), per_bead[i].end());
    list.offsets[i + 1] = list.offsets[i] + static_cast<std::int32_t>(per_bead[i].size());
  }
  list.partners.reserve(list.offsets[n]);
  for (auto& partners : per_bead) list.partners.insert(list.partners.end(), partners.begin(), partners.end());
  return list;
}

ChainEnds chain_ends(const Topology& topology) {
  const std::int32_t n = topology.bead_count();
  ChainEnds ends{0, n > 0 ? n - 1 : 0};
  std::int32_t first = -1, last = -1;
  for (std::int32_t i = 0; i < n; ++i)
    if (topology.beads[std::size_t(i)].atom_name == "CA") {
      if (first < 0) first = i;
      last = i;
    }
  if (first >= 0) ends = {first, last};
  return ends;
}

}  // namespace ermak
