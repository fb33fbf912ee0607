#include "ermak/run/replica_loop.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>

namespace ermak {
namespace {

constexpr std::int32_t kMinReplicasPerThread = 32;
constexpr int kMaxReportThreads = 8;

}  // namespace

int report_threads(bool engine_uses_cpu_cores, int processors, int requested) {
  if (requested > 0) return requested;
  if (engine_uses_cpu_cores) return 1;
  return std::clamp(processors - 2, 1, kMaxReportThreads);
}

int max_report_threads(bool engine_uses_cpu_cores, int requested) {
  return report_threads(engine_uses_cpu_cores, kMaxReportThreads + 2, requested);
}

int replica_threads_used(std::int32_t count, int threads) {
  return int(std::clamp<std::int64_t>(count / kMinReplicasPerThread, 1, std::max(1, threads)));
}

void for_each_replica(std::int32_t count, int threads, const std::function<void(std::int32_t)>& body) {
  const int used = replica_threads_used(count, threads);
  if (used == 1) {
    for (std::int32_t r = 0; r < count; ++r) body(r);
    return;
  }
  std::mutex failure_mutex;
  std::exception_ptr failure;
  std::int32_t failed_replica = std::numeric_limits<std::int32_t>::max();
  std::atomic<bool> failed{false};
  // Contiguous blocks of replicas per thread: each thread's files stay together, and
  // exceptions must not leave the parallel region (OpenMP), so they are caught per replica.
#pragma omp parallel for num_threads(used) schedule(static)
  for (std::int32_t r = 0; r < count; ++r) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      body(r);
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (r < failed_replica) {
        failed_replica = r;
        failure = std::current_exception();
      }
      failed.store(true, std::memory_order_relaxed);
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ermak
