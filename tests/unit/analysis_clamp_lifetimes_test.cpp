// Unfolding times of force-clamp trajectories and their exponential lifetime
// (analysis/clamp_lifetimes.h, docs/analysis.md#force-clamp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "ermak/analysis/clamp_lifetimes.h"

namespace ermak::analysis {
namespace {

TEST(ClampLifetimes, FirstRecordedRowAtTheUnfoldedExtension) {
  const std::vector<double> t = {0, 1, 2, 3, 4, 5};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto u = clamp_unfolding(t, std::vector<double>{1, 2, 9, 3, 12, 2}, 8.0);
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->unfolded);
  EXPECT_EQ(u->time_ns, 2.0);
  u = clamp_unfolding(t, std::vector<double>{1, 2, 3, 3, 4, 2}, 8.0);  // never: censored at the last row
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->unfolded);
  EXPECT_EQ(u->time_ns, 5.0);
  // A nan row is no unfolding; a nan first row is skipped (the time counts from the first finite).
  u = clamp_unfolding(t, std::vector<double>{nan, 2, nan, 3, 9, 2}, 8.0);
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->unfolded);
  EXPECT_EQ(u->time_ns, 3.0);
  EXPECT_FALSE(clamp_unfolding(t, std::vector<double>{9, 2, 3, 3, 4, 2}, 8.0));  // starts beyond
  EXPECT_FALSE(clamp_unfolding(t, std::vector<double>(6, nan), 8.0));
}

// τ = T/k, se τ/√k, and the likelihood-ratio interval: for k = 5 it runs from 0.465 τ to
// 2.79 τ (ln u + 1/u − 1 = 3.84/10), far from symmetric.
TEST(ClampLifetimes, MaximumLikelihoodWithCensoringAndItsInterval) {
  const std::vector<double> times = {13.5, 15.0, 16.2, 17.7, 19.1, 19.8};
  const std::vector<char> unfolded = {1, 1, 1, 1, 1, 0};
  const ExponentialLifetime l = exponential_lifetime(times, unfolded);
  EXPECT_EQ(l.events, 5u);
  EXPECT_NEAR(l.exposure, 101.3, 1e-9);
  EXPECT_NEAR(l.tau, 101.3 / 5, 1e-12);
  EXPECT_NEAR(l.tau_se, l.tau / std::sqrt(5.0), 1e-12);
  for (double u : {l.tau_low / l.tau, l.tau_high / l.tau}) EXPECT_NEAR(std::log(u) + 1 / u - 1, 3.841458820694124 / 10, 1e-9);
  EXPECT_NEAR(l.tau_low / l.tau, 0.4653, 0.0005);
  EXPECT_NEAR(l.tau_high / l.tau, 2.789, 0.002);
  const ExponentialLifetime none = exponential_lifetime(times, std::vector<char>(6, 0));
  EXPECT_EQ(none.events, 0u);
  EXPECT_TRUE(std::isnan(none.tau));
}

// Coverage: exponential lifetimes (τ = 10) censored at t = 15, 40 trajectories each; the 95 %
// interval holds τ in ≥ 180 of 200 samples (binomial: 190 expected, sd 3.1).
TEST(ClampLifetimes, TheIntervalCoversTheLifetime) {
  std::mt19937_64 rng(17);
  std::exponential_distribution<double> lifetime(0.1);
  int covered = 0;
  for (int sample = 0; sample < 200; ++sample) {
    std::vector<double> times;
    std::vector<char> unfolded;
    for (int r = 0; r < 40; ++r) {
      const double t = lifetime(rng);
      times.push_back(std::min(t, 15.0));
      unfolded.push_back(t < 15.0 ? 1 : 0);
    }
    const ExponentialLifetime l = exponential_lifetime(times, unfolded);
    covered += l.tau_low <= 10.0 && 10.0 <= l.tau_high;
  }
  EXPECT_GE(covered, 180);
}

}  // namespace
}  // namespace ermak::analysis
