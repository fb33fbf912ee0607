#include "ermak/analysis/chain_contour.h"

#include <cstddef>
#include <queue>
#include <system_error>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/topology_file.h"

namespace ermak::analysis {

std::optional<double> contour_length_between_nm(const std::filesystem::path& run_dir, int from, int to) {
  const std::filesystem::path file = run_dir / "model.etop";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  Topology topology;
  try {
    topology = read_topology_file(file);
  } catch (const Error&) {
    return std::nullopt;  // a note the analysis can do without
  }
  const int n = topology.bead_count();
  if (from < 0 || to < 0 || from >= n || to >= n || from == to) return std::nullopt;
  // Breadth-first from `from` over the bonds; each bead remembers the bond it was reached by.
  const std::size_t beads = static_cast<std::size_t>(n);
  std::vector<std::vector<std::size_t>> bonds_of(beads);
  for (std::size_t b = 0; b < topology.bonds.size(); ++b) {
    bonds_of[std::size_t(topology.bonds[b].i)].push_back(b);
    bonds_of[std::size_t(topology.bonds[b].j)].push_back(b);
  }
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> reached_by(beads, kNone);
  std::vector<bool> seen(beads, false);
  std::queue<int> next;
  next.push(from);
  seen[std::size_t(from)] = true;
  while (!next.empty() && !seen[std::size_t(to)]) {
    const int bead = next.front();
    next.pop();
    for (const std::size_t b : bonds_of[std::size_t(bead)]) {
      const int other = topology.bonds[b].i == bead ? topology.bonds[b].j : topology.bonds[b].i;
      if (seen[std::size_t(other)]) continue;
      seen[std::size_t(other)] = true;
      reached_by[std::size_t(other)] = b;
      next.push(other);
    }
  }
  if (!seen[std::size_t(to)]) return std::nullopt;
  double length_A = 0.0;
  for (int bead = to; bead != from;) {
    const Bond& bond = topology.bonds[reached_by[std::size_t(bead)]];
    length_A += double(bond.r0_A);
    bead = bond.i == bead ? bond.j : bond.i;
  }
  return 0.1 * length_A;
}

}  // namespace ermak::analysis
