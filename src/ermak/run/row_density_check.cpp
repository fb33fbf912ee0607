#include "ermak/run/row_density_check.h"

#include <fmt/format.h>

#include <cmath>
#include <algorithm>
#include <cstdint>

#include "ermak/analysis/smoothing_defaults.h"
#include "ermak/core/units.h"

namespace ermak {

namespace {

// The warning for rows every `every_steps` of a base moving `speed_A_per_tau`.
std::string check_rows(const RunSpec& spec, const char* output_key, double speed_A_per_tau,
                       std::int64_t every_steps) {
  const std::int64_t every = every_steps > 0 ? every_steps : spec.output.energy_every_steps;
  const double per_row_A = std::abs(speed_A_per_tau) * spec.langevin.timestep_tau * double(every);
  if (!(every > 0 && per_row_A > 0.0)) return "";
  const double window_A = analysis::kDefaultSmoothWindow_nm * units::A_per_nm;
  const double rows = window_A / per_row_A;
  if (!(rows < analysis::kFewRowsPerSmoothWindow)) return "";
  const auto dense_every = std::int64_t(std::floor(window_A / analysis::kFewRowsPerSmoothWindow /
                                                   (std::abs(speed_A_per_tau) * spec.langevin.timestep_tau)));
  // A .sop run names the key as written there (SOP-GPU's name).
  const std::string written = key_as_written(spec, output_key);
  const std::string key = written.empty() ? std::string(output_key) : written;
  return fmt::format("warning: {} = {} steps puts the rows {:.3g} nm of travel apart: `ermak analyze`'s smoothing "
                     "window ({:g} nm) would hold only {:.3g} rows (fewer than {:g}), too few for its noise estimate "
                     "and peak criterion; give {} ≤ {} (docs/analysis.md#smoothing)",
                     key, every, per_row_A / units::A_per_nm, analysis::kDefaultSmoothWindow_nm, rows,
                     analysis::kFewRowsPerSmoothWindow, key, std::max<std::int64_t>(dense_every, 1));
}

}  // namespace

std::string sparse_protocol_rows_warning(const RunSpec& spec) {
  if (!spec.output.write_directory) return "";  // no pulling.tsv for `ermak analyze`
  if (spec.pulling.enabled)
    return check_rows(spec, "pulling.output_every", spec.pulling.speed_A_per_tau, spec.pulling.output_every_steps);
  if (spec.indentation.enabled)
    return check_rows(spec, "indentation.output_every", spec.indentation.speed_A_per_tau,
                      spec.indentation.output_every_steps);
  return "";
}

}  // namespace ermak
