#include "ermak/io/output_file_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "ermak/core/error.h"

namespace ermak {

namespace {

// `what`: "was deleted", "was replaced by another file".
[[noreturn]] void lost_under_the_run(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string(), 0, "",
              what + " while this run wrote it, and a checkpoint now would count what it held: the run stops "
              "and keeps its previous checkpoint — put the file back (from a copy) and --resume continues from that "
              "checkpoint, else start the run again with --force");
}

// A file still there under its name whose modification time is not the one this run left:
// touched, appended to or rewritten by another program. If the run's rows are still in it,
// --resume alone continues (it cuts what follows the checkpoint's size).
[[noreturn]] void changed_under_the_run(const std::filesystem::path& path) {
  throw Error(path.string(), 0, "",
              "was replaced or changed by another program while this run wrote it (its modification time is not "
              "the one this run left), and a checkpoint now would count what it held: the run stops and keeps its "
              "previous checkpoint — if the file still holds this run's rows (it was only touched or appended to), "
              "--resume continues from that checkpoint; else put the file back (from a copy) and --resume, or start "
              "the run again with --force");
}

struct stat stat_of_output_file(int fd, const std::filesystem::path& path) {
  struct stat st{};
  if (::fstat(fd, &st) != 0)
    throw Error(path.string(), 0, "", std::string("cannot check the output file: ") + std::strerror(errno));
  return st;
}

void check_stat_intact(const struct stat& st, const std::filesystem::path& path, std::uint64_t bytes_written) {
  // /dev/null and other devices (a SOP-GPU habit for outputs one does not want) have no size.
  if (!S_ISREG(st.st_mode)) return;
  if (st.st_nlink == 0) lost_under_the_run(path, "was deleted");
  if (std::uint64_t(st.st_size) < bytes_written)
    throw Error(path.string(), 0, "",
                "was cut to " + std::to_string(st.st_size) + " bytes while this run had written " +
                    std::to_string(bytes_written) +
                    ", and a checkpoint now would count what it held: the run stops and keeps its previous "
                    "checkpoint — put the file back (from a copy) and --resume continues from that checkpoint, else "
                    "start the run again with --force");
}

OutputFileIdentity identity_of(const struct stat& st) {
  // A device (/dev/null, a SOP-GPU habit) keeps no time of its own writes worth comparing.
  const std::int64_t modified_ns =
      S_ISREG(st.st_mode) ? std::int64_t(st.st_mtim.tv_sec) * 1000000000 + std::int64_t(st.st_mtim.tv_nsec) : 0;
  return {std::uint64_t(st.st_dev), std::uint64_t(st.st_ino), modified_ns};
}

}  // namespace

void check_output_file_intact(int fd, const std::filesystem::path& path, std::uint64_t bytes_written) {
  check_stat_intact(stat_of_output_file(fd, path), path, bytes_written);
}

OutputFileIdentity identity_of_output_file(int fd, const std::filesystem::path& path) {
  return identity_of(stat_of_output_file(fd, path));
}

ReopenedOutputFile::ReopenedOutputFile(const std::filesystem::path& path, int flags,
                                       const OutputFileIdentity& identity, std::uint64_t bytes_written)
    : path_(path) {
  for (;;) {
    fd_ = ::open(path.c_str(), (flags & ~O_CREAT) | O_CLOEXEC);
    if (fd_ >= 0 || errno != EINTR) break;
  }
  if (fd_ < 0) {
    if (errno == ENOENT) lost_under_the_run(path, "was deleted or moved away");
    throw Error(path.string(), 0, "", std::string("cannot open the output file again to write to it: ") +
                                          std::strerror(errno));
  }
  try {
    // The rows and frames written so far are in the file that was opened first: another
    // one under its name (a copy put back, a new file) does not hold them.
    const struct stat st = stat_of_output_file(fd_, path);
    const OutputFileIdentity now = identity_of(st);
    if (now.device != identity.device || now.inode != identity.inode)
      lost_under_the_run(path, "was replaced by another file");
    check_stat_intact(st, path, bytes_written);  // cut: says by how much
    if (now.modified_ns != identity.modified_ns) changed_under_the_run(path);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

ReopenedOutputFile::~ReopenedOutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

OutputFileIdentity ReopenedOutputFile::close() {
  const OutputFileIdentity identity = identity_of_output_file(fd_, path_);
  const int fd = std::exchange(fd_, -1);
  // After EINTR the descriptor is closed all the same (Linux): nothing to retry.
  if (::close(fd) != 0 && errno != EINTR)
    throw WriteError(path_.string(), "", std::string("cannot write the output file (closing it): ") + std::strerror(errno),
                     errno);
  return identity;
}

}  // namespace ermak
