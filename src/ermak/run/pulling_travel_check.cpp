#include "ermak/run/pulling_travel_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include "ermak/core/units.h"

namespace ermak {
namespace {

// Beyond this the fully stretched chain is loaded far past any unfolding force (a few hundred
// pN) on its way to breaking a bond.
constexpr double kOverloadForce_pN = 1000.0;

// 816 424.4 → 816 000: a step count to type, and one that stays below the force it is for.
double round_down_to_3_digits(double x) {
  if (!(x > 0)) return x;
  const double unit = std::pow(10.0, std::floor(std::log10(x)) - 2);
  return std::floor(x / unit) * unit;
}

}  // namespace

std::vector<double> bonded_path_lengths_A(const Topology& topology, std::int32_t from) {
  const std::size_t n = topology.beads.size();
  std::vector<std::vector<std::pair<std::int32_t, double>>> next(n);
  for (const Bond& bond : topology.bonds) {
    next[std::size_t(bond.i)].emplace_back(bond.j, bond.r0_A);
    next[std::size_t(bond.j)].emplace_back(bond.i, bond.r0_A);
  }
  std::vector<double> length(n, std::numeric_limits<double>::infinity());
  if (from < 0 || std::size_t(from) >= n) return length;
  // Dijkstra over the bonds: the backbone of a C-alpha model is its consecutive beads, that of
  // a C-alpha–C-beta model every other bead (its side chains branch off).
  using Item = std::pair<double, std::int32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  length[std::size_t(from)] = 0.0;
  queue.emplace(0.0, from);
  while (!queue.empty()) {
    const auto [d, bead] = queue.top();
    queue.pop();
    if (d > length[std::size_t(bead)]) continue;
    for (const auto& [other, r0] : next[std::size_t(bead)])
      if (d + r0 < length[std::size_t(other)]) {
        length[std::size_t(other)] = d + r0;
        queue.emplace(d + r0, other);
      }
  }
  return length;
}

double bonded_contour_length_A(const Topology& topology, std::int32_t a, std::int32_t b) {
  if (a < 0 || b < 0 || std::size_t(b) >= topology.beads.size()) return 0.0;
  const double length = bonded_path_lengths_A(topology, a)[std::size_t(b)];
  return std::isfinite(length) ? length : 0.0;
}

namespace {

// The chain a pulling run straightens first: from a pulled bead to a fixed bead along the
// bonds, the one with the least slack (its contour less its span at the start).
struct ChainReach {
  std::int32_t pulled = -1, fixed = -1;
  double contour_A = 0.0, slack_A = 0.0;
  double step_A = 0.0;           // base travel per step
  double kappa_pN_per_nm = 0.0;
  double overload_travel_A = 0.0;  // slack + 1000 pN/κ
};

std::optional<ChainReach> chain_reach(const RunSpec& spec, const Topology& topology,
                                      const std::vector<Vec3d>& start_positions_A) {
  const PullingSpec& p = spec.pulling;
  if (!p.enabled || spec.fixed_beads.empty() || p.pulled_beads.empty() || !(p.spring_kcal_per_mol_A2 > 0))
    return std::nullopt;
  ChainReach reach;
  reach.step_A = p.speed_A_per_tau * spec.langevin.timestep_tau;
  if (!(reach.step_A > 0)) return std::nullopt;
  const auto n = std::int32_t(start_positions_A.size());
  double slack_A = -1.0;
  for (std::int32_t b : p.pulled_beads) {
    if (b < 0 || b >= n) continue;
    const std::vector<double> path = bonded_path_lengths_A(topology, b);
    for (std::int32_t f : spec.fixed_beads) {
      if (f < 0 || f >= n) continue;
      const double length = path[std::size_t(f)];
      if (!(length > 0) || !std::isfinite(length)) continue;
      const double slack = length - norm(start_positions_A[std::size_t(b)] - start_positions_A[std::size_t(f)]);
      if (slack_A < 0 || slack < slack_A) {
        slack_A = std::max(slack, 0.0);
        reach.contour_A = length, reach.pulled = b, reach.fixed = f;
      }
    }
  }
  if (reach.pulled < 0) return std::nullopt;
  reach.slack_A = slack_A;
  reach.kappa_pN_per_nm = units::internal_spring_to_pN_per_nm(p.spring_kcal_per_mol_A2);
  reach.overload_travel_A = slack_A + 10.0 * kOverloadForce_pN / reach.kappa_pN_per_nm;
  return reach;
}

}  // namespace

std::optional<std::int64_t> pulling_overload_step(const RunSpec& spec, const Topology& topology,
                                                  const std::vector<Vec3d>& start_positions_A) {
  const auto reach = chain_reach(spec, topology, start_positions_A);
  if (!reach) return std::nullopt;
  const double step = std::ceil(reach->overload_travel_A / reach->step_A);
  return step < 9.0e18 ? std::int64_t(step) : std::numeric_limits<std::int64_t>::max();
}

std::string pulling_travel_warning(const RunSpec& spec, const Topology& topology,
                                   const std::vector<Vec3d>& start_positions_A) {
  const auto reach = chain_reach(spec, topology, start_positions_A);
  if (!reach) return "";
  const double travel_A = reach->step_A * double(spec.steps);
  const double end_force_pN = reach->kappa_pN_per_nm * (travel_A - reach->slack_A) / 10.0;
  if (!(end_force_pN > kOverloadForce_pN)) return "";
  return fmt::format(
      "warning: pulling: the base travels {:.4g} nm over the run's {} steps, but the chain from fixed bead {} to "
      "pulled bead {} is {:.4g} nm long (its bonds' native lengths; {:.4g} nm from straight at the start): past that "
      "the spring stretches a fully extended chain, and its force would reach ~{:.0f} pN by the last step — a bond "
      "breaks on the way (a few nN), and the curve beyond Lc measures nothing. Unless that is meant, "
      "run.steps ≈ {:.0f} takes the base {:.3g} nm, below ~{:g} pN on the straight chain "
      "(docs/protocols.md#planning-a-pulling-run-at-experimental-speeds)",
      travel_A / 10.0, spec.steps, reach->fixed, reach->pulled, reach->contour_A / 10.0, reach->slack_A / 10.0,
      end_force_pN, round_down_to_3_digits(reach->overload_travel_A / reach->step_A), reach->overload_travel_A / 10.0,
      kOverloadForce_pN);
}

}  // namespace ermak
