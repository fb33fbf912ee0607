#include "ermak/run/stop_signals.h"

#include <atomic>
#include <csignal>

#include <unistd.h>

namespace ermak {
namespace {

// Atomic, not volatile sig_atomic_t: the kernel may run the handler on any thread (a report
// writer, an OpenMP worker) while the driver reads the flag on its own (ThreadSanitizer
// found both); a lock-free atomic may be written from a signal handler.
std::atomic<int> received_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the stop flag is written from a signal handler");
// SIGHUP: the terminal or ssh session closed under an interactive run — the commonest way a
// run is lost; stopped with a checkpoint like the others (nohup ignores it, and stays so).
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kStopSignalCount = sizeof kStopSignals / sizeof kStopSignals[0];
struct sigaction previous[kStopSignalCount]{};

// Said at once (write(2) is async-signal-safe), so that a signal during a long phase of the
// start, which the run acts on at that phase's end (a minimisation at its next iteration),
// is seen to have arrived.
extern "C" void note_stop_signal(int signal_number) {
  received_signal.store(signal_number);
  static constexpr char kNote[] =
      "\nermak: stopping at the next safe point (with a checkpoint once the steps have begun); a second signal "
      "ends ermak at once\n";
  const ssize_t ignored = write(STDERR_FILENO, kNote, sizeof kNote - 1);
  (void)ignored;
}

}  // namespace

StopSignals::StopSignals() {
  received_signal.store(0);
  struct sigaction action{};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the default action is back once a signal arrived, so a second Ctrl-C
  // ends a run that is slow to reach its checkpoint. SA_RESTART: system calls the signal
  // interrupts (file writes on the report threads) continue.
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  for (int k = 0; k < kStopSignalCount; ++k) {
    sigaction(kStopSignals[k], nullptr, &previous[k]);
    // A signal ignored when ermak started stays ignored (a shell script's background
    // job ignores SIGINT, nohup SIGHUP): the parent asked for that.
    if (previous[k].sa_handler != SIG_IGN) sigaction(kStopSignals[k], &action, nullptr);
  }
}

StopSignals::~StopSignals() {
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
