// Hydrodynamic interactions against exactly solvable two-bead problems; declared in
// hydrodynamics_checks.h. Internal units (Å, kcal/mol, τ_H): ζ = 50, h = 0.08, a = 1.9 Å.
//
// The RPY tensor is written here a second time, from its textbook form with unit vectors and
// in double (docs/model.md#rpy), so that the engines' float form (physics/hydrodynamic_tensor.h)
// is checked against an independent statement of the same equations.
#include "support/hydrodynamics_checks.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

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
