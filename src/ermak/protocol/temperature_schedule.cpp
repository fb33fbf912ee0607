#include <algorithm>

#include "ermak/protocol/temperature_schedule.h"

namespace ermak {

double TemperatureSchedule::at_step(std::int64_t step) const {
  if (every_steps <= 0 || increment_kcal_per_mol == 0.0) return start_kcal_per_mol;
  const double t = start_kcal_per_mol + increment_kcal_per_mol * double(step / every_steps);
  return increment_kcal_per_mol > 0 ? std::min(t, stop_kcal_per_mol)
                                    : std::max(t, stop_kcal_per_mol);
}

}  // namespace ermak
