#include "ermak/model/bonded_paths.h"

#include <cmath>
#include <functional>
#include <limits>
#include <queue>

namespace ermak {

BondGraph bond_graph(const Topology& topology) {
  BondGraph next(topology.beads.size());
  for (const Bond& bond : topology.bonds) {
    next[std::size_t(bond.i)].emplace_back(bond.j, bond.r0_A);
    next[std::size_t(bond.j)].emplace_back(bond.i, bond.r0_A);
  }
  return next;
}

BondedPaths bonded_paths_from(const BondGraph& next, const std::vector<std::int32_t>& sources) {
  const std::size_t n = next.size();
  BondedPaths paths{std::vector<double>(n, std::numeric_limits<double>::infinity()), std::vector<std::int32_t>(n, -1)};
  // Dijkstra over the bonds: the backbone of a C-alpha model is its consecutive beads, that of
  // a C-alpha–C-beta model every other bead (its side chains branch off).
  using Item = std::pair<double, std::int32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  for (std::int32_t source : sources)
    if (source >= 0 && std::size_t(source) < n) {
      paths.length_A[std::size_t(source)] = 0.0;
      paths.origin[std::size_t(source)] = source;
      queue.emplace(0.0, source);
    }
  while (!queue.empty()) {
    const auto [d, bead] = queue.top();
    queue.pop();
    if (d > paths.length_A[std::size_t(bead)]) continue;
    for (const auto& [other, r0] : next[std::size_t(bead)])
      if (d + r0 < paths.length_A[std::size_t(other)]) {
        paths.length_A[std::size_t(other)] = d + r0;
        paths.origin[std::size_t(other)] = paths.origin[std::size_t(bead)];
        queue.emplace(d + r0, other);
      }
  }
  return paths;
}

std::vector<double> bonded_path_lengths_A(const Topology& topology, std::int32_t from) {
  return bonded_paths_from(bond_graph(topology), {from}).length_A;
}

double bonded_contour_length_A(const Topology& topology, std::int32_t a, std::int32_t b) {
  if (a < 0 || b < 0 || std::size_t(b) >= topology.beads.size()) return 0.0;
  const double length = bonded_path_lengths_A(topology, a)[std::size_t(b)];
  return std::isfinite(length) ? length : 0.0;
}

}  // namespace ermak
