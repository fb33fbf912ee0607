#pragma once
// Stopping a run on request (docs/outputs.md#stopping-a-run): SIGINT (Ctrl-C), SIGTERM
// (what a batch system sends before it kills a job at its time limit) or SIGHUP (the
// terminal or ssh session closed) makes the run
// driver write a checkpoint after the current chunk of steps (at most ~0.5 s of them) and
// return, so that `ermak run … --resume` continues bit for bit and no steps are lost.
// A second signal ends the process at once, as it would without ermak's handler — except
// within 0.2 s of the first, where it is the same request delivered twice (GNU timeout
// signals the command and then its process group; systemd sends SIGTERM, then SIGHUP).

namespace ermak {

// While an object lives, SIGINT, SIGTERM and SIGHUP are noted instead of ending the process
// (the first one of them, and any within 0.2 s of it; a later one ends the process). The destructor
// restores the handlers that were there before, unless a signal was received (the process is
// then ending: a repeat of the request must not kill it first). One object at a time.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // The signal received since construction, or 0.
  int received() const;
};

// "SIGINT", "SIGTERM", "SIGHUP", or "a signal".
const char* stop_signal_name(int signal_number);

}  // namespace ermak
