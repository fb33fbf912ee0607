#include "ermak/run/checkpoint_advice.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace ermak {

double checkpoint_cost_seconds(double driver_seconds, double writer_waiting_seconds, double writer_seconds,
                               double checkpoint_writing_seconds) {
  const double share = writer_seconds > 0.0 ? std::clamp(checkpoint_writing_seconds / writer_seconds, 0.0, 1.0) : 0.0;
  return driver_seconds + writer_waiting_seconds * share;
}

CheckpointAdvice checkpoint_advice(std::int64_t every_steps, std::int64_t checkpoints, std::int64_t start_checkpoints,
                                   double checkpoint_seconds, double run_seconds) {
  CheckpointAdvice advice;
  // The start's checkpoint is there at any interval: its time (taken as an equal share)
  // is not the interval's to save.
  if (start_checkpoints > 0 && checkpoints > 0) {
    const std::int64_t others = std::max<std::int64_t>(0, checkpoints - start_checkpoints);
    checkpoint_seconds *= double(others) / double(checkpoints);
    checkpoints = others;
  }
  if (every_steps <= 0 || checkpoints <= 1 || !(run_seconds > 0.0) || !(checkpoint_seconds >= 0.0)) return advice;
  advice.fraction = checkpoint_seconds / run_seconds;
  advice.costly = advice.fraction > kCostlyFraction;
  if (advice.costly) {
    // Checkpoint time scales with their number: a factor fraction/target fewer of them,
    // rounded up to a round interval (1, 2 or 5 times a power of ten).
    const double wanted = double(every_steps) * advice.fraction / kTargetFraction;
    double round = std::pow(10.0, std::floor(std::log10(wanted)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * round >= wanted * (1.0 - 1e-9)) { round *= m; break; }
    advice.suggested_every_steps = std::int64_t(round);
  }
  return advice;
}

}  // namespace ermak
