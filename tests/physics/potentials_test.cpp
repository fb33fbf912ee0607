// Rung 1 of the correctness ladder (DESIGN.md §5, docs/validation.md#rung-1):
// each SOP term of physics/ against an independent double-precision reference written
// here (the HALMD / OpenMM-Reference idea: never check a formula only against itself),
//   - energies at hand-computed points,
//   - force = −∇E, where the float force of the header is compared with central finite
//     differences of the *double* reference energy on 3-D Cartesian positions,
// and the counter-based noise (rng/philox_gaussian.h): Random123 known answers,
// determinism, independence of the counter fields, and moments of the Gaussians.
#include <gtest/gtest.h>

#include <Random123/philox.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "ermak/core/vec3.h"
#include "ermak/model/force_field.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/harmonic.h"
#include "ermak/physics/plane_tether.h"
#include "ermak/physics/native_contact.h"
#include "ermak/physics/nonbonded_pair.h"
#include "ermak/physics/repulsion.h"
#include "ermak/protocol/external_force.h"
#include "ermak/rng/philox_gaussian.h"

namespace {

using ermak::Vec3d;
using ermak::Vec3f;
namespace physics = ermak::physics;
namespace rng = ermak::rng;

// ---------------------------------------------------------------------------------------
// Independent references, double precision, written from docs/model.md (not from the
// headers): energy as a function of the distance r.
double fene_energy_ref(double r, double r0, double k, double R0) {
  const double x = (r - r0) / R0;
  return -0.5 * k * R0 * R0 * std::log(1.0 - x * x);
}
double native_energy_ref(double r, double r0, double eh) {
  const double s6 = std::pow(r0 / r, 6);
  return eh * (s6 * s6 - 2.0 * s6);
}
double repulsion_energy_ref(double r, double eps, double sigma) { return eps * std::pow(sigma / r, 6); }
double tether_energy_ref(Vec3d p, Vec3d anchor, double kappa) {
  const double dx = p.x - anchor.x, dy = p.y - anchor.y, dz = p.z - anchor.z;
  return 0.5 * kappa * (dx * dx + dy * dy + dz * dz);
}

// −∇_i E of a pair energy E(|r_i − r_j|) by central differences in double on the three
// Cartesian coordinates of bead i. Step δ = 1e-6·|r| Å: truncation error δ²·E'''/6 and
// round-off ε_d·E/δ are both ≲ 1e-8 relative for every r tested below.
template <class EnergyOfR>
Vec3d minus_gradient_fd(Vec3d ri, Vec3d rj, EnergyOfR energy) {
  const double delta = 1e-6 * std::sqrt((ri.x - rj.x) * (ri.x - rj.x) + (ri.y - rj.y) * (ri.y - rj.y) +
                                        (ri.z - rj.z) * (ri.z - rj.z));
  auto e_at = [&](Vec3d p) {
    const double dx = p.x - rj.x, dy = p.y - rj.y, dz = p.z - rj.z;
    return energy(std::sqrt(dx * dx + dy * dy + dz * dz));
  };
  Vec3d g;
  g.x = -(e_at({ri.x + delta, ri.y, ri.z}) - e_at({ri.x - delta, ri.y, ri.z})) / (2 * delta);
  g.y = -(e_at({ri.x, ri.y + delta, ri.z}) - e_at({ri.x, ri.y - delta, ri.z})) / (2 * delta);
  g.z = -(e_at({ri.x, ri.y, ri.z + delta}) - e_at({ri.x, ri.y, ri.z - delta})) / (2 * delta);
  return g;
}

// Two float positions with |r_i − r_j| = r (approximately; the exact float distance is
// what the references use), in a random direction around a random centre.
struct PairGeometry {
  Vec3f ri, rj;
  Vec3d ri_d() const { return ermak::vec_cast<double>(ri); }
  Vec3d rj_d() const { return ermak::vec_cast<double>(rj); }
  double r() const { return ermak::norm(ri_d() - rj_d()); }
  float r2_float() const {
    const Vec3f d = ri - rj;
    return d.x * d.x + d.y * d.y + d.z * d.z;  // as the backends compute it
  }
};

Vec3d random_unit(std::mt19937_64& gen) {
  std::normal_distribution<double> n(0.0, 1.0);
  Vec3d u{n(gen), n(gen), n(gen)};
  return (1.0 / ermak::norm(u)) * u;
}

PairGeometry random_pair(std::mt19937_64& gen, double r) {
  std::uniform_real_distribution<double> c(-30.0, 30.0);
  const Vec3d centre{c(gen), c(gen), c(gen)};
  const Vec3d u = random_unit(gen);
  return {ermak::vec_cast<float>(centre + (0.5 * r) * u), ermak::vec_cast<float>(centre - (0.5 * r) * u)};
}

// Force on bead i from a PairForce: F_i = force_over_r · (r_i − r_j), in float as the
// backends do.
Vec3d force_on_i(const PairGeometry& g, physics::PairForce pf) {
  const Vec3f d = g.ri - g.rj;
  return {double(pf.force_over_r * d.x), double(pf.force_over_r * d.y), double(pf.force_over_r * d.z)};
}

// |a − b| ≤ rtol·|b| + atol per component.
void expect_vec_near(Vec3d a, Vec3d b, double rtol, double atol, const std::string& what) {
  const double ref = ermak::norm(b);
  EXPECT_NEAR(a.x, b.x, rtol * ref + atol) << what;
  EXPECT_NEAR(a.y, b.y, rtol * ref + atol) << what;
  EXPECT_NEAR(a.z, b.z, rtol * ref + atol) << what;
}

constexpr int kRandomSamples = 2000;
const ermak::SopParameters kSop{};  // SOP-GPU defaults: k = 20, R0 = 2, ε_l = 1, σ = 3.8, 20 Å

// ---------------------------------------------------------------------------------------
// FENE

TEST(FenePotential, KnownValues) {
  const physics::FeneParameters p{kSop.fene_k_kcal_per_mol_A2, kSop.fene_R0_A};
  const double k = 20.0, R0 = 2.0;
  for (float r0 : {3.8f, 5.3f}) {
    // r = r0: minimum, U = 0, F = 0 (exactly in float: dr = 0).
    const auto at_r0 = physics::fene<true>(r0 * r0, r0, p);
    EXPECT_EQ(at_r0.energy, 0.0f);
    EXPECT_EQ(at_r0.force_over_r, 0.0f);
    // r = r0 ± 1 Å = r0 ± R0/2: U = −(k/2) R0² ln(3/4) = 11.5072829… kcal/mol,
    // −dU/dr = −k·dr/(1 − (dr/R0)²) = ∓80/3 kcal/mol/Å.
    const double u_half = -0.5 * k * R0 * R0 * std::log(0.75);
    EXPECT_NEAR(u_half, 11.507282898071237, 1e-12);
    for (double dr : {+1.0, -1.0}) {
      const float r = r0 + float(dr);
      const auto pf = physics::fene<true>(r * r, r0, p);
      EXPECT_NEAR(pf.energy, u_half, 2e-6 * u_half);
      const double force_r = -k * dr / 0.75;  // radial force, + = repulsive
      EXPECT_NEAR(double(pf.force_over_r) * r, force_r, 2e-6 * std::abs(force_r));
    }
  }
  // Beyond |r − r0| ≥ R0 the energy is not finite (docs/model.md#fene).
  EXPECT_FALSE(std::isfinite(physics::fene<true>(6.0f * 6.0f, 3.8f, p).energy));
}

TEST(FenePotential, EnergyAndForceMatchDoubleReference) {
  // Range: |r − r0| up to 0.95 R0, r0 from 3.6 to 4.2 Å (C-alpha bonds; 3.8 Å typical),
  // k from 10 to 30 kcal/mol/Å² and R0 from 1.5 to 2.5 Å around the SOP-GPU defaults
  // (20, 2), drawn per sample; the float values of k and R0 go into both the function and
  // the double reference. Tolerances (float vs double reference), with x = (r − r0)/R0 and
  // δr the float error of r − r0: the float r = sqrt(r²) of float positions (r ≤ 6.6 Å)
  // carries a few ε_f·r, δr ≲ 1e-6 Å.
  //  energy: rtol 1e-5 plus atol 1e-6·kR0²/2 kcal/mol (4e-5 at the defaults; 1.1e-5 to
  //    9.4e-5) — near r0 the float log(1 − x²) of a number next to 1 carries an absolute
  //    error of a few ε_f = 1.2e-7, i.e. a few 1.2e-7·kR0²/2 in U; δr moves U by
  //    |U'|δr = k|dr|δr/(1 − x²), at most 2|x|/((1 − x²)R0) ≤ 0.5 of the atol for |x| ≤ 0.3
  //    and at most 6e-6 of U (inside the rtol) beyond.
  //  force: rtol 1e-4 plus atol 1e-4·k kcal/mol/Å (2e-3 at the defaults) — δr moves the
  //    force by k(1 + x²)/(1 − x²)²·δr: for |x| ≤ 0.1 that is ≤ 1.03·k·1e-6 (1 % of the
  //    atol), beyond it ≤ (1 + x²)/((1 − x²)|dr|)·δr ≤ 1.4e-5 of the force (the rtol).
  //  Measured: errors ≤ 0.15 (energy) and ≤ 0.03 (force) of these tolerances.
  std::mt19937_64 gen(20240601);
  std::uniform_real_distribution<double> r0_dist(3.6, 4.2), x_dist(-0.95, 0.95), k_dist(10.0, 30.0),
      R0_dist(1.5, 2.5);
  double worst_force_rel = 0.0, worst_energy_tol = 0.0, worst_force_tol = 0.0;
  for (int s = 0; s < kRandomSamples; ++s) {
    const float r0 = float(r0_dist(gen));
    const physics::FeneParameters p{float(k_dist(gen)), float(R0_dist(gen))};
    const double k = p.k, R0 = p.R0;  // the float values, exactly
    const PairGeometry g = random_pair(gen, r0 + x_dist(gen) * R0);
    const auto ref = [&](double r) { return fene_energy_ref(r, r0, k, R0); };
    const auto pf = physics::fene<true>(g.r2_float(), r0, p);
    const double e_ref = ref(g.r());
    const std::string where = "r = " + std::to_string(g.r()) + ", r0 = " + std::to_string(r0) +
                              ", k = " + std::to_string(k) + ", R0 = " + std::to_string(R0);
    const double e_tol = 1e-5 * std::abs(e_ref) + 1e-6 * 0.5 * k * R0 * R0;
    EXPECT_NEAR(pf.energy, e_ref, e_tol) << where;
    const Vec3d f_ref = minus_gradient_fd(g.ri_d(), g.rj_d(), ref);
    const Vec3d f = force_on_i(g, pf);
    expect_vec_near(f, f_ref, 1e-4, 1e-4 * k, "FENE force at " + where);
    worst_energy_tol = std::max(worst_energy_tol, std::abs(pf.energy - e_ref) / e_tol);
    worst_force_tol = std::max(worst_force_tol, ermak::norm(f - f_ref) / (1e-4 * ermak::norm(f_ref) + 1e-4 * k));
    // Newton's third law is exact by construction (F_j = −F_i) in the backends.
    worst_force_rel = std::max(worst_force_rel, ermak::norm(f - f_ref) / (ermak::norm(f_ref) + 1e-4 * k));
  }
  RecordProperty("worst_relative_force_error", std::to_string(worst_force_rel));
  RecordProperty("worst_energy_error_over_tolerance", std::to_string(worst_energy_tol));
  RecordProperty("worst_force_error_over_tolerance", std::to_string(worst_force_tol));
}

// The tension at a stretch and its inverse (the force clamp's checks, run/step_size_check.cpp):
// against the radial force of docs/model.md#fene, F(r) = −k(r − r0)/(1 − ((r − r0)/R0)²),
// tension = −F; the inverse analytically (tension(stretch_at_tension(F)) = F); and against
// the force the dynamics use (physics::fene, double).
TEST(FenePotential, TensionAndItsInverse) {
  const physics::FeneParametersT<double> p{20.0, 2.0};
  // Known values: Δ = R0/2 → k·1/(3/4) = 80/3; Δ = 0.7 R0 → k·1.4/0.51.
  EXPECT_NEAR(physics::fene_tension(1.0, p), 80.0 / 3.0, 1e-13);
  EXPECT_NEAR(physics::fene_tension(1.4, p), 20.0 * 1.4 / 0.51, 1e-12);
  EXPECT_EQ(physics::fene_tension(0.0, p), 0.0);
  const double r0 = 3.8;
  for (double stretch = -1.9; stretch <= 1.9; stretch += 0.05) {
    const double x = stretch / p.R0;
    const double force_doc = -p.k * stretch / (1.0 - x * x);  // docs/model.md#fene
    EXPECT_NEAR(physics::fene_tension(stretch, p), -force_doc, 1e-12 * std::abs(force_doc) + 1e-13) << stretch;
    const double r = r0 + stretch;
    const double from_force = -physics::fene<false>(r * r, r0, p).force_over_r * r;
    EXPECT_NEAR(physics::fene_tension(stretch, p), from_force, 1e-11 * std::abs(from_force) + 1e-12) << stretch;
  }
  for (const physics::FeneParametersT<double> q : {p, physics::FeneParametersT<double>{13.0, 1.5}})
    for (double force : {0.1, 1.0, 20.0, 69.5, 300.0, 1e4, 1e6}) {
      const double stretch = physics::fene_stretch_at_tension(force, q);
      EXPECT_GT(stretch, 0.0);
      EXPECT_LT(stretch, q.R0);
      EXPECT_NEAR(physics::fene_tension(stretch, q), force, 1e-9 * force) << force;
    }
  // Small forces: the linear spring, Δ ≈ F/k (FENE's correction (Δ/R0)² ~ 6e-10 here).
  EXPECT_NEAR(physics::fene_stretch_at_tension(1e-3, p), 1e-3 / 20.0, 1e-6 * 1e-3 / 20.0);
}

// ---------------------------------------------------------------------------------------
// Native contacts

TEST(NativeContactPotential, KnownValues) {
  for (float r0 : {4.5f, 6.0f, 7.9f}) {
    for (float eh : {1.0f, 1.5f}) {
      // Minimum −ε_h at r = r0 with zero force (in float s2 = r0²/r0² = 1 exactly).
      const auto at_min = physics::native_contact<true>(r0 * r0, r0, eh);
      EXPECT_FLOAT_EQ(at_min.energy, -eh);
      EXPECT_EQ(at_min.force_over_r, 0.0f);
      // r = 2^{-1/6} r0: (r0/r)^6 = 2 → U = ε_h (4 − 4) = 0 (the zero crossing).
      const double r_zero = r0 * std::pow(2.0, -1.0 / 6.0);
      EXPECT_NEAR(physics::native_contact<true>(float(r_zero * r_zero), r0, eh).energy, 0.0, 1e-5 * eh);
      // r = 2^{1/6} r0: (r0/r)^6 = 1/2 → U = ε_h (1/4 − 1) = −3/4 ε_h;
      // −dU/dr = 12 ε_h (s¹² − s⁶)/r = 12 ε_h (1/4 − 1/2)/r = −3 ε_h/r (attractive).
      const double r_half = r0 * std::pow(2.0, 1.0 / 6.0);
      const auto pf = physics::native_contact<true>(float(r_half * r_half), r0, eh);
      EXPECT_NEAR(pf.energy, -0.75 * eh, 1e-6 * eh);
      EXPECT_NEAR(double(pf.force_over_r) * r_half, -3.0 * eh / r_half, 1e-5 * eh / r_half);
      // The products the CUDA kernels precompute per contact, and the term from them: the
      // same bits as from r0 and ε_h.
      const auto c = physics::native_contact_products(r0, eh);
      EXPECT_EQ(c.r0_squared, r0 * r0);
      EXPECT_EQ(c.twelve_eh, 12.0f * eh);
      const auto from_products =
          physics::native_contact_from_products<true>(float(r_half * r_half), c.r0_squared, c.twelve_eh, eh);
      EXPECT_EQ(from_products.force_over_r, pf.force_over_r);
      EXPECT_EQ(from_products.energy, pf.energy);
    }
  }
}

TEST(NativeContactPotential, EnergyAndForceMatchDoubleReference) {
  // Range: r from 0.8 r0 to 3 r0, r0 in 4–8 Å (the C-alpha native cutoff), ε_h 0.5–2.
  // Tolerances: energy rtol 1e-5 + atol 2e-5·ε_h — the float r² carries ~2ε_f relative
  // error, which moves U by |r·U'|·ε_f ≤ 24 ε_h·1.2e-7 = 3e-6 ε_h at the zero crossing
  // (s⁶ = 2) where the relative tolerance vanishes; force rtol 1e-4 + atol 1e-5·(12 ε_h/r0):
  // near the minimum the force passes through zero and the float error of s⁶ (a few
  // ε_f) times U''(r0)·r0 = 72 ε_h/r0 sets the absolute floor.
  std::mt19937_64 gen(8);
  std::uniform_real_distribution<double> r0_dist(4.0, 8.0), ratio(0.8, 3.0), eh_dist(0.5, 2.0);
  for (int s = 0; s < kRandomSamples; ++s) {
    const float r0 = float(r0_dist(gen));
    const float eh = float(eh_dist(gen));
    const PairGeometry g = random_pair(gen, r0 * ratio(gen));
    const auto ref = [&](double r) { return native_energy_ref(r, r0, eh); };
    const auto pf = physics::native_contact<true>(g.r2_float(), r0, eh);
    const double e_ref = ref(g.r());
    EXPECT_NEAR(pf.energy, e_ref, 1e-5 * std::abs(e_ref) + 2e-5 * eh) << "r = " << g.r();
    expect_vec_near(force_on_i(g, pf), minus_gradient_fd(g.ri_d(), g.rj_d(), ref), 1e-4,
                    1e-5 * 12.0 * eh / r0, "native force at r = " + std::to_string(g.r()));
  }
}

// ---------------------------------------------------------------------------------------
// Repulsion

TEST(RepulsionPotential, KnownValues) {
  const physics::RepulsionParameters p{kSop.repulsion_eps_kcal_per_mol,
                                       kSop.repulsion_sigma_A * kSop.repulsion_sigma_A,
                                       kSop.pair_cutoff_A * kSop.pair_cutoff_A};
  // r = σ: U = ε_l, −dU/dr = 6 ε_l/σ.
  const float s = kSop.repulsion_sigma_A;
  auto at_sigma = physics::repulsion<true>(s * s, p);
  EXPECT_FLOAT_EQ(at_sigma.energy, 1.0f);
  EXPECT_NEAR(double(at_sigma.force_over_r) * s, 6.0 / 3.8, 1e-6);
  // r = 2σ: U = ε_l/64, −dU/dr = 6 ε_l/(64·2σ).
  auto at_2sigma = physics::repulsion<true>(4 * s * s, p);
  EXPECT_NEAR(at_2sigma.energy, 1.0 / 64.0, 1e-8);
  EXPECT_NEAR(double(at_2sigma.force_over_r) * 2 * s, 6.0 / (64.0 * 7.6), 1e-8);
  // r = 20 Å: (3.8/20)^6 = 4.7046e-5 ε_l, the jump of the unshifted energy at the default
  // 20 Å pair cutoff. The function itself has no cutoff (it never reads p.cutoff2): callers
  // drop pairs with r² ≥ r_cut² (backend/cpu/pair_forces.h, backend/cpu/reference_energy.cpp,
  // the CUDA kernels; see physics/repulsion.h). That the engine stops there is tested by
  // CpuEngineForces.RepulsionStopsAtThePairCutoff (tests/unit/cpu_engine_forces_test.cpp).
  EXPECT_NEAR(physics::repulsion<true>(400.0f, p).energy, std::pow(0.19, 6), 1e-10);
}

TEST(RepulsionPotential, EnergyAndForceMatchDoubleReference) {
  // Range 3–20 Å, σ = 3.8 and 5 Å, ε_l from 0.5 to 2 kcal/mol drawn per sample (its float
  // value into both the function and the reference). The function is smooth, positive
  // and linear in ε_l: plain relative tolerances (energy 1e-5, force 1e-4) hold for every
  // ε_l, with an absolute floor (1e-12) far below the smallest values (ε_l = 0.5 at 20 Å:
  // U = 2.4e-5 kcal/mol, |F| = 7e-6 kcal/mol/Å).
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> r_dist(3.0, 20.0), eps_dist(0.5, 2.0);
  for (double sigma : {3.8, 5.0}) {
    for (int s = 0; s < kRandomSamples; ++s) {
      const PairGeometry g = random_pair(gen, r_dist(gen));
      const float sigma_f = float(sigma), eps_l = float(eps_dist(gen));
      const auto ref = [&](double r) { return repulsion_energy_ref(r, eps_l, sigma_f); };
      const physics::RepulsionParameters pf_params{eps_l, sigma_f * sigma_f, 400.0f};
      const auto pf = physics::repulsion<true>(g.r2_float(), pf_params);
      const double e_ref = ref(g.r());
      // σ² rounded to float changes U by up to 3ε_f relative: inside the 1e-5.
      EXPECT_NEAR(pf.energy, e_ref, 1e-5 * e_ref + 1e-12) << "r = " << g.r();
      expect_vec_near(force_on_i(g, pf), minus_gradient_fd(g.ri_d(), g.rj_d(), ref), 1e-4, 1e-12,
                      "repulsion force at r = " + std::to_string(g.r()));
    }
  }
}

// ---------------------------------------------------------------------------------------
// The two non-bonded terms as one expression (physics/nonbonded_pair.h)

TEST(NonbondedPairExpression, EqualsRepulsionAndNativeContactAndItsForceIsMinusTheGradient) {
  // Against the same double references as the two terms above (energy and −∇E by finite
  // differences, the same tolerances), and against repulsion() and native_contact()
  // themselves to float rounding (relative 1e-5 of the force scale): the tile kernels may
  // use it in place of either.
  // ε_l of the repulsion drawn from 0.5 to 2 kcal/mol, as in RepulsionPotential above.
  std::mt19937_64 gen(21);
  std::uniform_real_distribution<double> rep_r(3.0, 20.0), r0_dist(4.0, 8.0), ratio(0.8, 3.0), eh_dist(0.5, 2.0),
      el_dist(0.5, 2.0);
  for (int s = 0; s < kRandomSamples; ++s) {
    {
      const PairGeometry g = random_pair(gen, rep_r(gen));
      const float eps_l = float(el_dist(gen));
      const physics::RepulsionParameters rep{eps_l, 3.8f * 3.8f, 400.0f};
      const auto ref = [&](double r) { return repulsion_energy_ref(r, eps_l, 3.8f); };
      const auto pf = physics::nonbonded_pair<true>(g.r2_float(), physics::repulsion_coefficients(rep));
      const double e_ref = ref(g.r());
      EXPECT_NEAR(pf.energy, e_ref, 1e-5 * e_ref + 1e-12) << "repulsion, r = " << g.r();
      expect_vec_near(force_on_i(g, pf), minus_gradient_fd(g.ri_d(), g.rj_d(), ref), 1e-4, 1e-12,
                      "repulsion force at r = " + std::to_string(g.r()));
      const auto direct = physics::repulsion<true>(g.r2_float(), rep);
      EXPECT_NEAR(pf.force_over_r, direct.force_over_r, 1e-5 * std::abs(direct.force_over_r));
    }
    {
      const float r0 = float(r0_dist(gen)), eh = float(eh_dist(gen));
      const PairGeometry g = random_pair(gen, r0 * ratio(gen));
      const auto ref = [&](double r) { return native_energy_ref(r, r0, eh); };
      const auto pf = physics::nonbonded_pair<true>(g.r2_float(), physics::native_contact_coefficients(r0, eh));
      const double e_ref = ref(g.r());
      EXPECT_NEAR(pf.energy, e_ref, 1e-5 * std::abs(e_ref) + 2e-5 * eh) << "contact, r = " << g.r();
      expect_vec_near(force_on_i(g, pf), minus_gradient_fd(g.ri_d(), g.rj_d(), ref), 1e-4, 1e-5 * 12.0 * eh / r0,
                      "contact force at r = " + std::to_string(g.r()));
      const auto direct = physics::native_contact<true>(g.r2_float(), r0, eh);
      EXPECT_NEAR(pf.force_over_r, direct.force_over_r, 1e-5 * 12.0 * eh / (r0 * r0));
    }
  }
  // Neither kind: an exact zero.
  const auto none = physics::nonbonded_pair<true>(9.0f, physics::NonbondedCoefficients{0.0f, 0.0f, 0.0f});
  EXPECT_EQ(none.force_over_r, 0.0f);
  EXPECT_EQ(none.energy, 0.0f);
}

// ---------------------------------------------------------------------------------------
// Harmonic tether

TEST(HarmonicTether, KnownValues) {
  // At the anchor: U = 0, F = 0. Offset (1, 2, 2) Å (|d| = 3): U = 9κ/2, F = −κ d.
  const Vec3f anchor{1.5f, -2.0f, 0.25f};
  const auto at = physics::harmonic_tether<true>(anchor, anchor, 7.0f);
  EXPECT_EQ(at.energy, 0.0f);
  EXPECT_EQ(at.force.x, 0.0f);
  const auto off = physics::harmonic_tether<true>(anchor + Vec3f{1, 2, 2}, anchor, 7.0f);
  EXPECT_FLOAT_EQ(off.energy, 31.5f);
  EXPECT_FLOAT_EQ(off.force.x, -7.0f);
  EXPECT_FLOAT_EQ(off.force.y, -14.0f);
  EXPECT_FLOAT_EQ(off.force.z, -14.0f);
}

TEST(HarmonicTether, EnergyAndForceMatchDoubleReference) {
  // Offsets up to 10 Å, κ from 0.01 to 100 kcal/mol/Å²; energy and force rtol 1e-5 with
  // an absolute floor of a few ε_f·κ·|r| (float subtraction of positions up to 30 Å).
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> c(-30.0, 30.0), off(-10.0, 10.0), logk(-2.0, 2.0);
  for (int s = 0; s < kRandomSamples; ++s) {
    const Vec3f anchor = ermak::vec_cast<float>(Vec3d{c(gen), c(gen), c(gen)});
    const Vec3f pos = anchor + ermak::vec_cast<float>(Vec3d{off(gen), off(gen), off(gen)});
    const float kappa = float(std::pow(10.0, logk(gen)));
    const Vec3d pd = ermak::vec_cast<double>(pos), ad = ermak::vec_cast<double>(anchor);
    const auto tf = physics::harmonic_tether<true>(pos, anchor, kappa);
    const double e_ref = tether_energy_ref(pd, ad, kappa);
    EXPECT_NEAR(tf.energy, e_ref, 1e-5 * e_ref + 1e-6 * kappa);
    // −∇E by central differences on the bead position, double.
    const double delta = 1e-5;
    Vec3d f_ref;
    f_ref.x = -(tether_energy_ref({pd.x + delta, pd.y, pd.z}, ad, kappa) -
                tether_energy_ref({pd.x - delta, pd.y, pd.z}, ad, kappa)) / (2 * delta);
    f_ref.y = -(tether_energy_ref({pd.x, pd.y + delta, pd.z}, ad, kappa) -
                tether_energy_ref({pd.x, pd.y - delta, pd.z}, ad, kappa)) / (2 * delta);
    f_ref.z = -(tether_energy_ref({pd.x, pd.y, pd.z + delta}, ad, kappa) -
                tether_energy_ref({pd.x, pd.y, pd.z - delta}, ad, kappa)) / (2 * delta);
    expect_vec_near(ermak::vec_cast<double>(tf.force), f_ref, 1e-5, 1e-5 * kappa, "tether force");
  }
}

// Spring to a moving plane (docs/protocols.md#plane-pulling): U = (κ/2)(r·n − p)², and the
// force on the bead, −κ(r·n − p)·n, is −∇_r U. The function takes r·n; the engines form
// r·n and multiply the returned component by n, as done here.
double plane_tether_energy_ref(const Vec3d& r, const Vec3d& n, double plane_A, double kappa) {
  const double s = r.x * n.x + r.y * n.y + r.z * n.z - plane_A;
  return 0.5 * kappa * s * s;
}

TEST(PlaneTether, KnownValues) {
  double f = 1, e = 1;
  physics::plane_tether<true>(12.5, 12.5, 3.0, f, e);  // on the plane
  EXPECT_EQ(f, 0.0);
  EXPECT_EQ(e, 0.0);
  physics::plane_tether<true>(10.0, 12.0, 3.0, f, e);  // 2 Å behind it: pulled forward
  EXPECT_EQ(f, 6.0);
  EXPECT_EQ(e, 6.0);
  physics::plane_tether<false>(15.0, 12.0, 3.0, f, e);  // force only; energy untouched
  EXPECT_EQ(f, -9.0);
  EXPECT_EQ(e, 6.0);
}

TEST(PlaneTether, EnergyAndForceMatchDoubleReference) {
  // Random unit normals, bead positions within 30 Å, planes within 10 Å of the bead along
  // n, κ from 0.01 to 100 kcal/mol/Å². The function works in double: energy 1e-12
  // relative; the force against central differences (step 1e-5 Å; the energy is
  // quadratic, so only round-off, ≲ 1e-9 κ) at 1e-7 relative + 1e-7 κ.
  std::mt19937_64 gen(23);
  std::uniform_real_distribution<double> c(-30.0, 30.0), off(-10.0, 10.0), logk(-2.0, 2.0);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int sample = 0; sample < kRandomSamples; ++sample) {
    Vec3d n{g(gen), g(gen), g(gen)};
    n = (1.0 / norm(n)) * n;
    const Vec3d r{c(gen), c(gen), c(gen)};
    const double along = r.x * n.x + r.y * n.y + r.z * n.z, plane = along + off(gen);
    const double kappa = std::pow(10.0, logk(gen));
    double f_along = 0, e = 0;
    physics::plane_tether<true>(along, plane, kappa, f_along, e);
    const double e_ref = plane_tether_energy_ref(r, n, plane, kappa);
    EXPECT_NEAR(e, e_ref, 1e-12 * e_ref + 1e-12 * kappa);
    const double delta = 1e-5;
    auto dE = [&](Vec3d step) {
      return (plane_tether_energy_ref(r + step, n, plane, kappa) - plane_tether_energy_ref(r - step, n, plane, kappa)) /
             (2 * delta);
    };
    const Vec3d f_ref{-dE({delta, 0, 0}), -dE({0, delta, 0}), -dE({0, 0, delta})};
    expect_vec_near(f_along * n, f_ref, 1e-7, 1e-7 * kappa, "plane tether force");
  }
}

// ---------------------------------------------------------------------------------------
// Force-clamp schedule (protocol/external_force.h, docs/protocols.md#force-clamp): the
// clamp's force at a step, linear between the (step, force) points, the first point's force
// before them and the last's after them; one function for the CPU and the CUDA kernels.

TEST(ForceSchedule, InterpolatesLinearlyBetweenPointsAndHoldsTheEndsOutside) {
  // The schedule [[100, 1], [200, 3], [400, 0]]: steps, forces in kcal/mol/Å (the engines'
  // unit; the TOML's pN are converted before, config/toml_config). By hand:
  //   step ≤ 100: 1 (before the first point, its force; at it, exactly it)
  //   150: 1 + (50/100)·(3 − 1) = 2;  101: 1 + 0.01·2 = 1.02;  199: 1 + 0.99·2 = 2.98
  //   200: 3;  250: 3 + (50/200)·(0 − 3) = 2.25;  300: 3 + (100/200)·(−3) = 1.5;
  //   399: 3 − (199/200)·3 = 0.015;  400: 0;  after 400: 0 (the last point's force).
  // 0, 1, 1.5, 2, 2.25, 3 are exact doubles, and so is every step of the arithmetic that
  // gives them (fractions 1/2, 1/4, 1): EXPECT_EQ. 1.02 and 2.98 to 4 ulps; 0.015 is the
  // difference 3 − 2.985, which keeps the rounding of 0.995·3 (≤ 1.5 ulp of 3 = 6.7e-16):
  // 2e-15 absolute.
  const std::vector<ermak::ForceSchedulePoint> points{{100, 1.0}, {200, 3.0}, {400, 0.0}};
  const auto at = [&](std::int64_t step) {
    return ermak::force_schedule_at(points.data(), std::int64_t(points.size()), step);
  };
  EXPECT_EQ(at(-5), 1.0);
  EXPECT_EQ(at(0), 1.0);
  EXPECT_EQ(at(99), 1.0);
  EXPECT_EQ(at(100), 1.0);
  EXPECT_DOUBLE_EQ(at(101), 1.02);
  EXPECT_EQ(at(150), 2.0);
  EXPECT_DOUBLE_EQ(at(199), 2.98);
  EXPECT_EQ(at(200), 3.0);
  EXPECT_EQ(at(250), 2.25);
  EXPECT_EQ(at(300), 1.5);
  EXPECT_NEAR(at(399), 0.015, 2e-15);
  EXPECT_EQ(at(400), 0.0);
  EXPECT_EQ(at(401), 0.0);
  EXPECT_EQ(at(1'000'000), 0.0);
  // ForceSchedule::at_step (the CPU's way in) is the same function.
  const ermak::ForceSchedule schedule{points};
  for (std::int64_t step : {0, 100, 150, 200, 300, 400, 1'000'000}) EXPECT_EQ(schedule.at_step(step), at(step)) << step;
  // One point: a constant force at every step; no points: zero.
  const ermak::ForceSchedulePoint one{50, 2.5};
  for (std::int64_t step : {0, 50, 51, 1'000'000}) EXPECT_EQ(ermak::force_schedule_at(&one, 1, step), 2.5) << step;
  EXPECT_EQ(ermak::force_schedule_at(points.data(), 0, 150), 0.0);
}

// ---------------------------------------------------------------------------------------
// Philox4x32-10 and the Gaussian noise

// Random123's known-answer vectors (tests/kat_vectors of github.com/DEShawResearch/random123,
// "philox4x32 10" lines: counter words, key words, expected output words).
TEST(Philox, Random123KnownAnswers) {
  struct Kat {
    std::array<std::uint32_t, 4> ctr;
    std::array<std::uint32_t, 2> key;
    std::array<std::uint32_t, 4> out;
  };
  const Kat kats[] = {
      {{0x00000000, 0x00000000, 0x00000000, 0x00000000}, {0x00000000, 0x00000000},
       {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  r123::Philox4x32 philox;
  for (const Kat& k : kats) {
    const r123::Philox4x32::ctr_type c = {{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}};
    const r123::Philox4x32::key_type key = {{k.key[0], k.key[1]}};
    const auto out = philox(c, key);
    const auto ours = rng::philox4x32_10(c, k.key[0], k.key[1]);  // ermak's own rounds
    // The GPU's: round keys precomputed from the 64-bit seed (key = seed low, seed high).
    const auto from_keys = rng::philox4x32_10(c, rng::philox_keys(k.key[0] | std::uint64_t(k.key[1]) << 32));
    for (int w = 0; w < 4; ++w) {
      EXPECT_EQ(out[w], k.out[w]) << "word " << w;
      EXPECT_EQ(ours[w], k.out[w]) << "word " << w;
      EXPECT_EQ(from_keys[w], k.out[w]) << "word " << w;
    }
  }
}

// The counter layout of docs/model.md#noise: counter = (bead, replica, step low 32,
// step bits 32–47 | stream << 16), key = (seed low 32, seed high 32).
TEST(Philox, CounterLayoutMatchesDocumentation) {
  r123::Philox4x32 philox;
  const std::uint64_t seed = 0x0123456789abcdefull;
  const std::uint64_t step = 0x0000beef12345678ull;
  const auto got = rng::philox_block(seed, rng::Stream::kBeadLangevin, 7, 11, step);
  const r123::Philox4x32::ctr_type c = {{11u, 7u, 0x12345678u, 0xbeefu | (1u << 16)}};
  const r123::Philox4x32::key_type key = {{0x89abcdefu, 0x01234567u}};
  const auto want = philox(c, key);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(got[w], want[w]);
}

TEST(PhiloxGaussian, DeterministicAndSensitiveToEveryCounterField) {
  auto bits = [](Vec3f g) {
    std::array<std::uint32_t, 3> b;
    std::memcpy(b.data(), &g, sizeof(b));
    return b;
  };
  const auto base = [] { return rng::gaussian3(42, rng::Stream::kBeadLangevin, 3, 5, 1000); };
  EXPECT_EQ(bits(base()), bits(base()));  // a pure function: same inputs, same bits
  // From the precomputed round keys (the GPU's way): the same bits.
  EXPECT_EQ(bits(rng::gaussian3(rng::philox_keys(42), rng::Stream::kBeadLangevin, 3, 5, 1000)), bits(base()));
  EXPECT_EQ(bits(rng::gaussian3(rng::philox_keys(0xfedcba9876543210ull), rng::Stream::kTipLangevin, 8, 0, 1ull << 40)),
            bits(rng::gaussian3(0xfedcba9876543210ull, rng::Stream::kTipLangevin, 8, 0, 1ull << 40)));
  const auto b0 = bits(base());
  // Each field alone changes all three values.
  const Vec3f variants[] = {
      rng::gaussian3(43, rng::Stream::kBeadLangevin, 3, 5, 1000),                // seed
      rng::gaussian3(42ull | (1ull << 40), rng::Stream::kBeadLangevin, 3, 5, 1000),  // seed high word
      rng::gaussian3(42, rng::Stream::kTipLangevin, 3, 5, 1000),                 // stream
      rng::gaussian3(42, rng::Stream::kBeadLangevin, 4, 5, 1000),                // replica
      rng::gaussian3(42, rng::Stream::kBeadLangevin, 3, 6, 1000),                // bead
      rng::gaussian3(42, rng::Stream::kBeadLangevin, 3, 5, 1001),                // step
      rng::gaussian3(42, rng::Stream::kBeadLangevin, 3, 5, 1000 + (1ull << 32)),  // step bit 32
      rng::gaussian3(42, rng::Stream::kBeadLangevin, 5, 3, 1000),                // replica ↔ bead
  };
  for (const Vec3f& v : variants) {
    const auto b = bits(v);
    for (int c = 0; c < 3; ++c) EXPECT_NE(b[c], b0[c]);
  }
  // No repeated triple among 10^5 neighbouring counters.
  std::set<std::array<std::uint32_t, 3>> seen;
  for (std::uint32_t r = 0; r < 10; ++r)
    for (std::uint32_t i = 0; i < 100; ++i)
      for (std::uint64_t s = 0; s < 100; ++s)
        seen.insert(bits(rng::gaussian3(1, rng::Stream::kBeadLangevin, r, i, s)));
  EXPECT_EQ(seen.size(), 100000u);
}

TEST(PhiloxGaussian, MomentsOfOneMillionSamplesPerComponent) {
  // N = 10^6 triples (over beads × steps × 2 replicas), each component tested alone
  // against N(0, 1). Sample raw moments m_p = (1/N) Σ g^p about the exact mean 0:
  //   E[m1] = 0, sd = sqrt(E g²/N)            = 1/sqrt(N)   = 1.0e-3
  //   E[m2] = 1, sd = sqrt((E g⁴ − 1)/N)      = sqrt(2/N)   = 1.41e-3
  //   E[m4] = 3, sd = sqrt((E g⁸ − 9)/N)      = sqrt(96/N)  = 9.8e-3   (E g⁸ = 105)
  //   E[g_a g_b] = 0 for a ≠ b, sd = 1/sqrt(N)
  // and the 5σ threshold makes a false alarm a ~6e-7 event per check. The uniform
  // inputs have 24 bits, which truncates the tails at |g| ≤ sqrt(2 ln 2^24) = 5.77 and
  // changes m4 by ~1e-6 — far below these thresholds.
  constexpr int kN = 1000000;
  std::array<double, 3> m1{}, m2{}, m4{};
  double xy = 0, xz = 0, yz = 0, lag1 = 0;
  Vec3f previous{};
  int count = 0;
  for (std::uint32_t replica = 0; replica < 2; ++replica)
    for (std::uint32_t bead = 0; bead < 500; ++bead)
      for (std::uint64_t step = 0; step < 1000; ++step) {
        const Vec3f g = rng::gaussian3(2024, rng::Stream::kBeadLangevin, replica, bead, step);
        const double c[3] = {g.x, g.y, g.z};
        for (int k = 0; k < 3; ++k) {
          const double c2 = c[k] * c[k];
          m1[k] += c[k]; m2[k] += c2; m4[k] += c2 * c2;
        }
        xy += c[0] * c[1]; xz += c[0] * c[2]; yz += c[1] * c[2];
        if (step > 0) lag1 += double(previous.x) * g.x;  // consecutive steps of one bead
        previous = g;
        ++count;
      }
  ASSERT_EQ(count, kN);
  const double n = kN, five = 5.0;
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(m1[k] / n, 0.0, five * std::sqrt(1.0 / n)) << "component " << k;
    EXPECT_NEAR(m2[k] / n, 1.0, five * std::sqrt(2.0 / n)) << "component " << k;
    EXPECT_NEAR(m4[k] / n, 3.0, five * std::sqrt(96.0 / n)) << "component " << k;
  }
  EXPECT_NEAR(xy / n, 0.0, five / std::sqrt(n));
  EXPECT_NEAR(xz / n, 0.0, five / std::sqrt(n));
  EXPECT_NEAR(yz / n, 0.0, five / std::sqrt(n));
  const double lag_pairs = n - 1000.0;  // one pair fewer per (replica, bead) series
  EXPECT_NEAR(lag1 / lag_pairs, 0.0, five / std::sqrt(lag_pairs));
}

}  // namespace
