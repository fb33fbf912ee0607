#include <algorithm>
#include <cmath>

#include "ermak/protocol/temperature_schedule.h"

namespace ermak {

double TemperatureSchedule::at_step(std::int64_t step) const {
  if (!heating()) return start_kcal_per_mol;
  const double t = start_kcal_per_mol + increment_kcal_per_mol * double(step / every_steps);
  return increment_kcal_per_mol > 0 ? std::min(t, stop_kcal_per_mol)
                                    : std::max(t, stop_kcal_per_mol);
}

std::int64_t TemperatureSchedule::stop_step() const {
  if (!heating()) return 0;
  // Stairs until the cap: the first whole number of increments that reaches the stop (a
  // small tolerance for stops that are whole stairs in kcal/mol converted from K).
  const double stairs = (stop_kcal_per_mol - start_kcal_per_mol) / increment_kcal_per_mol;
  return std::int64_t(std::ceil(stairs - 1e-9)) * every_steps;
}

}  // namespace ermak
