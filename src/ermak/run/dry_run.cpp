#include "ermak/run/dry_run.h"

#include <fmt/format.h>

#include <algorithm>

#include "ermak/backend/engine_timing.h"
#include "ermak/core/byte_size.h"
#include "ermak/core/round_number.h"
#include "ermak/core/progress.h"

namespace ermak {

StepTiming time_engine_steps(Engine& engine, std::int64_t steps_left, double seconds) {
  StepTiming timing;
  const EngineWarmUp warm = warm_up_engine(engine, steps_left);
  timing.warm_up_steps = warm.steps;
  const std::int64_t left = steps_left - warm.steps;
  if (left <= 0 || warm.steps_per_second() <= 0.0) return timing;
  timing.timed_steps = std::clamp<std::int64_t>(std::int64_t(seconds * warm.steps_per_second()), 1, left);
  timing.timed_seconds = time_engine_advance(engine, timing.timed_steps);
  return timing;
}

std::vector<std::string> describe_dry_run(const DryRunFacts& f) {
  std::vector<std::string> lines;
  const double beads = double(f.beads_per_replica) * double(f.replicas);
  std::string memory;
  if (f.gpu_bytes >= 0)
    memory = fmt::format(", GPU memory {} ({:.0f} B per bead)", format_byte_size(double(f.gpu_bytes)),
                         beads > 0 ? double(f.gpu_bytes) / beads : 0.0);
  lines.push_back(fmt::format("dry run: engine {}{}", f.backend, memory));
  const std::int64_t steps = f.last_step - f.first_step;
  const double rate = f.timing.steps_per_second();
  if (steps == 0) {
    lines.push_back(fmt::format("dry run: no steps to time (the run ends at step {})", f.last_step));
  } else if (f.timing.timed_steps == 0) {
    lines.push_back(fmt::format("dry run: the run's {} steps were all taken while warming up ({} steps): too few "
                                "to time; the run itself takes about as long as this dry run",
                                steps, f.timing.warm_up_steps));
  } else {
    lines.push_back(fmt::format("dry run: {} steps timed in {:.2f} s after {} to warm up: {:.4g} steps/s, {:.4g} "
                                "bead-steps/s",
                                f.timing.timed_steps, f.timing.timed_seconds, f.timing.warm_up_steps, rate,
                                rate * beads));
    lines.push_back(fmt::format("dry run: steps {} .. {} ({} steps) at that rate: about {}; reports, frames and "
                                "checkpoints add to it (the run log's cost lines, docs/outputs.md#reports-are-written-in-the-background), and the "
                                "rate moves as the structure changes (unfolding, compaction)",
                                f.first_step, f.last_step, steps, ProgressMeter::format_duration(double(steps) / rate)));
    // What a crash costs: the steps since the last checkpoint (docs/outputs.md#checkpoint).
    const double seconds = double(steps) / rate;
    // Checkpoints fall on multiples of the interval (and at the run's end): with no multiple
    // between the first step and the last — 0, an interval beyond the end, or a resumed run
    // whose next multiple is the end or past it — a crash loses everything since the start.
    const bool only_at_end =
        f.checkpoint_every == 0 ||
        (f.checkpoint_every > 0 && (f.first_step / f.checkpoint_every + 1) * f.checkpoint_every >= f.last_step);
    if (only_at_end && seconds > 3600.0)
      lines.push_back(fmt::format("dry run: warning: output.checkpoint_every = {} writes checkpoints only at the start and the end: "
                                  "a crash, a kill or a time limit without SIGTERM loses the whole ~{} run; "
                                  "checkpoint_every = {} writes one about every 10 minutes",
                                  f.checkpoint_every, ProgressMeter::format_duration(seconds),
                                  std::max<std::int64_t>(1, std::int64_t(round_down_significant(600.0 * rate, 2)))));
    else if (f.checkpoint_every > 0 && !only_at_end)
      lines.push_back(fmt::format("dry run: a checkpoint every {} steps: about every {} at that rate (what a crash "
                                  "can lose)",
                                  f.checkpoint_every,
                                  double(f.checkpoint_every) / rate < 1.0
                                      ? std::string("second or more often")
                                      : ProgressMeter::format_duration(double(f.checkpoint_every) / rate)));
  }
  lines.push_back(f.output_holds_a_run ? "dry run: every other check of the run's start passed; nothing was written "
                                         "(but the output directory needs --force: below)"
                                       : "dry run: every check of the run's start passed; nothing was written");
  return lines;
}

}  // namespace ermak
