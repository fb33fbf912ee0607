#pragma once
// The checks `ermak run` makes at a stop (report, frame, protocol row, checkpoint):
// coordinates that became non-finite, and FENE bonds stretched to or beyond R0 — both
// mean the run went unstable (docs/model.md#fene), and it stops with a message that says
// why. They need every position on the host: the CPU backend runs them at every stop, the
// CUDA backend only when its screen on the GPU flags one (Engine::may_be_unstable,
// docs/gpu.md#what-overlaps-the-steps).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ermak/backend/stability_screen.h"
#include "ermak/config/spec.h"
#include "ermak/model/state.h"
#include "ermak/model/topology.h"
#include "ermak/protocol/indentation.h"

namespace ermak {

// Throws ermak::Error naming the first bead (replica-major order) with a non-finite
// coordinate, and the steps between which it happened.
void check_finite(const State& state, std::int64_t since_step);

// The indentation tip at a stop (docs/outputs.md#after-an-error): its own overdamped steps go
// unstable where the surface's push is too stiff for its friction and the time step, which the
// bead checks cannot see. Throws ermak::Error when a tip's coordinates are not finite, or when
// a tip that feels the surface has its centre behind the surface plane (thrown through it).
void check_indentation_tips(const Indentation& indentation, const std::vector<IndentationStatus>& tips,
                            double timestep_tau, std::int64_t since_step, std::int64_t step);

// The FENE bonds of a topology, with the squared bond lengths beyond which a bond may have
// broken, computed once per run.
class BondStretchCheck {
 public:
  // `remedy` ends the message: what makes the forces smaller in this run (the pulling
  // protocols' speed, spring or force; a start that needs minimising; the temperature).
  BondStretchCheck(const Topology& topology, float max_stretch_A, std::string remedy = kPullingRemedy);
  static constexpr const char* kPullingRemedy = "pull more slowly, use a softer spring or a smaller force, or a "
                                                "smaller timestep";
  static constexpr const char* kClampRemedy = "use a smaller clamp force (or a schedule that stays lower) or a "
                                              "smaller timestep";
  static constexpr const char* kEquilibriumRemedy = "minimise the start ([minimize] steps, or more of them: the run "
                                                    "log gives the minimisation's final force), lower the "
                                                    "temperature, or use a smaller timestep";
  // The same run's break from kThermalBreakFromStep on: a start that overlaps breaks a bond
  // within its first steps, so a later break is the thermal kicks'.
  static constexpr std::int64_t kThermalBreakFromStep = 1000;
  static constexpr const char* kThermalRemedy = "the thermal kicks stretch the bonds that far at this temperature "
                                                "and time step: lower the temperature (with [heating], its stop) or "
                                                "use a smaller timestep";
  // Throws ermak::Error naming the first bond (replica-major, then topology order) whose
  // length differs from its native r0 by R0 or more.
  void operator()(const State& state, std::int64_t since_step) const;
  // A break found at `step` or later ends with `remedy` instead (a pulling run whose base has
  // by then travelled past what the chain can follow: fewer steps, not a slower pull).
  void use_remedy_from(std::int64_t step, std::string remedy) {
    later_from_step_ = step;
    later_remedy_ = std::move(remedy);
  }
  // A break whose cause the run's start predicted: `cause` replaces "the forces are too large
  // for the time step", and `remedy` every other remedy, at every step.
  void use_known_cause(std::string cause, std::string remedy) {
    cause_ = std::move(cause);
    remedy_ = std::move(remedy);
    later_from_step_ = INT64_MAX;
  }

 private:
  void check_replica_exactly(const State& state, std::int32_t replica, std::int64_t since_step) const;

  std::vector<Bond> bonds_;
  // A replica with a bond outside its screen (backend/stability_screen.h: the bounds
  // widened by 10⁻⁴, the same test as on the GPU) is checked exactly, bond by bond.
  std::vector<BondScreen> screen_;
  float max_stretch_A_;
  std::string remedy_;
  std::string cause_ = "the forces are too large for the time step";
  std::int64_t later_from_step_ = INT64_MAX;
  std::string later_remedy_;
};

// The bond check of a run, whose message ends with what makes this run's forces smaller: a
// force protocol's speed, spring or force; in a run without one, the start (minimise), and
// from BondStretchCheck::kThermalBreakFromStep on the temperature; in a pulling run from
// `overload_step` on (its base has travelled past what the chain can follow,
// run/pulling_travel_check.h), fewer steps: pulling more slowly breaks the bond at the same travel.
// An indentation whose surface moves (indentation.move_surface) toward the molecule
// (direction · normal < 0) in a run with [fixed] beads: the surface drives into the beads that
// stay where they are, and a FENE bond of theirs breaks. The run's start notes it (ProtocolSetup's log lines), and a bond break then names
// that cause (bond_check_for_run).
bool surface_drives_into_fixed_beads(const RunSpec& spec);
inline constexpr const char* kSurfaceIntoFixedBeadsCause =
    "the moving surface (indentation.move_surface = true) drives into the [fixed] beads, which stay where they "
    "are (the run's start noted it)";
inline constexpr const char* kSurfaceIntoFixedBeadsRemedy =
    "set indentation.move_surface = false (the base moves instead), or remove the [fixed] beads; pulling more slowly "
    "or a smaller timestep only delays the break";

BondStretchCheck bond_check_for_run(const Topology& topology, const RunSpec& spec,
                                    std::optional<std::int64_t> overload_step);

// Throws ermak::Error, naming `source` (the coordinates file), when a position is beyond
// what ermak's PDB files can hold (|x| ≥ 10⁷ Å) — checked before any output is written.
// `field`: as for check_start_coordinates below.
void check_coordinates_fit_pdb(const Topology& topology, const std::vector<Vec3d>& positions_A,
                               const std::string& source, const std::string& field = "");

// A run keeps positions in single precision (docs/model.md#precision): far from the origin
// the spacing of floats grows to a sizeable part of a step's noise, `noise_amplitude_A`, and
// the beads move in coarse jumps or not at all (an audit's structure at 8·10⁶ Å never moved in
// x, with FENE energy at its native start). Throws ermak::Error naming `source` when the
// spacing at the farthest coordinate is 10 % of the noise or more (≥ 65 536 Å with SOP-GPU's
// step); a warning when it is 1 % or more (≥ 4096 Å); "" otherwise. A noise amplitude below
// SOP-GPU's (kSopGpuNoiseAmplitude_A: 300 K, h = 0.08 τ_H, ζ = 50) counts as SOP-GPU's.
inline constexpr double kSopGpuNoiseAmplitude_A = 0.04382;
std::string check_coordinate_resolution(const Topology& topology, const std::vector<Vec3d>& positions_A,
                                        double noise_amplitude_A, const std::string& source,
                                        const std::string& field = "");

// Before a run (or a single-point energy): check_coordinates_fit_pdb, and throws when a
// bond is already stretched or compressed by R0 or more from its r0 — the FENE energy is
// undefined there, so the coordinates do not fit the topology's bonds (docs/model.md#fene).
// `field` names the setting that gave the file (e.g. "input.replica_coordinates[3]"), so that
// one file of many is found in the config; empty where the file is the run's only one.
void check_start_coordinates(const Topology& topology, const std::vector<Vec3d>& positions_A, double max_stretch_A,
                             const std::string& source, const std::string& field = "");

}  // namespace ermak
