// A report stop's values from the Engine interface's single calls (backend/engine.h).
#include "ermak/backend/engine.h"

#include <cstdlib>
#include <string>

#include "ermak/core/error.h"

namespace ermak {

OverlapStops overlap_stops_setting() {
  const char* v = std::getenv("ERMAK_OVERLAP_STOPS");
  const std::string value = v ? v : "";
  if (value.empty() || value == "1") return OverlapStops::kWhereTheEngineDoes;
  if (value == "0") return OverlapStops::kNever;
  if (value == "always") return OverlapStops::kAlways;
  throw Error("environment variable ERMAK_OVERLAP_STOPS=\"" + value + "\": must be 0, 1 or always");
}

StopValues take_stop_values(Engine& engine, const StopRequest& request) {
  StopValues values;
  values.may_be_unstable = engine.may_be_unstable();
  if (request.positions) values.positions = engine.state();
  if (!request.beads.empty()) values.bead_positions = engine.bead_positions(request.beads);
  if (request.energies) {
    values.energies = engine.energies();
    values.structure = engine.structure_observables(request.formed_ratio, request.end_first, request.end_last);
  }
  if (request.tether_forces) values.tether_forces_kcal_per_mol_A = engine.tether_forces_kcal_per_mol_A();
  if (request.plane_forces) values.plane_forces_kcal_per_mol_A = engine.plane_forces_kcal_per_mol_A();
  if (request.indentation) values.indentation = engine.indentation_status();
  return values;
}

StopValues Engine::take_stop(const StopRequest& request) { return take_stop_values(*this, request); }

StopValues Engine::stop_and_advance(const StopRequest& request, std::int64_t next_steps) {
  StopValues values = take_stop(request);
  if (values.may_be_unstable && values.positions.x.empty()) values.positions = state();
  advance(next_steps);
  return values;
}

}  // namespace ermak
