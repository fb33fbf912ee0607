#pragma once
// Nano-indentation (docs/protocols.md#indentation): a spherical tip with its own
// overdamped dynamics, pulled by a cantilever spring κ toward a base that moves at speed
// v along `direction`; the tip repels (or attracts) beads by physics/tip.h. A substrate
// surface (a plane or a square grid of surface beads) holds the molecule. The base
// reverses (retraction) at a depth, a force or a step; optionally the surface moves
// toward the tip instead of the base moving.
#include <cmath>
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"
#include "ermak/physics/harmonic.h"
#include "ermak/physics/langevin_step.h"
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
  // The tip feels the surface too, with the surface's (A, B, σ, ε) measured from the
  // tip's surface (docs/protocols.md#tip-surface). SOP-GPU has no such term: off there.
  bool tip_interaction = true;
  // Surface beads farther than this from a bead's (or the tip's) surface are ignored:
  // beyond 4σ the wall is < 4.9e-4 ε for the Lennard-Jones one, < 2.5e-4 ε for the
  // repulsive one (set by run/protocol_setup.cpp). The plane has no cutoff
  // (docs/protocols.md#indentation).
  double cutoff_A = 40.0;
};

// The tip's default friction, Stokes' law from the beads' ζ: ζ_tip = ζ·R_tip/a, with
// a = 3.8 Å the bead radius behind SOP-GPU's ζ = 50 (docs/protocols.md#indentation).
inline constexpr double kBeadStokesRadius_A = 3.8;
inline double stokes_tip_friction(double bead_zeta, double tip_radius_A) {
  return bead_zeta * tip_radius_A / kBeadStokesRadius_A;
}

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

// The surface as it stands at `step`: with move_surface it travels against `direction`.
ERMAK_HD IndentationSurface surface_at(const Indentation& ind, std::int64_t step, std::int64_t turnaround_step,
                                      double timestep_tau) {
  IndentationSurface s = ind.surface;
  if (ind.move_surface)
    s.point_A = s.point_A - indentation_travel_A(ind, step, turnaround_step, timestep_tau) * ind.direction;
  return s;
}

// Force of the tip centred at `tip_A` on a bead at `bead_A` (docs/protocols.md#indentation):
// the wall of physics/tip.h at the distance between the centres, along the line joining them;
// the tip feels its negative. One definition for the CPU engine and the CUDA kernels.
template <bool kEnergy>
ERMAK_HD Vec3d tip_force_on_bead(const Indentation& ind, Vec3d bead_A, Vec3d tip_A, double& energy) {
  const Vec3d d = bead_A - tip_A;
  const double dist = norm(d);
  const double push = physics::wall_force<kEnergy>(dist, ind.tip, energy);
  return (push / dist) * d;
}

// Force of the surface on a sphere of radius `radius_A` centred at `pos` (a bead: 0; the
// tip: R_tip), docs/protocols.md#indentation. Plane: the wall of the height above it,
// ρ = (pos − r0)·n − R, along n. Grid: the sum of the walls of the surface beads,
// ρ = |pos − r_s| − R, visiting only the in-plane window within the cutoff.
template <bool kEnergy>
ERMAK_HD Vec3d surface_force_on(const IndentationSurface& s, Vec3d pos, double radius_A, double& energy) {
  physics::WallParametersT<double> wall = s.wall;
  wall.radius = radius_A;
  const double height = dot(pos - s.point_A, s.normal);
  if (!s.discrete) return physics::wall_force<kEnergy>(height, wall, energy) * s.normal;
  Vec3d force{};
  const double reach_A = s.cutoff_A + radius_A;
  if (height > reach_A || -height > reach_A) return force;
  const Vec3d corner = surface_bead_position(s, 0);
  const Vec3d along_u = surface_bead_position(s, 1) - corner;
  const Vec3d along_w = s.grid_size > 1 ? surface_bead_position(s, s.grid_size) - corner : along_u;
  const double a = dot(pos - corner, along_u) / (s.spacing_A * s.spacing_A);
  const double b = dot(pos - corner, along_w) / (s.spacing_A * s.spacing_A);
  const std::int32_t reach = std::int32_t(ceil(reach_A / s.spacing_A));
  const std::int32_t last = s.grid_size - 1;
  const std::int32_t ga_lo = std::int32_t(a) - reach > 0 ? std::int32_t(a) - reach : 0;
  const std::int32_t gb_lo = std::int32_t(b) - reach > 0 ? std::int32_t(b) - reach : 0;
  const std::int32_t ga_hi = std::int32_t(a) + reach + 1 < last ? std::int32_t(a) + reach + 1 : last;
  const std::int32_t gb_hi = std::int32_t(b) + reach + 1 < last ? std::int32_t(b) + reach + 1 : last;
  for (std::int32_t gb = gb_lo; gb <= gb_hi; ++gb)
    for (std::int32_t ga = ga_lo; ga <= ga_hi; ++ga) {
      const Vec3d d = pos - surface_bead_position(s, gb * s.grid_size + ga);
      const double dist = norm(d);
      if (dist > reach_A) continue;
      double pair_energy = 0;
      force += (physics::wall_force<kEnergy>(dist, wall, pair_energy) / dist) * d;
      if constexpr (kEnergy) energy += pair_energy;
    }
  return force;
}

// Base of the cantilever at `step` (fixed while the surface moves instead).
ERMAK_HD Vec3d cantilever_base_A(const Indentation& ind, std::int64_t step, std::int64_t turnaround_step,
                                 double timestep_tau) {
  if (ind.move_surface) return ind.base_start_A;
  return ind.base_start_A + indentation_travel_A(ind, step, turnaround_step, timestep_tau) * ind.direction;
}

// The cantilever spring's energy ½κ|base − tip|², kcal/mol: part of U_protocol
// (docs/protocols.md#indentation).
ERMAK_HD double cantilever_energy(const Indentation& ind, Vec3d tip_A, std::int64_t step,
                                  std::int64_t turnaround_step, double timestep_tau) {
  return physics::spring_energy(ind.spring_kcal_per_mol_A2,
                                cantilever_base_A(ind, step, turnaround_step, timestep_tau) - tip_A);
}

// Force of the surface on the tip (zero when there is no surface or it is switched off).
template <bool kEnergy>
ERMAK_HD Vec3d tip_surface_force(const Indentation& ind, Vec3d tip_A, std::int64_t step,
                                 std::int64_t turnaround_step, double timestep_tau, double& energy) {
  if (!ind.surface.enabled || !ind.surface.tip_interaction) return Vec3d{};
  return surface_force_on<kEnergy>(surface_at(ind, step, turnaround_step, timestep_tau), tip_A, ind.tip.radius,
                                   energy);
}

// The tip's overdamped step after the beads' (docs/protocols.md#indentation): the beads'
// force on it, the cantilever spring and the surface, with its noise g (rng::Stream::kTipLangevin),
// then the retraction check for the next step. One definition for the CPU engine and the CUDA
// kernels: the same doubles up to fused multiply-adds and the molecule's force summed in
// another order (docs/gpu.md#numerics), so a retraction at a force may turn a few steps apart.
ERMAK_HD void indentation_tip_step(const Indentation& ind, std::int64_t step, double timestep_tau, double kT,
                                   Vec3d molecule_force, Vec3f g, Vec3d& tip_A, std::int64_t& turnaround_step) {
  const double h = timestep_tau;
  const Vec3d base = cantilever_base_A(ind, step, turnaround_step, h);
  double unused = 0;
  const Vec3d force = molecule_force + physics::spring_force(ind.spring_kcal_per_mol_A2, base, tip_A) +
                      tip_surface_force<false>(ind, tip_A, step, turnaround_step, h, unused);
  // The beads' Ermak–McCammon step (physics/langevin_step.h) in double, with the tip's friction.
  // Written here as vector operations rather than by langevin_displacement: the host compiler
  // contracts the two products into a fused multiply-add differently in the two forms (checked:
  // ~5e-4 of the steps differ in the last bit), and the tip's doubles stay those of before.
  const physics::LangevinCoefficientsT<double> c = physics::langevin_coefficients<double>(h, ind.tip_zeta, kT);
  Vec3d move = c.mobility_step * force + c.noise_amplitude * vec_cast<double>(g);
  if (ind.tip_along_direction_only) move = dot(move, ind.direction) * ind.direction;
  tip_A += move;
  if (turnaround_step >= 0) return;
  const std::int64_t next = step + 1;
  bool reverse = false;
  switch (ind.retraction) {
    case RetractionTrigger::kNone: break;
    case RetractionTrigger::kDepth: reverse = indentation_travel_A(ind, next, -1, h) >= ind.retract_depth_A; break;
    case RetractionTrigger::kForce:
      reverse = physics::spring_force(ind.spring_kcal_per_mol_A2,
                                      dot(cantilever_base_A(ind, next, turnaround_step, h) - tip_A, ind.direction)) >=
                ind.retract_force_kcal_per_mol_A;
      break;
    case RetractionTrigger::kStep: reverse = next >= ind.retract_step; break;
  }
  if (reverse) turnaround_step = next;
}

// What a reporter needs per replica at a report step.
struct IndentationStatus {
  Vec3d base_A{};
  Vec3d tip_A{};
  Vec3d spring_force_kcal_per_mol_A{};    // on the tip
  Vec3d molecule_force_kcal_per_mol_A{};  // of all beads on the tip
  Vec3d surface_force_kcal_per_mol_A{};   // of the substrate surface on the tip
  double travel_A = 0.0;   // base (or surface) travel along direction
  std::int64_t turnaround_step = -1;
};

// The status of one replica at `step`, from its tip, the molecule's force on the tip (as the
// engine's last force evaluation left it) and the step at which the base reversed: one
// assembly for the CPU and CUDA engines (the same doubles up to fused multiply-adds).
inline IndentationStatus indentation_status_at(const Indentation& ind, std::int64_t step,
                                               std::int64_t turnaround_step, double timestep_tau, Vec3d tip_A,
                                               Vec3d molecule_force_kcal_per_mol_A) {
  IndentationStatus st;
  st.travel_A = indentation_travel_A(ind, step, turnaround_step, timestep_tau);
  st.base_A = cantilever_base_A(ind, step, turnaround_step, timestep_tau);
  st.tip_A = tip_A;
  st.spring_force_kcal_per_mol_A = physics::spring_force(ind.spring_kcal_per_mol_A2, st.base_A, tip_A);
  st.molecule_force_kcal_per_mol_A = molecule_force_kcal_per_mol_A;
  double unused = 0;
  st.surface_force_kcal_per_mol_A = tip_surface_force<false>(ind, tip_A, step, turnaround_step, timestep_tau, unused);
  st.turnaround_step = turnaround_step;
  return st;
}

}  // namespace ermak
