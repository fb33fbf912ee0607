// Indentation tip and substrate surface (physics/tip.h, protocol/indentation.h), rung 1
// (docs/validation.md#rung-1): the wall against an independent double reference written
// from docs/protocols.md#indentation at 2000 random distances per parameter set, its force
// against central differences of that reference (along the distance and in space), the
// grid of surface beads against a brute-force sum over every bead, the plane at random
// points; and force = −∇E of the header's own energy at a few points, for beads (radius 0)
// and for the tip (radius R_tip).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ermak/core/vec3.h"
#include "ermak/physics/tip.h"
#include "ermak/protocol/indentation.h"

namespace ermak {
namespace {

// Central differences of the energy of `energy_at` at p; step 1e-5 Å keeps the truncation
// (~h² E''') and the rounding (~1e-16 E/h) both below 1e-8 of the force here.
template <class EnergyAt>
Vec3d numerical_force(EnergyAt energy_at, Vec3d p) {
  const double h = 1e-5;
  Vec3d f{};
  for (int c = 0; c < 3; ++c) {
    Vec3d plus = p, minus = p;
    (c == 0 ? plus.x : c == 1 ? plus.y : plus.z) += h;
    (c == 0 ? minus.x : c == 1 ? minus.y : minus.z) -= h;
    const double d = -(energy_at(plus) - energy_at(minus)) / (2 * h);
    (c == 0 ? f.x : c == 1 ? f.y : f.z) = d;
  }
  return f;
}

void expect_vec_near(Vec3d a, Vec3d b, double tolerance) {
  EXPECT_NEAR(a.x, b.x, tolerance);
  EXPECT_NEAR(a.y, b.y, tolerance);
  EXPECT_NEAR(a.z, b.z, tolerance);
}

TEST(WallPotential, KnownValues) {
  // ε[A(σ/ρ)¹² + B(σ/ρ)⁶] at ρ = σ: ε(A + B); −dU/dρ = ε(12A + 6B)/σ.
  double e = 0;
  const physics::WallParametersT<double> lj{1.0, -2.0, 10.0, 0.2, 0.0};
  EXPECT_NEAR(physics::wall_force<true>(10.0, lj, e), 0.0, 1e-15);  // the well's minimum
  EXPECT_NEAR(e, -0.2, 1e-15);
  const physics::WallParametersT<double> tip{0.0, 1.0, 1.0, 1.0, 100.0};
  EXPECT_NEAR(physics::wall_force<true>(102.0, tip, e), 6.0 / 64.0 / 2.0, 1e-15);  // ρ = 2: 6σ⁶/ρ⁷
  EXPECT_NEAR(e, 1.0 / 64.0, 1e-15);
}

// ---------------------------------------------------------------------------------------
// Rung 1's random-geometry standard (docs/validation.md#rung-1) for the wall of the tip and
// of the surface: an independent double reference written here from
// docs/protocols.md#indentation (not from physics/tip.h),
//   U(ρ) = ε [A (σ/ρ)¹² + B (σ/ρ)⁶],   ρ = d − R,
// with d the distance from the tip centre (R = R_tip), from a surface bead, or the height
// above the plane (R = 0 for a bead).
struct WallRef {
  double A, B, sigma, epsilon, radius;
};

double wall_energy_ref(double d, const WallRef& w) {
  const double rho = d - w.radius;
  return w.epsilon * (w.A * std::pow(w.sigma / rho, 12) + w.B * std::pow(w.sigma / rho, 6));
}
// The sum of the two terms' magnitudes: the scale of the energy's rounding, which stays
// meaningful where the Lennard-Jones energy crosses zero (ρ = 2^{−1/6} σ).
double wall_energy_scale(double d, const WallRef& w) {
  const double rho = d - w.radius;
  return w.epsilon * (std::abs(w.A) * std::pow(w.sigma / rho, 12) + std::abs(w.B) * std::pow(w.sigma / rho, 6));
}
// The same for the force −dU/dd (the Lennard-Jones force vanishes at ρ = σ).
double wall_force_scale(double d, const WallRef& w) {
  const double rho = d - w.radius;
  return w.epsilon *
         (12 * std::abs(w.A) * std::pow(w.sigma / rho, 12) + 6 * std::abs(w.B) * std::pow(w.sigma / rho, 6)) / rho;
}
// −dU/dd by central differences of the reference, step δ = 10⁻⁶ ρ: the truncation,
// δ²·U‴/6 with U‴ ~ 14·13·U′/ρ², is ~10⁻¹¹ of the force scale, the round-off
// ~ε_d·U/(δ·U′) ≲ 10⁻¹⁰ of it. The divisor is the difference of the two rounded arguments,
// so that the rounding of d ± δ (ulp(70 Å) = 1.4·10⁻¹⁴ Å, 10⁻⁸ of δ) does not enter.
double wall_force_fd(double d, const WallRef& w) {
  const double delta = 1e-6 * (d - w.radius);
  const double plus = d + delta, minus = d - delta;
  return -(wall_energy_ref(plus, w) - wall_energy_ref(minus, w)) / (plus - minus);
}

physics::WallParametersT<double> header_parameters(const WallRef& w) {
  return {w.A, w.B, w.sigma, w.epsilon, w.radius};
}

// The parameter sets of the protocols: the repulsive wall (0, 1) of a tip and of a surface,
// the Lennard-Jones well (1, −2) of SOP-GPU's mica (the default surface) and of a tip, and
// explicit tip_A/tip_B; R = 0 (a bead against a surface) and tip radii.
const WallRef kWallSets[] = {
    {0.0, 1.0, 2.0, 1.0, 20.0},   // tip_interaction = "repulsive", as in the protocol validation tests
    {0.0, 1.0, 10.0, 0.2, 0.0},   // surface interaction = "repulsive"
    {1.0, -2.0, 10.0, 0.2, 0.0},  // the default surface: a well of depth ε at ρ = σ
    {1.0, -2.0, 3.0, 0.7, 50.0},  // tip_interaction = "lennard_jones"
    {0.5, -1.3, 5.0, 1.5, 35.0},  // explicit tip_A, tip_B
};

// For RecordProperty: std::to_string prints 1e-15 as 0.000000.
std::string sci(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

std::string describe(const WallRef& w) {
  return "A" + sci(w.A) + "_B" + sci(w.B) + "_sigma" + sci(w.sigma) + "_R" + sci(w.radius);
}

// 2000 random distances ρ ∈ [0.8σ, 5σ] per set: the header's energy (in double, as both
// engines instantiate it) against the reference, and its force −dU/dd against central
// differences of the reference. Tolerances: energy 10⁻¹² of the terms' magnitudes (the
// header forms (σ/ρ)⁶ by products, the reference by pow: a few ulps, ×12 in the
// twelfth power); force 10⁻⁸ of the terms' magnitudes (the finite differences, above).
TEST(WallPotential, EnergyAndForceMatchDoubleReferenceAtRandomDistances) {
  std::mt19937_64 gen(20261130);
  for (const WallRef& w : kWallSets) {
    SCOPED_TRACE(describe(w));
    std::uniform_real_distribution<double> rho_dist(0.8 * w.sigma, 5.0 * w.sigma);
    double worst_energy = 0, worst_force = 0;
    for (int k = 0; k < 2000; ++k) {
      const double d = w.radius + rho_dist(gen);
      double e = 0, unused = 0;
      const double f = physics::wall_force<true>(d, header_parameters(w), e);
      worst_energy = std::max(worst_energy, std::abs(e - wall_energy_ref(d, w)) / wall_energy_scale(d, w));
      worst_force = std::max(worst_force, std::abs(f - wall_force_fd(d, w)) / wall_force_scale(d, w));
      ASSERT_EQ(physics::wall_force<false>(d, header_parameters(w), unused), f) << "the force without the energy";
    }
    EXPECT_LT(worst_energy, 1e-12);
    EXPECT_LT(worst_force, 1e-8);
    RecordProperty("worst_energy_rel_" + describe(w), sci(worst_energy));
    RecordProperty("worst_force_rel_" + describe(w), sci(worst_force));
  }
}

// The same in three dimensions, as the engines apply it to a bead (cpu_engine.cpp,
// device_model.cuh: (F/d)(r − c) with F = wall_force(|r − c|)): 2000 random geometries per
// set (centre within 100 Å of the origin, random direction, ρ ∈ [0.8σ, 5σ]) against
// central differences of the reference energy U(|r − c|) in the bead's three Cartesian
// coordinates (step 10⁻⁶ ρ as above; the coordinates' rounding, ≤ 2·10⁻¹⁴ Å, and that of
// |r − c| are ≲ 10⁻⁸ of the step: tolerance 10⁻⁷ of the force scale).
TEST(WallPotential, ForceOnABeadIsMinusTheGradientOfTheReferenceInSpace) {
  std::mt19937_64 gen(4021);
  std::uniform_real_distribution<double> coordinate(-100.0, 100.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const WallRef& w : kWallSets) {
    SCOPED_TRACE(describe(w));
    std::uniform_real_distribution<double> rho_dist(0.8 * w.sigma, 5.0 * w.sigma);
    double worst = 0;
    for (int k = 0; k < 2000; ++k) {
      const Vec3d centre{coordinate(gen), coordinate(gen), coordinate(gen)};
      Vec3d u{normal(gen), normal(gen), normal(gen)};
      u = (1.0 / norm(u)) * u;
      const Vec3d p = centre + (w.radius + rho_dist(gen)) * u;
      const Vec3d r = p - centre;
      double e = 0;
      Indentation ind;
      ind.tip = header_parameters(w);
      const Vec3d analytic = tip_force_on_bead<true>(ind, p, centre, e);  // both engines' tip force
      EXPECT_LE(std::abs(e - wall_energy_ref(norm(r), w)), 1e-12 * wall_energy_scale(norm(r), w));
      const double delta = 1e-6 * (norm(r) - w.radius);
      Vec3d fd{};
      for (int c = 0; c < 3; ++c) {
        Vec3d plus = p, minus = p;
        double& up = c == 0 ? plus.x : c == 1 ? plus.y : plus.z;
        double& down = c == 0 ? minus.x : c == 1 ? minus.y : minus.z;
        up += delta;
        down -= delta;
        (c == 0 ? fd.x : c == 1 ? fd.y : fd.z) =
            -(wall_energy_ref(norm(plus - centre), w) - wall_energy_ref(norm(minus - centre), w)) / (up - down);
      }
      worst = std::max(worst, norm(analytic - fd) / wall_force_scale(norm(r), w));
    }
    EXPECT_LT(worst, 1e-7);
    RecordProperty("worst_force_rel_" + describe(w), sci(worst));
  }
}

TEST(WallPotential, TipForceIsMinusGradient) {
  const physics::WallParametersT<double> tip{1.0, -2.0, 3.0, 0.7, 20.0};
  const Vec3d centre{1.0, -2.0, 3.0};
  auto energy_at = [&](Vec3d p) {
    double e = 0;
    physics::wall_force<true>(norm(p - centre), tip, e);
    return e;
  };
  Indentation ind;
  ind.tip = tip;
  for (const Vec3d p : {Vec3d{24.0, -1.0, 4.0}, Vec3d{1.5, 20.5, 2.0}, Vec3d{-3.0, -2.0, 28.0}}) {
    double e = 0;
    const Vec3d analytic = tip_force_on_bead<true>(ind, p, centre, e);
    expect_vec_near(analytic, numerical_force(energy_at, p), 1e-7 * (1 + norm(analytic)));
  }
}

IndentationSurface test_surface(bool discrete) {
  IndentationSurface s;
  s.enabled = true;
  s.discrete = discrete;
  s.point_A = {5.0, 5.0, -2.0};
  s.normal = (1.0 / std::sqrt(3.0)) * Vec3d{1.0, 1.0, 1.0};
  s.spacing_A = 4.0;
  s.grid_size = 9;
  s.wall = {1.0, -2.0, 3.0, 0.2, 0.0};
  s.cutoff_A = 12.0;
  return s;
}

TEST(SurfacePotential, PlaneAndGridForcesAreMinusGradientForBeadsAndTip) {
  for (const bool discrete : {false, true}) {
    const IndentationSurface s = test_surface(discrete);
    for (const double radius : {0.0, 10.0}) {
      auto energy_at = [&](Vec3d p) {
        double e = 0;
        surface_force_on<true>(s, p, radius, e);
        return e;
      };
      // Points 2.5–6 Å from the surface's reach (centre height minus radius), near the
      // middle of the grid.
      for (const double gap : {2.5, 3.4, 6.0}) {
        const Vec3d p = s.point_A + (radius + gap) * s.normal + Vec3d{0.7, -0.3, -0.4};
        double e = 0;
        const Vec3d analytic = surface_force_on<true>(s, p, radius, e);
        SCOPED_TRACE(testing::Message() << "discrete " << discrete << " radius " << radius << " gap " << gap);
        EXPECT_GT(std::abs(e), 1e-6);  // the test point feels the surface
        expect_vec_near(analytic, numerical_force(energy_at, p), 1e-7 * (1 + norm(analytic)));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// The surface of beads summed by brute force. docs/protocols.md#indentation: a square grid
// of grid_size × grid_size beads, spacing_A apart, centred on point_A in the plane, rows
// along u = n × x̂/|n × x̂| (n × ŷ when n lies within ~26° of x) and w = n × u; every surface
// bead within the cutoff (4σ; for the tip measured from its surface, ρ = |r − r_s| − R ≤ 4σ)
// adds the wall of its distance. The reference below builds every bead of the grid itself
// and sums all those within the cutoff, energies from the reference above and forces from
// its central differences; surface_force_on visits only an in-plane window around the
// point, which this checks at random points over the grid, near its edges and corners and
// beyond them, where the window is clipped or empty. Normals are kept away from the 26°
// switch (the docs' "~").
struct GridRef {
  Vec3d point, normal;
  double spacing;
  int size;
  WallRef wall;  // radius 0: the sphere's radius is added per call
  double cutoff;
};

std::vector<Vec3d> grid_beads_ref(const GridRef& g) {
  const double cos26 = std::cos(26.0 * M_PI / 180.0);
  const Vec3d axis = std::abs(g.normal.x) > cos26 ? Vec3d{0, 1, 0} : Vec3d{1, 0, 0};
  Vec3d u = cross(g.normal, axis);
  u = (1.0 / norm(u)) * u;
  const Vec3d w = cross(g.normal, u);
  std::vector<Vec3d> out;
  const double centre = 0.5 * (g.size - 1);
  for (int i = 0; i < g.size; ++i)
    for (int j = 0; j < g.size; ++j) out.push_back(g.point + ((i - centre) * g.spacing) * u + ((j - centre) * g.spacing) * w);
  return out;
}

struct SurfaceSum {
  Vec3d force{};
  double energy = 0, energy_scale = 0, force_scale = 0;
  int pairs = 0;
};

SurfaceSum brute_force_surface(const GridRef& g, const std::vector<Vec3d>& beads, Vec3d p, double radius) {
  WallRef wall = g.wall;
  wall.radius = radius;
  SurfaceSum s;
  for (const Vec3d& b : beads) {
    const Vec3d d = p - b;
    const double dist = norm(d);
    if (dist - radius > g.cutoff) continue;
    s.energy += wall_energy_ref(dist, wall);
    s.force += (wall_force_fd(dist, wall) / dist) * d;
    s.energy_scale += wall_energy_scale(dist, wall);
    s.force_scale += wall_force_scale(dist, wall);
    ++s.pairs;
  }
  return s;
}

TEST(SurfacePotential, GridForceAndEnergyEqualABruteForceSumOverEverySurfaceBead) {
  const double inv3 = 1.0 / std::sqrt(3.0);
  const GridRef grids[] = {
      // SOP-GPU's mica: the default Lennard-Jones wall, σ = 10 Å, cutoff 4σ, 10 × 10 beads.
      {{0.0, 0.0, -30.0}, {0, 0, 1}, 10.0, 10, {1.0, -2.0, 10.0, 0.2, 0.0}, 40.0},
      // An odd grid, a tilted normal, spacing below σ.
      {{5.0, 5.0, -2.0}, {inv3, inv3, inv3}, 4.0, 9, {1.0, -2.0, 6.0, 0.5, 0.0}, 24.0},
      // A normal within 26° of x (the rows along n × ŷ), a repulsive wall, spacing above σ.
      {{-7.0, 3.0, 1.0}, (1.0 / std::sqrt(0.95 * 0.95 + 0.3 * 0.3 + 0.1 * 0.1)) * Vec3d{0.95, -0.3, 0.1}, 6.5, 6,
       {0.0, 1.0, 3.0, 1.0, 0.0}, 12.0},
      // Two beads a side, and a single bead.
      {{0.0, 0.0, 0.0}, {0, 1, 0}, 5.0, 2, {1.0, -2.0, 4.0, 0.3, 0.0}, 16.0},
      {{1.0, 2.0, 3.0}, {0, 0, -1}, 5.0, 1, {1.0, -2.0, 4.0, 0.3, 0.0}, 16.0},
  };
  std::mt19937_64 gen(9731);
  for (const GridRef& g : grids) {
    IndentationSurface s;
    s.enabled = true;
    s.discrete = true;
    s.point_A = g.point;
    s.normal = g.normal;
    s.spacing_A = g.spacing;
    s.grid_size = g.size;
    s.wall = header_parameters(g.wall);
    s.cutoff_A = g.cutoff;
    const std::vector<Vec3d> beads = grid_beads_ref(g);
    // In-plane axes for placing test points (any orthonormal pair: the grid's own axes are
    // the reference's business).
    Vec3d e1 = cross(g.normal, std::abs(g.normal.z) < 0.9 ? Vec3d{0, 0, 1} : Vec3d{1, 0, 0});
    e1 = (1.0 / norm(e1)) * e1;
    const Vec3d e2 = cross(g.normal, e1);
    for (const double radius : {0.0, 15.0}) {
      SCOPED_TRACE(testing::Message() << "grid " << g.size << "×" << g.size << " spacing " << g.spacing << " radius "
                                      << radius);
      // In-plane offsets up to the grid's half-diagonal plus the reach plus two spacings:
      // points over the grid, at its edges and corners, and far enough out that no bead
      // is in reach. Heights from 0.8σ above the sphere's surface to one σ past the reach.
      // Every other point lies over the grid or within a spacing of its edges.
      const double half = 0.5 * (g.size - 1) * g.spacing * std::sqrt(2.0);
      std::uniform_real_distribution<double> wide(-(half + radius + g.cutoff + 2 * g.spacing),
                                                  half + radius + g.cutoff + 2 * g.spacing);
      std::uniform_real_distribution<double> near(-(half + g.spacing), half + g.spacing);
      std::uniform_real_distribution<double> height(radius + 0.8 * g.wall.sigma, radius + g.cutoff + g.wall.sigma);
      int felt = 0, felt_outside = 0, none = 0;
      double worst_energy = 0, worst_force = 0;
      for (int k = 0; k < 2000; ++k) {
        const double a = k % 2 ? wide(gen) : near(gen), b = k % 2 ? wide(gen) : near(gen);
        const Vec3d p = g.point + a * e1 + b * e2 + height(gen) * g.normal;
        const SurfaceSum ref = brute_force_surface(g, beads, p, radius);
        double e = 0;
        const Vec3d f = surface_force_on<true>(s, p, radius, e);
        if (ref.pairs == 0) {
          ++none;
          EXPECT_EQ(e, 0.0);
          EXPECT_EQ(norm(f), 0.0);
          continue;
        }
        ++felt;
        // Beyond the grid's edges (the window clipped at an edge or a corner): the
        // projection of p on the plane is farther than half a cell's diagonal from every bead.
        const Vec3d in_plane = p - dot(p - g.point, g.normal) * g.normal;
        double nearest = 1e300;
        for (const Vec3d& bead : beads) nearest = std::min(nearest, norm(in_plane - bead));
        const bool outside = nearest > 0.5 * g.spacing * std::sqrt(2.0);
        if (outside) ++felt_outside;
        // Tolerances: the same terms summed in another order (10⁻¹⁴ of their magnitudes)
        // for the energy; the force's reference comes from central differences (10⁻⁸ of
        // each term's scale, above), hence 10⁻⁷ of the summed magnitudes.
        worst_energy = std::max(worst_energy, std::abs(e - ref.energy) / ref.energy_scale);
        worst_force = std::max(worst_force, norm(f - ref.force) / ref.force_scale);
      }
      EXPECT_LT(worst_energy, 1e-12);
      EXPECT_LT(worst_force, 1e-7);
      // The points cover the three cases: in reach over the grid, in reach beyond its edges,
      // out of reach.
      if (g.size > 1) EXPECT_GT(felt - felt_outside, 20);
      EXPECT_GT(felt_outside, 20);
      EXPECT_GT(none, 20);
      const std::string key = std::to_string(g.size) + "x" + std::to_string(g.size) + "_R" + std::to_string(int(radius));
      RecordProperty("worst_energy_rel_" + key, sci(worst_energy));
      RecordProperty("worst_force_rel_" + key, sci(worst_force));
      RecordProperty("points_in_reach_over_beyond_none_" + key,
                     std::to_string(felt - felt_outside) + " " + std::to_string(felt_outside) + " " + std::to_string(none));
    }
  }
}

// The plane at random points: the wall of the height above it (minus the sphere's radius),
// along the normal, with no cutoff (docs/protocols.md#indentation: U = Σ_i ε[A(σ/h_i)¹² +
// B(σ/h_i)⁶]); heights from 0.8σ to 5σ above the sphere's surface, random in-plane offsets.
TEST(SurfacePotential, PlaneForceAndEnergyMatchTheReferenceAtRandomPoints) {
  std::mt19937_64 gen(555);
  const Vec3d normal = (1.0 / std::sqrt(1.0 + 4.0 + 0.25)) * Vec3d{1.0, -2.0, 0.5};
  for (const WallRef& w : {WallRef{1.0, -2.0, 10.0, 0.2, 0.0}, WallRef{0.0, 1.0, 2.0, 1.0, 0.0}}) {
    IndentationSurface s;
    s.enabled = true;
    s.point_A = {3.0, -4.0, 12.0};
    s.normal = normal;
    s.wall = header_parameters(w);
    s.cutoff_A = 4 * w.sigma;
    for (const double radius : {0.0, 20.0}) {
      WallRef wall = w;
      wall.radius = radius;
      std::uniform_real_distribution<double> rho(0.8 * w.sigma, 5.0 * w.sigma), lateral(-100.0, 100.0);
      double worst_energy = 0, worst_force = 0;
      for (int k = 0; k < 2000; ++k) {
        const double h = radius + rho(gen);
        Vec3d offset{lateral(gen), lateral(gen), lateral(gen)};
        offset = offset - dot(offset, normal) * normal;
        const Vec3d p = s.point_A + offset + h * normal;
        const double height = dot(p - s.point_A, normal);  // h up to the rounding of p
        double e = 0;
        const Vec3d f = surface_force_on<true>(s, p, radius, e);
        worst_energy = std::max(worst_energy, std::abs(e - wall_energy_ref(height, wall)) / wall_energy_scale(height, wall));
        worst_force = std::max(worst_force, norm(f - wall_force_fd(height, wall) * normal) / wall_force_scale(height, wall));
      }
      SCOPED_TRACE(testing::Message() << "sigma " << w.sigma << " radius " << radius);
      EXPECT_LT(worst_energy, 1e-12);
      EXPECT_LT(worst_force, 1e-8);
    }
  }
}

TEST(SurfacePotential, TipFeelsTheSurfaceOnlyWhenAskedAndMovesWithIt) {
  Indentation ind;
  ind.enabled = true;
  ind.tip = {0.0, 1.0, 1.0, 1.0, 20.0};
  ind.direction = {0, 0, -1};
  ind.speed_A_per_tau = 1.0;
  ind.surface = test_surface(false);
  ind.surface.normal = {0, 0, 1};
  ind.surface.point_A = {0, 0, 0};
  const Vec3d tip{0, 0, 25.0};  // 5 Å above the plane
  double e = 0;
  const Vec3d f = tip_surface_force<true>(ind, tip, 0, -1, 0.08, e);
  double expected_e = 0;
  const double expected = physics::wall_force<true>(25.0, physics::WallParametersT<double>{1.0, -2.0, 3.0, 0.2, 20.0},
                                                    expected_e);
  EXPECT_DOUBLE_EQ(f.z, expected);
  EXPECT_DOUBLE_EQ(e, expected_e);
  // A moving surface travels toward the tip (against `direction`): after 10 steps of
  // h = 0.08 at 1 Å/τ the plane is at z = 0.8, so the tip is 4.2 Å above it.
  ind.move_surface = true;
  const Vec3d moved = tip_surface_force<true>(ind, tip, 10, -1, 0.08, e);
  EXPECT_NEAR(moved.z, physics::wall_force<true>(24.2, physics::WallParametersT<double>{1.0, -2.0, 3.0, 0.2, 20.0},
                                                 expected_e), 1e-12);
  ind.surface.tip_interaction = false;
  e = 0;
  const Vec3d off = tip_surface_force<true>(ind, tip, 10, -1, 0.08, e);
  EXPECT_EQ(off.z, 0.0);
  EXPECT_EQ(e, 0.0);
}

}  // namespace
}  // namespace ermak
