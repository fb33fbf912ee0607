#pragma once
// Protocol forces for reports, computed on the host from positions both backends hand
// back (Engine::state()): one definition for tether_forces() and plane_forces().
#include <vector>

#include "ermak/backend/engine.h"

namespace ermak {

// Spring force on the bead of every tether that applies to each replica, replica by
// replica, tethers in setup order.
std::vector<Vec3d> report_tether_forces(const EngineSetup& setup, const State& state);

// Total spring force along each plane's normal, [replica * plane_groups + group].
std::vector<double> report_plane_forces(const EngineSetup& setup, const State& state);

}  // namespace ermak
