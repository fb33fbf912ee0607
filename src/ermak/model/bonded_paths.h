#pragma once
// Paths along a model's bonds (docs/model.md#fene): the contour length of the chain between
// two beads — the sum of the bonds' native lengths on the shortest bonded path — which no
// force stretches the chain beyond without stretching its bonds. Used by the run's pulling
// travel check (run/pulling_travel_check.h) and by `ermak analyze` (analysis/chain_contour.h).
#include <cstdint>
#include <utility>
#include <vector>

#include "ermak/model/topology.h"

namespace ermak {

// Shortest bonded paths from the nearest of several sources (multi-source Dijkstra), with the
// source each bead is reached from.
struct BondedPaths {
  std::vector<double> length_A;
  std::vector<std::int32_t> origin;
};

// Each bead's bonded partners with the bonds' native lengths, built once for all searches.
using BondGraph = std::vector<std::vector<std::pair<std::int32_t, double>>>;

BondGraph bond_graph(const Topology& topology);

// Dijkstra over the bonds from every source at once: each bead's distance from its nearest
// source (+∞ where no bonded path leads: a break, another chain) and that source (−1).
BondedPaths bonded_paths_from(const BondGraph& graph, const std::vector<std::int32_t>& sources);

// The contour length (Å) of the shortest path along bonds from bead `from` to every bead
// (+∞ where none leads).
std::vector<double> bonded_path_lengths_A(const Topology& topology, std::int32_t from);
// The same from `a` to `b`; 0 where no bonded path joins them (or a bead is out of range).
double bonded_contour_length_A(const Topology& topology, std::int32_t a, std::int32_t b);

}  // namespace ermak
