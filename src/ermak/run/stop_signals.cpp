#include "ermak/run/stop_signals.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <ctime>

#include <unistd.h>

namespace ermak {
namespace {

// Atomic, not volatile sig_atomic_t: the kernel may run the handler on any thread (a report
// writer, an OpenMP worker) while the driver reads the flag on its own (ThreadSanitizer
// found both); a lock-free atomic may be written from a signal handler.
std::atomic<int> received_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the stop flag is written from a signal handler");
// When the first one came (CLOCK_MONOTONIC, ns; 0 until it is stored).
std::atomic<long long> first_signal_ns{0};
static_assert(std::atomic<long long>::is_always_lock_free, "written from a signal handler");
// One request delivered twice: GNU timeout signals the command and then its process group,
// a batch system may signal a job step and its processes, systemd a session's SIGTERM and
// then SIGHUP; they arrive microseconds apart (an audit saw 3 of 19 `timeout -s TERM` runs
// end at once, without a checkpoint). A person's second Ctrl-C comes later than this.
constexpr long long kRepeatWindowNs = 200'000'000;

long long monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return static_cast<long long>(now.tv_sec) * 1'000'000'000LL + now.tv_nsec;
}
// SIGHUP: the terminal or ssh session closed under an interactive run — the commonest way a
// run is lost; stopped with a checkpoint like the others (nohup ignores it, and stays so).
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kStopSignalCount = sizeof kStopSignals / sizeof kStopSignals[0];
struct sigaction previous[kStopSignalCount]{};

// Said at once (write(2) is async-signal-safe), so that a signal during a long phase of the
// start, which the run acts on at that phase's end (a minimisation at its next iteration),
// is seen to have arrived.
extern "C" void note_stop_signal(int signal_number) {
  const int saved_errno = errno;  // the interrupted thread's (a report writer's write)
  const long long now = monotonic_ns();
  int first = 0;
  if (!received_signal.compare_exchange_strong(first, signal_number)) {
    // A stop signal within the window of the first is the same request (its time may not
    // be stored yet: then it is). A later one is a second request: the default action, as
    // without ermak's handler — the last periodic checkpoint holds, as after a crash.
    const long long first_at = first_signal_ns.load();
    if (first_at == 0 || now - first_at < kRepeatWindowNs) {
      errno = saved_errno;
      return;
    }
    struct sigaction default_action{};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigaction(signal_number, &default_action, nullptr);
    raise(signal_number);  // delivered once this handler returns (the signal is blocked in it)
    return;
  }
  first_signal_ns.store(now);
  static constexpr char kNote[] =
      "\nermak: stopping at the next safe point (with a checkpoint once the steps have begun); a second signal "
      "ends ermak at once\n";
  const ssize_t ignored = write(STDERR_FILENO, kNote, sizeof kNote - 1);
  (void)ignored;
  errno = saved_errno;
}

}  // namespace

StopSignals::StopSignals() {
  received_signal.store(0);
  first_signal_ns.store(0);
  struct sigaction action{};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  // The handler stays: a second request (a second Ctrl-C) ends a run that is slow to reach
  // its checkpoint, while the same request delivered twice does not (note_stop_signal).
  // SA_RESTART: system calls the signal interrupts (file writes on the report threads) continue.
  action.sa_flags = SA_RESTART;
  for (int k = 0; k < kStopSignalCount; ++k) {
    sigaction(kStopSignals[k], nullptr, &previous[k]);
    // A signal ignored when ermak started stays ignored (a shell script's background
    // job ignores SIGINT, nohup SIGHUP): the parent asked for that.
    if (previous[k].sa_handler != SIG_IGN) sigaction(kStopSignals[k], &action, nullptr);
  }
}

StopSignals::~StopSignals() {
  // After a stop request the process is on its way out (exit status 128 + the signal): the
  // handler stays, so that the same request delivered again a few ms later — after the run
  // reached its checkpoint quickly — does not kill it before it exits (a loaded test machine
  // saw that: the exit status lost); a later second request still ends it at once.
  if (received() != 0) return;
  for (int k = 0; k < kStopSignalCount; ++k) sigaction(kStopSignals[k], &previous[k], nullptr);
}

int StopSignals::received() const { return received_signal.load(); }

const char* stop_signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

}  // namespace ermak
