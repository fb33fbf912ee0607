#include "ermak/run/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "ermak/core/error.h"

namespace ermak {
namespace fs = std::filesystem;
namespace {

std::string holder_text(const fs::path& lock_file) {
  std::ifstream in(lock_file);
  std::string line;
  std::getline(in, line);
  return line.empty() ? "another process" : line;
}

[[noreturn]] void refuse(const fs::path& lock_file) {
  throw Error(lock_file.string(), 0, "",
              "another ermak run is using these files (" + holder_text(lock_file) +
                  "); wait until it has ended, or stop it (kill -TERM writes a checkpoint) before --resume or "
                  "--force (docs/outputs.md#one-run-at-a-time)");
}

std::string now_text() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return text;
}

}  // namespace

fs::path run_lock_file(const fs::path& checkpoint) { return fs::path(checkpoint.string() + ".lock"); }

RunLock::RunLock(const fs::path& lock_file) : file_(lock_file) {
  // A run that ends unlinks its lock file before it lets the lock go: a run that opened the
  // file just before that and locks it just after holds a lock on a name no longer there,
  // and a third run would create a new file and be let in too (an audit put two runs on one
  // directory so). The lock counts only on the file the name still names: else try again.
  for (int attempt = 0;; ++attempt) {
    fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error(lock_file.string(), 0, "", std::string("cannot create the run's lock file: ") + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd_);
      fd_ = -1;
      if (error == EWOULDBLOCK) refuse(lock_file);
      throw Error(lock_file.string(), 0, "", std::string("cannot lock the run's lock file: ") + std::strerror(error));
    }
    struct stat held{}, named{};
    if (::fstat(fd_, &held) == 0 && ::stat(lock_file.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino)
      break;
    ::close(fd_);
    fd_ = -1;
    if (attempt == 100)
      throw Error(lock_file.string(), 0, "", "the run's lock file keeps being replaced while it is locked");
  }
  char host[256] = "unknown host";
  ::gethostname(host, sizeof host - 1);
  std::ostringstream who;
  who << "pid " << ::getpid() << " on " << host << ", started " << now_text() << "\n";
  const std::string text = who.str();
  // The holder's note, for the message of a run refused meanwhile; the lock holds without it.
  if (::ftruncate(fd_, 0) == 0) [[maybe_unused]] const ssize_t written = ::pwrite(fd_, text.data(), text.size(), 0);
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  // The run has written everything: the file goes (a killed run leaves it, unlocked and
  // harmless), then closing releases the lock.
  ::unlink(file_.c_str());
  ::close(fd_);
}

void RunLock::check_free(const fs::path& lock_file) {
  if (holder(lock_file)) refuse(lock_file);
}

std::optional<std::string> RunLock::holder(const fs::path& lock_file) {
  const int fd = ::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // no run has locked these files yet
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  if (!held) return std::nullopt;
  return holder_text(lock_file);
}

}  // namespace ermak
