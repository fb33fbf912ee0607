// The run's background report writer (run/report_writer.h): jobs run in submission
// order, at most `capacity` are unfinished at once, and a failed job's ermak::Error
// reaches the driver at the next submit() or drain().
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/run/report_writer.h"

using ermak::ReportWriter;

TEST(ReportWriter, RunsJobsInSubmissionOrder) {
  std::vector<int> order;  // touched by the writer thread only, read after drain()
  ReportWriter writer(2);
  for (int k = 0; k < 200; ++k) writer.submit([&order, k] { order.push_back(k); });
  writer.drain();
  ASSERT_EQ(order.size(), 200u);
  for (int k = 0; k < 200; ++k) EXPECT_EQ(order[k], k);
}

TEST(ReportWriter, SubmitWaitsWhileCapacityJobsAreUnfinished) {
  ReportWriter writer(2);
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::atomic<int> done{0};
  writer.submit([open, &done] { open.wait(); ++done; });  // running, blocked
  writer.submit([&done] { ++done; });                      // queued: 2 unfinished
  auto third = std::async(std::launch::async, [&] { writer.submit([&done] { ++done; }); });
  // The queue is full: the third submit must wait for the first job.
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  EXPECT_EQ(done.load(), 0);
  gate.set_value();
  third.get();
  writer.drain();
  EXPECT_EQ(done.load(), 3);
}

TEST(ReportWriter, AFailedJobsErrorReachesTheDriverAndLaterJobsAreDropped) {
  ReportWriter writer(2);
  std::atomic<bool> later_ran{false};
  writer.submit([] { throw ermak::Error("out/replica_001/trajectory.dcd", 0, "", "cannot write DCD file: No space left on device"); });
  try {
    writer.submit([&] { later_ran = true; });  // queued before or refused after the failure
  } catch (const ermak::Error&) {
  }
  try {
    writer.drain();
    FAIL() << "drain() must rethrow the writer's error";
  } catch (const ermak::Error& e) {
    EXPECT_EQ(e.file(), "out/replica_001/trajectory.dcd");
    EXPECT_EQ(e.description(), "cannot write DCD file: No space left on device");
  }
  EXPECT_FALSE(later_ran.load()) << "rows after a failed one would leave a gap";
  // Every later call reports it again rather than writing on.
  EXPECT_THROW(writer.submit([] {}), ermak::Error);
  EXPECT_THROW(writer.drain(), ermak::Error);
}

TEST(ReportWriter, DestructorFinishesQueuedJobs) {
  std::atomic<int> done{0};
  {
    ReportWriter writer(3);
    for (int k = 0; k < 3; ++k)
      writer.submit([&done] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ++done;
      });
  }
  EXPECT_EQ(done.load(), 3);
}
