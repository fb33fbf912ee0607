#pragma once
// Timing an engine's steps, as `ermak bench` times its cases and `ermak run --dry-run`
// estimates a run (run/dry_run.h).
#include <cstdint>

#include "ermak/backend/engine.h"

namespace ermak {

struct EngineWarmUp {
  std::int64_t steps = 0;  // all the warm-up took
  std::int64_t last_chunk_steps = 0;
  double last_chunk_seconds = 0.0;
  // The last chunk's rate, which sizes a timed run (0: nothing stepped).
  double steps_per_second() const { return last_chunk_seconds > 0 ? double(last_chunk_steps) / last_chunk_seconds : 0.0; }
};

// Steps in chunks of 10, 40, 160, … (at most `steps_left` in all) until one takes 0.2 s:
// the first list builds, on a GPU the graph capture, and the caches, which a long run pays
// once.
EngineWarmUp warm_up_engine(Engine& engine, std::int64_t steps_left);

// Seconds that `steps` more steps take, the GPU's steps waited for.
double time_engine_advance(Engine& engine, std::int64_t steps);

}  // namespace ermak
