// Rung 2 of the correctness ladder (DESIGN.md §5, docs/validation.md#rung-2): an engine,
// made by the backend under test, against exactly solvable Brownian problems, with
// tolerances derived from the sample sizes. Declared in integrator_statistics_checks.h.
//
// Internal units throughout (Å, kcal/mol, τ_H): k_B T = 0.6, ζ = 50, h = 0.08 unless a
// check says otherwise. Seeds are fixed, so every run is reproducible; thresholds are 5
// standard errors (a false alarm has probability ~6e-7 per check for a Gaussian
// estimator), so a failure means a real discrepancy, not bad luck.
//
// The engine integrates with Euler–Maruyama (Ermak–McCammon):
//   x_{n+1} = x_n + (h/ζ) F(x_n, t_n) + sqrt(2 k_B T(t_n) h/ζ) g_n.
// For a bead on a spring κ (force −κ x) that is the discrete Ornstein–Uhlenbeck process
//   x_{n+1} = a x_n + s g_n,   a = 1 − ε,  ε = hκ/ζ,  s² = 2 k_B T h/ζ,
// whose moments are known exactly:
//   ⟨x_n⟩ = x_0 aⁿ,  Var x_n = v (1 − a^{2n}),  v = s²/(1 − a²) = (k_B T/κ)/(1 − ε/2),
//   stationary ⟨x_{n+k} x_n⟩ = v a^k.
// The continuous process gives x_0 e^{−t/τ}, k_B T/κ and (k_B T/κ) e^{−t/τ} (τ = ζ/κ,
// t = n h). Each check is made twice: against the discrete formula at the 5σ statistical
// tolerance alone, and against the continuous formula at 5σ plus a bound on the O(h)
// difference between the two (derived where used).
#include "support/integrator_statistics_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ermak/rng/noise_source.h"
#include "ermak/rng/philox_gaussian.h"

namespace ermak::test {
namespace {

constexpr double kT = 0.6;      // kcal/mol
constexpr double kZeta = 50.0;  // kcal/mol·τ_H/Å²
constexpr double kH = 0.08;     // τ_H
constexpr double kFiveSigma = 5.0;
const double kE = std::exp(1.0);

Topology single_bead_topology() {
  Topology t;
  t.name = "one bead";
  t.beads.resize(1);
  return t;
}

// All replicas of a one-bead system at the same start point.
State single_bead_state(std::int32_t replicas, Vec3f start) {
  State s(1, replicas);
  for (std::int32_t r = 0; r < replicas; ++r) s.set_position(r, 0, start);
  return s;
}

// Bound on |aⁿ − e^{−nε}| over all n ≥ 0 for a = 1 − ε: since
// −ε − ε²/(2(1−ε)) ≤ ln(1 − ε) ≤ −ε,  0 ≤ e^{−nε} − aⁿ ≤ e^{−nε}·nε²/(2(1−ε))
// ≤ ε/(2e(1−ε))   (n ε e^{−nε} ≤ 1/e).
double decay_bias_bound(double eps) { return eps / (2.0 * kE * (1.0 - eps)); }

// Standard error of the mean of M samples of a stationary series with variance σ² and
// autocorrelation ρ^|k| (an AR(1) process or the square of one): σ²(1+ρ)/((1−ρ)M) —
// the M → ∞ limit of (σ²/M)[1 + 2Σ(1 − k/M)ρ^k], an upper bound for ρ ≥ 0.
double correlated_standard_error(double variance, double rho, double samples) {
  return std::sqrt(variance * (1.0 + rho) / ((1.0 - rho) * samples));
}

// ---------------------------------------------------------------------------------------
// A bead on a spring κ to an anchor: the systems of (b)–(d) and of the force ramp

struct OuSetup {
  double kappa;
  Vec3d anchor{1.5, -2.0, 0.5};
  double eps() const { return kH * kappa / kZeta; }
  double a() const { return 1.0 - eps(); }
  double tau() const { return kZeta / kappa; }
  double v(double temperature = kT) const {  // discrete stationary variance
    return (2.0 * temperature * kH / kZeta) / (1.0 - a() * a());
  }
};

EngineSetup tethered_setup(const Topology& topology, const OuSetup& ou, std::int32_t replicas,
                           std::uint64_t seed) {
  EngineSetup s = integrator_test_setup(topology, replicas, seed);
  HarmonicTether t;
  t.bead = 0;
  t.anchor_start_A = ou.anchor;
  t.spring_kcal_per_mol_A2 = ou.kappa;
  s.tethers.push_back(t);
  return s;
}

// The displacement statistics of (a) after each of `step_counts` (ascending, from 1) of an
// engine whose `replicas` one-bead replicas all started at `start` and have made one step: every
// displacement component after n steps is exactly N(0, 2Dt), D = k_B T/ζ, t = n h (a sum
// of n independent Gaussians: Euler–Maruyama is exact here, no O(h) correction). Over R
// independent replicas:
//   ⟨Δr²⟩: mean 6Dt, per-replica variance 3·2(2Dt)² → relative sd sqrt(2/(3R)) = 0.82 %;
//   per component: m1 sd sqrt(2Dt/R); m2 relative sd sqrt(2/R); m4 = 3(2Dt)² with
//   relative sd sqrt(96/9/R); the fraction with |Δx| < sqrt(2Dt) is 0.682689 with
//   binomial sd sqrt(p(1−p)/R).
void expect_free_diffusion_statistics(Engine& engine, std::int32_t replicas, Vec3f start,
                                      std::initializer_list<std::int64_t> step_counts) {
  const double D = kT / kZeta;
  std::int64_t done = 1;
  for (std::int64_t n : step_counts) {
    engine.advance(n - done);
    done = n;
    const State& s = engine.state();
    ASSERT_EQ(s.step, n);
    const double var = 2.0 * D * n * kH;  // per component
    double msd = 0.0, m1[3] = {}, m2[3] = {}, m4[3] = {}, inside[3] = {};
    for (std::int32_t r = 0; r < replicas; ++r) {
      const Vec3f p = s.position(r, 0);
      const double d[3] = {double(p.x) - start.x, double(p.y) - start.y, double(p.z) - start.z};
      for (int c = 0; c < 3; ++c) {
        m1[c] += d[c];
        m2[c] += d[c] * d[c];
        m4[c] += d[c] * d[c] * d[c] * d[c];
        inside[c] += std::abs(d[c]) < std::sqrt(var) ? 1.0 : 0.0;
      }
      msd += d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    }
    const double R = replicas;
    SCOPED_TRACE("after " + std::to_string(n) + " steps");
    EXPECT_NEAR(msd / R, 6.0 * D * n * kH, kFiveSigma * 6.0 * D * n * kH * std::sqrt(2.0 / (3.0 * R)));
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(m1[c] / R, 0.0, kFiveSigma * std::sqrt(var / R)) << "component " << c;
      EXPECT_NEAR(m2[c] / R, var, kFiveSigma * var * std::sqrt(2.0 / R)) << "component " << c;
      EXPECT_NEAR(m4[c] / R, 3.0 * var * var, kFiveSigma * 3.0 * var * var * std::sqrt(96.0 / 9.0 / R))
          << "component " << c;
      const double p = 0.682689492137;
      EXPECT_NEAR(inside[c] / R, p, kFiveSigma * std::sqrt(p * (1 - p) / R)) << "component " << c;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Free beads on a grid: exact single steps

// 27 beads on a 3×3×3 grid of 25 Å (beyond the 20 Å pair cutoff, so no pair force acts
// before beads have diffused ~5 Å), every replica at the same points, at `step`.
constexpr std::int32_t kGridSide = 3, kGridBeads = kGridSide * kGridSide * kGridSide;

Topology free_grid_topology() {
  Topology topology;
  topology.name = "free beads on a grid";
  topology.beads.resize(kGridBeads);
  return topology;
}

State free_grid_state(std::int32_t replicas, std::int64_t step) {
  State start(kGridBeads, replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < kGridBeads; ++i)
      start.set_position(r, i,
                         {25.0f * float(i % kGridSide) - 20.0f, 25.0f * float(i / kGridSide % kGridSide) + 0.5f,
                          25.0f * float(i / (kGridSide * kGridSide)) - 7.25f});
  start.step = step;
  return start;
}

// Fixed beads for the grid checks: bead 2 inside the first 8-bead lane block of the CPU's
// Philox batch (docs/rng.md#cpu-batch), 8 and 9 together at the start of the second, 26
// the last bead, in the partial last block. A kernel that skipped fixed beads when
// counting noise (free beads drawing their neighbours' Gaussians) shifts every later bead.
const std::vector<std::int32_t> kGridFixedBeads = {2, 8, 9, 26};

// One float ulp of |x| (the spacing just above it).
float ulp_of(float x) { return std::nextafter(std::abs(x), INFINITY) - std::abs(x); }

// The positions `got` against `want`, bead by bead: a fixed bead must keep its exact bits
// (want holds the start there), every other coordinate must lie within `ulps` float ulps
// of the wanted one (the same float operations, maybe fused; more where several steps
// accumulate). Reports the first few misses with `what`; returns their number.
int count_misses(const State& got, const State& want, const std::vector<std::int32_t>& fixed, float ulps,
                 const std::string& what) {
  int misses = 0;
  for (std::int32_t r = 0; r < want.replica_count; ++r)
    for (std::int32_t i = 0; i < want.bead_count; ++i) {
      const bool is_fixed = std::find(fixed.begin(), fixed.end(), i) != fixed.end();
      const std::size_t k = want.index(r, i);
      const float w[3] = {want.x[k], want.y[k], want.z[k]}, h[3] = {got.x[k], got.y[k], got.z[k]};
      for (int c = 0; c < 3; ++c) {
        const bool ok = is_fixed ? std::memcmp(&w[c], &h[c], sizeof(float)) == 0
                                 : std::abs(h[c] - w[c]) <= ulps * ulp_of(w[c]);
        if (ok) continue;
        if (misses < 5)
          ADD_FAILURE() << what << ": replica " << r << (is_fixed ? " fixed" : "") << " bead " << i
                        << " component " << c << " is at " << h[c] << ", expected " << w[c];
        ++misses;
      }
    }
  return misses;
}

// `before` moved by amplitude·g for every bead but the fixed ones: the step of a free
// bead (docs/model.md#dynamics), in the engine's float operations.
State moved_by_noise(const State& before, float amplitude, const std::vector<std::int32_t>& fixed,
                     const std::function<Vec3f(std::int32_t replica, std::int32_t bead)>& g) {
  State want = before;
  want.step = before.step + 1;
  for (std::int32_t r = 0; r < before.replica_count; ++r)
    for (std::int32_t i = 0; i < before.bead_count; ++i) {
      if (std::find(fixed.begin(), fixed.end(), i) != fixed.end()) continue;
      const Vec3f p = before.position(r, i), n = g(r, i);
      want.set_position(r, i, {p.x + amplitude * n.x, p.y + amplitude * n.y, p.z + amplitude * n.z});
    }
  return want;
}

float noise_amplitude(double temperature) { return float(std::sqrt(2.0 * temperature * kH / kZeta)); }

}  // namespace

EngineSetup integrator_test_setup(const Topology& topology, std::int32_t replicas, std::uint64_t seed) {
  EngineSetup s;
  s.topology = &topology;
  s.replicas = replicas;
  s.seed = seed;
  s.langevin.timestep_tau = kH;
  s.langevin.zeta = kZeta;
  s.langevin.temperature_kcal_per_mol = kT;
  s.temperature.start_kcal_per_mol = kT;  // constant unless a test sets a schedule
  // One thread: these tests step and sample alternately (advance(1)), where a parallel
  // region per call only adds fork/join cost, badly so on a loaded machine. The results
  // do not depend on the thread count (IntegratorDeterminism in
  // tests/physics/integrator_statistics_test.cpp checks that); GPU engines ignore it.
  s.threads = 1;
  return s;
}

// ---------------------------------------------------------------------------------------
// (a) Free diffusion

void check_free_diffusion_msd_and_gaussian_steps(const EngineFactory& make_engine) {
  // One bead, no forces, R = 10000 replicas from one start point; the statistics and
  // their 5σ tolerances are those of expect_free_diffusion_statistics.
  constexpr std::int32_t kReplicas = 10000;
  const Topology topology = single_bead_topology();
  const EngineSetup setup = integrator_test_setup(topology, kReplicas, 12345);
  auto engine = make_engine(setup);
  const Vec3f start{1.25f, -3.5f, 7.0f};
  engine->set_state(single_bead_state(kReplicas, start));

  // The first step of a free bead is the noise alone: Δ = sqrt(2 k_B T h/ζ)·g with g the
  // documented Philox Gaussian of (seed, bead stream, replica, bead 0, step 0)
  // (docs/model.md#noise). This pins the engine's counter layout and noise amplitude.
  engine->advance(1);
  {
    const float amplitude = float(std::sqrt(2.0 * kT * kH / kZeta));
    const State& s = engine->state();
    ASSERT_EQ(s.step, 1);
    int mismatches = 0;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const Vec3f g = rng::gaussian3(setup.seed, rng::Stream::kBeadLangevin, std::uint32_t(r), 0, 0);
      const Vec3f want = start + Vec3f{amplitude * g.x, amplitude * g.y, amplitude * g.z};
      const Vec3f got = s.position(r, 0);
      // Within 2 float ulps of |x| ≈ 7 Å (≈ 1e-6 Å): the same operations, maybe fused.
      if (std::abs(got.x - want.x) > 2e-6f || std::abs(got.y - want.y) > 2e-6f ||
          std::abs(got.z - want.z) > 2e-6f)
        ++mismatches;
    }
    EXPECT_EQ(mismatches, 0) << "the first step's noise is not the documented Philox Gaussian";
  }

  expect_free_diffusion_statistics(*engine, kReplicas, start, {1, 10, 100, 1000});
}

namespace {

// Every bead's own noise: the 27 free beads of free_grid_state, 3 replicas, at step
// 2³² + 7 (the step counter's high word in use). The first step moves bead i of replica
// r by exactly sqrt(2 k_B T h/ζ)·g(seed, bead stream, r, i, step) (docs/model.md#noise):
// this pins the counter fields that (a)'s one bead at step 0 leaves at zero — a bead/step
// mix-up or a lane of a vectorised or per-thread kernel drawing another bead's noise
// fails here — and 27 beads cover whole and partial groups of the CPU's 8-bead lanes and
// of the GPU kernels' warps. With `fixed` beads, those keep their bits and the others
// still draw the Gaussians of their own bead index (docs/model.md#fixed-beads: a fixed
// bead's counters are simply not used).
void expect_first_step_is_each_beads_documented_noise(const EngineFactory& make_engine,
                                                      const std::vector<std::int32_t>& fixed) {
  constexpr std::int32_t kReplicas = 3;
  constexpr std::int64_t kStep = (std::int64_t(1) << 32) + 7;
  const Topology topology = free_grid_topology();
  EngineSetup setup = integrator_test_setup(topology, kReplicas, 0x5eed0000abcdull);
  setup.fixed_beads = fixed;
  auto engine = make_engine(setup);
  const State start = free_grid_state(kReplicas, kStep);
  engine->set_state(start);
  engine->advance(1);
  const State& s = engine->state();
  ASSERT_EQ(s.step, kStep + 1);
  const State want = moved_by_noise(start, noise_amplitude(kT), fixed, [&](std::int32_t r, std::int32_t i) {
    return rng::gaussian3(setup.seed, rng::Stream::kBeadLangevin, std::uint32_t(r), std::uint32_t(i),
                          std::uint64_t(kStep));
  });
  // Two float ulps of the coordinate (|x| ≤ 35 Å: ≤ 8e-6 Å): the same operations, maybe fused.
  EXPECT_EQ(count_misses(s, want, fixed, 2.0f, "first step"), 0);
}

}  // namespace

void check_every_bead_draws_its_own_documented_noise(const EngineFactory& make_engine) {
  expect_first_step_is_each_beads_documented_noise(make_engine, {});
}

void check_free_beads_among_fixed_ones_draw_their_own_documented_noise(const EngineFactory& make_engine) {
  expect_first_step_is_each_beads_documented_noise(make_engine, kGridFixedBeads);
}

// ---------------------------------------------------------------------------------------
// (a) The same with a stateful generator (run.rng other than philox,
// docs/rng.md#choosing-the-generator-of-a-run): the engine takes bead i's Gaussians from
// its NoiseSource's fill(replica, step) — one fill per replica per step, fixed beads'
// numbers drawn and discarded — so a fresh NoiseSource of the same generator, layout,
// seed and size, filled step by step, predicts every step exactly.

std::vector<std::pair<std::string, std::string>> noise_source_generator_layouts() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& generator : rng::generator_names()) {
    if (generator == "philox") continue;  // drawn in the step itself, checked above
    for (const std::string& layout : rng::layout_names(generator)) out.emplace_back(generator, layout);
  }
  return out;
}

namespace {

EngineSetup with_generator(EngineSetup setup, const std::string& generator, const std::string& layout) {
  setup.rng = generator;
  setup.rng_layout = layout;
  return setup;
}

// The fill of `source` for every replica at `step`, as a function of (replica, bead).
std::function<Vec3f(std::int32_t, std::int32_t)> filled(rng::NoiseSource& source, std::int32_t replicas,
                                                       std::int32_t beads, std::int64_t step,
                                                       std::vector<Vec3f>& storage) {
  storage.assign(std::size_t(replicas) * std::size_t(beads), Vec3f{});
  const std::size_t n = std::size_t(beads);
  std::vector<float> gx(n), gy(n), gz(n);
  for (std::int32_t r = 0; r < replicas; ++r) {
    source.fill(r, step, gx.data(), gy.data(), gz.data());
    for (std::int32_t i = 0; i < beads; ++i)
      storage[std::size_t(r) * n + std::size_t(i)] = {gx[std::size_t(i)], gy[std::size_t(i)], gz[std::size_t(i)]};
  }
  return [&storage, beads](std::int32_t r, std::int32_t i) {
    return storage[std::size_t(r) * std::size_t(beads) + std::size_t(i)];
  };
}

}  // namespace

void check_noise_source_moves_every_free_bead_by_its_fill(const EngineFactory& make_engine,
                                                          const std::string& generator, const std::string& layout) {
  // The 27 grid beads with beads {2, 8, 9, 26} fixed, 3 replicas, from step 0: steps 0
  // and 1 one call each (2 ulps, as for Philox), then steps 2…6 in one advance(5) (a
  // device engine's noise ring fills several steps ahead): 2 ulps per step, accumulated.
  constexpr std::int32_t kReplicas = 3;
  constexpr std::int64_t kSingleSteps = 2, kOneCall = 5;
  const Topology topology = free_grid_topology();
  EngineSetup setup =
      with_generator(integrator_test_setup(topology, kReplicas, 0x5eed0000abceull), generator, layout);
  setup.fixed_beads = kGridFixedBeads;
  auto engine = make_engine(setup);
  auto source = rng::make_noise_source(generator, layout, setup.seed, kReplicas, kGridBeads);
  const float amplitude = noise_amplitude(kT);
  std::vector<Vec3f> storage;
  engine->set_state(free_grid_state(kReplicas, 0));
  for (std::int64_t step = 0; step < kSingleSteps; ++step) {
    const State before = engine->state();  // each step judged from where the engine was
    engine->advance(1);
    const State want =
        moved_by_noise(before, amplitude, kGridFixedBeads, filled(*source, kReplicas, kGridBeads, step, storage));
    ASSERT_EQ(engine->state().step, step + 1);
    EXPECT_EQ(count_misses(engine->state(), want, kGridFixedBeads, 2.0f, "step " + std::to_string(step)), 0)
        << generator << "/" << layout;
  }
  State want = engine->state();
  engine->advance(kOneCall);
  for (std::int64_t step = kSingleSteps; step < kSingleSteps + kOneCall; ++step)
    want = moved_by_noise(want, amplitude, kGridFixedBeads, filled(*source, kReplicas, kGridBeads, step, storage));
  ASSERT_EQ(engine->state().step, kSingleSteps + kOneCall);
  EXPECT_EQ(count_misses(engine->state(), want, kGridFixedBeads, 2.0f * kOneCall, "steps in one call"), 0)
      << generator << "/" << layout;
}

void check_free_diffusion_with_noise_source(const EngineFactory& make_engine, const std::string& generator,
                                            const std::string& layout) {
  // (a)'s free diffusion with the generator's noise: 10000 one-bead replicas; the first
  // step is amplitude × the fresh source's fill (2 ulps of |x| ≤ 7 Å), then the 5σ
  // statistics of expect_free_diffusion_statistics after 1, 10 and 100 steps (Philox's
  // 1000 would cost ~7–13 s per generator on the CPU, where a fill per replica and step
  // costs more than the step itself; the exact steps above pin the numbers, 100 steps
  // already see a correlation between steps in ⟨Δr²⟩). Each replica has its own stream
  // (per_thread: one per bead and replica; shared: one per replica), so the replicas are
  // independent samples as with Philox.
  constexpr std::int32_t kReplicas = 10000;
  const Topology topology = single_bead_topology();
  const EngineSetup setup = with_generator(integrator_test_setup(topology, kReplicas, 54321), generator, layout);
  auto engine = make_engine(setup);
  const Vec3f start{1.25f, -3.5f, 7.0f};
  const State first = single_bead_state(kReplicas, start);
  engine->set_state(first);
  engine->advance(1);
  auto source = rng::make_noise_source(generator, layout, setup.seed, kReplicas, 1);
  std::vector<Vec3f> storage;
  const State want = moved_by_noise(first, noise_amplitude(kT), {}, filled(*source, kReplicas, 1, 0, storage));
  EXPECT_EQ(count_misses(engine->state(), want, {}, 2.0f, "first step"), 0) << generator << "/" << layout;
  expect_free_diffusion_statistics(*engine, kReplicas, start, {1, 10, 100});
}

// ---------------------------------------------------------------------------------------
// (b) Ornstein–Uhlenbeck: a bead on a spring to a fixed anchor

void check_ou_relaxation_of_the_mean(const EngineFactory& make_engine) {
  // κ = 50 → ε = hκ/ζ = 0.08, τ = ζ/κ = 1 τ_H = 12.5 steps. R = 4000 replicas start at
  // anchor + (x0, 0, 0), x0 = 2 Å; the replica mean of x_n − anchor has mean x0 aⁿ and
  // standard error sqrt(v(1 − a^{2n})/R) ≤ 0.0039 Å. Discrete check: 5σ (+1e-5 Å for the
  // float positions). Continuous check x0 e^{−nhκ/ζ}: 5σ + x0·ε/(2e(1−ε)) = 5σ + 0.032 Å.
  // The two differ by up to 0.031 Å ≈ 8σ around n ≈ 12, so only the discrete formula can
  // pass the tight check: the test sees the O(h) structure of the integrator.
  constexpr std::int32_t kReplicas = 4000;
  const OuSetup ou{50.0};
  const double x0 = 2.0;
  const Topology topology = single_bead_topology();
  auto engine = make_engine(tethered_setup(topology, ou, kReplicas, 777));
  engine->set_state(single_bead_state(kReplicas, vec_cast<float>(ou.anchor + Vec3d{x0, 0, 0})));
  double worst_discrete = 0.0;
  for (int n = 0; n <= 60; ++n) {
    if (n > 0) engine->advance(1);
    const State& s = engine->state();
    double mean[3] = {};
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const Vec3f p = s.position(r, 0);
      mean[0] += double(p.x) - ou.anchor.x;
      mean[1] += double(p.y) - ou.anchor.y;
      mean[2] += double(p.z) - ou.anchor.z;
    }
    for (double& m : mean) m /= kReplicas;
    const double se = std::sqrt(ou.v() * (1.0 - std::pow(ou.a(), 2 * n)) / kReplicas);
    const double tol = kFiveSigma * se + 1e-5;
    const double discrete = x0 * std::pow(ou.a(), n);
    const double continuous = x0 * std::exp(-n * kH / ou.tau());
    SCOPED_TRACE("step " + std::to_string(n));
    EXPECT_NEAR(mean[0], discrete, tol);
    EXPECT_NEAR(mean[0], continuous, tol + x0 * decay_bias_bound(ou.eps()));
    EXPECT_NEAR(mean[1], 0.0, tol);
    EXPECT_NEAR(mean[2], 0.0, tol);
    if (se > 0) worst_discrete = std::max(worst_discrete, std::abs(mean[0] - discrete) / se);
  }
  ::testing::Test::RecordProperty("worst_deviation_in_standard_errors", std::to_string(worst_discrete));
}

void check_ou_stationary_autocorrelation(const EngineFactory& make_engine) {
  // κ = 50 (ε = 0.08, a = 0.92), R = 4000 replicas × 3 components = S = 12000 independent
  // stationary series. Start at the anchor, discard 200 steps (the variance transient
  // a^{400} ≈ 3e-15), then M = 2500 steps. Estimator of C_k = ⟨x_{n+k} x_n⟩:
  //   Ĉ_k = Σ_series Σ_{n=k}^{M−1} x_n x_{n−k} / N_k,  N_k = S (M − k).
  // Its variance for a Gaussian process (Bartlett; Isserlis' theorem):
  //   Var Ĉ_k = (1/N_k) Σ_m [C_m² + C_{m+k} C_{m−k}]
  //           = (v²/N_k) [(1+a²)/(1−a²) + (2k+1) a^{2k} + 2 a^{2k+2}/(1−a²)],
  // (all terms positive, so the finite-M sum is smaller: conservative). At k = 0 the
  // relative standard error is 9.0e-4, so 5σ = 0.45 % — a ninth of the 4.2 % by which
  // the discrete stationary variance v = (k_B T/κ)/(1 − ε/2) exceeds k_B T/κ.
  // Continuous check (k_B T/κ) e^{−kε}: 5σ plus the bound
  //   |v a^k − (k_B T/κ) e^{−kε}| ≤ (k_B T/κ)[(ε/2)/(1 − ε/2) + ε/(2e(1 − ε))].
  constexpr std::int32_t kReplicas = 4000;
  constexpr int kBurnIn = 200, kSteps = 2500;
  const int lags[] = {0, 1, 2, 4, 8, 12, 16, 25};
  constexpr int kMaxLag = 25;
  const OuSetup ou{50.0};
  const Topology topology = single_bead_topology();
  auto engine = make_engine(tethered_setup(topology, ou, kReplicas, 4242));
  engine->set_state(single_bead_state(kReplicas, vec_cast<float>(ou.anchor)));
  engine->advance(kBurnIn);

  const std::size_t S = 3 * std::size_t(kReplicas);
  std::vector<double> history(std::size_t(kMaxLag + 1) * S);  // ring buffer of x_n
  std::vector<double> sums(std::size(lags), 0.0);
  for (int n = 0; n < kSteps; ++n) {
    engine->advance(1);
    const State& s = engine->state();
    double* now = &history[std::size_t(n % (kMaxLag + 1)) * S];
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const Vec3f p = s.position(r, 0);
      now[3 * r + 0] = double(p.x) - ou.anchor.x;
      now[3 * r + 1] = double(p.y) - ou.anchor.y;
      now[3 * r + 2] = double(p.z) - ou.anchor.z;
    }
    for (std::size_t l = 0; l < std::size(lags); ++l) {
      if (n < lags[l]) continue;
      const double* then = &history[std::size_t((n - lags[l]) % (kMaxLag + 1)) * S];
      double acc = 0.0;
      for (std::size_t i = 0; i < S; ++i) acc += now[i] * then[i];
      sums[l] += acc;
    }
  }
  const double a = ou.a(), a2 = a * a, v = ou.v(), c = kT / ou.kappa, eps = ou.eps();
  const double continuous_bias = c * ((eps / 2) / (1 - eps / 2) + decay_bias_bound(eps));
  for (std::size_t l = 0; l < std::size(lags); ++l) {
    const int k = lags[l];
    const double N = double(S) * (kSteps - k);
    const double estimate = sums[l] / N;
    const double factor = (1 + a2) / (1 - a2) + (2 * k + 1) * std::pow(a, 2 * k) +
                          2 * std::pow(a, 2 * k + 2) / (1 - a2);
    const double se = v * std::sqrt(factor / N);
    SCOPED_TRACE("lag " + std::to_string(k));
    EXPECT_NEAR(estimate, v * std::pow(a, k), kFiveSigma * se);
    EXPECT_NEAR(estimate, c * std::exp(-k * eps), kFiveSigma * se + continuous_bias);
    if (k == 0) {
      // Sensitivity: the measured variance resolves the Euler–Maruyama excess over
      // k_B T/κ (the engine is first order, as docs/model.md#dynamics states).
      EXPECT_GT(std::abs(estimate - c), kFiveSigma * se);
      ::testing::Test::RecordProperty("stationary_variance_A2", std::to_string(estimate));
    }
  }
}

// ---------------------------------------------------------------------------------------
// (c) Equipartition

void check_equipartition_of_a_tethered_bead(const EngineFactory& make_engine) {
  // A soft spring, κ = 10 kcal/mol/Å² (ε = 0.016, τ = 5 τ_H = 62.5 steps), the regime of
  // real restraints. Per component ⟨(κ/2) x²⟩ = (κ/2) v = (k_B T/2)/(1 − ε/2): the
  // discrete correction is 0.8 %. R = 4000, burn-in 400 steps (a^{800} = 2.5e-6), then
  // 400 samples every 10 steps (ρ = a^{20} = 0.72 between samples of x²).
  // Standard error of the per-component mean: (κ/2)x² has variance 2μ², μ = (κ/2)v, so
  //   se = μ sqrt(2(1+ρ)/((1−ρ) R·400)) ≈ 2.8e-3 μ  (5σ = 1.4 %);
  // the engine's own protocol energy (κ/2)|x|² (sum of 3 components): mean 3μ, se·sqrt(3).
  // Continuous check (k_B T/2 exactly): 5σ plus the discrete excess (ε/2)/(1 − ε/2)·k_B T/2.
  constexpr std::int32_t kReplicas = 4000;
  constexpr int kBurnIn = 400, kStride = 10, kSamples = 400;
  const OuSetup ou{10.0};
  const Topology topology = single_bead_topology();
  auto engine = make_engine(tethered_setup(topology, ou, kReplicas, 99));
  engine->set_state(single_bead_state(kReplicas, vec_cast<float>(ou.anchor)));
  engine->advance(kBurnIn);
  double component_sum[3] = {}, protocol_sum = 0.0;
  for (int sample = 0; sample < kSamples; ++sample) {
    engine->advance(kStride);
    const State& s = engine->state();
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const Vec3d d = vec_cast<double>(s.position(r, 0)) - ou.anchor;
      component_sum[0] += 0.5 * ou.kappa * d.x * d.x;
      component_sum[1] += 0.5 * ou.kappa * d.y * d.y;
      component_sum[2] += 0.5 * ou.kappa * d.z * d.z;
    }
    for (const EnergyTerms& e : engine->energies()) protocol_sum += e.protocol;
  }
  const double samples = double(kSamples) * kReplicas;
  const double mu = 0.5 * ou.kappa * ou.v();
  const double rho = std::pow(ou.a(), 2 * kStride);
  const double se = correlated_standard_error(2 * mu * mu, rho, samples);
  const double excess = (ou.eps() / 2) / (1 - ou.eps() / 2) * (kT / 2);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(component_sum[c] / samples, mu, kFiveSigma * se) << "component " << c;
    EXPECT_NEAR(component_sum[c] / samples, kT / 2, kFiveSigma * se + excess) << "component " << c;
  }
  // The protocol energy the engine reports is the same spring energy.
  const double se3 = correlated_standard_error(3 * 2 * mu * mu, rho, samples);
  EXPECT_NEAR(protocol_sum / samples, 3 * mu, kFiveSigma * se3);
  EXPECT_NEAR(protocol_sum / samples, 1.5 * kT, kFiveSigma * se3 + 3 * excess);
  double from_positions = 0.0;
  for (double x : component_sum) from_positions += x;
  // Different float paths (engine vs here), same configurations: equal to ~1e-6.
  EXPECT_NEAR(protocol_sum / samples, from_positions / samples, 1e-5 * mu);
}

// ---------------------------------------------------------------------------------------
// (d) Temperature schedule

void check_stationary_variance_follows_the_heating_schedule(const EngineFactory& make_engine) {
  // Stepwise heating T = 0.3 + 0.3·floor(step/800), capped at 1.2 kcal/mol; five
  // plateaus, the fifth checks the cap (it would be 1.5 without it). κ = 50 (ε = 0.08):
  // the variance relaxes as a^{2n}, so 200 steps after each change (a^{400} ≈ 3e-15) the
  // bead samples v(T) = (2 T h/ζ)/(1 − a²) = (T/κ)/(1 − ε/2). Samples every 3 steps
  // (ρ = a^6 = 0.61 for x²) over the remaining 600 steps: 200 × 3R = 1.2e6 values
  // (R = 2000), relative se = sqrt(2(1+ρ)/((1−ρ)·1.2e6)) = 2.6e-3, 5σ = 1.3 % — adjacent
  // plateaus differ by ≥ 25 %.
  constexpr std::int32_t kReplicas = 2000;
  constexpr std::int64_t kEvery = 800, kSettle = 200, kStride = 3;
  const OuSetup ou{50.0};
  const Topology topology = single_bead_topology();
  EngineSetup setup = tethered_setup(topology, ou, kReplicas, 31337);
  setup.temperature.start_kcal_per_mol = 0.3;
  setup.temperature.increment_kcal_per_mol = 0.3;
  setup.temperature.every_steps = kEvery;
  setup.temperature.stop_kcal_per_mol = 1.2;
  setup.langevin.temperature_kcal_per_mol = 0.3;
  auto engine = make_engine(setup);
  engine->set_state(single_bead_state(kReplicas, vec_cast<float>(ou.anchor)));
  const double expected_T[] = {0.3, 0.6, 0.9, 1.2, 1.2};
  for (int plateau = 0; plateau < 5; ++plateau) {
    engine->advance(kSettle);
    double sum = 0.0;
    std::int64_t count = 0;
    for (std::int64_t n = kSettle; n < kEvery; n += kStride) {
      engine->advance(kStride);
      const State& s = engine->state();
      for (std::int32_t r = 0; r < kReplicas; ++r) {
        const Vec3d d = vec_cast<double>(s.position(r, 0)) - ou.anchor;
        sum += d.x * d.x + d.y * d.y + d.z * d.z;
      }
      count += 3 * kReplicas;
    }
    ASSERT_EQ(engine->state().step, (plateau + 1) * kEvery);
    const double T = expected_T[plateau];
    EXPECT_DOUBLE_EQ(setup.temperature.at_step(plateau * kEvery), T);
    const double v = ou.v(T);
    const double se = correlated_standard_error(2 * v * v, std::pow(ou.a(), 2 * kStride), double(count));
    SCOPED_TRACE("plateau " + std::to_string(plateau) + ", T = " + std::to_string(T));
    EXPECT_NEAR(sum / count, v, kFiveSigma * se);
    EXPECT_NEAR(sum / count, T / ou.kappa, kFiveSigma * se + (T / ou.kappa) * (ou.eps() / 2) / (1 - ou.eps() / 2));
  }
}

// The step at which a new temperature takes effect. docs/model.md#dynamics: "Step n (from
// t_n = n h to t_{n+1}) uses the temperature of the schedule at step n", k_B T(n) =
// T_start + ΔT·floor(n/every), capped at T_stop. The plateau variances above cannot see a
// one-step shift; single steps of free beads can: step n moves a free bead by exactly
// sqrt(2 k_B T(n) h/ζ)·g(n) (Å, τ_H, kcal/mol; g the documented Philox Gaussian).
void check_each_step_uses_the_temperature_of_its_own_step(const EngineFactory& make_engine) {
  // The 27 grid beads, 2 replicas; T = 0.3 + 0.6·floor(n/4) kcal/mol capped at 2.0: 0.3
  // for steps 0–3, 0.9 for 4–7, 1.5 for 8–11, 2.0 (the cap, not 2.1) from 12. Amplitudes
  // 0.0310, 0.0537, 0.0693, 0.0800 Å: a step drawn with its neighbour's temperature is off
  // by ≥ 0.0107·|g| Å — for a typical |g| ≈ 1 thousands of ulps of these coordinates
  // (|x| ≤ 35 Å, ulp ≤ 3.8e-6 Å).
  constexpr std::int32_t kReplicas = 2;
  constexpr std::int64_t kEvery = 4, kSteps = 14;
  // The documented formula, evaluated here: 0.3, 0.3, 0.3, 0.3, 0.9, …, 1.5, 2.0, 2.0.
  const auto temperature_of_step = [](std::int64_t n) { return std::min(0.3 + 0.6 * double(n / kEvery), 2.0); };
  const Topology topology = free_grid_topology();
  EngineSetup setup = integrator_test_setup(topology, kReplicas, 0x7e57ull);
  setup.temperature.start_kcal_per_mol = 0.3;
  setup.temperature.increment_kcal_per_mol = 0.6;
  setup.temperature.every_steps = kEvery;
  setup.temperature.stop_kcal_per_mol = 2.0;
  setup.langevin.temperature_kcal_per_mol = 0.3;
  const auto noise_of_step = [&](std::int64_t step) {
    return [&setup, step](std::int32_t r, std::int32_t i) {
      return rng::gaussian3(setup.seed, rng::Stream::kBeadLangevin, std::uint32_t(r), std::uint32_t(i),
                            std::uint64_t(step));
    };
  };
  {
    // One step per call from step 0, each against its own temperature (2 ulps).
    auto engine = make_engine(setup);
    engine->set_state(free_grid_state(kReplicas, 0));
    for (std::int64_t n = 0; n < kSteps; ++n) {
      const State before = engine->state();  // each step judged from where the engine was
      engine->advance(1);
      ASSERT_EQ(engine->state().step, n + 1);
      const State want = moved_by_noise(before, noise_amplitude(temperature_of_step(n)), {}, noise_of_step(n));
      EXPECT_EQ(count_misses(engine->state(), want, {}, 2.0f, "step " + std::to_string(n)), 0)
          << "step " << n << " should use k_B T = " << temperature_of_step(n);
    }
  }
  {
    // From a state at step every − 1 (a resumed run), steps 3…13 in one call (a GPU engine
    // may run many steps per launch): 2 ulps per step, accumulated.
    auto engine = make_engine(setup);
    State want = free_grid_state(kReplicas, kEvery - 1);
    engine->set_state(want);
    engine->advance(kSteps - (kEvery - 1));
    for (std::int64_t n = kEvery - 1; n < kSteps; ++n)
      want = moved_by_noise(want, noise_amplitude(temperature_of_step(n)), {}, noise_of_step(n));
    ASSERT_EQ(engine->state().step, kSteps);
    EXPECT_EQ(count_misses(engine->state(), want, {}, 2.0f * float(kSteps - kEvery + 1), "steps in one call"), 0);
  }
}

// ---------------------------------------------------------------------------------------
// Brownian particle under a force ramp (DESIGN.md §5 rung 2): the tether's anchor moves
// at V, so the spring force grows at r_f = κV:
//   ⟨X(t)⟩ = X0 e^{−t/τ} + (r_f τ/ζ)(t − τ(1 − e^{−t/τ})),   relative to the anchor start.
// Euler–Maruyama with the anchor at t_n: e_n = A_n − ⟨x_n⟩ obeys e_{n+1} = a e_n + V h,
// so e_n = Vτ + (−X0 − Vτ) aⁿ exactly and ⟨x_n⟩ = V t_n − Vτ(1 − aⁿ) + X0 aⁿ: the same
// formula with aⁿ for e^{−t/τ}; the steady lag Vτ (mean spring force κVτ = ζV, Stokes'
// drag) is exact in both.

void check_force_ramp_mean_position_and_stokes_drag(const EngineFactory& make_engine) {
  // κ = 50 (τ = 1 τ_H), V = 0.5 Å/τ_H along x, X0 = 1 Å, R = 4000, 150 steps (t = 12 τ).
  // Standard error of the replica mean as for the OU relaxation: sqrt(v(1 − a^{2n})/R).
  // Continuous check: 5σ + |X0 + Vτ|·ε/(2e(1−ε)).
  constexpr std::int32_t kReplicas = 4000;
  const OuSetup ou{50.0};
  const double V = 0.5, X0 = 1.0;
  const Topology topology = single_bead_topology();
  EngineSetup setup = tethered_setup(topology, ou, kReplicas, 2718);
  setup.tethers[0].anchor_velocity_A_per_tau = {V, 0.0, 0.0};
  auto engine = make_engine(setup);
  engine->set_state(single_bead_state(kReplicas, vec_cast<float>(ou.anchor + Vec3d{X0, 0, 0})));
  const double tau = ou.tau(), a = ou.a();
  for (int n = 0; n <= 150; ++n) {
    if (n > 0) engine->advance(1);
    const State& s = engine->state();
    double mean_x = 0.0, mean_y = 0.0;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      mean_x += double(s.position(r, 0).x) - ou.anchor.x;
      mean_y += double(s.position(r, 0).y) - ou.anchor.y;
    }
    mean_x /= kReplicas;
    mean_y /= kReplicas;
    const double t = n * kH;
    const double se = std::sqrt(ou.v() * (1.0 - std::pow(a, 2 * n)) / kReplicas);
    const double tol = kFiveSigma * se + 1e-5;
    const double discrete = V * t - V * tau * (1 - std::pow(a, n)) + X0 * std::pow(a, n);
    const double continuous = X0 * std::exp(-t / tau) + V * (t - tau * (1 - std::exp(-t / tau)));
    SCOPED_TRACE("step " + std::to_string(n));
    EXPECT_NEAR(mean_x, discrete, tol);
    EXPECT_NEAR(mean_x, continuous, tol + std::abs(X0 + V * tau) * decay_bias_bound(ou.eps()));
    EXPECT_NEAR(mean_y, 0.0, tol);
  }
  // After 12 τ the mean spring force is ζV (the bead is dragged at V through the solvent):
  // the engine's tether_forces_kcal_per_mol_A() average, se = κ·sqrt(v/R).
  const auto forces = engine->tether_forces_kcal_per_mol_A();
  ASSERT_EQ(forces.size(), std::size_t(kReplicas));
  double mean_f = 0.0;
  for (const Vec3d& f : forces) mean_f += f.x;
  mean_f /= kReplicas;
  // κ e_n = κVτ + κ(−X0 − Vτ)aⁿ = ζV + O(a^150 = 4e-6).
  const double lag = V * tau + (-X0 - V * tau) * std::pow(a, 150);
  EXPECT_NEAR(mean_f, ou.kappa * lag, kFiveSigma * ou.kappa * std::sqrt(ou.v() / kReplicas) + 1e-3);
  EXPECT_NEAR(mean_f, kZeta * V, kFiveSigma * ou.kappa * std::sqrt(ou.v() / kReplicas) + 1e-3);
}

// ---------------------------------------------------------------------------------------
// Protocol items of one replica (docs/protocols.md: a tether's or a clamp's `replica`,
// −1 = every replica; protocol/replica_index.h finds each replica's items)

void check_protocol_items_of_one_replica_act_on_it_alone(const EngineFactory& make_engine) {
  // The 27 grid beads, 4 replicas, from step 10: a force clamp of 10 kcal/mol/Å along
  // n = (0.6, 0, −0.8) on bead 13 of replica 1 only, and a pulling spring (κ = 5
  // kcal/mol/Å², anchor moving at (0.5, 0, 0) Å/τ_H) on bead 5 of replica 2 only. The first
  // step moves every bead of every replica by its documented noise sqrt(2 k_B T h/ζ)·g
  // (docs/model.md#noise) plus (h/ζ)·F (docs/model.md#dynamics), where F is
  //   the clamp's 10·n on bead 13 of replica 1 ((h/ζ)·10 = 0.016 Å),
  //   the spring's −κ(r − A(t_10)) on bead 5 of replica 2, A(t) = A0 + V t (0.020 Å),
  //   zero on every other bead — in particular on those beads in the other replicas.
  // 2 ulps of the coordinate (≤ 8e-6 Å), ~10³ times below either drift: an item applied
  // to the wrong replica, to all, or to none fails.
  constexpr std::int32_t kReplicas = 4;
  constexpr std::int64_t kStep = 10;
  constexpr std::int32_t kClampedBead = 13, kClampedReplica = 1, kPulledBead = 5, kPulledReplica = 2;
  const double force = 10.0, kappa = 5.0;
  const Vec3d direction{0.6, 0.0, -0.8};
  const Topology topology = free_grid_topology();
  EngineSetup setup = integrator_test_setup(topology, kReplicas, 0xc1a4ull);
  const State start = free_grid_state(kReplicas, kStep);
  ExternalForce clamp;
  clamp.bead = kClampedBead;
  clamp.replica = kClampedReplica;
  clamp.direction = direction;
  setup.external_forces.push_back(clamp);
  setup.force_schedule.points.push_back({0, force});
  HarmonicTether spring;
  spring.bead = kPulledBead;
  spring.replica = kPulledReplica;
  spring.anchor_start_A = vec_cast<double>(start.position(kPulledReplica, kPulledBead)) + Vec3d{1.0, -0.5, 2.0};
  spring.anchor_velocity_A_per_tau = {0.5, 0.0, 0.0};
  spring.spring_kcal_per_mol_A2 = kappa;
  setup.tethers.push_back(spring);
  auto engine = make_engine(setup);
  engine->set_state(start);

  // The spring is reported for replica 2 alone (Engine::tether_forces_kcal_per_mol_A:
  // the tethers of each replica in turn): κ(A(t_10) − r).
  const Vec3d anchor = tether_anchor_at(spring, kStep, kH);
  const Vec3d pull = kappa * (anchor - vec_cast<double>(start.position(kPulledReplica, kPulledBead)));
  const std::vector<Vec3d> reported = engine->tether_forces_kcal_per_mol_A();
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_NEAR(reported[0].x, pull.x, 1e-5 * kappa);
  EXPECT_NEAR(reported[0].y, pull.y, 1e-5 * kappa);
  EXPECT_NEAR(reported[0].z, pull.z, 1e-5 * kappa);

  engine->advance(1);
  ASSERT_EQ(engine->state().step, kStep + 1);
  const float amplitude = noise_amplitude(kT), mobility = float(kH / kZeta);
  State want = start;
  want.step = kStep + 1;
  for (std::int32_t r = 0; r < kReplicas; ++r)
    for (std::int32_t i = 0; i < kGridBeads; ++i) {
      Vec3d f{};
      if (r == kClampedReplica && i == kClampedBead) f = force * direction;
      if (r == kPulledReplica && i == kPulledBead) f = pull;
      const Vec3f g = rng::gaussian3(setup.seed, rng::Stream::kBeadLangevin, std::uint32_t(r), std::uint32_t(i),
                                     std::uint64_t(kStep));
      const Vec3f p = start.position(r, i), ff = vec_cast<float>(f);
      want.set_position(r, i, {p.x + (mobility * ff.x + amplitude * g.x), p.y + (mobility * ff.y + amplitude * g.y),
                               p.z + (mobility * ff.z + amplitude * g.z)});
    }
  EXPECT_EQ(count_misses(engine->state(), want, {}, 2.0f, "first step"), 0);
}

}  // namespace ermak::test
