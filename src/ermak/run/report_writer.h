#pragma once
// The run's one background writer thread (docs/outputs.md#reports-are-written-in-the-background,
// docs/gpu.md): at a report the driver takes what it needs from the engine (a copy of the
// state, energies, protocol forces: the calls that synchronise with the GPU) and submits a
// job that computes the observables, formats the rows and writes the files, then goes on
// advancing the engine while the job runs. Jobs run one at a time in submission order, so
// rows and frames reach every file in the same order as before.
//
// At most `capacity` jobs are unfinished at once (each holds a snapshot of all replicas'
// positions): submit() waits for the oldest one when the queue is full, so memory stays
// bounded when the disk is slower than the engine. drain() waits until every job is done —
// before a checkpoint records the files' sizes, and at the end of the run.
//
// The first job that throws stops the writer: later jobs are dropped (their rows would
// follow a gap), and the exception — the same ermak::Error a job would have thrown on the
// driver's thread — is rethrown to the driver by the next submit() or drain().
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace ermak {

class ReportWriter {
 public:
  explicit ReportWriter(std::size_t capacity = 2);
  // Finishes the queued jobs (their errors are lost: the driver is already unwinding from
  // its own or has drained), then joins the thread.
  ~ReportWriter();
  ReportWriter(const ReportWriter&) = delete;
  ReportWriter& operator=(const ReportWriter&) = delete;

  // Queues a job; waits while `capacity` jobs are unfinished. Rethrows a failed job's
  // exception instead of queueing when an earlier job failed.
  void submit(std::function<void()> job);
  // Waits until every submitted job has finished; rethrows a failed job's exception.
  void drain();

  std::size_t capacity() const { return capacity_; }
  // For the run log: jobs finished, seconds spent running them (on the writer thread),
  // and seconds the driver spent waiting in submit() and drain().
  struct Totals {
    std::int64_t jobs = 0;
    double writing_seconds = 0.0;
    double waiting_seconds = 0.0;
  };
  Totals totals();

 private:
  void work();
  void rethrow_failure();  // with mutex_ held

  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable job_ready_;  // worker waits: a job or stop
  std::condition_variable job_done_;   // driver waits: room in the queue, or empty
  std::deque<std::function<void()>> jobs_;  // front() runs, the rest wait
  bool stop_ = false;
  std::exception_ptr failure_;
  Totals totals_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace ermak
