#pragma once
// Nano-indentation (docs/protocols.md#indentation): a spherical tip with its own
// overdamped dynamics, pulled by a cantilever spring κ toward a base that moves at speed
// v along `direction`; the tip repels (or attracts) beads by physics/tip.h. A substrate
// surface (a plane or a square grid of surface beads) holds the molecule. The base
// reverses (retraction) at a depth, a force or a step; optionally the surface moves
// toward the tip instead of the base moving.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"
#include "ermak/physics/tip.h"

namespace ermak {

enum class RetractionTrigger : std::int32_t { kNone = 0, kDepth = 1, kForce = 2, kStep = 3 };

struct IndentationSurface {
  bool enabled = false;
  bool discrete = false;       // grid of surface beads instead of a continuous plane
  Vec3d point_A{};             // a point of the plane; centre of the grid
  Vec3d normal{0, 0, 1};       // unit, pointing toward the molecule
  double spacing_A = 10.0;     // grid: distance between surface beads
  std::int32_t grid_size = 0;  // grid: beads per side
  physics::WallParametersT<double> wall{1.0, -2.0, 10.0, 0.2, 0.0};
};

struct Indentation {
  bool enabled = false;
  Vec3d base_start_A{};
  Vec3d tip_start_A{};
  Vec3d direction{0, 0, -1};   // unit; the base moves along it while indenting
  double speed_A_per_tau = 0.0;
  double spring_kcal_per_mol_A2 = 0.0;
  double tip_zeta = 5000.0;    // tip friction, same units as the beads' ζ
  physics::WallParametersT<double> tip{0.0, 1.0, 1.0, 1.0, 100.0};  // A, B, σ, ε, R_tip
  bool tip_along_direction_only = true;  // SOP-GPU's indentationFixTrans
  bool move_surface = false;
  RetractionTrigger retraction = RetractionTrigger::kNone;
  double retract_depth_A = 0.0;          // base travel along direction
  double retract_force_kcal_per_mol_A = 0.0;  // spring force along direction
  std::int64_t retract_step = 0;
  std::int64_t start_step = 0;
  IndentationSurface surface;
};

// Travel of the base (or of the surface, when it moves) along `direction` at `step`,
// given the step at which it reversed (−1: not yet). Computed from step counts in double.
ERMAK_HD double indentation_travel_A(const Indentation& ind, std::int64_t step,
                                     std::int64_t turnaround_step, double timestep_tau) {
  if (turnaround_step < 0 || step <= turnaround_step)
    return ind.speed_A_per_tau * timestep_tau * double(step - ind.start_step);
  return ind.speed_A_per_tau * timestep_tau *
         double((turnaround_step - ind.start_step) - (step - turnaround_step));
}

// The surface bead k of a discrete surface (k in [0, grid_size²)), in the plane through
// point_A with the given normal, spaced `spacing_A`, centred on point_A.
ERMAK_HD Vec3d surface_bead_position(const IndentationSurface& s, std::int32_t k) {
  // Two in-plane unit vectors orthogonal to the normal.
  const Vec3d helper = (s.normal.x * s.normal.x < 0.81) ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0};
  Vec3d u = cross(s.normal, helper);
  u = (1.0 / norm(u)) * u;
  const Vec3d w = cross(s.normal, u);
  const double half = 0.5 * double(s.grid_size - 1);
  const double a = (double(k % s.grid_size) - half) * s.spacing_A;
  const double b = (double(k / s.grid_size) - half) * s.spacing_A;
  return s.point_A + a * u + b * w;
}

// What a reporter needs per replica at a report step.
struct IndentationStatus {
  Vec3d base_A{};
  Vec3d tip_A{};
  Vec3d spring_force{};    // on the tip, kcal/mol/Å
  Vec3d molecule_force{};  // of all beads on the tip, kcal/mol/Å
  double travel_A = 0.0;   // base (or surface) travel along direction
  std::int64_t turnaround_step = -1;
};

}  // namespace ermak
