#include "ermak/analysis/analysis_progress.h"

#include <fmt/format.h>

#include <cstdio>
#include <utility>

#include "ermak/core/progress.h"

namespace ermak::analysis {

AnalysisProgress::AnalysisProgress(std::string what, std::size_t total, std::chrono::milliseconds every, Sink sink,
                                   Now now)
    : what_(std::move(what)), total_(total), every_(every), sink_(std::move(sink)),
      now_(now ? std::move(now) : Now(&Clock::now)), start_(now_()), next_(start_ + every) {
  if (!sink_)
    sink_ = [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
      std::fflush(stderr);
    };
}

void AnalysisProgress::update(std::size_t done) {
  const auto now = now_();
  if (now < next_ || done >= total_ || total_ == 0) return;
  next_ = now + every_;
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  // The average pace so far: the items of one analysis cost alike (tables of one run).
  const std::string left = done > 0 ? fmt::format(", about {} left", ProgressMeter::format_duration(
                                                                          elapsed_s * double(total_ - done) / double(done)))
                                    : std::string();
  sink_(fmt::format("analyze: {} of {} {} ({:.0f} %), elapsed {}{}", done, total_, what_,
                    100.0 * double(done) / double(total_), ProgressMeter::format_duration(elapsed_s), left));
}

}  // namespace ermak::analysis
