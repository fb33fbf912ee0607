// Analytic validation of the force-spectroscopy protocols (issue 4, docs/protocols.md,
// docs/protocols.md#validation). Each test goes the way a run goes: a TOML configuration
// in physical units (pN, pN/nm, µm/s) → config/toml_config → run/protocol_setup
// (resolution at the start positions) → the CPU engine → the rows of the per-replica
// tables (ProtocolSetup::*_row, what `ermak run` writes), and compares with exact results.
//
// Statistics as in integrator_statistics_test.cpp: fixed seeds, tolerances of 5 standard
// errors computed from the sample sizes; where the Euler–Maruyama integrator differs from
// the continuous theory by O(h), the test checks the exact discrete result at 5σ and the
// continuous formula at 5σ plus a proven bound on the difference. For a bead on a spring
// κ with friction ζ, a = 1 − ε, ε = hκ/ζ, the discrete stationary variance is
// v = (k_B T/κ)/(1 − ε/2), and 0 ≤ e^{−mε} − a^m ≤ ε/(2e(1 − ε)) for every m ≥ 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "ermak/backend/engine.h"
#include "ermak/config/toml_config.h"
#include "ermak/core/units.h"
#include "ermak/run/protocol_setup.h"

namespace {

using namespace ermak;

constexpr double kFiveSigma = 5.0;
const double kE = std::exp(1.0);

double decay_bias_bound(double eps) { return eps / (2.0 * kE * (1.0 - eps)); }

// A configured run held in place (ProtocolSetup keeps a reference to the spec).
struct ProtocolRun {
  RunSpec spec;
  Topology topology;
  std::optional<ProtocolSetup> protocol;
  std::unique_ptr<Engine> engine;
  EngineSetup setup;

  ProtocolRun(const std::string& toml, Topology t, const State& start) : spec(parse_run_spec(toml, "/virtual/run.toml")), topology(std::move(t)) {
    protocol.emplace(spec, topology, start);
    setup.topology = &topology;
    setup.sop = spec.sop;
    setup.langevin = spec.langevin;
    setup.temperature = spec.temperature;
    setup.seed = spec.seed;
    setup.replicas = spec.replicas;
    setup.fixed_beads = spec.fixed_beads;
    setup.neighbor_skin_A = spec.neighbor.skin_A;
    setup.threads = spec.threads;
    protocol->fill(setup);
    engine = make_cpu_engine(setup);
    engine->set_state(start);
  }
  ProtocolRun(const ProtocolRun&) = delete;
  ProtocolRun& operator=(const ProtocolRun&) = delete;
};

Topology beads(int n) {
  Topology t;
  t.name = "test beads";
  t.beads.resize(n);
  return t;
}

State replicated(std::int32_t replicas, const std::vector<Vec3f>& positions) {
  State s(std::int32_t(positions.size()), replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < positions.size(); ++i) s.set_position(r, std::int32_t(i), positions[i]);
  return s;
}

// [run] and [input] shared by the tests; h = 0.08 τ_H, k_B T = 0.6, ζ = 50 by default.
// (Tests that advance one step at a time take one thread: on a busy machine a parallel
// region per step may wait a time slice for the other thread.)
std::string run_table(int replicas, std::uint64_t seed, const std::string& timestep_tau = "0.08", int threads = 2) {
  return "[input]\nstructure = \"unused.pdb\"\n[run]\nreplicas = " + std::to_string(replicas) +
         "\nseed = " + std::to_string(seed) + "\ntemperature_kcal_per_mol = 0.6\ntimestep_tau = " + timestep_tau +
         "\nthreads = " + std::to_string(threads) + "\n";
}

// ---------------------------------------------------------------------------------------
// Resolution per replica: replicas that start from different structures pull along their
// own end-to-end vectors, with springs anchored at their own start positions; replicas
// with identical starts share one set of springs.

TEST(ProtocolSetupResolution, EndToEndDirectionAndAnchorsArePerReplica) {
  const std::string config = run_table(3, 5) +
                             "[fixed]\nbeads = [0]\n"
                             "[pulling]\npulled_beads = [2, 1]\nspeed_um_per_s = 1000\nspring_pN_per_nm = 50\n";
  State start(3, 3);
  const Vec3f second[3] = {{10, 0, 0}, {0, 20, 0}, {0, 0, -30}};
  for (int r = 0; r < 3; ++r) {
    start.set_position(r, 0, {0, 0, 0});
    start.set_position(r, 1, {1.0f + r, 2, 3});
    start.set_position(r, 2, second[r]);
  }
  ProtocolRun run(config, beads(3), start);
  // Default ends: the first fixed bead (0) and the first pulled bead (2).
  EXPECT_EQ(run.protocol->end_first(), 0);
  EXPECT_EQ(run.protocol->end_second(), 2);
  const Vec3d expected[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}};
  const double v = run.spec.pulling.speed_A_per_tau;
  ASSERT_EQ(run.setup.tethers.size(), 6u) << "two pulled beads × three different replicas";
  for (int r = 0; r < 3; ++r) {
    const Vec3d d = run.protocol->direction(r);
    EXPECT_NEAR(norm(d - expected[r]), 0.0, 1e-12) << "replica " << r;
    for (int j = 0; j < 2; ++j) {
      const HarmonicTether& t = run.setup.tethers[2 * r + j];
      EXPECT_EQ(t.replica, r);
      EXPECT_EQ(t.bead, j == 0 ? 2 : 1);
      EXPECT_EQ(norm(t.anchor_start_A - vec_cast<double>(start.position(r, t.bead))), 0.0);
      EXPECT_NEAR(norm(t.anchor_velocity_A_per_tau - v * expected[r]), 0.0, 1e-15);
    }
  }
  run.engine->advance(50);
  const State& s = run.engine->state();
  const std::vector<Vec3d> forces = run.engine->tether_forces_kcal_per_mol_A();
  ASSERT_EQ(forces.size(), 6u);
  for (int r = 0; r < 3; ++r) {
    const std::vector<double> row = run.protocol->pulling_row(r, s, forces);
    const Vec3d total = forces[2 * r] + forces[2 * r + 1];
    EXPECT_NEAR(row[4], total.x * units::pN_per_kcal_per_mol_A, 1e-9);
    EXPECT_NEAR(row[5], total.y * units::pN_per_kcal_per_mol_A, 1e-9);
    EXPECT_NEAR(row[6], total.z * units::pN_per_kcal_per_mol_A, 1e-9);
    EXPECT_NEAR(row[8], dot(total, expected[r]) * units::pN_per_kcal_per_mol_A, 1e-9);
    const Vec3d e = vec_cast<double>(s.position(r, 2)) - vec_cast<double>(s.position(r, 0));
    EXPECT_NEAR(row[2], norm(e) / 10, 1e-12);
    EXPECT_NEAR(row[3], dot(e, expected[r]) / 10, 1e-12);
  }
  // Identical starts: one shared set.
  ProtocolRun same(config, beads(3), replicated(3, {{0, 0, 0}, {1, 2, 3}, {10, 0, 0}}));
  EXPECT_EQ(same.setup.tethers.size(), 2u);
  for (const auto& t : same.setup.tethers) EXPECT_EQ(t.replica, -1);
}

// ---------------------------------------------------------------------------------------
// (a) One bead on the cantilever alone:
//   ⟨x(t)⟩ = v t − (ζv/κ)(1 − e^{−κt/ζ}),  Var x(t) = (k_B T/κ)(1 − e^{−2κt/ζ}).
// Discrete: e_n = A_n − ⟨x_n⟩ obeys e_{n+1} = a e_n + v h, e_0 = 0 → e_n = vτ(1 − aⁿ);
// Var x_n = v_d (1 − a^{2n}) per component.

TEST(ProtocolValidation, CantileverPullsAFreeBead) {
  // Bead 1 (pulled, at the origin) and bead 0 (fixed, 40 Å away along −x; beyond the
  // 20 Å pair cutoff, no interaction): the default ends (fixed bead, pulled bead) make
  // the end-to-end direction +x, and extension − extension₀ is the bead's x.
  // κ = 5000 pN/nm = 7.1966 kcal/mol/Å² → ε = 0.0115, τ = ζ/κ = 6.95 τ_H = 87 steps;
  // v = 2·10⁵ µm/s = 0.496 Å/τ_H (lag vτ = 3.4 Å). R = 10000 replicas, 400 steps (checked every 2).
  // Standard errors: mean sqrt(Var_n/R) (≤ 0.0029 Å), variance Var_n·sqrt(2/(R−1))
  // (1.4 %). Float positions (|x| ≤ 16 Å, ulp ≤ 2e-6 Å) add at most 400 half-ulps of
  // rounding bias: 4e-4 Å.
  constexpr int kReplicas = 10000, kSteps = 400;
  ProtocolRun run(run_table(kReplicas, 4711) +
              "[fixed]\nbeads = [0]\n"
              "[pulling]\npulled_beads = [1]\nspeed_um_per_s = 200000\nspring_pN_per_nm = 5000\noutput_every = 1\n",
          beads(2), replicated(kReplicas, {{-40.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}}));
  const double kappa = run.spec.pulling.spring_kcal_per_mol_A2, v = run.spec.pulling.speed_A_per_tau;
  const double h = 0.08, zeta = 50.0, kT = 0.6;
  ASSERT_NEAR(kappa, 5000.0 / units::pN_per_nm_per_kcal_per_mol_A2, 1e-12);
  ASSERT_NEAR(v, 0.496, 1e-12);
  ASSERT_EQ(run.setup.tethers.size(), 1u) << "identical starts share one tether";
  EXPECT_EQ(run.protocol->direction(0).x, 1.0);
  const double eps = h * kappa / zeta, a = 1 - eps, tau = zeta / kappa, c = kT / kappa;
  const double vd = c / (1 - eps / 2);
  const auto& columns = ProtocolSetup::pulling_columns();
  const auto col = [&](const char* name) {
    return std::size_t(std::find(columns.begin(), columns.end(), name) - columns.begin()) - 1;  // no step column
  };
  double worst_mean = 0, worst_var = 0;
  for (int n = 0; n <= kSteps; n += 2) {
    if (n > 0) run.engine->advance(2);
    const State& s = run.engine->state();
    const std::vector<Vec3d> forces = run.engine->tether_forces_kcal_per_mol_A();
    double sum[3] = {}, sum2[3] = {}, ext = 0, force_along = 0;
    double base = 0;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const std::vector<double> row = run.protocol->pulling_row(r, s, forces);
      base = row[col("base[nm]")];
      ext += row[col("extension[nm]")] * 10 - 40;  // Å, relative to the start
      force_along += row[col("force_along[pN]")] / units::pN_per_kcal_per_mol_A;
      const Vec3f p = s.position(r, 1);
      const double d[3] = {p.x, p.y, p.z};
      for (int k = 0; k < 3; ++k) {
        sum[k] += d[k];
        sum2[k] += d[k] * d[k];
      }
    }
    const double t = n * h;
    SCOPED_TRACE("step " + std::to_string(n));
    ASSERT_NEAR(base, v * t / 10, 1e-12 * (1 + n)) << "base = v·t from the step count";
    const double var_n = vd * (1 - std::pow(a, 2 * n));
    const double se = std::sqrt(var_n / kReplicas);
    const double mean_x = sum[0] / kReplicas;
    const double discrete = v * t - v * tau * (1 - std::pow(a, n));
    const double continuous = v * t - (zeta * v / kappa) * (1 - std::exp(-kappa * t / zeta));
    EXPECT_NEAR(mean_x, discrete, kFiveSigma * se + 4e-4);
    EXPECT_NEAR(mean_x, continuous, kFiveSigma * se + 4e-4 + v * tau * decay_bias_bound(eps));
    EXPECT_NEAR(ext / kReplicas, mean_x, 1e-4) << "the extension column is the bead's x";
    // Mean spring force along the direction: κ e_n → ζv (Stokes drag) for t ≫ τ.
    EXPECT_NEAR(force_along / kReplicas, kappa * v * tau * (1 - std::pow(a, n)), kappa * (kFiveSigma * se + 4e-4));
    if (se > 0) worst_mean = std::max(worst_mean, std::abs(mean_x - discrete) / se);
    if (n >= 10) {
      // Exact variance, every component (the spring is isotropic; y, z have mean 0).
      const double var_se = var_n * std::sqrt(2.0 / (kReplicas - 1));
      const double continuous_var = c * (1 - std::exp(-2 * kappa * t / zeta));
      const double continuous_bound = c * ((eps / 2) / (1 - eps / 2) + decay_bias_bound(eps));
      for (int k = 0; k < 3; ++k) {
        const double m = sum[k] / kReplicas;
        const double var = (sum2[k] - kReplicas * m * m) / (kReplicas - 1);
        EXPECT_NEAR(var, var_n, kFiveSigma * var_se) << "component " << k;
        EXPECT_NEAR(var, continuous_var, kFiveSigma * var_se + continuous_bound) << "component " << k;
        worst_var = std::max(worst_var, std::abs(var - var_n) / var_se);
      }
    }
  }
  // After 400 steps (4.6 τ) the drag force is ζv within 1 %: the mean pulling force
  // of a free bead is its Stokes drag.
  RecordProperty("worst_mean_deviation_sigma", std::to_string(worst_mean));
  RecordProperty("worst_variance_deviation_sigma", std::to_string(worst_var));
}

// ---------------------------------------------------------------------------------------
// (b) A Brownian particle in a harmonic well K under a force ramp f = r_f t (SOP-GPU
// paper's test): ⟨X(t)⟩ = X0 e^{−t/τ} + (r_f τ/ζ)(t − τ(1 − e^{−t/τ})), τ = ζ/K.
// The well is a static plane tether along x ([plane_pulling], speed 0; X0 = 0 because
// the spring starts relaxed), the ramp a force clamp schedule [[0, 0], [N, F_N]].
// Discrete: m_{n+1} = a m_n + (h/ζ) f_n with f_n = r_f n h gives
//   m_n = (r_f/K)(t_n − τ) + (r_f τ/K) aⁿ,
// the continuous formula with aⁿ for e^{−t/τ}; |difference| ≤ (r_f τ/K)·ε/(2e(1 − ε)).

TEST(ProtocolValidation, HarmonicWellUnderAForceRamp) {
  // K = 5000 pN/nm (ε = 0.0115, τ = 87 steps), F from 0 to 2000 pN over 500 steps
  // (r_f = 0.72 kcal/mol/Å per τ_H; ⟨X⟩ reaches 3.3 Å), R = 10000, checked every 4 steps.
  constexpr int kReplicas = 10000, kSteps = 500;
  ProtocolRun run(run_table(kReplicas, 1999) +
              "[force_clamp]\npulled_beads = [0]\ndirection = [1, 0, 0]\nschedule = [[0, 0.0], [500, 2000.0]]\n"
              "[plane_pulling]\n[[plane_pulling.plane]]\nbeads = [0]\nnormal = [1, 0, 0]\nspeed_um_per_s = 0\n"
              "spring_pN_per_nm = 5000\n",
          beads(1), replicated(kReplicas, {{0.0f, 0.0f, 0.0f}}));
  const double K = run.spec.plane_pulling.planes[0].spring_kcal_per_mol_A2;
  const double h = 0.08, zeta = 50.0, kT = 0.6;
  const double eps = h * K / zeta, a = 1 - eps, tau = zeta / K;
  const double F_N = units::pN_to_internal_force(2000.0), r_f = F_N / (kSteps * h);
  const double vd = (kT / K) / (1 - eps / 2);
  double m = 0.0;  // exact discrete mean by recursion with the engine's schedule values
  for (int n = 0; n <= kSteps; n += 4) {
    if (n > 0) {
      for (int j = n - 4; j < n; ++j) m = a * m + (h / zeta) * run.setup.force_schedule.at_step(j);
      run.engine->advance(4);
    }
    const State& s = run.engine->state();
    const std::vector<double> plane = run.engine->plane_forces_kcal_per_mol_A();
    const std::vector<Vec3d> none;
    double mean = 0, plane_force = 0;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      mean += s.position(r, 0).x;
      plane_force += run.protocol->plane_row(r, n, plane)[2] / units::pN_per_kcal_per_mol_A;
    }
    mean /= kReplicas;
    plane_force /= kReplicas;
    const double t = n * h;
    const double se = std::sqrt(vd * (1 - std::pow(a, 2 * n)) / kReplicas);
    const double closed = (r_f / K) * (t - tau) + (r_f * tau / K) * std::pow(a, n);
    const double continuous = (r_f * tau / zeta) * (t - tau * (1 - std::exp(-t / tau)));
    SCOPED_TRACE("step " + std::to_string(n));
    ASSERT_NEAR(m, closed, 1e-9) << "recursion and closed form";
    EXPECT_NEAR(mean, m, kFiveSigma * se + 1e-5);
    EXPECT_NEAR(mean, continuous, kFiveSigma * se + 1e-5 + (r_f * tau / K) * decay_bias_bound(eps));
    // The well's spring force on the bead (plane.tsv) is −K⟨X⟩, and the clamp's row is
    // the applied force F(step) exactly.
    EXPECT_NEAR(plane_force, -K * m, K * (kFiveSigma * se + 1e-5));
    const std::vector<double> row = run.protocol->pulling_row(0, s, none);
    EXPECT_NEAR(row[8] / units::pN_per_kcal_per_mol_A, run.setup.force_schedule.at_step(n), 1e-12);
    EXPECT_NEAR(run.setup.force_schedule.at_step(n), r_f * t, 1e-12 * (1 + n));
  }
}

// ---------------------------------------------------------------------------------------
// (c) Force clamp on a FENE bond: two beads, bead 0 fixed at the origin, F on bead 1
// along x. In equilibrium p(r⃗) ∝ exp(−β[U_FENE(|r⃗|) − F x]); integrating the angles,
//   p(r) ∝ r² e^{−βU(r)} sinh(a)/a,  a = βFr,
//   ⟨r⟩ = ∫ r p(r) dr / ∫ p(r) dr,  ⟨x⟩ = ∫ r L(a) p(r) dr / ∫ p(r) dr,  L = coth − 1/a,
// computed here by quadrature (trapezoid, 2·10⁵ points on (r0 − R0, r0 + R0)). The
// zero-temperature answer r0 + Δ, k Δ/(1 − (Δ/R0)²) = F, is printed and must differ
// measurably at low force (the thermal shift the test resolves).
//
// The replicas start aligned with the force at the T = 0 length, not from the answer, so a
// run that did not move (or moved wrongly) cannot pass: at 100 pN that start's ⟨x⟩ lies
// > 10 se from the Boltzmann one (asserted). They settle 3 τ_rot, τ_rot = ζ r0/F the
// orientation's relaxation time (135 τ_H = 6700 steps at 100 pN; at least 200 steps),
// then give 100 samples every 25 steps. At h = 0.02 τ_H the Euler–Maruyama bias of ⟨r⟩ is
// O(h·k_eff/ζ ·σ_r²/R0) ≲ 2·10⁻⁴ Å, below the statistical tolerance. R = 2000 replicas;
// the standard error is the spread of the per-replica means over √R (replicas are
// independent, so no correlation time is assumed).

struct FeneAverages {
  double mean_r, mean_x;
};

FeneAverages fene_boltzmann(double F, double kT, double k, double R0, double r0) {
  constexpr int kPoints = 200000;
  const double lo = r0 - R0, hi = r0 + R0;
  std::vector<double> grid, logw(kPoints + 1);
  double max_logw = -1e300;
  for (int i = 0; i <= kPoints; ++i) {
    const double r = lo + (hi - lo) * (i + 0.5) / (kPoints + 1);
    const double x = (r - r0) / R0;
    const double U = -0.5 * k * R0 * R0 * std::log1p(-x * x);
    const double arg = F * r / kT;
    // log(sinh(a)/a), stable for large a.
    const double log_sinh_over_a = arg < 1e-6 ? 0.0 : arg + std::log1p(-std::exp(-2 * arg)) - std::log(2 * arg);
    logw[i] = 2 * std::log(r) - U / kT + log_sinh_over_a;
    max_logw = std::max(max_logw, logw[i]);
    grid.push_back(r);
  }
  double z = 0, sr = 0, sx = 0;
  for (int i = 0; i <= kPoints; ++i) {
    const double r = grid[i];
    const double w = std::exp(logw[i] - max_logw);
    const double arg = F * r / kT;
    const double L = arg < 1e-4 ? arg / 3 : 1 / std::tanh(arg) - 1 / arg;
    z += w;
    sr += w * r;
    sx += w * r * L;
  }
  return {sr / z, sx / z};
}

TEST(ProtocolValidation, ForceClampOnAFeneBondGivesTheBoltzmannExtension) {
  constexpr int kReplicas = 2000, kSettle = 200, kSamples = 100, kStride = 25;
  const double kT = 0.6, k = 20.0, R0 = 2.0, r0 = 3.8;
  for (const double force_pN : {100.0, 500.0, 2000.0}) {
    SCOPED_TRACE("F = " + std::to_string(force_pN) + " pN");
    const double F = units::pN_to_internal_force(force_pN);
    const FeneAverages boltzmann = fene_boltzmann(F, kT, k, R0, r0);
    // Mechanical (T = 0) extension: the start, and the reference of the sensitivity check.
    double lo = 0, hi = R0;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (k * mid / (1 - (mid / R0) * (mid / R0)) < F ? lo : hi) = mid;
    }
    const double mechanical = r0 + lo;
    // Every replica starts aligned with the force at the T = 0 length, far from the
    // Boltzmann ⟨x⟩ at 100 pN (the check below), so that the engine must carry the bond to
    // its thermal distribution: the orientation relaxes in τ_rot ≈ ζ r0 / F (135 τ_H at
    // 100 pN), and 3 τ_rot of settling leave e⁻⁶ of the start's offset (the mean cosine
    // relaxes at 2/τ_rot for small angles).
    State start(2, kReplicas);
    for (std::int32_t rep = 0; rep < kReplicas; ++rep) {
      start.set_position(rep, 0, {0, 0, 0});
      start.set_position(rep, 1, {float(mechanical), 0, 0});
    }
    const double zeta = 50.0, h = 0.02;
    const int settle = std::max(kSettle, int(std::ceil(3.0 * zeta * r0 / F / h)));
    Topology bond = beads(2);
    bond.bonds.push_back({0, 1, float(r0)});
    ProtocolRun run(run_table(kReplicas, 77, "0.02") +
                "[fixed]\nbeads = [0]\n[force_clamp]\npulled_beads = [1]\ndirection = [1, 0, 0]\nforce_pN = " +
                std::to_string(force_pN) + "\n",
            bond, start);
    ASSERT_EQ(run.spec.langevin.timestep_tau, 0.02);
    ASSERT_EQ(run.spec.langevin.zeta, zeta);
    run.engine->advance(settle);
    std::vector<double> sum_r(kReplicas, 0.0), sum_x(kReplicas, 0.0);
    for (int sample = 0; sample < kSamples; ++sample) {
      run.engine->advance(kStride);
      const State& s = run.engine->state();
      const std::vector<Vec3d> none;
      for (std::int32_t rep = 0; rep < kReplicas; ++rep) {
        const std::vector<double> row = run.protocol->pulling_row(rep, s, none);
        sum_r[rep] += row[2] * 10;  // end_to_end[nm] → Å
        sum_x[rep] += row[3] * 10;  // extension[nm] → Å
      }
    }
    auto mean_and_se = [&](const std::vector<double>& sums) {
      double m = 0, m2 = 0;
      for (double s : sums) {
        m += s / kSamples;
        m2 += (s / kSamples) * (s / kSamples);
      }
      m /= kReplicas;
      const double var = (m2 - kReplicas * m * m) / (kReplicas - 1);
      return std::pair{m, std::sqrt(var / kReplicas)};
    };
    const auto [mean_r, se_r] = mean_and_se(sum_r);
    const auto [mean_x, se_x] = mean_and_se(sum_x);
    RecordProperty("F" + std::to_string(int(force_pN)) + "_mean_r_A", std::to_string(mean_r));
    RecordProperty("F" + std::to_string(int(force_pN)) + "_boltzmann_r_A", std::to_string(boltzmann.mean_r));
    RecordProperty("F" + std::to_string(int(force_pN)) + "_mechanical_r_A", std::to_string(mechanical));
    RecordProperty("F" + std::to_string(int(force_pN)) + "_r_deviation_in_se",
                   std::to_string((mean_r - boltzmann.mean_r) / se_r));
    RecordProperty("F" + std::to_string(int(force_pN)) + "_x_deviation_in_se",
                   std::to_string((mean_x - boltzmann.mean_x) / se_x));
    EXPECT_NEAR(mean_r, boltzmann.mean_r, kFiveSigma * se_r + 2e-4) << "mechanical " << mechanical;
    EXPECT_NEAR(mean_x, boltzmann.mean_x, kFiveSigma * se_x + 2e-4);
    // Sensitivity: at 100 pN the bond's orientation fluctuates (⟨cos θ⟩ = L(βFr) ≈ 0.89),
    // so the extension along the force is far below the T = 0 bond length.
    if (force_pN == 100.0) EXPECT_GT(std::abs(mean_x - mechanical), 10 * se_x) << "thermal reduction resolved";
  }
}

// ---------------------------------------------------------------------------------------
// (d) Indentation controls: the tip pressed on the bare substrate surface, and on a rigid
// obstacle (one bead fixed on the surface). After contact the tip stops against the stiff
// wall and the mean spring force grows with the base travel at a slope a little below κ:
// at zero temperature κ k_w/(κ + k_w), k_w = 7f/ρ the wall stiffness at force f (for
// ε(σ/ρ)⁶, f = 6εσ⁶/ρ⁷), and the thermal motion against the anharmonic wall softens it
// further. The tip moves on its line only (tip_along_direction_only, the default), so in
// equilibrium at a base position its gap ρ to the wall has the 1-D Boltzmann density
//   p(ρ) ∝ exp(−β[U_w(ρ) + κ(ρ − ρ_b)²/2]),  ρ_b = the gap at which the spring is relaxed,
// and the mean spring force is κ(⟨ρ⟩ − ρ_b), computed here by quadrature
// (tip_on_wall_mean_spring_force) at every base position the test fits, fitted as the
// test fits the run: the expected slope, 0.98842κ over 100–200 pN (against 0.99286κ at
// T = 0). The wall that stops the tip (the surface, or the bead) pushes back with the
// spring's force.
//
// Tip R = 20 Å, centre 30 Å above the contact (10 Å gap), repulsive σ = 2 Å, ε = 1;
// κ = 34.7 pN/nm (0.05 kcal/mol/Å²), v = 7500 µm/s (1.49e-3 Å per step), ζ_tip = 10
// (τ_t = 200 τ_H = 2500 steps, drag 12.9 pN); 50 000 steps (74 Å of base travel, up to
// ≈ 230 pN). R = 200 replicas (the tip's noise is independent in each).
//
// Not checked here: the free tip's drag before contact. The 10 Å gap is too short for it:
// the tip's thermal spread along its line, √(k_BT/κ) = 3.5 Å, and its lag vτ_t(1 − aⁿ)
// bring it to the wall early (a 1-D simulation of this tip with and without the wall, same
// noise: the wall adds 0.003 kcal/mol/Å, 3 %, to the mean spring force by step 2000 and
// 0.017, 12 %, by step 4000), and up to step 2000 the drags of ζ_tip, 2ζ_tip and ζ_tip/2
// differ by ≤ 0.028 kcal/mol/Å against a standard error of 0.011 (R = 200; rows are
// correlated over τ_t, so averaging them gains little). ζ_tip and the drag are checked by
// IndentationTipAloneIsAnOrnsteinUhlenbeckBead… below (5σ ≈ 7 % of ζ_tip v).

// Column of indentation.tsv (without `step`) holding the force that stops the tip.
enum class Reaction { kMolecule = 7, kSurface = 8 };

// The walls as the TOML tables state them, for U_protocol computed here from the positions
// (docs/protocols.md#indentation): U = ε [A (σ/ρ)¹² + B (σ/ρ)⁶], ρ the distance from the
// tip's surface (d − R) or the height above the surface plane; the surface acts on every
// bead, and on the tip (from its surface) where it feels it.
struct WallTerms {
  double A, B, sigma, epsilon;
};
double wall_energy(double rho, const WallTerms& w) {
  return w.epsilon * (w.A * std::pow(w.sigma / rho, 12) + w.B * std::pow(w.sigma / rho, 6));
}
struct SurfacePlane {
  Vec3d point, normal;
  WallTerms wall;
  bool tip_feels_it;
};
// kIndentationTable's tip (below): repulsive, σ = 2 Å, ε = 1, R = 20 Å, κ = 0.05, starting
// at (0, 0, 30) and moving along −z (the base starts at the tip).
constexpr WallTerms kTipWall{0.0, 1.0, 2.0, 1.0};
constexpr double kTipRadius_A = 20.0;
const Vec3d kTipStart_A{0, 0, 30}, kIndentDirection{0, 0, -1};

// U_protocol of replica r: tip–bead walls + cantilever ½κ|base − tip|² + surface–bead walls
// + tip–surface wall; with the sum of the terms' magnitudes.
struct EnergyAndScale {
  double energy = 0, scale = 0;
  void add(double term) {
    energy += term;
    scale += std::abs(term);
  }
};
EnergyAndScale indentation_energy_from_positions(const State& s, std::int32_t r, Vec3d tip, Vec3d base, double kappa,
                                                 const SurfacePlane& surface) {
  EnergyAndScale u;
  u.add(0.5 * kappa * norm2(base - tip));
  for (std::int32_t i = 0; i < s.bead_count; ++i) {
    const Vec3d p = vec_cast<double>(s.position(r, i));
    u.add(wall_energy(norm(p - tip) - kTipRadius_A, kTipWall));
    u.add(wall_energy(dot(p - surface.point, surface.normal), surface.wall));
  }
  if (surface.tip_feels_it) u.add(wall_energy(dot(tip - surface.point, surface.normal) - kTipRadius_A, surface.wall));
  return u;
}

// The mean spring force κ(⟨ρ⟩ − ρ_b), kcal/mol/Å, of a tip confined to a line against the
// wall U_w(ρ) of `w` (ρ the gap between the tip's surface and the wall) on the cantilever
// spring κ relaxed at the gap ρ_b, in the Boltzmann density above: midpoint rule, 10⁵ points
// on ρ ∈ [σ/2, max(ρ_b, σ) + 30√(k_BT/κ)]. At the ends the weight is below e⁻⁶⁰ of its
// largest (asserted; for this test's wall and spring e⁻¹⁰⁰ at σ/2, where U_w = 64ε, and
// e⁻⁴⁵⁰ or less at the far end), and the density varies on scales ≥ 0.06 Å (k_BT/U_w' on
// the wall's side) ≫ the spacing, 10⁻³ Å: 10⁶ points give the same force to 10⁻¹⁵.
double tip_on_wall_mean_spring_force(double rho_base, const WallTerms& w, double kappa, double kT) {
  constexpr int kPoints = 100000;
  const double lo = 0.5 * w.sigma, hi = std::max(rho_base, w.sigma) + 30 * std::sqrt(kT / kappa);
  std::vector<double> logw(kPoints);
  double max_logw = -1e300;
  for (int i = 0; i < kPoints; ++i) {
    const double rho = lo + (hi - lo) * (i + 0.5) / kPoints;
    logw[std::size_t(i)] = -(wall_energy(rho, w) + 0.5 * kappa * (rho - rho_base) * (rho - rho_base)) / kT;
    max_logw = std::max(max_logw, logw[std::size_t(i)]);
  }
  EXPECT_LT(logw.front() - max_logw, -60.0) << "the quadrature's lower end is out of reach";
  EXPECT_LT(logw.back() - max_logw, -60.0) << "the quadrature's upper end is out of reach";
  double z = 0, mean_rho = 0;
  for (int i = 0; i < kPoints; ++i) {
    const double rho = lo + (hi - lo) * (i + 0.5) / kPoints;
    const double weight = std::exp(logw[std::size_t(i)] - max_logw);
    z += weight;
    mean_rho += weight * rho;
  }
  return kappa * (mean_rho / z - rho_base);
}

void expect_cantilever_response(const std::string& toml, Topology topology, const State& start, Reaction reaction,
                                const SurfacePlane& surface) {
  constexpr int kReplicas = 200, kSteps = 50000, kEvery = 250;
  ProtocolRun run(toml, std::move(topology), start);
  const double kappa = 0.05, zeta_t = 10.0, h = 0.08, kT = 0.6;
  const double v = run.spec.indentation.speed_A_per_tau;
  const double f_lo = units::pN_to_internal_force(100.0), f_hi = units::pN_to_internal_force(200.0);
  const int stop_column = int(reaction), other_column = reaction == Reaction::kMolecule ? 8 : 7;
  // The wall that stops the tip and the gap to it at the start (ρ_b = gap − base travel): the
  // surface plane, from the tip's surface along its normal; or the obstacle bead (on the
  // tip's line), from the tip's surface. The tip moves along d = −n in both.
  const WallTerms stop_wall = reaction == Reaction::kSurface ? surface.wall : kTipWall;
  const double start_gap =
      reaction == Reaction::kSurface ? dot(kTipStart_A - surface.point, surface.normal) - kTipRadius_A
                                     : norm(kTipStart_A - vec_cast<double>(start.position(0, 0))) - kTipRadius_A;
  ASSERT_NEAR(start_gap, 10.0, 1e-12);
  std::vector<double> base, force, force_mean_variance;
  // In contact (mean spring force ≥ 100 pN): spring − reaction of every replica and row.
  double gap_sum = 0, gap_sum2 = 0, gap_count = 0;
  for (int n = 0; n <= kSteps; n += kEvery) {
    if (n > 0) run.engine->advance(kEvery);
    const auto status = run.engine->indentation_status();
    double f = 0, f2 = 0, b = 0, g = 0, g2 = 0;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const std::vector<double> row = run.protocol->indentation_row(r, n, status[r]);
      b = row[1] * 10;                                  // base[nm] → Å
      const double spring = row[6] / units::pN_per_kcal_per_mol_A;  // spring_force[pN] → kcal/mol/Å
      f += spring;
      f2 += spring * spring;
      const double gap = row[6] - row[std::size_t(stop_column)];
      g += gap;
      g2 += gap * gap;
    }
    base.push_back(b);
    force.push_back(f / kReplicas);
    // Variance of the row's mean over the replicas (independent): s²/R.
    force_mean_variance.push_back((f2 - kReplicas * force.back() * force.back()) / (kReplicas - 1) / kReplicas);
    if (force.back() >= f_lo) {
      gap_sum += g;
      gap_sum2 += g2;
      gap_count += kReplicas;
    }
    ASSERT_NEAR(b, v * n * h, 1e-9);
  }
  // Contact regime 100 … 200 pN: least-squares slope of ⟨F⟩ against the base travel b_k,
  // slope = Σ c_k F_k with c_k = (b_k − b̄)/Σ(b_j − b̄)², and the same fit of the Boltzmann
  // mean force at the same b_k (ρ_b = 10 Å − b_k) is the expected slope. Its standard error
  // from the data: the rows' means are independent (250 steps apart; in contact the tip's
  // gap relaxes within ζ_tip/(κ + k_w) ≤ 27 steps, see the momentum balance below), each
  // with variance s_k²/R from the spread s_k of its R replicas, so Var(slope) = Σ c_k² s_k²/R
  // (≈ 3.8·10⁻⁴κ; recorded beside it as a cross-check, the residuals of measured − expected
  // about their own line give 3.5–4.0·10⁻⁴κ). Biases, below
  // 0.1 standard error together, allowed for with 5·10⁻⁵κ: the Euler–Maruyama step (the
  // discrete chain's stationary density, computed with a transfer matrix on a 10⁻³ Å grid,
  // raises ⟨F⟩ by 0.0160 pN at 100 pN and 0.0182 pN at 200 pN: +2.3·10⁻⁵κ on the slope) and
  // the tip's lag behind the moving base (ζ_tip v (κ/(κ + k_w))², 1.5·10⁻³ pN at 100 pN and
  // 3·10⁻⁴ pN at 200 pN: −1.2·10⁻⁵κ). A factor 2 in k_BT moves the expected slope to
  // 0.98345κ (2k_BT) or 0.99076κ (k_BT/2), 13 and 6 standard errors away; T = 0 (the
  // harmonic series κ k_w/(κ + k_w) over the range) to 0.99286κ, 12 away.
  std::vector<std::size_t> fitted;
  for (std::size_t k = 0; k < base.size(); ++k)
    if (force[k] >= f_lo && force[k] <= f_hi) fitted.push_back(k);
  ASSERT_GT(fitted.size(), 20u);
  double mean_b = 0;
  for (std::size_t k : fitted) mean_b += base[k] / double(fitted.size());
  double sxx = 0;
  for (std::size_t k : fitted) sxx += (base[k] - mean_b) * (base[k] - mean_b);
  double slope = 0, expected_slope = 0, slope_variance = 0;
  std::vector<double> deviation;  // measured − expected mean force, for the residual cross-check
  for (std::size_t k : fitted) {
    const double c = (base[k] - mean_b) / sxx;
    const double expected = tip_on_wall_mean_spring_force(start_gap - base[k], stop_wall, kappa, kT);
    slope += c * force[k];
    expected_slope += c * expected;
    slope_variance += c * c * force_mean_variance[k];
    deviation.push_back(force[k] - expected);
  }
  const double slope_se = std::sqrt(slope_variance);
  // Cross-check of the standard error: the residuals of measured − expected about their line.
  double dev_mean = 0, dev_slope = 0;
  for (std::size_t j = 0; j < fitted.size(); ++j) {
    dev_mean += deviation[j] / double(fitted.size());
    dev_slope += (base[fitted[j]] - mean_b) / sxx * deviation[j];
  }
  double residual = 0;
  for (std::size_t j = 0; j < fitted.size(); ++j)
    residual += std::pow(deviation[j] - dev_mean - dev_slope * (base[fitted[j]] - mean_b), 2);
  const double residual_se = std::sqrt(residual / double(fitted.size() - 2) / sxx);
  ::testing::Test::RecordProperty("slope_over_kappa", std::to_string(slope / kappa));
  ::testing::Test::RecordProperty("expected_slope_over_kappa", std::to_string(expected_slope / kappa));
  ::testing::Test::RecordProperty("slope_se_over_kappa", std::to_string(slope_se / kappa));
  ::testing::Test::RecordProperty("slope_residual_se_over_kappa", std::to_string(residual_se / kappa));
  ::testing::Test::RecordProperty("slope_deviation_in_se", std::to_string((slope - expected_slope) / slope_se));
  EXPECT_NEAR(slope, expected_slope, kFiveSigma * slope_se + 5e-5 * kappa) << "rows fitted: " << fitted.size();
  // The wall's stiffness at the low end of the range, for the tip's drift below.
  const double sigma6 = std::pow(2.0, 6), rho_lo = std::pow(6 * sigma6 / f_lo, 1.0 / 7), k_w = 7 * f_lo / rho_lo;
  // The wall that stops the tip pushes back on it with the spring's force; the other
  // reaction column stays at zero. Momentum balance of the overdamped tip, exact in the
  // mean for the Euler–Maruyama step: ⟨spring − reaction⟩ = ζ_tip ⟨tip velocity along d⟩,
  // and in contact the tip follows the base at v κ/(κ + k_w), so 0 ≤ ⟨spring − reaction⟩ ≤
  // ζ_tip v κ/(κ + k_w) (0.14 pN, k_w at 100 pN as above). Each row's difference is the tip's
  // instantaneous net force, sd ≈ √(k_BT⟨U''⟩) ≈ √(k_BT k_w) ≈ 120–180 pN (thermal, against
  // the stiff wall). The tip's distance from the wall relaxes within ζ_tip/(κ + k_w) ≤ 27
  // steps, its excursions off the wall (held by the pressing force f over k_BT/f ≤ 0.4 Å)
  // within ζ_tip (k_BT/f)²/k_BT ≤ 37 steps; rows are 250 steps apart, so the R × (rows in
  // contact) values are independent: tolerance 5 standard errors of their mean (5.6–5.9 pN
  // measured, against the former fixed 5 % of ~230 pN, 11.5 pN) plus the drift bound.
  ASSERT_GT(gap_count, 20 * kReplicas);
  const double gap_mean = gap_sum / gap_count;
  const double gap_se = std::sqrt((gap_sum2 - gap_count * gap_mean * gap_mean) / (gap_count - 1) / gap_count);
  const double drift_pN = units::internal_force_to_pN(zeta_t * v * kappa / (kappa + k_w));
  ::testing::Test::RecordProperty("spring_minus_reaction_pN", std::to_string(gap_mean));
  ::testing::Test::RecordProperty("spring_minus_reaction_se_pN", std::to_string(gap_se));
  EXPECT_NEAR(gap_mean, 0.5 * drift_pN, kFiveSigma * gap_se + 0.5 * drift_pN);
  const auto status = run.engine->indentation_status();
  double stopping = 0, other = 0;
  for (std::int32_t r = 0; r < kReplicas; ++r) {
    const std::vector<double> row = run.protocol->indentation_row(r, kSteps, status[r]);
    stopping += row[std::size_t(stop_column)];
    other += row[std::size_t(other_column)];
  }
  EXPECT_GT(stopping / kReplicas, 150.0) << "the run ends in contact";
  EXPECT_NEAR(other / kReplicas, 0.0, 1e-6);
  // U_protocol (docs/protocols.md: the cantilever, the tip's and the surface's walls) against
  // the same sum computed here from the positions and the tip; the base from its definition,
  // base₀ + v t d. Both sum the same doubles (pow against products: 10⁻¹⁵), so 10⁻⁹ of the
  // terms' magnitudes; the tip–bead and surface terms are ~1 kcal/mol, the cantilever ~10².
  const State& s = run.engine->state();
  const std::vector<EnergyTerms> energies = run.engine->energies();
  const Vec3d base_end = kTipStart_A + (v * h * kSteps) * kIndentDirection;
  double worst = 0, largest_wall = 0;
  for (std::int32_t r = 0; r < kReplicas; ++r) {
    ASSERT_NEAR(norm(status[r].base_A - base_end), 0.0, 1e-9);
    const EnergyAndScale expected = indentation_energy_from_positions(s, r, status[r].tip_A, base_end, kappa, surface);
    largest_wall = std::max(largest_wall, std::abs(expected.energy - 0.5 * kappa * norm2(base_end - status[r].tip_A)));
    worst = std::max(worst, std::abs(energies[r].protocol - expected.energy) / expected.scale);
  }
  EXPECT_LT(worst, 1e-9) << "U_protocol = walls + cantilever";
  EXPECT_GT(largest_wall, 0.1) << "the walls' terms are large enough to be seen";
}

const char* kIndentationTable =
    "[indentation]\ntip_radius_A = 20\ntip_position_A = [0, 0, 30]\ndirection = [0, 0, -1]\n"
    "spring_kcal_per_mol_A2 = 0.05\nspeed_um_per_s = 7500\ntip_friction = 10\ntip_interaction = \"repulsive\"\n"
    "tip_sigma_A = 2.0\ntip_epsilon_kcal_per_mol = 1.0\n";

TEST(ProtocolValidation, IndentationOfTheBareSurfaceGivesTheCantileverSpring) {
  // The surface plane z = 0 with the tip's wall (repulsive, σ = 2 Å, ε = 1); the one bead
  // of the model is fixed 1000 Å away, where neither the tip nor the surface reach it.
  expect_cantilever_response(run_table(200, 37) + "[fixed]\nbeads = [0]\n" + kIndentationTable +
                                 "[indentation.surface]\npoint_A = [0, 0, 0]\nnormal = [0, 0, 1]\n"
                                 "interaction = \"repulsive\"\nsigma_A = 2.0\nepsilon_kcal_per_mol = 1.0\n",
                             beads(1), replicated(200, {{1000.0f, 0.0f, 50.0f}}), Reaction::kSurface,
                             SurfacePlane{{0, 0, 0}, {0, 0, 1}, {0.0, 1.0, 2.0, 1.0}, true});
}

TEST(ProtocolValidation, IndentationOnARigidObstacleGivesTheCantileverSpring) {
  // One bead fixed at the origin; the surface (z = −10) is beyond the tip's reach and
  // does not act on the tip here (tip_interaction = false).
  expect_cantilever_response(run_table(200, 31) + "[fixed]\nbeads = [0]\n" + kIndentationTable +
                                 "[indentation.surface]\npoint_A = [0, 0, -10]\nnormal = [0, 0, 1]\n"
                                 "tip_interaction = false\n",
                             beads(1), replicated(200, {{0.0f, 0.0f, 0.0f}}), Reaction::kMolecule,
                             // The default surface wall: SOP-GPU's mica, Lennard-Jones σ = 10 Å,
                             // ε = 0.2 (the bead sits at its minimum, −0.2 kcal/mol).
                             SurfacePlane{{0, 0, -10}, {0, 0, 1}, {1.0, -2.0, 10.0, 0.2}, false});
}

// The tip alone (nothing within its reach) is a bead of friction ζ_tip on the cantilever
// spring κ, an Ornstein–Uhlenbeck process as in (a): the lag of the tip behind the base,
// e = base − tip, has the exact discrete mean vτ_t(1 − aⁿ) along the direction (a = 1 − ε,
// ε = hκ/ζ_tip, τ_t = ζ_tip/κ) and mean 0 across it, and each free component's stationary
// variance is v_d = (k_B T/κ)/(1 − ε/2). With `tip_along_direction_only` (the default)
// the tip never leaves its line: the components across stay 0. The mean pins ζ_tip/κ, the
// variance κ and the tip's noise amplitude, and the reported spring force must be κ e.
// κ = 0.5 kcal/mol/Å² (347 pN/nm), ζ_tip = 10: ε = 0.004, τ_t = 250 steps; v = 7500 µm/s
// (drag 12.9 pN). R = 1000 replicas, 1250 steps (5 τ_t) to settle the variance, then 100
// samples every 250 steps; standard errors from the spread of the per-replica means over
// √R (independent replicas, no correlation time assumed): ~2.5·10⁻³ kcal/mol/Å for the
// mean force (5σ ≈ 7 % of ζ_tip v), 5σ ≈ 2.6 % of v_d for a variance.
void expect_tip_alone_is_an_ornstein_uhlenbeck_bead(bool along_direction_only, std::uint64_t seed) {
  constexpr int kReplicas = 1000, kSettle = 1250, kSamples = 100, kStride = 250;
  const std::string toml =
      run_table(kReplicas, seed) + "[fixed]\nbeads = [0]\n"
      "[indentation]\ntip_radius_A = 20\ntip_position_A = [0, 0, 30]\ndirection = [0, 0, -1]\n"
      "spring_kcal_per_mol_A2 = 0.5\nspeed_um_per_s = 7500\ntip_friction = 10\ntip_interaction = \"repulsive\"\n"
      "tip_sigma_A = 2.0\ntip_epsilon_kcal_per_mol = 1.0\ntip_along_direction_only = " +
      std::string(along_direction_only ? "true" : "false") +
      "\n[indentation.surface]\npoint_A = [0, 0, -1000]\nnormal = [0, 0, 1]\ntip_interaction = false\n";
  // The model's one bead is fixed 1000 Å away from the tip's path.
  ProtocolRun run(toml, beads(1), replicated(kReplicas, {{1000.0f, 0.0f, 0.0f}}));
  const double kappa = 0.5, zeta_t = 10.0, h = 0.08, kT = 0.6;
  const double v = run.spec.indentation.speed_A_per_tau;
  ASSERT_NEAR(v, 7500 * 2.48e-6, 1e-9) << "7500 µm/s in Å/τ_H (docs/units.md)";
  const double eps = h * kappa / zeta_t, a = 1 - eps, tau_t = zeta_t / kappa, vd = (kT / kappa) / (1 - eps / 2);
  const Vec3d d{0, 0, -1};
  run.engine->advance(kSettle);
  // Per replica: the means over its samples of the lag components' deviations from their
  // exact means (along d, then x and y across it), of their squares, and of the reported
  // spring force.
  std::vector<std::array<double, 3>> dev(kReplicas, {0, 0, 0}), dev2(kReplicas, {0, 0, 0});
  std::vector<double> force(kReplicas, 0.0);
  double expected_force = 0, worst_report = 0, largest_across = 0;
  for (int sample = 0; sample < kSamples; ++sample) {
    run.engine->advance(kStride);
    const std::int64_t n = kSettle + std::int64_t(sample + 1) * kStride;
    const double mean_lag = v * tau_t * (1 - std::pow(a, double(n)));
    expected_force += kappa * mean_lag / kSamples;
    const auto status = run.engine->indentation_status();
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const Vec3d lag = status[r].base_A - status[r].tip_A;
      const double c[3] = {dot(lag, d) - mean_lag, lag.x, lag.y};
      for (int k = 0; k < 3; ++k) {
        dev[r][k] += c[k] / kSamples;
        dev2[r][k] += c[k] * c[k] / kSamples;
      }
      largest_across = std::max({largest_across, std::abs(lag.x), std::abs(lag.y)});
      const double reported = run.protocol->indentation_row(r, n, status[r])[6] / units::pN_per_kcal_per_mol_A;
      force[r] += reported / kSamples;
      worst_report = std::max(worst_report, std::abs(reported - kappa * dot(lag, d)));
    }
  }
  auto mean_and_se = [&](auto value_of) {
    double m = 0, m2 = 0;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const double x = value_of(r);
      m += x;
      m2 += x * x;
    }
    m /= kReplicas;
    return std::pair{m, std::sqrt((m2 - kReplicas * m * m) / (kReplicas - 1) / kReplicas)};
  };
  EXPECT_LT(worst_report, 1e-4) << "spring_force[pN] is κ·(base − tip) along the direction";
  // U_protocol holds the cantilever spring ½κ|base − tip|² (nothing else acts: the bead and
  // the surface are out of the tip's reach).
  const auto status = run.engine->indentation_status();
  const std::vector<EnergyTerms> energies = run.engine->energies();
  for (std::int32_t r = 0; r < kReplicas; r += 97) {
    const Vec3d lag = status[r].base_A - status[r].tip_A;
    EXPECT_NEAR(energies[r].protocol, 0.5 * kappa * dot(lag, lag), 1e-9 + 1e-6 * kappa * dot(lag, lag)) << r;
  }
  const auto [mean_force, se_force] = mean_and_se([&](std::int32_t r) { return force[r]; });
  EXPECT_NEAR(mean_force, expected_force, kFiveSigma * se_force) << "Stokes drag ζ_tip·v = " << zeta_t * v;
  ::testing::Test::RecordProperty("force_deviation_in_se", std::to_string((mean_force - expected_force) / se_force));
  if (along_direction_only) EXPECT_EQ(largest_across, 0.0) << "the tip stays on its line";
  for (int k = 0; k < (along_direction_only ? 1 : 3); ++k) {
    const auto [mean_dev, se_dev] = mean_and_se([&](std::int32_t r) { return dev[r][k]; });
    EXPECT_NEAR(mean_dev, 0.0, kFiveSigma * se_dev) << "component " << k;
    const auto [var, se_var] = mean_and_se([&](std::int32_t r) { return dev2[r][k]; });
    EXPECT_NEAR(var, vd, kFiveSigma * se_var) << "component " << k;
    ::testing::Test::RecordProperty("variance_deviation_in_se_" + std::to_string(k),
                                    std::to_string((var - vd) / se_var));
  }
}

TEST(ProtocolValidation, IndentationTipAloneIsAnOrnsteinUhlenbeckBeadOnItsLine) {
  expect_tip_alone_is_an_ornstein_uhlenbeck_bead(true, 53);
}

TEST(ProtocolValidation, IndentationTipAloneIsAnOrnsteinUhlenbeckBeadInSpace) {
  expect_tip_alone_is_an_ornstein_uhlenbeck_bead(false, 59);
}

// ---------------------------------------------------------------------------------------
// Retraction (docs/protocols.md#indentation): the base travels s(t) = v t while indenting
// and s(t) = v (2 t_r − t) after the turnaround at t_r, both from the step count (t = n h);
// the turnaround happens at a base travel (retract_at_depth_nm), at a spring force
// κ (r_base − r_tip)·d (retract_at_force_pN) or at a step. Read as the code applies it after
// each step (protocol/indentation.h, indentation_tip_step): t_r is the first step n whose
// base travel v·h·n reaches the depth, or whose spring force — base at v·h·n on the way
// in, tip where it stands at step n — reaches the force. Both are deterministic given the
// trajectory, so the checks are exact: the turnaround step itself, the force at it and one
// step before, and the base's travel after it (1e-9 Å: the travel is a double product of
// the step count).

// The tip alone (as in IndentationTipAlone… above), turned at a depth of 0.5 nm: at
// v·h = 7500 µm/s × 2.48·10⁻⁶ Å/τ_H per µm/s × 0.08 τ_H = 1.488·10⁻³ Å per step, 5 Å is
// 3360.2 steps, so t_r = 3361 (far from a rounding boundary: v·h·3361 − 5 Å = 1.2·10⁻³ Å).
TEST(ProtocolValidation, RetractionAtADepthTurnsAtTheFirstStepWhoseTravelReachesItAndMirrorsTheTravel) {
  constexpr int kReplicas = 3;
  const std::string toml =
      run_table(kReplicas, 61, "0.08", 1) + "[fixed]\nbeads = [0]\n"
      "[indentation]\ntip_radius_A = 20\ntip_position_A = [0, 0, 30]\ndirection = [0, 0, -1]\n"
      "spring_kcal_per_mol_A2 = 0.5\nspeed_um_per_s = 7500\ntip_friction = 10\ntip_interaction = \"repulsive\"\n"
      "tip_sigma_A = 2.0\ntip_epsilon_kcal_per_mol = 1.0\nretract_at_depth_nm = 0.5\n"
      "[indentation.surface]\npoint_A = [0, 0, -1000]\nnormal = [0, 0, 1]\ntip_interaction = false\n";
  ProtocolRun run(toml, beads(1), replicated(kReplicas, {{1000.0f, 0.0f, 0.0f}}));
  const double h = 0.08, v = 7500 * 2.48e-6, depth_A = 5.0;
  ASSERT_NEAR(run.spec.indentation.speed_A_per_tau, v, 1e-15);
  std::int64_t turn = 0;
  while (v * h * double(turn) < depth_A) ++turn;
  ASSERT_EQ(turn, 3361);
  ASSERT_GT(v * h * double(turn) - depth_A, 1e-6);
  ASSERT_GT(depth_A - v * h * double(turn - 1), 1e-6);
  const Vec3d start{0, 0, 30}, d{0, 0, -1};
  std::vector<Vec3d> base;  // replica 0's base at every step
  const std::int64_t last = 2 * turn + 10;
  for (std::int64_t n = 0; n <= last; ++n) {
    if (n > 0) run.engine->advance(1);
    const auto status = run.engine->indentation_status();
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      SCOPED_TRACE(testing::Message() << "step " << n << " replica " << r);
      ASSERT_EQ(status[r].turnaround_step, n < turn ? -1 : turn);
      // The travel on the way in, v·h·n, and the mirror after: v·h·(2t_r − n).
      const double travel = v * h * double(n <= turn ? n : 2 * turn - n);
      ASSERT_NEAR(status[r].travel_A, travel, 1e-9);
      ASSERT_NEAR(norm(status[r].base_A - (start + travel * d)), 0.0, 1e-9);
      ASSERT_NEAR(run.protocol->indentation_row(r, n, status[r])[1], travel / 10, 1e-10) << "base[nm]";
    }
    base.push_back(status[0].base_A);
  }
  // After the turnaround the base retraces its way in, step for step, and passes its start.
  for (std::int64_t k = 0; k <= turn; ++k)
    ASSERT_NEAR(norm(base[std::size_t(turn + k)] - base[std::size_t(turn - k)]), 0.0, 1e-9) << "k = " << k;
  EXPECT_NEAR(norm(base[std::size_t(2 * turn)] - start), 0.0, 1e-9);
  EXPECT_NEAR(dot(base[std::size_t(last)] - start, d), -10 * v * h, 1e-9);
}

// The rigid obstacle (as in IndentationOnARigidObstacle… above), turned at a spring force of
// 100 pN: seven thermal standard deviations of the free tip's force (√(k_BT κ) = 12 pN)
// above its drag (12.9 pN), so it is reached in contact with the bead, after ~2.2–2.4·10⁴
// steps; each replica has its own noise, so its own turnaround step. Every step of every
// replica is looked at: before t_r the spring force is below 100 pN, at t_r it is at or
// above it, and after t_r the base retraces its way in.
TEST(ProtocolValidation, RetractionAtAForceTurnsAtTheFirstStepWhoseSpringForceReachesIt) {
  constexpr int kReplicas = 4, kMaxSteps = 40000, kAfter = 200;
  const std::string toml = run_table(kReplicas, 67, "0.08", 1) + "[fixed]\nbeads = [0]\n" + kIndentationTable +
                           "retract_at_force_pN = 100\n"
                           "[indentation.surface]\npoint_A = [0, 0, -10]\nnormal = [0, 0, 1]\ntip_interaction = false\n";
  ProtocolRun run(toml, beads(1), replicated(kReplicas, {{0.0f, 0.0f, 0.0f}}));
  const double h = 0.08, kappa = 0.05, v = run.spec.indentation.speed_A_per_tau;
  const double threshold = units::pN_to_internal_force(100.0);  // 1 kcal/mol/Å = 69.47695 pN (docs/units.md)
  const Vec3d d = kIndentDirection;
  std::vector<std::int64_t> turn(kReplicas, -1);
  std::vector<double> previous(kReplicas, 0.0), pressed(kReplicas, 0.0);
  std::int64_t n = 0;
  for (; n <= kMaxSteps; ++n) {
    if (n > 0) run.engine->advance(1);
    const auto status = run.engine->indentation_status();
    bool done = true;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      SCOPED_TRACE(testing::Message() << "step " << n << " replica " << r);
      // The documented criterion, from the reported base and tip.
      const double spring = kappa * dot(status[r].base_A - status[r].tip_A, d);
      if (turn[r] < 0) {
        if (status[r].turnaround_step >= 0) {
          turn[r] = status[r].turnaround_step;
          ASSERT_EQ(turn[r], n) << "the turnaround is the step whose force first reaches the threshold";
          EXPECT_GE(spring, threshold) << "at the turnaround";
          EXPECT_LT(previous[r], threshold) << "one step before";
          // Reached in contact, not by the free tip's noise: the bead had pushed back with
          // at least half the threshold before. (Not at the turnaround step itself: pressed
          // on the stiff wall by the soft spring, the tip wanders off the bead by
          // √(k_BT/κ) = 3.5 Å, and such an excursion is what stretches the spring past the
          // threshold first.)
          EXPECT_GT(pressed[r], 0.5 * threshold) << "the bead's largest push on the tip before the turnaround";
        } else {
          ASSERT_LT(spring, threshold) << "reached, but not turned";
          pressed[r] = std::max(pressed[r], dot(status[r].molecule_force_kcal_per_mol_A, -1.0 * d));
        }
      } else {
        ASSERT_EQ(status[r].turnaround_step, turn[r]) << "at most one turnaround";
        ASSERT_NEAR(status[r].travel_A, v * h * double(2 * turn[r] - n), 1e-9);
      }
      previous[r] = spring;
      done = done && turn[r] >= 0 && n >= turn[r] + kAfter;
    }
    if (done) break;
  }
  ASSERT_LE(n, kMaxSteps) << "every replica turned";
  RecordProperty("turnaround_steps", std::to_string(turn[0]) + " " + std::to_string(turn[1]) + " " +
                                         std::to_string(turn[2]) + " " + std::to_string(turn[3]));
}

// ---------------------------------------------------------------------------------------
// (e) Plane pulling: a bead on a spring to a plane moving along its normal n is an
// Ornstein–Uhlenbeck process along n (as in (a)) and diffuses freely within the plane.
// Group 0: bead 0, n = (0, 0.6, 0.8), v = 2·10⁵ µm/s, κ = 5000 pN/nm; group 1: bead 1, a
// static plane with n = (−1, 0, 0). Mean force of group 0 (plane.tsv) = κ e_n =
// κvτ(1 − aⁿ) → ζv; of group 1 zero; in-plane ⟨Δr²⟩ = 2·2Dt exactly (D = k_B T/ζ).

TEST(ProtocolValidation, PlanePullingGivesTheSpringForce) {
  constexpr int kReplicas = 5000, kSteps = 300;
  ProtocolRun run(run_table(kReplicas, 8080) +
              "[plane_pulling]\n"
              "[[plane_pulling.plane]]\nbeads = [0]\nnormal = [0, 3, 4]\nspeed_um_per_s = 200000\nspring_pN_per_nm = 5000\n"
              "[[plane_pulling.plane]]\nbeads = [1]\nnormal = [-1, 0, 0]\nspring_pN_per_nm = 5000\n",
          beads(2), replicated(kReplicas, {{0.0f, 0.0f, 0.0f}, {60.0f, 0.0f, 0.0f}}));
  const double kappa = run.spec.plane_pulling.planes[0].spring_kcal_per_mol_A2;
  const double kappa1 = run.spec.plane_pulling.planes[1].spring_kcal_per_mol_A2;
  const double v = run.spec.plane_pulling.planes[0].speed_A_per_tau;
  const double h = 0.08, zeta = 50.0, kT = 0.6, D = kT / zeta;
  const double eps = h * kappa / zeta, a = 1 - eps, tau = zeta / kappa;
  const double vd = (kT / kappa) / (1 - eps / 2);
  const Vec3d n_hat{0, 0.6, 0.8};
  double worst_in_plane = 0;
  for (int n = 0; n <= kSteps; n += 10) {
    if (n > 0) run.engine->advance(10);
    const State& s = run.engine->state();
    const std::vector<double> forces = run.engine->plane_forces_kcal_per_mol_A();
    double f0 = 0, f1 = 0, f1_squared = 0, x1_squared = 0, s_along = 0, in_plane = 0;
    double travel = 0;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const std::vector<double> row = run.protocol->plane_row(r, n, forces);
      travel = row[1] * 10;
      f0 += row[2] / units::pN_per_kcal_per_mol_A;
      f1 += row[3] / units::pN_per_kcal_per_mol_A;
      f1_squared += std::pow(row[3] / units::pN_per_kcal_per_mol_A, 2);
      x1_squared += std::pow(double(s.position(r, 1).x) - 60.0, 2);
      const Vec3d p = vec_cast<double>(s.position(r, 0));
      const double along = dot(p, n_hat);
      s_along += along;
      in_plane += norm2(p) - along * along;
    }
    const double t = n * h;
    SCOPED_TRACE("step " + std::to_string(n));
    EXPECT_NEAR(travel, v * t, 1e-9) << "plane[nm] is the travel of plane 0";
    // U_protocol = Σ (κ_k/2)(r_i·n_k − p_i(t))², p_i(t) = r_i(0)·n_k + v_k t, from the
    // positions: plane 0 through the origin moving at v, plane 1 static through x = 60
    // (r·n₁ = −60). Same doubles of the same float positions: 10⁻⁶ relative (the brief's
    // bound; the difference is round-off, ~10⁻¹⁵).
    const std::vector<EnergyTerms> energies = run.engine->energies();
    double worst_energy = 0;
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const Vec3d p0 = vec_cast<double>(s.position(r, 0)), p1 = vec_cast<double>(s.position(r, 1));
      const double u = 0.5 * kappa * std::pow(dot(p0, n_hat) - v * t, 2) +
                       0.5 * kappa1 * std::pow(dot(p1, Vec3d{-1, 0, 0}) + 60.0, 2);
      worst_energy = std::max(worst_energy, std::abs(energies[r].protocol - u) / (u + 1e-300));
      if (n == 0) ASSERT_EQ(energies[r].protocol, 0.0) << "the springs start relaxed";
    }
    if (n > 0) EXPECT_LT(worst_energy, 1e-6) << "U_protocol of the planes";
    const double se = std::sqrt(vd * (1 - std::pow(a, 2 * n)) / kReplicas);
    const double lag = v * tau * (1 - std::pow(a, n));
    EXPECT_NEAR(s_along / kReplicas, v * t - lag, kFiveSigma * se + 1e-5);
    EXPECT_NEAR(f0 / kReplicas, kappa * lag, kappa * (kFiveSigma * se + 1e-5));
    EXPECT_NEAR(f0 / kReplicas, zeta * v * (1 - std::exp(-t / tau)),
                kappa * (kFiveSigma * se + 1e-5 + v * tau * decay_bias_bound(eps)));
    EXPECT_NEAR(f1 / kReplicas, 0.0, kappa * kFiveSigma * std::sqrt(vd / kReplicas) + 1e-9);
    // The static plane holds its bead: along its normal the bead is the OU process started
    // at the plane, variance v_d(1 − a^{2n}) (a free bead would reach 2Dt, 7× more by the
    // end), and the reported force is κ times its offset (5σ: Var·√(2/R) = 10 %).
    if (n >= 10) {
      const double var_n = vd * (1 - std::pow(a, 2 * n)), var_se = var_n * std::sqrt(2.0 / kReplicas);
      EXPECT_NEAR(x1_squared / kReplicas, var_n, kFiveSigma * var_se) << "static plane's bead";
      EXPECT_NEAR(f1_squared / kReplicas / (kappa * kappa), x1_squared / kReplicas, 1e-4 * var_n)
          << "force_plane1 = κ × the bead's offset";
    }
    // In-plane: two free components X1, X2 ~ N(0, 2Dt) each (exact for Euler–Maruyama: a sum
    // of n Gaussian steps of variance 2Dh), so X1² + X2² has mean 4Dt and variance
    // 2·2(2Dt)² = 16D²t² (Var X² = 2σ⁴ for X ~ N(0, σ²)): standard error of the mean over R
    // replicas 4Dt/√R.
    if (n > 0) {
      const double se_in_plane = 4 * D * t / std::sqrt(double(kReplicas));
      EXPECT_NEAR(in_plane / kReplicas, 4 * D * t, kFiveSigma * se_in_plane);
      worst_in_plane = std::max(worst_in_plane, std::abs(in_plane / kReplicas - 4 * D * t) / se_in_plane);
    }
  }
  RecordProperty("worst_in_plane_deviation_sigma", std::to_string(worst_in_plane));
}

}  // namespace
