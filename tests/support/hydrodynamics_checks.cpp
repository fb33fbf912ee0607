// Hydrodynamic interactions against exactly solvable two-bead problems; declared in
// hydrodynamics_checks.h. Internal units (Å, kcal/mol, τ_H): ζ = 50, h = 0.08, a = 1.9 Å.
//
// The RPY tensor is written here a second time, from its textbook form with unit vectors and
// in double (docs/model.md#rpy), so that the engines' float form (physics/hydrodynamic_tensor.h)
// is checked against an independent statement of the same equations.
#include "support/hydrodynamics_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "ermak/rng/philox_gaussian.h"

namespace ermak::test {
namespace {

constexpr double kZeta = 50.0;
constexpr double kH = 0.08;
constexpr double kRadius = 1.9;

using Matrix3 = std::array<std::array<double, 3>, 3>;

// D_ij/D0 for separation r (textbook RPY, Rotne & Prager 1969; Yamakawa 1970).
Matrix3 rpy(const Vec3d& r) {
  const double d = std::sqrt(dot(r, r));
  const double u[3] = {r.x / d, r.y / d, r.z / d};
  double along, identity;
  if (d >= 2 * kRadius) {
    identity = 3 * kRadius / (4 * d) * (1 + 2 * kRadius * kRadius / (3 * d * d));
    along = 3 * kRadius / (4 * d) * (1 - 2 * kRadius * kRadius / (d * d));
  } else {
    identity = 1 - 9 * d / (32 * kRadius);
    along = 3 * d / (32 * kRadius);
  }
  Matrix3 m{};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) m[a][b] = (a == b ? identity : 0.0) + along * u[a] * u[b];
  return m;
}

Vec3d times(const Matrix3& m, const Vec3d& v) {
  return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
          m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
}

EngineSetup hydrodynamic_setup(const Topology& topology, std::int32_t replicas, std::uint64_t seed,
                               HydrodynamicMethod method) {
  EngineSetup s = integrator_test_setup(topology, replicas, seed);
  s.langevin.hydrodynamics.method = method;
  s.langevin.hydrodynamics.radius_A = kRadius;
  return s;
}

std::string method_name(HydrodynamicMethod m) { return hydrodynamic_method_name(m); }

}  // namespace

void check_hydrodynamic_relaxation_of_two_trapped_beads(const EngineFactory& make_engine, HydrodynamicMethod method) {
  // Traps κ = 5 kcal/mol/Å² at (0,0,0) and (30,0,0) (beyond the 20 Å pair cutoff: no pair
  // force), k_B T = 1e-9 kcal/mol (noise 1.8e-6 Å per step), δ = 1 Å. Replica 0 starts apart
  // along the axis (−δ, +δ), 1 together along it (+δ, +δ), 2 together across it (+δ in y).
  // Along the axis D₁₂/D0 ≈ 3a/2d = 0.095, across it 3a/4d = 0.048: the modes relax at
  // κ(1 ∓ 0.095)/ζ and κ(1 + 0.048)/ζ instead of κ/ζ. Over 200 steps (1.6 relaxation
  // times) the engine must follow the double-precision recursion to 2e-4 Å (float positions
  // near 30 Å round by 1e-6 Å per step), while the recursion without hydrodynamics parts
  // from it by more than 8e-3 Å in every mode.
  SCOPED_TRACE("hydrodynamics = " + method_name(method));
  constexpr double kKappa = 5.0, kDelta = 1.0, kSeparation = 30.0, kColdT = 1e-9;
  constexpr int kSteps = 200;
  Topology topology;
  topology.name = "two trapped beads";
  topology.beads.resize(2);
  EngineSetup setup = hydrodynamic_setup(topology, 3, 2027, method);
  setup.langevin.temperature_kcal_per_mol = kColdT;
  setup.temperature.start_kcal_per_mol = kColdT;
  const Vec3d anchors[2] = {{0, 0, 0}, {kSeparation, 0, 0}};
  for (int b = 0; b < 2; ++b) {
    HarmonicTether t;
    t.bead = b;
    t.anchor_start_A = anchors[b];
    t.spring_kcal_per_mol_A2 = kKappa;
    setup.tethers.push_back(t);
  }
  const Vec3d starts[3][2] = {{{-kDelta, 0, 0}, {kDelta, 0, 0}},
                              {{kDelta, 0, 0}, {kDelta, 0, 0}},
                              {{0, kDelta, 0}, {0, kDelta, 0}}};
  State state(2, 3);
  for (int r = 0; r < 3; ++r)
    for (int b = 0; b < 2; ++b) state.set_position(r, b, vec_cast<float>(anchors[b] + starts[r][b]));
  auto engine = make_engine(setup);
  engine->set_state(state);
  // The recursions, with and without the coupling.
  std::array<std::array<Vec3d, 2>, 3> coupled{}, alone{};
  for (int r = 0; r < 3; ++r)
    for (int b = 0; b < 2; ++b) coupled[r][b] = alone[r][b] = anchors[b] + starts[r][b];
  for (int n = 1; n <= kSteps; ++n) {
    engine->advance(1);
    for (int r = 0; r < 3; ++r) {
      const Vec3d f[2] = {-kKappa * (coupled[r][0] - anchors[0]), -kKappa * (coupled[r][1] - anchors[1])};
      const Matrix3 d = rpy(coupled[r][1] - coupled[r][0]);
      const Vec3d next0 = coupled[r][0] + (kH / kZeta) * (f[0] + times(d, f[1]));
      const Vec3d next1 = coupled[r][1] + (kH / kZeta) * (f[1] + times(d, f[0]));
      coupled[r] = {next0, next1};
      for (int b = 0; b < 2; ++b) alone[r][b] += (kH / kZeta) * (-kKappa * (alone[r][b] - anchors[b]));
    }
    if (n % 20 != 0) continue;
    const State& s = engine->state();
    for (int r = 0; r < 3; ++r)
      for (int b = 0; b < 2; ++b) {
        const Vec3d got = vec_cast<double>(s.position(r, b));
        SCOPED_TRACE("step " + std::to_string(n) + ", replica " + std::to_string(r) + ", bead " + std::to_string(b));
        EXPECT_NEAR(got.x, coupled[r][b].x, 2e-4);
        EXPECT_NEAR(got.y, coupled[r][b].y, 2e-4);
        EXPECT_NEAR(got.z, coupled[r][b].z, 2e-4);
        if (n == kSteps) EXPECT_GT(std::sqrt(norm2(coupled[r][b] - alone[r][b])), 8e-3);
      }
  }
}

void check_hydrodynamic_dumbbell_centre_diffusion(const EngineFactory& make_engine, HydrodynamicMethod method) {
  // R = 20000 dumbbells (FENE, r0 = 3.8 Å, k_B T = 0.6) from one start, 100 steps. The centre
  // c = (r₀ + r₁)/2 moves by (h/2ζ)[(I + D₁₂)F₀ + (D₁₂ + I)F₁] + (s/2)(ξ₀ + ξ₁) per step,
  // s = sqrt(2k_BTh/ζ), ξ = B g: with F₁ = −F₀ the drift vanishes, so c's increments are
  // martingale differences and E|c_n − c_0|² = Σ_steps E[(s²/4) tr(Σ₀₀ + Σ₁₁ + 2Σ₀₁)],
  // Σ = B Bᵀ: exactly D/D0 for "cholesky" (6 + 2 tr D₁₂), and for "tea" the product of the
  // 6×6 matrix B = diag(C)(I + β D_offdiag) of Geyer & Winter (eqs. 19–26), built here in
  // double from the replica's own configuration. The expectation is the replicas' mean of
  // that per-step value; |c_n − c_0|² has relative spread ~0.82 per replica, so its mean's
  // standard error is ~0.6 % (taken from the sample itself), tolerance 5σ (~2.9 %). Without
  // hydrodynamics the value is 1/(1 + ⟨a/r⟩) ≈ 2/3 of this; TEA differs from the exact
  // square root here by ~5 %, so each method must meet its own formula.
  SCOPED_TRACE("hydrodynamics = " + method_name(method));
  constexpr std::int32_t kReplicas = 20000;
  constexpr int kSteps = 100;
  constexpr double kT = 0.6;
  Topology topology;
  topology.name = "dumbbell";
  topology.beads.resize(2);
  topology.bonds.push_back(Bond{0, 1, 3.8f});
  auto engine = make_engine(hydrodynamic_setup(topology, kReplicas, 4242, method));
  State start(2, kReplicas);
  for (std::int32_t r = 0; r < kReplicas; ++r) {
    start.set_position(r, 0, {0.0f, 0.0f, 0.0f});
    start.set_position(r, 1, {3.8f, 0.0f, 0.0f});
  }
  engine->set_state(start);
  const double s2 = 2.0 * kT * kH / kZeta;
  // (s²/4)·tr(Σ₀₀ + Σ₁₁ + 2Σ₀₁) for one configuration.
  auto centre_variance = [&](const Vec3d& p0, const Vec3d& p1) {
    const Matrix3 d = rpy(p1 - p0);
    if (method == HydrodynamicMethod::kCholesky) return s2 / 4.0 * (6.0 + 2.0 * (d[0][0] + d[1][1] + d[2][2]));
    // TEA's B for two beads: 6×6, B_ii = C_i, B_ij = C_i β D_ij (coordinates of other beads).
    double offdiag[6][6] = {};
    double element_sum = 0.0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        offdiag[a][3 + b] = offdiag[3 + b][a] = d[a][b];
        element_sum += 2.0 * d[a][b];
      }
    const double n = 6.0;
    const double epsilon = element_sum / (n * (n - 3.0));
    const double q = (n - 1.0) * epsilon * epsilon - (n - 2.0) * epsilon;
    const double beta = std::abs(q) < 1e-7 ? 0.5 : (1.0 - std::sqrt(1.0 - q)) / q;
    double b_matrix[6][6];
    for (int i = 0; i < 6; ++i) {
      double squares = 0.0;
      for (int j = 0; j < 6; ++j) squares += offdiag[i][j] * offdiag[i][j];
      const double c = 1.0 / std::sqrt(1.0 + beta * beta * squares);
      for (int j = 0; j < 6; ++j) b_matrix[i][j] = c * ((i == j ? 1.0 : 0.0) + beta * offdiag[i][j]);
    }
    double trace = 0.0;  // tr(Σ₀₀ + Σ₁₁ + 2Σ₀₁), Σ = B Bᵀ
    for (int a = 0; a < 3; ++a) {
      double s00 = 0, s11 = 0, s01 = 0;
      for (int k = 0; k < 6; ++k) {
        s00 += b_matrix[a][k] * b_matrix[a][k];
        s11 += b_matrix[3 + a][k] * b_matrix[3 + a][k];
        s01 += b_matrix[a][k] * b_matrix[3 + a][k];
      }
      trace += s00 + s11 + 2.0 * s01;
    }
    return s2 / 4.0 * trace;
  };
  double expected = 0.0, free_value = 0.0;
  for (int n = 0; n < kSteps; ++n) {
    const State& s = engine->state();
    double step_mean = 0.0;
    for (std::int32_t r = 0; r < kReplicas; ++r)
      step_mean += centre_variance(vec_cast<double>(s.position(r, 0)), vec_cast<double>(s.position(r, 1)));
    expected += step_mean / kReplicas;
    free_value += s2 / 4.0 * 6.0;
    engine->advance(1);
  }
  const State& s = engine->state();
  double sum = 0.0, sum2 = 0.0;
  for (std::int32_t r = 0; r < kReplicas; ++r) {
    const Vec3d c = 0.5 * (vec_cast<double>(s.position(r, 0)) + vec_cast<double>(s.position(r, 1)));
    const Vec3d c0{1.9, 0.0, 0.0};
    const double m2 = norm2(c - c0);
    sum += m2;
    sum2 += m2 * m2;
  }
  const double mean = sum / kReplicas;
  const double standard_error = std::sqrt((sum2 / kReplicas - mean * mean) / kReplicas);
  EXPECT_NEAR(mean, expected, 5.0 * standard_error);
  EXPECT_GT(std::abs(expected - free_value), 20.0 * standard_error) << "the check cannot tell the coupling apart";
  ::testing::Test::RecordProperty("centre_msd_over_expected", std::to_string(mean / expected));
}

}  // namespace ermak::test

namespace ermak::test {
namespace {

// A dense n×n matrix in double, row-major: the reference below builds the whole 3M×3M
// tensor and its square root explicitly, as docs/model.md#hydrodynamic-interactions writes
// them, rather than the engines' per-bead sums.
struct DenseMatrix {
  int n;
  std::vector<double> elements;
  explicit DenseMatrix(int size) : n(size), elements(std::size_t(size) * std::size_t(size), 0.0) {}
  double& operator()(int i, int j) { return elements[std::size_t(i) * std::size_t(n) + std::size_t(j)]; }
  double operator()(int i, int j) const { return elements[std::size_t(i) * std::size_t(n) + std::size_t(j)]; }
};

bool same_bead(int row, int column) { return row / 3 == column / 3; }

// D/D0 of the beads at `p` (3M × 3M): I on each bead's own block, the textbook RPY block
// rpy() between beads.
DenseMatrix dense_mobility(const std::vector<Vec3d>& p) {
  DenseMatrix d(3 * int(p.size()));
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = 0; j < p.size(); ++j) {
      const Matrix3 block = i == j ? Matrix3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}} : rpy(p[j] - p[i]);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) d(3 * int(i) + a, 3 * int(j) + b) = block[a][b];
    }
  return d;
}

// TEA's B (docs/model.md#tea; Geyer & Winter eqs. 19–26) as a matrix: ε the mean of all
// elements outside the beads' own blocks (their sum over 3M(3M − 3)), held at most 1; β from
// q = (3M − 1)ε² − (3M − 2)ε; per row i, C_i = (1 + β² Σ_{j other beads} D_ij²)^(−1/2),
// B_ii = C_i, B_ij = C_i β D_ij for j of another bead, 0 for j of the same bead.
DenseMatrix tea_square_root(const DenseMatrix& d) {
  const int n = d.n;
  double off_block_sum = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (!same_bead(i, j)) off_block_sum += d(i, j);
  const double epsilon = std::min(1.0, off_block_sum / (double(n) * (n - 3.0)));
  const double q = (n - 1.0) * epsilon * epsilon - (n - 2.0) * epsilon;
  const double beta = std::abs(q) < 1e-7 ? 0.5 : (1.0 - std::sqrt(1.0 - q)) / q;
  DenseMatrix b(n);
  for (int i = 0; i < n; ++i) {
    double squares = 0.0;
    for (int j = 0; j < n; ++j)
      if (!same_bead(i, j)) squares += d(i, j) * d(i, j);
    const double c = 1.0 / std::sqrt(1.0 + beta * beta * squares);
    for (int j = 0; j < n; ++j) b(i, j) = i == j ? c : (same_bead(i, j) ? 0.0 : c * beta * d(i, j));
  }
  return b;
}

// The lower Cholesky factor L of D (L Lᵀ = D), Cholesky–Banachiewicz in double.
DenseMatrix cholesky_lower(const DenseMatrix& d) {
  DenseMatrix l(d.n);
  for (int i = 0; i < d.n; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = d(i, j);
      for (int k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      l(i, j) = i == j ? std::sqrt(s) : s / l(j, j);
    }
  return l;
}

// The spacing of floats just above |x|.
double float_ulp(float x) { return double(std::nextafter(std::abs(x), INFINITY)) - double(std::abs(x)); }

// One step of an engine against the dense reference, for every mobile coordinate of every
// replica: Δ = (h/ζ) Σ_j (D_ij/D0) F_j + sqrt(2 k_B T h/ζ) Σ_j B_ij g_j over the mobile beads,
// D and B built here in double, F the engine's forces at the start, g the documented Philox
// Gaussians of the start's step. A coordinate misses when it is off by more than 3 float
// ulps of itself plus `floor_A`; fixed beads must keep their bits.
struct DenseComparison {
  double worst_error_A = 0.0, worst_in_ulps = 0.0;
  int misses = 0;
};

DenseComparison compare_step_with_dense_reference(const EngineSetup& setup, HydrodynamicMethod method, double kT,
                                                  const State& start, const State& forces, const State& after,
                                                  double floor_A) {
  const std::int32_t beads = start.bead_count;
  std::vector<char> fixed(std::size_t(beads), 0);
  for (const std::int32_t b : setup.fixed_beads) fixed[std::size_t(b)] = 1;
  std::vector<std::int32_t> mobile;
  for (std::int32_t i = 0; i < beads; ++i)
    if (!fixed[std::size_t(i)]) mobile.push_back(i);
  const int n = 3 * int(mobile.size());
  const double mobility_step = kH / kZeta, amplitude = std::sqrt(2.0 * kT * kH / kZeta);
  DenseComparison out;
  for (std::int32_t r = 0; r < start.replica_count; ++r) {
    SCOPED_TRACE("replica " + std::to_string(r));
    std::vector<Vec3d> p;
    std::vector<double> f(static_cast<std::size_t>(n)), g(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < mobile.size(); ++k) {
      const std::int32_t i = mobile[k];
      p.push_back(vec_cast<double>(start.position(r, i)));
      const Vec3d force = vec_cast<double>(forces.position(r, i));
      const Vec3d noise = vec_cast<double>(rng::gaussian3(setup.seed, rng::Stream::kBeadLangevin, std::uint32_t(r),
                                                          std::uint32_t(i), std::uint64_t(start.step)));
      f[3 * k] = force.x, f[3 * k + 1] = force.y, f[3 * k + 2] = force.z;
      g[3 * k] = noise.x, g[3 * k + 1] = noise.y, g[3 * k + 2] = noise.z;
    }
    const DenseMatrix d = dense_mobility(p);
    const DenseMatrix b = method == HydrodynamicMethod::kCholesky ? cholesky_lower(d) : tea_square_root(d);
    for (std::size_t k = 0; k < mobile.size(); ++k) {
      const std::int32_t i = mobile[k];
      const std::size_t at = after.index(r, i);
      const float before[3] = {start.x[at], start.y[at], start.z[at]};
      const float now[3] = {after.x[at], after.y[at], after.z[at]};
      for (int c = 0; c < 3; ++c) {
        const int row = 3 * int(k) + c;
        double want = 0.0;
        for (int j = 0; j < n; ++j) want += mobility_step * d(row, j) * f[j] + amplitude * b(row, j) * g[j];
        const double got = double(now[c]) - double(before[c]);
        const double error = std::abs(got - want), ulp = float_ulp(now[c]);
        out.worst_error_A = std::max(out.worst_error_A, error);
        out.worst_in_ulps = std::max(out.worst_in_ulps, error / ulp);
        if (error > 3.0 * ulp + floor_A && ++out.misses <= 5)  // the first few; the count by the caller
          ADD_FAILURE() << "replica " << r << " bead " << i << " component " << c << " moved by " << got
                        << " Å, the dense reference by " << want << " Å (tolerance " << 3.0 * ulp + floor_A << " Å)";
      }
    }
    for (const std::int32_t i : setup.fixed_beads) {
      const std::size_t at = after.index(r, i);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(after.x[at]), std::bit_cast<std::uint32_t>(start.x[at])) << "bead " << i;
      EXPECT_EQ(std::bit_cast<std::uint32_t>(after.y[at]), std::bit_cast<std::uint32_t>(start.y[at])) << "bead " << i;
      EXPECT_EQ(std::bit_cast<std::uint32_t>(after.z[at]), std::bit_cast<std::uint32_t>(start.z[at])) << "bead " << i;
    }
  }
  return out;
}

}  // namespace

void check_hydrodynamic_step_against_a_dense_reference(const EngineFactory& make_engine, HydrodynamicMethod method) {
  // The two-bead checks above cannot see what only a generic configuration of several beads
  // shows: a wrong sign in one off-diagonal element of a block (they sit on an axis), a
  // bead's own Gaussian in the coupled sum instead of g_j, C_i on g_i alone, TEA's ε or β
  // from another formula, a fixed bead left in the tensor. So: 6 beads of a bent chain, no
  // coordinate near zero (5.6–16 Å in magnitude), FENE bonds of r0 = 3.8 Å, beads 0
  // and 3 (not bonded) ~3.0 Å apart — their RPY block in the overlap branch (r < 2a = 3.8 Å)
  // and their repulsion ~8 kcal/mol/Å — bead 2 fixed, a tether (κ = 2, static anchor) on
  // bead 5 so that a protocol force enters the drift. 4 replicas, each displaced by up to
  // ±0.15 Å per coordinate so that each has its own tensor and its own noise. One step from
  // step 41 must move every mobile coordinate by (docs/model.md#hydrodynamic-interactions)
  //   Δ = (h/ζ) Σ_j (D_ij/D0) F_j + sqrt(2 k_B T h/ζ) Σ_j B_ij g_j     (mobile beads i, j)
  // with D the dense RPY tensor of the 5 mobile beads built here in double, B by the method
  // (TEA's explicit matrix, or this file's own Cholesky), F the engine's own forces at the
  // start (validated elsewhere) and g the documented Philox Gaussians of (seed, bead stream,
  // replica, bead, step) (docs/model.md#noise).
  SCOPED_TRACE("hydrodynamics = " + method_name(method));
  constexpr std::int32_t kBeads = 6, kReplicas = 4, kFixedBead = 2, kTetheredBead = 5;
  constexpr std::int64_t kStep = 41;
  constexpr double kT = 0.6, kJitter = 0.15;
  const Vec3d chain[kBeads] = {{9.70, -11.30, 13.10}, {7.65, -12.80, 15.92}, {6.89, -15.70, 13.58},
                               {8.90, -13.52, 11.21}, {8.54, -15.85, 8.23},  {10.10, -13.41, 5.78}};
  Topology topology;
  topology.name = "bent chain";
  topology.beads.resize(kBeads);
  for (std::int32_t i = 0; i + 1 < kBeads; ++i) topology.bonds.push_back(Bond{i, i + 1, 3.8f});
  EngineSetup setup = hydrodynamic_setup(topology, kReplicas, 0x48d1e5ull, method);
  setup.fixed_beads = {kFixedBead};
  HarmonicTether tether;
  tether.bead = kTetheredBead;
  tether.anchor_start_A = {12.4, -12.2, 4.3};
  tether.spring_kcal_per_mol_A2 = 2.0;
  setup.tethers.push_back(tether);
  // Each replica's start: uniform ±kJitter from mt19937's raw words (the standard fixes
  // those; the distributions' algorithms are the library's).
  std::mt19937 random(2029);
  auto jitter = [&] { return kJitter * (2.0 * double(random()) / 4294967296.0 - 1.0); };
  State start(kBeads, kReplicas);
  start.step = kStep;
  for (std::int32_t r = 0; r < kReplicas; ++r)
    for (std::int32_t b = 0; b < kBeads; ++b)
      start.set_position(r, b, vec_cast<float>(chain[b] + Vec3d{jitter(), jitter(), jitter()}));
  auto engine = make_engine(setup);
  engine->set_state(start);
  const State forces = engine->forces();
  engine->advance(1);
  const State& after = engine->state();
  ASSERT_EQ(after.step, kStep + 1);

  for (std::int32_t r = 0; r < kReplicas; ++r) {
    const Vec3d p0 = vec_cast<double>(start.position(r, 0)), p3 = vec_cast<double>(start.position(r, 3));
    ASSERT_LT(std::sqrt(norm2(p3 - p0)), 2.0 * kRadius) << "beads 0 and 3 must overlap (RPY's r < 2a branch)";
    // A sane start: finite forces whose drift (h/ζ)|F| stays ≤ 0.1 Å.
    for (std::int32_t i = 0; i < kBeads; ++i) {
      const Vec3d force = vec_cast<double>(forces.position(r, i));
      ASSERT_TRUE(std::isfinite(norm2(force))) << "bead " << i;
      if (i != kFixedBead) ASSERT_LT(std::sqrt(norm2(force)), 60.0) << "bead " << i;
    }
  }
  // Tolerance per coordinate: 3 float ulps of the coordinate (1.4e-6 Å at 5.6 Å, 2.9e-6 Å
  // from 8 to 16 Å). The engine adds its float displacement (|Δ| ≤ 0.14 Å here) to a float
  // coordinate: the result carries that coordinate's rounding, ≤ 1/2 ulp, while the
  // displacement's own float error (a few ulps of Δ: ≲ 1e-7 Å, with the batched Gaussians'
  // ~1 ulp of g and a GPU's approximate square roots and divisions) stays far below it;
  // start and end read back in double are exact. Measured on the CPU: 0.50 ulp at worst
  // (4.7e-7 Å) for both methods, each coordinate exactly float(start + Δ_ref) — so 3 ulps
  // is a 6× margin. Each of the bugs named above, tried once in the CPU engine, missed by
  // 6e-4 Å (ε over 3M(3M − 1)) to 9e-2 Å (g_i in the coupled sum), nearly every
  // coordinate of the 60.
  const DenseComparison c = compare_step_with_dense_reference(setup, method, kT, start, forces, after, 0.0);
  EXPECT_EQ(c.misses, 0) << "coordinates off the dense reference, of " << kReplicas * 15;
  ::testing::Test::RecordProperty("worst_displacement_error_A_" + method_name(method), std::to_string(c.worst_error_A));
  ::testing::Test::RecordProperty("worst_displacement_error_ulps_" + method_name(method), std::to_string(c.worst_in_ulps));
  std::printf("[ %s ] one step against the dense reference: worst |Δ - Δ_ref| = %.3g A (%.3g ulps)\n",
              method_name(method).c_str(), c.worst_error_A, c.worst_in_ulps);
}

namespace {

// One step of a self-avoiding chain of `beads` beads (see below), beads 0 and beads/2 fixed.
void check_one_step_of_a_chain_against_a_dense_reference(const EngineFactory& make_engine,
                                                        HydrodynamicMethod method, std::int32_t beads) {
  const std::int32_t kBeads = beads;
  constexpr std::int32_t kReplicas = 2;
  constexpr double kT = 0.6, kJitter = 0.1, kBond = 3.8, kClosest = 4.2;
  std::mt19937 random(90125);
  auto uniform = [&] { return double(random()) / 4294967296.0; };
  std::vector<Vec3d> chain = {{20.0, 20.0, 20.0}};
  while (std::int32_t(chain.size()) < kBeads) {
    const double z = 2.0 * uniform() - 1.0, phi = 2.0 * std::numbers::pi * uniform(), s = std::sqrt(1.0 - z * z);
    const Vec3d next = chain.back() + kBond * Vec3d{s * std::cos(phi), s * std::sin(phi), z};
    bool clear = true;
    for (std::size_t k = 0; k + 1 < chain.size() && clear; ++k) clear = norm2(next - chain[k]) > kClosest * kClosest;
    if (clear) chain.push_back(next);
  }
  Topology topology;
  topology.name = "long chain";
  topology.beads.resize(kBeads);
  for (std::int32_t i = 0; i + 1 < kBeads; ++i) topology.bonds.push_back(Bond{i, i + 1, float(kBond)});
  EngineSetup setup = hydrodynamic_setup(topology, kReplicas, 0x5eed7ull, method);
  setup.fixed_beads = {0, kBeads / 2};
  State start(kBeads, kReplicas);
  start.step = 1000003;
  for (std::int32_t r = 0; r < kReplicas; ++r)
    for (std::int32_t b = 0; b < kBeads; ++b)
      start.set_position(r, b, vec_cast<float>(chain[std::size_t(b)] +
                                                kJitter * Vec3d{2 * uniform() - 1, 2 * uniform() - 1, 2 * uniform() - 1}));
  auto engine = make_engine(setup);
  engine->set_state(start);
  const State forces = engine->forces();
  engine->advance(1);
  ASSERT_EQ(engine->state().step, start.step + 1);
  const DenseComparison c = compare_step_with_dense_reference(setup, method, kT, start, forces, engine->state(), 2e-6);
  EXPECT_EQ(c.misses, 0) << "coordinates off the dense reference, of " << kReplicas * 3 * (kBeads - 2);
  ::testing::Test::RecordProperty(
      "many_beads_worst_displacement_error_A_" + method_name(method) + "_" + std::to_string(kBeads - 2),
      std::to_string(c.worst_error_A));
  std::printf("[ %s ] one step of %d mobile beads against the dense reference: worst |Δ - Δ_ref| = %.3g A "
              "(%.3g ulps)\n",
              method_name(method).c_str(), kBeads - 2, c.worst_error_A, c.worst_in_ulps);
}

}  // namespace

void check_hydrodynamic_step_of_many_beads_against_a_dense_reference(const EngineFactory& make_engine,
                                                                    HydrodynamicMethod method) {
  // The 6-bead check with as many beads as a replica of a small protein: a self-avoiding
  // chain of 122 beads (3.8 Å bonds, no two beads closer than 4.2 Å), beads 0 and 61 fixed —
  // M = 120 mobile beads, 3M = 360 rows, more than a thread block's 256 threads, so that
  // every loop of an engine's kernels over rows or pairs takes more than one pass — 2
  // replicas with jitter, one step from step 1000003, against the dense reference. The
  // tolerance adds 2e-6 Å to 3 ulps: each coordinate's noise now sums 360 terms, the exact
  // factor's rows carry the rounding of 360 elimination steps in float (relative ~1e-6 of
  // the noise's 0.044 Å), TEA's ε sums 1.3·10⁵ elements. Measured on the CPU: 0.50 ulp
  // (TEA) and 0.71 ulp (exact) at worst, 3.4e-6 Å with coordinates up to ~60 Å. A missing
  // pass (rows beyond 256, pairs beyond a warp's share) leaves the noise or drift of whole
  // beads out, 1e-2 Å.
  SCOPED_TRACE("hydrodynamics = " + method_name(method));
  // Also 62 and 42 beads (M = 60 and 40): the CUDA engine's TEA takes groups of 16 and 8
  // lanes per bead for replicas of up to 96 and 48 mobile beads (a warp's 32 above).
  for (const std::int32_t beads : {122, 62, 42}) {
    SCOPED_TRACE(std::to_string(beads) + " beads");
    check_one_step_of_a_chain_against_a_dense_reference(make_engine, method, beads);
  }
}

void check_hydrodynamics_with_one_or_no_mobile_beads(const EngineFactory& make_engine, HydrodynamicMethod method) {
  // A replica whose beads are all fixed but one: its tensor is the 3×3 identity, B = I
  // (TEA: ε = 0 for fewer than two beads, C = 1), so it must move as without hydrodynamics —
  // the same documented noise, the same drift — to float rounding over 50 steps (1e-5 Å).
  // All fixed: no bead moves, to the bit. (ε's 3M(3M − 3) is zero for one bead; a kernel
  // launched over zero beads or a 0×0 factor must be harmless.)
  SCOPED_TRACE("hydrodynamics = " + method_name(method));
  constexpr std::int32_t kBeads = 5, kReplicas = 3;
  Topology topology;
  topology.name = "short chain";
  topology.beads.resize(kBeads);
  for (std::int32_t i = 0; i + 1 < kBeads; ++i) topology.bonds.push_back(Bond{i, i + 1, 3.8f});
  State start(kBeads, kReplicas);
  for (std::int32_t r = 0; r < kReplicas; ++r)
    for (std::int32_t b = 0; b < kBeads; ++b)
      start.set_position(r, b, Vec3f{3.7f * float(b), 0.4f * float(b % 2) + 0.1f * float(r), 0.2f * float(r)});
  {
    EngineSetup setup = hydrodynamic_setup(topology, kReplicas, 515, method);
    setup.fixed_beads = {0, 1, 2, 4};
    EngineSetup plain = setup;
    plain.langevin.hydrodynamics.method = HydrodynamicMethod::kNone;
    auto with = make_engine(setup), without = make_engine(plain);
    with->set_state(start);
    without->set_state(start);
    with->advance(50);
    without->advance(50);
    const State &a = with->state(), &b = without->state();
    double worst = 0.0, moved = 0.0;
    for (std::size_t k = 0; k < a.x.size(); ++k) {
      worst = std::max({worst, std::abs(double(a.x[k]) - b.x[k]), std::abs(double(a.y[k]) - b.y[k]),
                        std::abs(double(a.z[k]) - b.z[k])});
      moved = std::max(moved, std::abs(double(a.x[k]) - start.x[k]));
    }
    EXPECT_LE(worst, 1e-5) << "one mobile bead with hydrodynamics against none";
    EXPECT_GT(moved, 0.05) << "the mobile bead moved";
  }
  {
    EngineSetup setup = hydrodynamic_setup(topology, kReplicas, 515, method);
    setup.fixed_beads = {0, 1, 2, 3, 4};
    auto engine = make_engine(setup);
    engine->set_state(start);
    engine->advance(20);
    const State& a = engine->state();
    EXPECT_EQ(a.step, 20);
    for (std::size_t k = 0; k < a.x.size(); ++k) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(a.x[k]), std::bit_cast<std::uint32_t>(start.x[k]));
      EXPECT_EQ(std::bit_cast<std::uint32_t>(a.y[k]), std::bit_cast<std::uint32_t>(start.y[k]));
      EXPECT_EQ(std::bit_cast<std::uint32_t>(a.z[k]), std::bit_cast<std::uint32_t>(start.z[k]));
    }
  }
}


double check_hydrodynamic_dumbbell_bond_length_is_boltzmanns(const EngineFactory& make_engine,
                                                            HydrodynamicMethod method) {
  // FENE k = 20 kcal/mol/Å², R0 = 2 Å, r0 = 3.8 Å, k_BT = 0.6 (300 K), a = 1.9 Å, h = 0.04 τ_H
  // (half the default: the O(h) excess halves). The bond relaxes at rate ~2k(1 − D₁₂∥/D0)/ζ =
  // 0.3 τ_H⁻¹ (D₁₂∥/D0 = 0.625 at 3.8 Å), ~83 steps; 1000 steps of burn-in (12 relaxation
  // times), then 40 samples 100 steps apart per replica. R = 2000 independent replicas: the
  // standard error of ⟨(r − r0)²⟩ is taken from the spread of the replicas' own time means
  // (which carries their autocorrelation). Boltzmann's ⟨(r − r0)²⟩ = ∫ (r − r0)² r² e^{−U/k_BT}
  // / ∫ r² e^{−U/k_BT} over r0 ± R0 (Simpson, 20 000 intervals). The Euler–Maruyama excess
  // without hydrodynamics is ~hk/ζ = 1.6 % here (docs/model.md#dynamics) and smaller with them
  // (the coupling lowers the bond's relative mobility to 2(1 − 0.625)/ζ): allowed 2 %.
  SCOPED_TRACE("hydrodynamics = " + method_name(method));
  constexpr double kT = 0.6, kK = 20.0, kR0 = 2.0, kBond = 3.8, kStep = 0.04;
  constexpr std::int32_t kReplicas = 2000;
  constexpr int kBurnIn = 1000, kSamples = 40, kEvery = 100;
  Topology topology;
  topology.name = "dumbbell";
  topology.beads.resize(2);
  topology.bonds.push_back(Bond{0, 1, float(kBond)});
  EngineSetup setup = hydrodynamic_setup(topology, kReplicas, 777, method);
  setup.langevin.timestep_tau = kStep;
  auto engine = make_engine(setup);
  State start(2, kReplicas);
  for (std::int32_t r = 0; r < kReplicas; ++r) {
    start.set_position(r, 0, {0.0f, 0.0f, 0.0f});
    start.set_position(r, 1, {float(kBond), 0.0f, 0.0f});
  }
  engine->set_state(start);
  engine->advance(kBurnIn);
  std::vector<double> per_replica(kReplicas, 0.0);
  for (int sample = 0; sample < kSamples; ++sample) {
    engine->advance(kEvery);
    const State& s = engine->state();
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const double x = std::sqrt(norm2(vec_cast<double>(s.position(r, 1)) - vec_cast<double>(s.position(r, 0)))) - kBond;
      per_replica[r] += x * x / kSamples;
    }
  }
  double mean = 0.0, mean2 = 0.0;
  for (const double v : per_replica) {
    mean += v / kReplicas;
    mean2 += v * v / kReplicas;
  }
  const double standard_error = std::sqrt((mean2 - mean * mean) / kReplicas);
  // Boltzmann by Simpson's rule.
  constexpr int kIntervals = 20000;
  const double lo = kBond - kR0, width = 2.0 * kR0 / kIntervals;
  double weight = 0.0, moment = 0.0;
  for (int i = 1; i < kIntervals; ++i) {  // the ends have zero weight (U → ∞)
    const double r = lo + i * width, x = r - kBond;
    const double u = -0.5 * kK * kR0 * kR0 * std::log(1.0 - x * x / (kR0 * kR0));
    const double w = (i % 2 == 1 ? 4.0 : 2.0) * r * r * std::exp(-u / kT);
    weight += w;
    moment += w * x * x;
  }
  const double boltzmann = moment / weight;
  EXPECT_NEAR(mean, boltzmann, 5.0 * standard_error + 0.02 * boltzmann)
      << "standard error " << standard_error << " Å²";
  ::testing::Test::RecordProperty("bond_variance_over_boltzmann", std::to_string(mean / boltzmann));
  return mean / boltzmann;
}

}  // namespace ermak::test
