#include <algorithm>
#include <cmath>
#include <limits>

#include "ermak/protocol/temperature_schedule.h"

namespace ermak {

double TemperatureSchedule::at_step(std::int64_t step) const {
  if (!heating()) return start_kcal_per_mol;
  const double t = start_kcal_per_mol + increment_kcal_per_mol * double(step / every_steps);
  return increment_kcal_per_mol > 0 ? std::min(t, stop_kcal_per_mol)
                                    : std::max(t, stop_kcal_per_mol);
}

std::int64_t TemperatureSchedule::next_change_after(std::int64_t step) const {
  if (!heating()) return std::numeric_limits<std::int64_t>::max();
  return (step / every_steps + 1) * every_steps;
}

std::int64_t TemperatureSchedule::stop_step() const {
  if (!heating()) return 0;
  // Stairs until the cap: the first whole number of increments that reaches the stop (a
  // small tolerance for stops that are whole stairs in kcal/mol converted from K).
  const double stairs = std::ceil((stop_kcal_per_mol - start_kcal_per_mol) / increment_kcal_per_mol - 1e-9);
  // A tiny increment puts the stop beyond any step count: saturate rather than overflow.
  constexpr auto kLast = std::numeric_limits<std::int64_t>::max();
  if (!(stairs * double(every_steps) < 9.0e18)) return kLast;
  return std::int64_t(stairs) * every_steps;
}

}  // namespace ermak
