// core/progress.h: the durations it prints and the progress lines of the run log.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ermak/core/progress.h"

namespace {

using ermak::ProgressMeter;

TEST(Progress, DurationsInMinutesHoursAndDays) {
  EXPECT_EQ(ProgressMeter::format_duration(0), "0m00s");
  EXPECT_EQ(ProgressMeter::format_duration(59.6), "1m00s");
  EXPECT_EQ(ProgressMeter::format_duration(3599), "59m59s");
  EXPECT_EQ(ProgressMeter::format_duration(3 * 3600 + 5 * 60 + 7), "3h05m");
  EXPECT_EQ(ProgressMeter::format_duration(2 * 86400 + 7 * 3600), "2d07h");
  EXPECT_EQ(ProgressMeter::format_duration(-1), "--");  // no rate yet
}

// The first line comes after first_log_after, the next not before log_every has passed;
// each says the step of the last update, the share done, and the rate.
TEST(Progress, LogLinesComeAtTheirIntervals) {
  ProgressMeter waiting(0, 1000, 34, std::chrono::seconds(3600));
  EXPECT_FALSE(waiting.log_line_due().has_value());

  ProgressMeter meter(1000, 5000, 34, std::chrono::seconds(0), std::chrono::seconds(3600));
  meter.update(2000);
  const auto line = meter.log_line_due();
  ASSERT_TRUE(line.has_value());
  // The share of the whole run: a resumed run (from step 1000) counts its earlier steps.
  EXPECT_EQ(line->rfind("step 2000 of 5000 (40.0 %), ", 0), 0u) << *line;
  EXPECT_NE(line->find(" steps/s, elapsed "), std::string::npos) << *line;
  EXPECT_NE(line->find(", ETA "), std::string::npos) << *line;
  meter.update(3000);
  EXPECT_FALSE(meter.log_line_due().has_value()) << "the next line is an hour away";
}

// A run that slows down (a machine that became busy): the line's rate and ETA are those
// of the interval since the previous line, and the run's average is added.
TEST(Progress, TheEtaFollowsTheLastInterval) {
  ProgressMeter meter(0, 1000000, 34, std::chrono::seconds(0), std::chrono::seconds(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  meter.update(10000);  // ~10⁵ steps/s
  const auto first = meter.log_line_due();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->find("over the run"), std::string::npos) << *first;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  meter.update(10100);  // ~10³ steps/s since
  const auto second = meter.log_line_due();
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(second->find(" over the run), elapsed "), std::string::npos) << *second;
  // 989 900 steps at ≤ ~10³ steps/s: at least several minutes (the average would say ~20 s).
  const std::string eta = second->substr(second->find("ETA ") + 4);
  EXPECT_TRUE(eta.find('h') != std::string::npos || eta.find('d') != std::string::npos ||
              std::stoi(eta.substr(0, eta.find('m'))) >= 5)
      << *second;
}

}  // namespace
