#pragma once
// Progress of a long `ermak analyze` (docs/analysis.md#runs-of-many-replicas): the
// replicas of a run of 10⁴ trajectories, or a spectrum's bootstrap resamples, take minutes,
// and a silent command looks hung. A line now and then — "analyze: 2500 of 10000 replicas
// (25 %), elapsed 1m05s, about 3m15s left" — on stderr, for a terminal and a batch log
// alike; an analysis that ends within the first interval prints none.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace ermak::analysis {

class AnalysisProgress {
 public:
  using Clock = std::chrono::steady_clock;
  using Sink = std::function<void(const std::string& line)>;  // default: stderr
  using Now = std::function<Clock::time_point()>;             // default: Clock::now (tests pass their own)
  // `what`: the items counted ("replicas", "bootstrap resamples").
  AnalysisProgress(std::string what, std::size_t total, std::chrono::milliseconds every = std::chrono::seconds(15),
                   Sink sink = {}, Now now = {});
  // `done` items finished: a line when one is due.
  void update(std::size_t done);
  // One more item finished (for a count kept across calls: a spectrum's runs).
  void advance() { update(++done_); }

 private:
  std::string what_;
  std::size_t total_;
  std::chrono::milliseconds every_;
  Sink sink_;
  Now now_;
  Clock::time_point start_, next_;
  std::size_t done_ = 0;
};

}  // namespace ermak::analysis
