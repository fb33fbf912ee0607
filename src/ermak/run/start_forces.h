#pragma once
// The forces at a run's start (docs/config.md#minimize--energy-minimisation-before-the-dynamics): beads on top of each other are
// refused, and a start — minimised or not — whose largest force would move a bead by half a
// bond's R0 in one step is warned of, since the first steps would then break a bond with a
// message about the dynamics instead of the start.
#include <spdlog/spdlog.h>

#include "ermak/backend/engine.h"
#include "ermak/config/spec.h"
#include "ermak/model/state.h"
#include "ermak/model/topology.h"

namespace ermak {

// How far a force moves a bead in one step: (h/ζ)·|F| (docs/model.md#dynamics), Å.
double first_step_move_A(const RunSpec& spec, double force_kcal_per_mol_A);

// A start without [minimize]: `forces` (the engine's at the start positions, one State of
// forces) checked as after a minimisation. A native structure feels almost none; a
// coordinates file of another state, a start built by hand or a replica's own coordinates
// may hold overlapping beads. Warns in `log` with the bead and its force.
void warn_of_start_forces(const State& forces, const Topology& topology, const RunSpec& spec, spdlog::logger& log);

// Throws ermak::Error naming the start coordinates file and the closest pair of beads when a
// force in `forces` is not finite: beads on top of each other have no repulsion energy, which
// would otherwise surface as "non-finite coordinates" blamed on a bond after the first steps,
// or be dropped by the minimisation's largest force (`ermak energy` refuses it alike).
void refuse_coincident_start(Engine& engine, const State& forces, const RunSpec& spec);

// The minimisation's line in the run log, and a warning when its final force would still
// break a bond in the first step.
void log_minimisation(const MinimizeResult& result, double seconds, const RunSpec& spec, spdlog::logger& log);

}  // namespace ermak
