#pragma once
// Unfolding times of force-clamp trajectories and their exponential lifetime
// (docs/analysis.md#force-clamp): the first recorded row whose extension reaches the
// unfolded state's, or censored at the last row; τ by maximum likelihood with its
// likelihood-ratio interval.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>

namespace ermak::analysis {

struct ClampUnfolding {
  double time_ns = 0.0;   // from the first finite row to the unfolding row, or to the last row
  bool unfolded = false;  // false: censored at the last row
};

// From one replica's recorded rows; nullopt when its first finite extension is already at
// or beyond x_unfolded_nm (or it has none). Non-finite rows never count as reaching it.
std::optional<ClampUnfolding> clamp_unfolding(std::span<const double> time_ns, std::span<const double> extension_nm,
                                              double x_unfolded_nm);

// Exponential lifetimes with censoring: log L(τ) = −k ln τ − T/τ for k unfoldings and a total
// time at risk T, so τ = T/k with standard error τ/√k, and the 95 % likelihood-ratio
// interval where 2 [log L(τ̂) − log L(τ)] = 3.84 (asymmetric: for few events the upper end
// lies far above τ + 2 se).
struct ExponentialLifetime {
  std::size_t events = 0;
  double exposure = 0.0;  // T, in the times' unit
  double tau = 0.0, tau_se = 0.0, tau_low = 0.0, tau_high = 0.0;  // NaN without events
};
ExponentialLifetime exponential_lifetime(std::span<const double> times, std::span<const char> unfolded);

// A clamp whose recorded force runs over more than max(0.5 pN, 1 % of its mean) is a force
// schedule, not a clamp at one force: no exponential lifetime describes it.
inline bool is_force_schedule(double force_min_pN, double force_max_pN, double mean_force_pN) {
  return force_max_pN - force_min_pN > std::max(0.5, 0.01 * std::abs(mean_force_pN));
}

// Unfolding times that vary far less than exponential lifetimes (coefficient of variation 1)
// do: CV below 0.5 over at least 5 times, all unfolded — a lag or a chain dragged open
// rather than one barrier crossed.
inline bool far_less_varied_than_exponential(double cv, std::size_t events) {
  return std::isfinite(cv) && cv < 0.5 && events >= 5;
}

}  // namespace ermak::analysis
