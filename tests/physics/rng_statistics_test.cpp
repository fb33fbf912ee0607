// Statistical smoke tests of every generator and layout (docs/rng.md#tests): uniforms
// from the raw words and Gaussians from NoiseSource::fill, checked for mean, variance,
// the Kolmogorov–Smirnov distance, and correlations between neighbouring beads, between
// replicas, between steps and between the components of a bead.
//
// Thresholds come from the sample size n: means and correlations within 5 standard
// errors (σ_mean = sqrt(Var/n), σ_r = 1/sqrt(n)), the variance within 5 σ of its
// estimator (uniform: Var[(u − ½)²] = 1/80 − 1/144 = 1/180; Gaussian: 2), and the KS
// statistic sqrt(n)·D below 2.5 (P(K > 2.5) ≈ 2e^{−12.5} ≈ 7.5e−6). These are smoke tests:
// dieharder (docs/rng.md#dieharder) is the real battery.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ermak/rng/noise_source.h"
#include "ermak/rng/philox_gaussian.h"
#include "ermak/rng/philox_gaussian_batch.h"

namespace {

using namespace ermak;

constexpr double kZ = 5.0;
constexpr double kKs = 2.5;

struct Combo {
  std::string generator, layout;
};
std::vector<Combo> all_combos() {
  std::vector<Combo> combos;
  for (const auto& g : rng::generator_names())
    for (const auto& l : rng::layout_names(g)) combos.push_back({g, l});
  return combos;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

double central_moment2(const std::vector<double>& v, double mu) {
  double s = 0;
  for (double x : v) s += (x - mu) * (x - mu);
  return s / double(v.size());
}

// Pearson correlation of equally long samples.
double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const double ma = mean(a), mb = mean(b);
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    sab += (a[k] - ma) * (b[k] - mb);
    saa += (a[k] - ma) * (a[k] - ma);
    sbb += (b[k] - mb) * (b[k] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

// |correlation| within kZ standard errors of zero (independent samples).
void expect_uncorrelated(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
  EXPECT_LT(std::abs(correlation(a, b)), kZ / std::sqrt(double(a.size()))) << what;
}

// g_x² against g_y²: Box–Muller pairs share a radius, so in a bad transform |g_x| and |g_y|
// are dependent; for a correct one the squares are uncorrelated.
void expect_squares_uncorrelated(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> x2, y2;
  for (std::size_t k = 0; k < x.size(); ++k) { x2.push_back(x[k] * x[k]); y2.push_back(y[k] * y[k]); }
  expect_uncorrelated(x2, y2, "x^2 vs y^2");
}

// What every per-bead noise stream must show: successive steps of a bead, and its three
// components (and their squares), uncorrelated.
void expect_steps_and_components_uncorrelated(const std::vector<double>& step_a, const std::vector<double>& step_b,
                                              const std::vector<double>& cx, const std::vector<double>& cy,
                                              const std::vector<double>& cz) {
  expect_uncorrelated(step_a, step_b, "step n vs step n+1");
  expect_uncorrelated(cx, cy, "x vs y");
  expect_uncorrelated(cx, cz, "x vs z");
  expect_squares_uncorrelated(cx, cy);
}

template <class Cdf>
double ks_statistic(std::vector<double> v, Cdf cdf) {
  std::sort(v.begin(), v.end());
  const double n = double(v.size());
  double d = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double f = cdf(v[i]);
    d = std::max({d, f - double(i) / n, double(i + 1) / n - f});
  }
  return std::sqrt(n) * d;
}

TEST(RngStatistics, UniformsFromRawWords) {
  const std::size_t n = 1 << 18;
  for (const Combo& c : all_combos()) {
    SCOPED_TRACE(c.generator + "/" + c.layout);
    // Two interleaved streams: even words from stream 0, odd words from stream 1.
    auto words = rng::make_interleaved_word_stream(c.generator, c.layout, 20240611, 2, 1000);
    std::vector<double> u(n), s0, s1;
    for (std::size_t k = 0; k < n; ++k) {
      u[k] = (double(words->next()) + 0.5) / 4294967296.0;
      (k % 2 ? s1 : s0).push_back(u[k]);
    }
    const double m = mean(u);
    EXPECT_NEAR(m, 0.5, kZ * std::sqrt(1.0 / 12.0 / double(n)));
    EXPECT_NEAR(central_moment2(u, 0.5), 1.0 / 12.0, kZ * std::sqrt(1.0 / 180.0 / double(n)));
    EXPECT_LT(ks_statistic(u, [](double x) { return x; }), kKs);
    // Serial correlation within a stream (lag 1) and between the two streams.
    std::vector<double> a(s0.begin(), s0.end() - 1), b(s0.begin() + 1, s0.end());
    expect_uncorrelated(a, b, "lag-1 within stream 0");
    expect_uncorrelated(s0, s1, "stream 0 vs stream 1");
  }
}

TEST(RngStatistics, GaussiansFromNoiseSource) {
  const std::int32_t beads = 2048, steps = 24, replicas = 2;
  for (const Combo& c : all_combos()) {
    SCOPED_TRACE(c.generator + "/" + c.layout);
    auto source = rng::make_noise_source(c.generator, c.layout, 777, replicas, beads);
    // g[replica][step][component][bead]
    std::vector<float> g(std::size_t(replicas) * steps * 3 * beads);
    auto at = [&](int r, int s, int comp) { return &g[((std::size_t(r) * steps + s) * 3 + comp) * beads]; };
    for (int s = 0; s < steps; ++s)
      for (int r = 0; r < replicas; ++r) source->fill(r, s, at(r, s, 0), at(r, s, 1), at(r, s, 2));
    std::vector<double> all(g.begin(), g.end());
    const double n = double(all.size());
    const double m = mean(all);
    EXPECT_NEAR(m, 0.0, kZ / std::sqrt(n));
    EXPECT_NEAR(central_moment2(all, 0.0), 1.0, kZ * std::sqrt(2.0 / n));
    EXPECT_LT(ks_statistic(all, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }), kKs);
    double max_abs = 0;
    for (double x : all) max_abs = std::max(max_abs, std::abs(x));
    EXPECT_LE(max_abs, 5.78) << "24-bit uniforms truncate at sqrt(2 ln 2^24) = 5.77";

    // Correlations: neighbouring beads, replicas, consecutive steps, components x–y, x–z.
    std::vector<double> bead_a, bead_b, rep_a, rep_b, step_a, step_b, cx, cy, cz;
    for (int s = 0; s < steps; ++s)
      for (int comp = 0; comp < 3; ++comp)
        for (int i = 0; i < beads; ++i) {
          const float v = at(0, s, comp)[i];
          if (i + 1 < beads) { bead_a.push_back(v); bead_b.push_back(at(0, s, comp)[i + 1]); }
          rep_a.push_back(v);
          rep_b.push_back(at(1, s, comp)[i]);
          if (s + 1 < steps) { step_a.push_back(v); step_b.push_back(at(0, s + 1, comp)[i]); }
        }
    for (int s = 0; s < steps; ++s)
      for (int i = 0; i < beads; ++i) {
        cx.push_back(at(0, s, 0)[i]);
        cy.push_back(at(0, s, 1)[i]);
        cz.push_back(at(0, s, 2)[i]);
      }
    expect_uncorrelated(bead_a, bead_b, "bead i vs bead i+1");
    expect_uncorrelated(rep_a, rep_b, "replica 0 vs replica 1");
    expect_steps_and_components_uncorrelated(step_a, step_b, cx, cy, cz);
  }
}

// The CPU engine's batched Philox Gaussians (rng/philox_gaussian_batch.h, own log/sincos):
// the same moments, KS distance and correlations as above, with neighbouring beads both
// inside one 8-lane block and across block boundaries.
TEST(RngStatistics, BatchedPhiloxGaussians) {
  const std::int32_t beads = 2048, steps = 48;
  std::vector<double> all, cx, cy, cz, bead_a, bead_b, cross_a, cross_b, step_a, step_b;
  std::vector<std::array<float, 3>> previous(beads);
  for (int s = 0; s < steps; ++s)
    for (std::int32_t b0 = 0; b0 < beads; b0 += 8) {
      const rng::Gaussians8 g = rng::gaussian3_batch8(99, rng::Stream::kBeadLangevin, 3, std::uint32_t(b0), std::uint64_t(s));
      for (int k = 0; k < 8; ++k) {
        const std::array<float, 3> v = {g.x.v[k], g.y.v[k], g.z.v[k]};
        for (float x : v) all.push_back(x);
        cx.push_back(v[0]); cy.push_back(v[1]); cz.push_back(v[2]);
        const std::int32_t i = b0 + k;
        if (s > 0) for (int c = 0; c < 3; ++c) { step_a.push_back(previous[i][c]); step_b.push_back(v[c]); }
        previous[i] = v;
        if (k > 0) {
          const std::array<float, 3> left = {g.x.v[k - 1], g.y.v[k - 1], g.z.v[k - 1]};
          for (int c = 0; c < 3; ++c) { bead_a.push_back(left[c]); bead_b.push_back(v[c]); }
        }
      }
    }
  // Neighbours across a block boundary: bead 8J+7 vs 8J+8, and within: 8J+k vs 8J+k+1.
  for (int s = 0; s < steps; ++s)
    for (std::int32_t b0 = 0; b0 + 8 < beads; b0 += 8) {
      const float left = rng::gaussian3_batch8(99, rng::Stream::kBeadLangevin, 3, std::uint32_t(b0), std::uint64_t(s)).x.v[7];
      const float right = rng::gaussian3_batch8(99, rng::Stream::kBeadLangevin, 3, std::uint32_t(b0 + 8), std::uint64_t(s)).x.v[0];
      cross_a.push_back(left);
      cross_b.push_back(right);
    }
  const double n = double(all.size());
  EXPECT_NEAR(mean(all), 0.0, kZ / std::sqrt(n));
  EXPECT_NEAR(central_moment2(all, 0.0), 1.0, kZ * std::sqrt(2.0 / n));
  EXPECT_LT(ks_statistic(all, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }), kKs);
  double max_abs = 0;
  for (double x : all) max_abs = std::max(max_abs, std::abs(x));
  EXPECT_LE(max_abs, 5.78) << "24-bit uniforms truncate at sqrt(2 ln 2^24) = 5.77";
  expect_uncorrelated(bead_a, bead_b, "bead i vs bead i+1 within a block");
  expect_uncorrelated(cross_a, cross_b, "bead 8J+7 vs 8J+8");
  expect_steps_and_components_uncorrelated(step_a, step_b, cx, cy, cz);
}

TEST(RngStatistics, LcgLowBitsAreWeakAsDocumented) {
  // docs/rng.md#lcg: bit k of the LCG has period 2^(k+1); the lowest bit alternates.
  auto words = rng::make_word_stream("lcg", "per_thread", 1, 0, 1);
  std::uint32_t previous = words->next();
  for (int k = 0; k < 1000; ++k) {
    const std::uint32_t x = words->next();
    ASSERT_NE(x & 1u, previous & 1u);
    previous = x;
  }
}

}  // namespace
