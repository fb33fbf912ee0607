#pragma once
// A one-line progress report (steps/s, ETA) redrawn on a terminal; silent when stderr
// is not a terminal, so logs and CI output stay clean. For the run log (and a batch job's
// output, where nothing is drawn) it also gives a progress line now and then.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace ermak {

class ProgressMeter {
 public:
  // Log lines (log_line_due) come `first_log_after` after the start, then every `log_every`.
  ProgressMeter(std::int64_t first_step, std::int64_t last_step, std::int64_t bead_steps_per_step,
                std::chrono::seconds first_log_after = std::chrono::seconds(60),
                std::chrono::seconds log_every = std::chrono::seconds(600));
  // Redraws at most a few times per second.
  void update(std::int64_t step);
  void finish();
  double steps_per_second() const;
  double elapsed_seconds() const;
  static std::string format_duration(double seconds);
  // "step S of L (P %), R steps/s, elapsed E, ETA T" when the next log line is due (then
  // not again before the interval), else nothing; the step is the last update()'s. R and
  // the ETA are those of the interval since the previous line (the machine's load or the
  // run's speed may have changed), with the run's average added where it differs by more
  // than 5 %.
  std::optional<std::string> log_line_due();
  // Whether update() draws a live line (stderr is a terminal, and not silenced).
  bool drawing() const { return terminal_; }
  // No live line even on a terminal (`ermak run --quiet`).
  void silence() { terminal_ = false; }

 private:
  using Clock = std::chrono::steady_clock;
  std::int64_t first_, last_, bead_factor_;
  std::int64_t current_;
  std::int64_t last_log_step_;
  Clock::time_point start_, last_draw_, next_log_, last_log_time_;
  std::chrono::seconds log_every_;
  bool terminal_;
};

}  // namespace ermak
