// The progress lines of a long `ermak analyze` (analysis/analysis_progress.h).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "ermak/analysis/analysis_progress.h"

namespace ermak::analysis {
namespace {

TEST(AnalysisProgress, ALineWhenDueWithCountShareAndTimeLeft) {
  std::vector<std::string> lines;
  AnalysisProgress progress("replicas", 10, std::chrono::milliseconds(0),
                            [&](const std::string& line) { lines.push_back(line); });
  progress.update(0);
  progress.update(4);
  progress.update(10);  // the end: nothing (the command's own summary follows)
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("analyze: 0 of 10 replicas (0 %), elapsed 0m00s", 0), 0u) << lines[0];
  EXPECT_EQ(lines[0].find("left"), std::string::npos) << "no pace yet: " << lines[0];
  EXPECT_EQ(lines[1].rfind("analyze: 4 of 10 replicas (40 %), elapsed ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(", about 0m00s left"), std::string::npos) << lines[1];
}

TEST(AnalysisProgress, SilentWithinTheInterval) {
  // A clock the test moves (a real one made this test fail whenever the machine paused it).
  AnalysisProgress::Clock::time_point now{};
  std::vector<std::string> lines;
  AnalysisProgress progress(
      "bootstrap resamples", 100, std::chrono::seconds(15), [&](const std::string& line) { lines.push_back(line); },
      [&] { return now; });
  for (std::size_t k = 0; k < 50; ++k) {
    progress.update(k);
    now += std::chrono::milliseconds(299);  // 50 × 299 ms = 14.95 s: still within the first 15 s
  }
  EXPECT_TRUE(lines.empty());
  now = AnalysisProgress::Clock::time_point{} + std::chrono::seconds(65);
  progress.update(50);
  now += std::chrono::seconds(14);
  progress.update(51);  // the next is 15 s away again
  ASSERT_EQ(lines.size(), 1u);
  // 50 of 100 in 65 s: the other 50 at the same pace take 65 s more.
  EXPECT_EQ(lines[0], "analyze: 50 of 100 bootstrap resamples (50 %), elapsed 1m05s, about 1m05s left");
  now += std::chrono::seconds(1);
  progress.update(60);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "analyze: 60 of 100 bootstrap resamples (60 %), elapsed 1m20s, about 0m53s left");
}

}  // namespace
}  // namespace ermak::analysis
