#pragma once
// Per-replica file work (TSV rows, DCD frames, flushes) spread over several threads
// (docs/outputs.md#reports-are-written-in-the-background). Every replica has its own
// files, so replicas can be written side by side; each file still gets its rows in the
// same order, byte for byte. What makes this worth it: formatting a double with "%.8g"
// costs ~0.1 µs, a pulling row ~2 µs, and at 10⁴ replicas with a row every 1000 steps
// one writer thread needs longer than the GPU takes for the steps (docs/gpu.md#what-overlaps-the-steps).
#include <cstdint>
#include <functional>

namespace ermak {

// How many threads the run's file work may use: 1 on the CPU backend (its cores step
// the engine), otherwise `processors` (those this process may run on, at most
// OMP_NUM_THREADS) less two (the driver and the writer thread's own), at least 1 and at
// most 8. `requested` > 0 overrides.
int report_threads(bool engine_uses_cpu_cores, int processors, int requested = 0);
// The most threads report_threads() may give a run that requests `requested` (0: automatic).
int max_report_threads(bool engine_uses_cpu_cores, int requested);

// Calls body(r) exactly once for every r in [0, count), on up to `threads` threads
// (fewer when there are fewer than 32 replicas per thread: starting a thread costs more
// than 32 rows), the calling thread among them. When bodies throw, the exception of the
// lowest such r is rethrown after the others have finished; replicas not started by
// then are skipped.
void for_each_replica(std::int32_t count, int threads, const std::function<void(std::int32_t)>& body);
// The threads for_each_replica uses for `count` replicas given `threads` (for the run log).
int replica_threads_used(std::int32_t count, int threads);

}  // namespace ermak
