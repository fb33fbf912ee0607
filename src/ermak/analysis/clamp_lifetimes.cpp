#include "ermak/analysis/clamp_lifetimes.h"

#include <cmath>
#include <limits>

namespace ermak::analysis {

std::optional<ClampUnfolding> clamp_unfolding(std::span<const double> time_ns, std::span<const double> extension_nm,
                                              double x_unfolded_nm) {
  std::size_t first = 0;
  while (first < extension_nm.size() && !std::isfinite(extension_nm[first])) ++first;
  if (first == extension_nm.size() || extension_nm[first] >= x_unfolded_nm) return std::nullopt;
  std::size_t i = first;
  while (i < extension_nm.size() && !(std::isfinite(extension_nm[i]) && extension_nm[i] >= x_unfolded_nm)) ++i;
  ClampUnfolding u;
  u.unfolded = i < extension_nm.size();
  u.time_ns = time_ns[u.unfolded ? i : extension_nm.size() - 1] - time_ns[first];
  return u;
}

ExponentialLifetime exponential_lifetime(std::span<const double> times, std::span<const char> unfolded) {
  ExponentialLifetime l;
  for (std::size_t i = 0; i < times.size(); ++i) {
    l.exposure += times[i];
    l.events += unfolded[i] != 0 ? 1 : 0;
  }
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (l.events == 0 || !(l.exposure > 0.0)) {
    l.tau = l.tau_se = l.tau_low = l.tau_high = nan;
    return l;
  }
  const double k = double(l.events);
  l.tau = l.exposure / k;
  l.tau_se = l.tau / std::sqrt(k);
  // With u = τ/τ̂ the deviance is 2k (ln u + 1/u − 1): falling on u < 1, rising on u > 1.
  const double target = 3.841458820694124 / (2.0 * k);
  auto excess = [](double u) { return std::log(u) + 1.0 / u - 1.0; };
  auto solve = [&](double inside, double outside) {  // excess(inside) < target < excess(outside)
    for (int it = 0; it < 200; ++it) {
      const double mid = std::sqrt(inside * outside);
      (excess(mid) < target ? inside : outside) = mid;
    }
    return std::sqrt(inside * outside);
  };
  double low = 0.5, high = 2.0;
  while (excess(low) < target) low *= 0.5;
  while (excess(high) < target) high *= 2.0;
  l.tau_low = l.tau * solve(1.0, low);
  l.tau_high = l.tau * solve(1.0, high);
  return l;
}

}  // namespace ermak::analysis
