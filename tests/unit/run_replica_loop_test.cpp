// Per-replica file work on several threads (run/replica_loop.h): every replica exactly
// once, the thread policy, and a failing replica's error reaching the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ermak/run/replica_loop.h"

using ermak::for_each_replica;
using ermak::replica_threads_used;
using ermak::report_threads;

TEST(ReplicaLoop, CallsTheBodyOnceForEveryReplica) {
  for (const std::int32_t count : {0, 1, 31, 32, 63, 64, 65, 1000, 10007})
    for (const int threads : {1, 2, 3, 8}) {
      std::vector<std::atomic<int>> calls(static_cast<std::size_t>(count));
      for_each_replica(count, threads, [&](std::int32_t r) { ++calls.at(static_cast<std::size_t>(r)); });
      for (std::int32_t r = 0; r < count; ++r)
        ASSERT_EQ(calls[static_cast<std::size_t>(r)].load(), 1) << "replica " << r << " of " << count << ", " << threads << " threads";
    }
}

TEST(ReplicaLoop, UsesSeveralThreadsOnlyWithEnoughReplicas) {
  auto threads_seen = [](std::int32_t count, int threads) {
    std::mutex m;
    std::set<std::thread::id> ids;
    for_each_replica(count, threads, [&](std::int32_t) {
      // Long enough that a second thread, if there is one, takes its own block.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      std::lock_guard lock(m);
      ids.insert(std::this_thread::get_id());
    });
    return ids.size();
  };
  EXPECT_EQ(threads_seen(63, 4), 1u) << "fewer than 32 replicas per second thread: stay on the caller";
  EXPECT_EQ(threads_seen(1000, 1), 1u);
  // A machine of one core still gets the 4 threads asked for (they take turns).
  EXPECT_EQ(threads_seen(128, 4), 4u);
  EXPECT_EQ(threads_seen(100, 8), 3u) << "100 replicas: 3 threads of >= 32";
}

TEST(ReplicaLoop, TheLowestFailingReplicasErrorReachesTheCaller) {
  for (const int threads : {1, 4}) {
    std::atomic<int> calls{0};
    try {
      for_each_replica(1000, threads, [&](std::int32_t r) {
        ++calls;
        if (r == 700 || r == 900) throw std::runtime_error("replica " + std::to_string(r));
      });
      FAIL() << "the error must reach the caller";
    } catch (const std::runtime_error& e) {
      // One thread stops at 700; with 4 (blocks of 250) 700 and 900 are in different
      // blocks and either may throw first, but the lower one is reported whenever both ran.
      const std::string what = e.what();
      if (threads == 1) EXPECT_EQ(what, "replica 700");
      else EXPECT_TRUE(what == "replica 700" || what == "replica 900") << what;
    }
    EXPECT_LE(calls.load(), 1000);
  }
}

TEST(ReplicaLoop, ThreadPolicy) {
  EXPECT_EQ(report_threads(true, 64), 1) << "the CPU engine's cores step the replicas";
  EXPECT_EQ(report_threads(false, 1), 1);
  EXPECT_EQ(report_threads(false, 2), 1);
  EXPECT_EQ(report_threads(false, 6), 4);
  EXPECT_EQ(report_threads(false, 16), 8);
  EXPECT_EQ(report_threads(false, 128), 8);
  EXPECT_EQ(report_threads(true, 2, 3), 3) << "an explicit request wins";
}// The run log's "(N threads)" is what the loop uses (UsesSeveralThreadsOnlyWithEnoughReplicas
// counts them): at least 32 replicas per thread.
TEST(ReplicaLoop, ThreadsUsedAreThoseTheLoopStarts) {
  EXPECT_EQ(replica_threads_used(63, 4), 1);
  EXPECT_EQ(replica_threads_used(64, 4), 2);
  EXPECT_EQ(replica_threads_used(100, 8), 3);
  EXPECT_EQ(replica_threads_used(128, 4), 4);
  EXPECT_EQ(replica_threads_used(10000, 8), 8);
  EXPECT_EQ(replica_threads_used(0, 8), 1);
}


