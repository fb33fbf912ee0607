#pragma once
// One run at a time in an output directory (docs/outputs.md#one-run-at-a-time): a run
// holds an advisory lock (flock) on `<checkpoint>.lock` from before it writes anything
// until it exits, so that a second `ermak run` on the same files — a resume or --force
// while the first still runs (a double submission, a batch requeue before the old job has
// died) — is refused instead of cutting and overwriting the files the first one writes.
// The lock goes with the process (also on kill -9); the file, which names the holder, is
// removed when the run ends (a killed run leaves it behind, unlocked and harmless).
#include <filesystem>
#include <optional>
#include <string>

namespace ermak {

class RunLock {
 public:
  // Takes the lock on `lock_file` (its directory must exist), or throws ermak::Error
  // naming the process that holds it (pid, host, start time) and `key`.
  explicit RunLock(const std::filesystem::path& lock_file);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  // For a dry run, which writes nothing: throws the same error when another process holds
  // the lock, creates no file.
  static void check_free(const std::filesystem::path& lock_file);

  // The note of the process that holds the lock on `lock_file` ("pid 4242 on node7, started
  // 2026-11-30 15:03:10 UTC"; "another process" when it wrote none), or none when no
  // process holds it (no file, or one a killed run left). `ermak analyze` asks it of a run
  // directory, to tell a run still running from one that stopped.
  static std::optional<std::string> holder(const std::filesystem::path& lock_file);

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

// The lock file of a run whose checkpoint is `checkpoint`: "checkpoint.ckpt.lock".
std::filesystem::path run_lock_file(const std::filesystem::path& checkpoint);

}  // namespace ermak
