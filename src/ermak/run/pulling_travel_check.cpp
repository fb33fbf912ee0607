#include "ermak/run/pulling_travel_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include "ermak/core/round_number.h"
#include "ermak/core/units.h"
#include "ermak/model/bonded_paths.h"

namespace ermak {
namespace {

// Beyond this the fully stretched chain is loaded far past any unfolding force (a few hundred
// pN) on its way to breaking a bond.
constexpr double kOverloadForce_pN = 1000.0;


// What a moving spring (a cantilever, a moving plane) straightens first: of its beads, the one
// with the least slack (contour to its nearest anchored bead along the bonds, less their span
// at the start); then each Å of travel stretches its spring.
struct ChainReach {
  std::string what;            // "pulling: the base", "plane_pulling: plane 1"
  std::int32_t pulled = -1, anchor = -1;
  double contour_A = 0.0, slack_A = 0.0;
  double step_A = 0.0;         // travel per step
  double kappa_pN_per_nm = 0.0;   // the springs' together: m·κ for m pulled beads
  std::size_t springs = 1;
  double overload_travel_A = 0.0;  // slack + 1000 pN/(m·κ)
};

// `away` (a plane's direction of travel; zero: any) keeps only the beads it moves away from
// their anchor: a plane pressed towards the anchors straightens no chain.
std::optional<ChainReach> chain_reach(std::string what, const std::vector<std::int32_t>& pulled,
                                      const std::vector<std::int32_t>& anchors, double spring_kcal_per_mol_A2,
                                      double step_A, const BondGraph& graph,
                                      const std::vector<Vec3d>& start_positions_A, Vec3d away = {}) {
  if (pulled.empty() || anchors.empty() || !(spring_kcal_per_mol_A2 > 0) || !(step_A > 0)) return std::nullopt;
  ChainReach reach;
  reach.what = std::move(what);
  reach.step_A = step_A;
  double slack_A = -1.0;
  auto consider = [&](const BondedPaths& paths) {
    const auto n = std::int32_t(std::min(start_positions_A.size(), paths.length_A.size()));
    for (std::int32_t b : pulled) {
      if (b < 0 || b >= n) continue;
      const double length = paths.length_A[std::size_t(b)];
      if (!(length > 0) || !std::isfinite(length)) continue;  // no chain to an anchor, or an anchor itself
      const std::int32_t f = paths.origin[std::size_t(b)];
      if (dot(start_positions_A[std::size_t(b)] - start_positions_A[std::size_t(f)], away) < 0.0) continue;
      const double slack = length - norm(start_positions_A[std::size_t(b)] - start_positions_A[std::size_t(f)]);
      if (slack_A < 0 || slack < slack_A) {
        slack_A = std::max(slack, 0.0);
        reach.contour_A = length, reach.pulled = b, reach.anchor = f;
      }
    }
  };
  // Each anchor's paths when they are few (the least slack of every pair); the nearest anchor
  // along the bonds for a layer of many (a capsid's fixed beads).
  if (anchors.size() <= 64)
    for (std::int32_t f : anchors) consider(bonded_paths_from(graph, {f}));
  else
    consider(bonded_paths_from(graph, anchors));
  if (reach.pulled < 0) return std::nullopt;
  reach.slack_A = slack_A;
  // Past its slack the chain holds all m springs, which the base stretches alike: their
  // summed force (pulling.tsv's force_along, plane.tsv's) rises at m·κ per unit travel (an
  // audit's two beads reached 1780 pN at the step count given as "below ~1000 pN").
  reach.springs = std::max<std::size_t>(pulled.size(), 1);
  reach.kappa_pN_per_nm = double(reach.springs) * units::internal_spring_to_pN_per_nm(spring_kcal_per_mol_A2);
  reach.overload_travel_A = slack_A + 10.0 * kOverloadForce_pN / reach.kappa_pN_per_nm;
  return reach;
}

// The pulling spring against the fixed beads; each moving plane against the fixed beads and
// the static planes' beads.
std::vector<ChainReach> chain_reaches(const RunSpec& spec, const Topology& topology,
                                      const std::vector<Vec3d>& start_positions_A) {
  std::vector<ChainReach> reaches;
  if (!spec.pulling.enabled && !spec.plane_pulling.enabled) return reaches;
  const BondGraph graph = bond_graph(topology);
  const double h = spec.langevin.timestep_tau;
  if (spec.pulling.enabled)
    if (auto r = chain_reach("pulling: the base", spec.pulling.pulled_beads, spec.fixed_beads,
                             spec.pulling.spring_kcal_per_mol_A2, std::abs(spec.pulling.speed_A_per_tau) * h, graph,
                             start_positions_A))
      reaches.push_back(std::move(*r));
  if (spec.plane_pulling.enabled) {
    std::vector<std::int32_t> anchors = spec.fixed_beads;
    for (const PlaneSpec& plane : spec.plane_pulling.planes)
      if (plane.speed_A_per_tau == 0.0) anchors.insert(anchors.end(), plane.beads.begin(), plane.beads.end());
    for (std::size_t k = 0; k < spec.plane_pulling.planes.size(); ++k) {
      const PlaneSpec& plane = spec.plane_pulling.planes[k];
      const Vec3d travel_direction = plane.speed_A_per_tau > 0 ? plane.normal : -1.0 * plane.normal;
      if (auto r = chain_reach(fmt::format("plane_pulling: plane {}", k), plane.beads, anchors,
                               plane.spring_kcal_per_mol_A2, std::abs(plane.speed_A_per_tau) * h, graph,
                               start_positions_A, travel_direction))
        reaches.push_back(std::move(*r));
    }
  }
  return reaches;
}

}  // namespace

PullingTravel assess_pulling_travel(const RunSpec& spec, const Topology& topology,
                                    const std::vector<Vec3d>& start_positions_A) {
  PullingTravel travel;
  std::string& warnings = travel.warning;
  for (const ChainReach& reach : chain_reaches(spec, topology, start_positions_A)) {
    const double step = std::ceil(reach.overload_travel_A / reach.step_A);
    const std::int64_t s = step < 9.0e18 ? std::int64_t(step) : std::numeric_limits<std::int64_t>::max();
    if (!travel.overload_step || s < *travel.overload_step) travel.overload_step = s;
    const double travel_A = reach.step_A * double(spec.steps);
    const double end_force_pN = reach.kappa_pN_per_nm * (travel_A - reach.slack_A) / 10.0;
    if (!(end_force_pN > kOverloadForce_pN)) continue;
    if (!warnings.empty()) warnings += '\n';
    warnings += fmt::format(
                    "warning: {} travels {:.4g} nm over the run's {} steps, but the chain from {} bead {} to "
                    "pulled bead {} is {:.4g} nm long (its bonds' native lengths; {:.4g} nm from straight at the "
                    "start): past that the {} a fully extended chain, and {} would reach "
                    "~{:.0f} pN by the last step — a bond breaks on the way (a few nN), and the curve beyond Lc "
                    "measures nothing. Unless that is meant, run.steps ≈ {:.0f} takes it {:.3g} nm, below ~{:g} pN "
                    "on the straight chain (docs/protocols.md#planning-a-pulling-run-at-experimental-speeds)",
                    reach.what, travel_A / 10.0, spec.steps,
                    reach.what.rfind("pulling:", 0) == 0 ? "fixed" : "anchored", reach.anchor, reach.pulled,
                    reach.contour_A / 10.0, reach.slack_A / 10.0,
                    reach.springs > 1 ? fmt::format("{} springs stretch", reach.springs) : std::string("spring stretches"),
                    reach.springs > 1 ? "their summed force" : "its force", end_force_pN,
                    round_down_significant(reach.overload_travel_A / reach.step_A, 3), reach.overload_travel_A / 10.0,
                    kOverloadForce_pN);
  }
  return travel;
}

std::optional<std::int64_t> pulling_overload_step(const RunSpec& spec, const Topology& topology,
                                                  const std::vector<Vec3d>& start_positions_A) {
  return assess_pulling_travel(spec, topology, start_positions_A).overload_step;
}

std::string pulling_travel_warning(const RunSpec& spec, const Topology& topology,
                                   const std::vector<Vec3d>& start_positions_A) {
  return assess_pulling_travel(spec, topology, start_positions_A).warning;
}

}  // namespace ermak
