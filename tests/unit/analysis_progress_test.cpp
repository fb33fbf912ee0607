// The progress lines of a long `ermak analyze` (analysis/analysis_progress.h).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
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
  std::vector<std::string> lines;
  AnalysisProgress progress("bootstrap resamples", 100, std::chrono::milliseconds(50),
                            [&](const std::string& line) { lines.push_back(line); });
  for (std::size_t k = 0; k < 50; ++k) progress.update(k);
  EXPECT_TRUE(lines.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  progress.update(50);
  progress.update(51);  // the next is 50 ms away again
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("analyze: 50 of 100 bootstrap resamples (50 %), elapsed 0m00s, about 0m00s left", 0), 0u)
      << lines[0];
}

}  // namespace
}  // namespace ermak::analysis
