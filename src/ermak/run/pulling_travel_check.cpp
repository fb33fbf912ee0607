#include "ermak/run/pulling_travel_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "ermak/core/units.h"

namespace ermak {
namespace {

// Beyond this the fully stretched chain is loaded far past any unfolding force (a few hundred
// pN) on its way to breaking a bond.
constexpr double kOverloadForce_pN = 1000.0;

// 816 327.4 → 817 000: a step count to type, not to read digit by digit.
double round_up_to_3_digits(double x) {
  if (!(x > 0)) return x;
  const double unit = std::pow(10.0, std::floor(std::log10(x)) - 2);
  return std::ceil(x / unit) * unit;
}

}  // namespace

double bonded_contour_length_A(const Topology& topology, std::int32_t a, std::int32_t b) {
  if (a > b) std::swap(a, b);
  std::map<std::int32_t, double> next_bond_A;  // bond (k, k + 1) by k
  for (const Bond& bond : topology.bonds)
    if (std::abs(bond.i - bond.j) == 1) next_bond_A[std::min(bond.i, bond.j)] = bond.r0_A;
  double length = 0.0;
  for (std::int32_t k = a; k < b; ++k) {
    const auto it = next_bond_A.find(k);
    if (it == next_bond_A.end()) return 0.0;
    length += it->second;
  }
  return length;
}

std::string pulling_travel_warning(const RunSpec& spec, const Topology& topology,
                                   const std::vector<Vec3d>& start_positions_A) {
  const PullingSpec& p = spec.pulling;
  if (!p.enabled || spec.fixed_beads.empty() || p.pulled_beads.empty() || !(p.spring_kcal_per_mol_A2 > 0)) return "";
  const auto n = std::int32_t(start_positions_A.size());
  // The chain each spring can straighten: to its nearest fixed bead along the bonds.
  double slack_A = -1.0, contour_A = 0.0;
  std::int32_t pulled = -1, fixed = -1;
  for (std::int32_t b : p.pulled_beads) {
    for (std::int32_t f : spec.fixed_beads) {
      if (b < 0 || b >= n || f < 0 || f >= n) continue;
      const double length = bonded_contour_length_A(topology, f, b);
      if (!(length > 0)) continue;
      // What the base travels before this chain is straight: its contour less the start's span.
      const double slack = length - norm(start_positions_A[std::size_t(b)] - start_positions_A[std::size_t(f)]);
      if (slack_A < 0 || slack < slack_A) slack_A = std::max(slack, 0.0), contour_A = length, pulled = b, fixed = f;
    }
  }
  if (pulled < 0) return "";
  const double step_A = p.speed_A_per_tau * spec.langevin.timestep_tau;
  const double travel_A = step_A * double(spec.steps);
  const double kappa_pN_per_nm = units::internal_spring_to_pN_per_nm(p.spring_kcal_per_mol_A2);
  const double end_force_pN = kappa_pN_per_nm * (travel_A - slack_A) / 10.0;
  if (!(end_force_pN > kOverloadForce_pN) || !(step_A > 0)) return "";
  const double enough_A = slack_A + 10.0 * kOverloadForce_pN / kappa_pN_per_nm;
  return fmt::format(
      "warning: pulling: the base travels {:.4g} nm over the run's {} steps, but the chain from fixed bead {} to "
      "pulled bead {} is {:.4g} nm long (its bonds' native lengths; {:.4g} nm from straight at the start): past that "
      "the spring stretches a fully extended chain, and its force would reach ~{:.0f} pN by the last step — a bond "
      "breaks on the way (a few nN), and the curve beyond Lc measures nothing. Unless that is meant, "
      "run.steps ≈ {:.0f} takes the base {:.3g} nm, to ~{:g} pN on the straight chain "
      "(docs/protocols.md#planning-a-pulling-run-at-experimental-speeds)",
      travel_A / 10.0, spec.steps, fixed, pulled, contour_A / 10.0, slack_A / 10.0, end_force_pN,
      round_up_to_3_digits(enough_A / step_A), enough_A / 10.0, kOverloadForce_pN);
}

}  // namespace ermak
