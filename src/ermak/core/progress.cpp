#include "ermak/core/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace ermak {

ProgressMeter::ProgressMeter(std::int64_t first_step, std::int64_t last_step, std::int64_t bead_steps_per_step,
                             std::chrono::seconds first_log_after, std::chrono::seconds log_every)
    : first_(first_step), last_(last_step), bead_factor_(bead_steps_per_step), current_(first_step),
      last_log_step_(first_step), start_(Clock::now()), last_draw_(start_), next_log_(start_ + first_log_after),
      last_log_time_(start_), log_every_(log_every), terminal_(isatty(STDERR_FILENO) == 1) {}

double ProgressMeter::elapsed_seconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

double ProgressMeter::steps_per_second() const {
  const double t = elapsed_seconds();
  return t > 0 ? double(current_ - first_) / t : 0.0;
}

std::string ProgressMeter::format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e9) return "--";
  char buffer[64];
  const long s = long(seconds + 0.5);
  if (s >= 86400) std::snprintf(buffer, sizeof buffer, "%ldd%02ldh", s / 86400, (s % 86400) / 3600);
  else if (s >= 3600) std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else std::snprintf(buffer, sizeof buffer, "%ldm%02lds", s / 60, s % 60);
  return buffer;
}

void ProgressMeter::update(std::int64_t step) {
  current_ = step;
  if (!terminal_) return;
  const auto now = Clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(250) && step < last_) return;
  last_draw_ = now;
  const double rate = steps_per_second();
  const double eta = rate > 0 ? double(last_ - step) / rate : -1;
  // The share of the whole run (a resumed run counts its earlier steps too).
  const double percent = last_ > 0 ? 100.0 * double(step) / double(last_) : 100.0;
  std::fprintf(stderr, "\r  step %lld/%lld (%5.1f%%)  %.3g steps/s  %.3g bead-steps/s  ETA %s   ",
               (long long)step, (long long)last_, percent, rate, rate * double(bead_factor_),
               format_duration(eta).c_str());
  std::fflush(stderr);
}

std::optional<std::string> ProgressMeter::log_line_due() {
  const auto now = Clock::now();
  if (now < next_log_) return std::nullopt;
  next_log_ = now + log_every_;
  const double interval = std::chrono::duration<double>(now - last_log_time_).count();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double average = elapsed > 0 ? double(current_ - first_) / elapsed : 0.0;
  const double rate = interval > 0 ? double(current_ - last_log_step_) / interval : average;
  last_log_time_ = now;
  last_log_step_ = current_;
  const double eta = rate > 0 ? double(last_ - current_) / rate : -1;
  const double percent = last_ > 0 ? 100.0 * double(current_) / double(last_) : 100.0;
  char average_text[64] = "";
  if (std::abs(rate - average) > 0.05 * average)
    std::snprintf(average_text, sizeof average_text, " (%.4g over the run)", average);
  char buffer[224];
  std::snprintf(buffer, sizeof buffer, "step %lld of %lld (%.1f %%), %.4g steps/s%s, elapsed %s, ETA %s",
                (long long)current_, (long long)last_, percent, rate, average_text,
                format_duration(elapsed).c_str(), format_duration(eta).c_str());
  return std::string(buffer);
}

void ProgressMeter::finish() {
  if (terminal_) std::fprintf(stderr, "\n");
}

}  // namespace ermak
