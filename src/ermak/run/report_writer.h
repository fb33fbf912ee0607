#pragma once
// The run's one background writer thread (docs/outputs.md#reports-are-written-in-the-background,
// docs/gpu.md): at a report the driver takes what it needs from the engine (a copy of the
// state, energies, protocol forces: the calls that synchronise with the GPU) and submits a
// job that computes the observables, formats the rows and writes the files, then goes on
// advancing the engine while the job runs. Jobs run one at a time in submission order, so
// rows and frames reach every file in the same order as before.
//
// A job may be queued while fewer than `capacity` jobs are unfinished, or while the bytes
// the unfinished jobs hold (their snapshots, as submit() is told) stay within
// `byte_budget`: small stops (energy rows) then queue up behind a long job such as a
// checkpoint's syncs instead of holding the engine up, and memory stays bounded when the
// disk is slower than the engine, since submit() waits for the oldest job otherwise.
// drain() waits until every job is done (at the end of the run); wait_for() until a given
// job is (a checkpoint waits for the one before).
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
  explicit ReportWriter(std::size_t capacity = 2, std::size_t byte_budget = 0);
  // Finishes the queued jobs (their errors are lost: the driver is already unwinding from
  // its own or has drained), then joins the thread.
  ~ReportWriter();
  ReportWriter(const ReportWriter&) = delete;
  ReportWriter& operator=(const ReportWriter&) = delete;

  // Queues a job that holds `bytes` of memory until it has run; waits while `capacity`
  // jobs are unfinished and the budget would be exceeded (a job of 0 bytes, size unknown,
  // counts against `capacity` only). Returns the job's ticket: 1, 2, … in submission
  // order. Rethrows a failed job's exception instead of queueing when an earlier job
  // failed.
  using Ticket = std::uint64_t;
  Ticket submit(std::function<void()> job, std::size_t bytes = 0);
  // Waits until every submitted job has finished; rethrows a failed job's exception.
  void drain();
  // Waits until the job of `ticket` (and every one before it) has finished; rethrows a
  // failed job's exception. Ticket 0 is always finished.
  void wait_for(Ticket ticket);

  std::size_t capacity() const { return capacity_; }
  std::size_t byte_budget() const { return byte_budget_; }
  // For the run log: jobs finished, seconds spent running them (on the writer thread),
  // and seconds the driver spent waiting in submit() and drain() (not in wait_for(),
  // whose caller counts its own wait).
  struct Totals {
    std::int64_t jobs = 0;
    double writing_seconds = 0.0;
    double waiting_seconds = 0.0;
  };
  Totals totals();

 private:
  void work();
  void rethrow_failure();  // with mutex_ held

  struct Job {
    std::function<void()> work;
    std::size_t bytes = 0;
  };
  const std::size_t capacity_;
  const std::size_t byte_budget_;
  std::mutex mutex_;
  std::condition_variable job_ready_;  // worker waits: a job or stop
  std::condition_variable job_done_;   // driver waits: room in the queue, or empty
  std::deque<Job> jobs_;  // front() runs, the rest wait
  std::size_t queued_bytes_ = 0;  // of the unfinished jobs
  Ticket submitted_ = 0, finished_ = 0;
  bool stop_ = false;
  std::exception_ptr failure_;
  Totals totals_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace ermak
