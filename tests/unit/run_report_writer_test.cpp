// The run's background report writer (run/report_writer.h): jobs run in submission
// order, at most `capacity` are unfinished at once unless their bytes fit the budget, a
// job's ticket can be waited for, and a failed job's ermak::Error reaches the driver at the
// next submit(), drain() or wait_for().
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

// Beyond `capacity` unfinished jobs, small ones (energy rows) queue behind a long one (a
// checkpoint's syncs) while their bytes fit the budget; the next one past it waits.
TEST(ReportWriter, SmallJobsQueueBehindALongOneWithinTheByteBudget) {
  ReportWriter writer(2, 1000);
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::atomic<int> done{0};
  writer.submit([open, &done] { open.wait(); ++done; }, 0);  // running, blocked
  for (int k = 0; k < 10; ++k) writer.submit([&done] { ++done; }, 100);  // 1000 bytes queued: no wait
  auto over = std::async(std::launch::async, [&] { writer.submit([&done] { ++done; }, 100); });
  EXPECT_EQ(over.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  EXPECT_EQ(done.load(), 0);
  gate.set_value();
  over.get();
  writer.drain();
  EXPECT_EQ(done.load(), 12);
}

// Tickets count the jobs in submission order; wait_for(t) returns once job t has run, even
// while later ones are still unfinished (a checkpoint waits only for the one before).
TEST(ReportWriter, WaitForReturnsOnceThatJobHasRun) {
  ReportWriter writer(4);
  EXPECT_NO_THROW(writer.wait_for(0));
  std::atomic<int> done{0};
  const ReportWriter::Ticket first = writer.submit([&done] { ++done; });
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  const ReportWriter::Ticket second = writer.submit([open, &done] { open.wait(); ++done; });
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(second, 2u);
  writer.wait_for(first);
  EXPECT_GE(done.load(), 1);
  auto waiting = std::async(std::launch::async, [&] { writer.wait_for(second); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  gate.set_value();
  waiting.get();
  EXPECT_EQ(done.load(), 2);
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
