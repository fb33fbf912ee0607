#include "ermak/run/report_writer.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace ermak {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

ReportWriter::ReportWriter(std::size_t capacity, std::size_t byte_budget)
    : capacity_(std::max<std::size_t>(1, capacity)), byte_budget_(byte_budget), thread_([this] { work(); }) {}

ReportWriter::~ReportWriter() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  job_ready_.notify_all();
  thread_.join();
}

void ReportWriter::rethrow_failure() {
  if (failure_) std::rethrow_exception(failure_);
}

ReportWriter::Ticket ReportWriter::submit(std::function<void()> job, std::size_t bytes) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  job_done_.wait(lock, [&] {
    return failure_ || jobs_.size() < capacity_ || (bytes > 0 && queued_bytes_ + bytes <= byte_budget_);
  });
  totals_.waiting_seconds += seconds_since(start);
  rethrow_failure();
  jobs_.push_back({std::move(job), bytes});
  queued_bytes_ += bytes;
  const Ticket ticket = ++submitted_;
  lock.unlock();
  job_ready_.notify_one();
  return ticket;
}

void ReportWriter::wait_for(Ticket ticket) {
  std::unique_lock lock(mutex_);
  job_done_.wait(lock, [&] { return failure_ || finished_ >= ticket; });
  rethrow_failure();
}

void ReportWriter::drain() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  job_done_.wait(lock, [&] { return failure_ || jobs_.empty(); });
  totals_.waiting_seconds += seconds_since(start);
  rethrow_failure();
}

ReportWriter::Totals ReportWriter::totals() {
  std::lock_guard lock(mutex_);
  return totals_;
}

void ReportWriter::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    job_ready_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stop_ and nothing left to write
    std::function<void()> job = std::move(jobs_.front().work);
    lock.unlock();
    std::exception_ptr failure;
    const auto start = std::chrono::steady_clock::now();
    try {
      job();
    } catch (...) {
      failure = std::current_exception();
    }
    job = nullptr;  // release the snapshot before the driver may queue the next one
    const double seconds = seconds_since(start);
    lock.lock();
    ++totals_.jobs;
    totals_.writing_seconds += seconds;
    queued_bytes_ -= jobs_.front().bytes;
    jobs_.pop_front();
    ++finished_;
    if (failure) {
      failure_ = failure;
      jobs_.clear();  // rows after a failed one would leave a gap in the files
      queued_bytes_ = 0;
    }
    job_done_.notify_all();
  }
}

}  // namespace ermak
