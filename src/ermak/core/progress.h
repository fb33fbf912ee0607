#pragma once
// A one-line progress report (steps/s, ETA) redrawn on a terminal; silent when stderr
// is not a terminal, so logs and CI output stay clean.
#include <chrono>
#include <cstdint>
#include <string>

namespace ermak {

class ProgressMeter {
 public:
  ProgressMeter(std::int64_t first_step, std::int64_t last_step, std::int64_t bead_steps_per_step);
  // Redraws at most a few times per second.
  void update(std::int64_t step);
  void finish();
  double steps_per_second() const;
  double elapsed_seconds() const;
  static std::string format_duration(double seconds);

 private:
  using Clock = std::chrono::steady_clock;
  std::int64_t first_, last_, bead_factor_;
  std::int64_t current_;
  Clock::time_point start_, last_draw_;
  bool terminal_;
};

}  // namespace ermak
