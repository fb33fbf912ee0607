#include "ermak/protocol/external_force.h"

namespace ermak {

double ForceSchedule::at_step(std::int64_t step) const {
  if (points.empty()) return 0.0;
  if (step <= points.front().step) return points.front().force_kcal_per_mol_A;
  for (std::size_t k = 1; k < points.size(); ++k) {
    if (step <= points[k].step) {
      const auto& a = points[k - 1];
      const auto& b = points[k];
      const double f = double(step - a.step) / double(b.step - a.step);
      return a.force_kcal_per_mol_A + f * (b.force_kcal_per_mol_A - a.force_kcal_per_mol_A);
    }
  }
  return points.back().force_kcal_per_mol_A;
}

}  // namespace ermak
