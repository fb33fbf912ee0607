#include "support/synthetic_pulling.h"

#include <algorithm>
#include <random>

#include "ermak/analysis/wlc.h"

namespace ermak::test {

std::vector<SyntheticPullingRow> synthetic_wlc_pulling(const std::vector<double>& rupture_pN, unsigned seed,
                                                       int last_row) {
  const double kappa = 50.0, p = 0.4, kT = analysis::kT_pN_nm(300.0), v_nm_per_ns = 0.5;
  const std::vector<double> lc = {10.0, 20.0, 30.0};
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  // The extension where the spring's force equals the chain's, by bisection.
  auto solve = [&](double b, double L) {
    double lo = 0.0, hi = std::min(b, L * (1 - 1e-12));
    for (int it = 0; it < 100 && hi > 0.0; ++it) {
      const double mid = 0.5 * (lo + hi);
      (kappa * (b - mid) - analysis::marko_siggia_force(mid, L, p, kT) > 0.0 ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  };
  std::vector<SyntheticPullingRow> rows;
  std::size_t k = 0;
  for (int i = 0; i <= last_row; ++i) {
    const double b = 0.005 * i;
    double x = solve(b, lc[k]);
    while (k < rupture_pN.size() && kappa * (b - x) >= rupture_pN[k]) x = solve(b, lc[++k]);
    const double f = kappa * (b - x) + 3.0 * gauss(rng);
    const double xn = x + 0.02 * gauss(rng);
    rows.push_back({1000LL * i, b / v_nm_per_ns, b, xn, f});
  }
  return rows;
}

}  // namespace ermak::test
