#pragma once
// Whether a run's checkpoints cost enough of its time to say so, and what interval would
// make them cheap (docs/outputs.md, "Cost"). With 10⁴ replicas on a GPU a checkpoint
// takes ~0.2–0.5 s (it flushes one file per replica), so the default interval of 10⁵
// steps can cost a quarter of the run.
#include <cstdint>

namespace ermak {

struct CheckpointAdvice {
  bool costly = false;                    // checkpoints took more than kCostlyFraction of the run
  double fraction = 0.0;                  // checkpoint time / run time
  std::int64_t suggested_every_steps = 0; // an interval at which they would take ~kTargetFraction
};

constexpr double kCostlyFraction = 0.05;
constexpr double kTargetFraction = 0.02;

// every_steps: the run's checkpoint interval; checkpoints: how many were written (the one
// at the end included); a run with a single checkpoint (or none) gets no advice — only
// the interval's checkpoints can be made rarer.
CheckpointAdvice checkpoint_advice(std::int64_t every_steps, std::int64_t checkpoints, double checkpoint_seconds,
                                   double run_seconds);

}  // namespace ermak
