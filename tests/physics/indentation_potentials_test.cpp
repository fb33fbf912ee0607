// Indentation tip and substrate surface (physics/tip.h, protocol/indentation.h):
// force = −∇E by central finite differences, in double, for the tip wall, the plane and
// the grid of surface beads, for beads (radius 0) and for the tip (radius R_tip).
#include <gtest/gtest.h>

#include <cmath>

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

TEST(WallPotential, TipForceIsMinusGradient) {
  const physics::WallParametersT<double> tip{1.0, -2.0, 3.0, 0.7, 20.0};
  const Vec3d centre{1.0, -2.0, 3.0};
  auto energy_at = [&](Vec3d p) {
    double e = 0;
    physics::wall_force<true>(norm(p - centre), tip, e);
    return e;
  };
  for (const Vec3d p : {Vec3d{24.0, -1.0, 4.0}, Vec3d{1.5, 20.5, 2.0}, Vec3d{-3.0, -2.0, 28.0}}) {
    double e = 0;
    const Vec3d d = p - centre;
    const Vec3d analytic = (physics::wall_force<true>(norm(d), tip, e) / norm(d)) * d;
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
