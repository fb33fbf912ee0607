#include "ermak/backend/engine_timing.h"

#include <algorithm>
#include <chrono>

namespace ermak {

double time_engine_advance(Engine& engine, std::int64_t steps) {
  const auto start = std::chrono::steady_clock::now();
  engine.advance(steps);
  (void)engine.state();  // waits for the GPU's steps
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

EngineWarmUp warm_up_engine(Engine& engine, std::int64_t steps_left) {
  EngineWarmUp warm;
  for (std::int64_t chunk = 10; warm.steps < steps_left; chunk *= 4) {
    warm.last_chunk_steps = std::min(chunk, steps_left - warm.steps);
    warm.last_chunk_seconds = time_engine_advance(engine, warm.last_chunk_steps);
    warm.steps += warm.last_chunk_steps;
    if (warm.last_chunk_seconds > 0.2) break;
  }
  return warm;
}

}  // namespace ermak
