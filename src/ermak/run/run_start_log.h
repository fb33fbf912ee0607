#pragma once
// The run log's first lines (docs/outputs.md#layout-of-an-output-directory, run.log): what
// the run is (version, configuration, model, chains, extent, protocols' warnings, bead
// selections, temperature schedule, noise), so that a log read later says what ran.
#include <cstdint>
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/core/vec3.h"
#include "ermak/model/topology.h"
#include "ermak/run/run_log.h"
#include "ermak/run/simulation.h"

namespace ermak {

// The heating schedule in words (docs/config.md#heating--stepwise-heating-optional), and warnings when the run does not
// reach or hold its stop temperature, or when one increment spans the whole range (a unit
// slip). Nothing without [heating].
void log_heating_schedule(const RunSpec& spec, spdlog::logger& log);

// Every line from "ermak VERSION starting CONFIG" to the noise line; the resolved
// configuration goes to the run log only. `pieces`: bonded_pieces(topology);
// `travel_warning`: assess_pulling_travel's (run/pulling_travel_check.h).
void log_run_start(const RunSpec& spec, const Topology& topology, const std::vector<Vec3d>& positions_A,
                   const std::vector<std::int32_t>& pieces, const std::string& travel_warning,
                   const std::vector<std::string>& bead_selection_lines, const RunOptions& options,
                   const RunLog& run_log);

}  // namespace ermak
