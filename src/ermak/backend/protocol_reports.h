#pragma once
// Protocol forces for reports, computed on the host from positions both backends hand
// back — every position (Engine::state()) or those of the beads concerned
// (Engine::bead_positions): one definition for Engine::tether_forces_kcal_per_mol_A() and
// plane_forces_kcal_per_mol_A().
#include <cstdint>
#include <vector>

#include "ermak/backend/engine.h"

namespace ermak {

// Spring force on the bead of every tether that applies to each replica, replica by
// replica, tethers in setup order.
std::vector<Vec3d> report_tether_forces(const EngineSetup& setup, const State& state);
// The same from the tethered beads' positions alone: `positions` as Engine::bead_positions
// returns them for tethered_beads(setup) (the engine's step and replica count given).
std::vector<Vec3d> report_tether_forces(const EngineSetup& setup, std::int64_t step, std::int32_t replicas,
                                        const std::vector<Vec3f>& positions);
// The beads that carry a tether, each once, ascending.
std::vector<std::int32_t> tethered_beads(const EngineSetup& setup);

// Total spring force along each plane's normal, [replica * plane_groups + group].
std::vector<double> report_plane_forces(const EngineSetup& setup, const State& state);
// The same from the plane-tethered beads' positions alone, as for the tethers above.
std::vector<double> report_plane_forces(const EngineSetup& setup, std::int64_t step, std::int32_t replicas,
                                        const std::vector<Vec3f>& positions);
// The beads that carry a plane tether, each once, ascending.
std::vector<std::int32_t> plane_tethered_beads(const EngineSetup& setup);

}  // namespace ermak
