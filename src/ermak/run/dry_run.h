#pragma once
// `ermak run --dry-run` (docs/outputs.md#dry-run): after every check a run makes at its
// start, the engine steps for a few seconds from the run's first step and the run's
// duration is estimated from that rate; nothing is written.
#include <cstdint>
#include <string>
#include <vector>

#include "ermak/backend/engine.h"

namespace ermak {

struct StepTiming {
  std::int64_t warm_up_steps = 0;  // first list builds, graph capture, caches: not timed
  std::int64_t timed_steps = 0;
  double timed_seconds = 0.0;
  double steps_per_second() const { return timed_seconds > 0 ? double(timed_steps) / timed_seconds : 0.0; }
};

// Steps `engine` (at most `steps_left` in all) for about `seconds` after a warm-up of at
// least ~0.2 s, as `ermak bench` times its cases; the engine is left further on.
StepTiming time_engine_steps(Engine& engine, std::int64_t steps_left, double seconds);

// What the dry run reports once the engine exists: the engine, its GPU memory, the rate
// and the estimated duration of steps first_step .. last_step.
struct DryRunFacts {
  std::string backend;   // "cuda (perbead/clusters/k1/w4/o16)"
  long long gpu_bytes = -1;  // the engine's own count (−1: not a CUDA engine)
  std::int64_t beads_per_replica = 0, replicas = 0;
  std::int64_t first_step = 0, last_step = 0;
  StepTiming timing;
  bool output_holds_a_run = false;  // the refusal follows the report
  std::int64_t checkpoint_every = -1;  // output.checkpoint_every (0: only at the start and the end; −1: not said)
};
std::vector<std::string> describe_dry_run(const DryRunFacts& facts);

}  // namespace ermak
