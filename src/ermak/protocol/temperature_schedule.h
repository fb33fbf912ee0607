#pragma once
#include <cstdint>

namespace ermak {

// Temperature as a function of step (docs/config.md#heating--stepwise-heating-optional): constant, or SOP-GPU-style
// stepwise heating T = start + increment·floor(step/every), capped at stop.
struct TemperatureSchedule {
  double start_kcal_per_mol = 0.6;
  double increment_kcal_per_mol = 0.0;
  std::int64_t every_steps = 0;        // 0: constant temperature
  double stop_kcal_per_mol = 0.0;      // used only when heating
  double at_step(std::int64_t step) const;
  bool heating() const { return every_steps > 0 && increment_kcal_per_mol != 0.0; }
  // The first step at the stop temperature (heating only).
  std::int64_t stop_step() const;
  // The first step after `step` whose temperature may differ from step's (the next stair
  // when heating; none, INT64_MAX, at a constant temperature): an engine runs the steps
  // before it at one kT.
  std::int64_t next_change_after(std::int64_t step) const;
};

}  // namespace ermak
