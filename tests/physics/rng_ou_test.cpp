// The application test of docs/rng.md#application-test, kept fast: N = 2000 oscillators
// per ensemble with Δt = 10 ns (τ = 1657 ns = 166 steps, ε = Δt/τ = 0.6 %) instead of the
// paper's 1 ps, so that 2τ takes 331 steps. The tolerance is 5 standard errors of the
// ensemble average (σ ∝ 1/sqrt(N)) plus the exact difference between the Euler scheme
// and the continuous Ornstein–Uhlenbeck curves (ou_application.h). A deliberately wrong
// noise (variance 10 % too large, or correlated between steps) must fail it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "ermak/rng/noise_source.h"
#include "ermak/rng/ou_application.h"

namespace {

using namespace ermak;

rng::OuOptions fast_options(const std::string& generator, const std::string& layout) {
  rng::OuOptions o;
  o.generator = generator;
  o.layout = layout;
  o.oscillators = 2000;
  o.dt_ps = 10000;
  o.samples = 50;
  o.seed = 61;
  return o;
}

TEST(RngOuApplication, PassesForTheGeneratorsOfTheStudy) {
  for (const auto& [generator, layout] :
       {std::pair<const char*, const char*>{"hybrid_taus", "per_thread"}, {"ran2", "per_thread"},
        {"lagged_fibonacci", "shared"}, {"mt19937", "per_thread"}, {"mt19937", "shared"}, {"philox", "per_thread"}}) {
    const rng::OuResult r = rng::run_ou_application(fast_options(generator, layout));
    SCOPED_TRACE(r.verdict());
    EXPECT_TRUE(r.pass);
    EXPECT_LT(r.max_z_mean, 5.0);
    EXPECT_LT(r.max_z_acf, 5.0);
    EXPECT_EQ(r.points.size(), 51u);
    EXPECT_NEAR(r.tau_ns, 1656.78, 0.05);        // k_B T/(D k_sp) = 4.14195 pN nm/(0.25 · 0.01)
    EXPECT_NEAR(r.variance_nm2, 414.195, 0.01);  // k_B T/k_sp
    EXPECT_EQ(r.points.front().mean, 10.0);
  }
}

TEST(RngOuApplication, ExpectationsAreTheExactCurves) {
  const rng::OuResult r = rng::run_ou_application(fast_options("philox", ""));
  for (const rng::OuPoint& p : r.points) {
    EXPECT_NEAR(p.mean_exact, 10.0 * std::exp(-p.t_ns / r.tau_ns), 1e-12);
    EXPECT_NEAR(p.acf_exact, r.variance_nm2 * std::exp(-p.t_ns / r.tau_ns), 1e-9);
    // Euler and exact curves differ by O(Δt/τ) only.
    EXPECT_NEAR(p.mean_discrete, p.mean_exact, 0.01 * 10.0);
    EXPECT_NEAR(p.acf_discrete, p.acf_exact, 0.01 * r.variance_nm2);
  }
  EXPECT_GE(r.points.back().t_ns, 2 * r.tau_ns - 10.0);  // 2τ rounded up to whole samples
  EXPECT_LE(r.points.back().t_ns, 2 * r.tau_ns + 50 * 10.0);
}

// Wraps a source and damages its output.
class DamagedSource : public rng::NoiseSource {
 public:
  DamagedSource(std::unique_ptr<rng::NoiseSource> inner, float scale, float memory)
      : inner_(std::move(inner)), scale_(scale), memory_(memory) {}
  std::string name() const override { return "damaged"; }
  void fill(std::int32_t replica, std::int64_t step, float* gx, float* gy, float* gz) override {
    inner_->fill(replica, step, gx, gy, gz);
    auto& prev = previous_[replica];
    prev.resize(3 * 2000, 0.0f);
    for (int i = 0; i < 2000; ++i) {
      float* g[3] = {&gx[i], &gy[i], &gz[i]};
      for (int c = 0; c < 3; ++c) {
        // g' = scale·(g + memory·g_prev)/sqrt(1 + memory²): unit variance when scale = 1,
        // but correlated between consecutive steps.
        const float mixed = (*g[c] + memory_ * prev[3 * i + c]) / std::sqrt(1.0f + memory_ * memory_);
        prev[3 * i + c] = *g[c];
        *g[c] = scale_ * mixed;
      }
    }
  }
  std::vector<std::uint8_t> save_state() const override { return {}; }
  void restore_state(const std::vector<std::uint8_t>&) override {}

 private:
  std::unique_ptr<rng::NoiseSource> inner_;
  float scale_, memory_;
  std::vector<float> previous_[2];
};

TEST(RngOuApplication, FailsForWrongNoise) {
  const rng::OuOptions o = fast_options("philox", "");
  {
    DamagedSource too_strong(rng::make_noise_source("philox", "", o.seed, 2, o.oscillators), 1.1f, 0.0f);
    const rng::OuResult r = rng::run_ou_application(o, &too_strong);
    EXPECT_FALSE(r.pass) << r.verdict();
    std::printf("%s\n", r.verdict().c_str());
  }
  {
    DamagedSource correlated(rng::make_noise_source("philox", "", o.seed, 2, o.oscillators), 1.0f, 0.5f);
    const rng::OuResult r = rng::run_ou_application(o, &correlated);
    EXPECT_FALSE(r.pass) << r.verdict();
    std::printf("%s\n", r.verdict().c_str());
  }
}

}  // namespace
