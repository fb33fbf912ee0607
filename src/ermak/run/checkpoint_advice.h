#pragma once
// Whether a run's checkpoints cost enough of its time to say so, and what interval would
// make them cheap (docs/outputs.md, "Cost"). With 10⁴ replicas a checkpoint takes ~0.5 s
// (it flushes one file per replica and syncs); the report writer does that in the
// background, so it costs the run only where the driver has to wait for the writer.
#include <cstdint>

namespace ermak {

struct CheckpointAdvice {
  bool costly = false;                    // checkpoints took more than kCostlyFraction of the run
  double fraction = 0.0;                  // checkpoint time / run time
  std::int64_t suggested_every_steps = 0; // an interval at which they would take ~kTargetFraction
};

constexpr double kCostlyFraction = 0.05;
constexpr double kTargetFraction = 0.02;

// What the checkpoints held the run up: the driver's share (copying the state) and, of
// its waits for the report writer, the part the checkpoints take of the writer's time.
double checkpoint_cost_seconds(double driver_seconds, double writer_waiting_seconds, double writer_seconds,
                               double checkpoint_writing_seconds);

// every_steps: the run's checkpoint interval; checkpoints: how many were written (the one
// at the end included); start_checkpoints: of those, the one a new run takes at its start
// (0 or 1), left out with its share of checkpoint_seconds. A run with a single checkpoint
// besides the start's (or none) gets no advice — only the interval's checkpoints can be
// made rarer, not the start's or the end's.
CheckpointAdvice checkpoint_advice(std::int64_t every_steps, std::int64_t checkpoints, std::int64_t start_checkpoints,
                                   double checkpoint_seconds, double run_seconds);

}  // namespace ermak
