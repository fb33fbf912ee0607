#include "ermak/io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ermak/core/error.h"
#include "ermak/io/file_kind.h"
#include "ermak/io/write_all.h"

namespace ermak {
namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

void write_file_atomically(const std::filesystem::path& given, std::string_view bytes, const std::string& what) {
  // A symbolic link keeps pointing where it did: the file it names is replaced, not the link.
  std::filesystem::path path = given;
  std::error_code link_error;
  if (std::filesystem::is_symlink(given, link_error))
    if (auto target = std::filesystem::weakly_canonical(given, link_error); !link_error) path = target;
  const std::string file = path.string();
  // The rename would replace whatever the name holds: a device such as /dev/null (a SOP-GPU
  // habit for unwanted outputs), a FIFO or a socket would be swapped for a regular file — as
  // root, /dev/null itself.
  std::error_code status_error;
  const auto status = std::filesystem::status(path, status_error);
  if (!status_error && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw Error(file, 0, "",
                std::string("is not a regular file (") + special_file_kind(status) + "): " + what +
                    " is written whole by renaming a new file onto its name, which would replace it; give the name "
                    "of a file");
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  const std::string tmp_file = tmp.string();
  // A .tmp left by a crash is removed, not opened: opened, a link there would be written
  // through onto its target (an audit's symlink to a file outside the run). O_EXCL|O_NOFOLLOW
  // then make sure the file written is a new one of this name.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int open_error = errno;
    // unlink cannot remove a directory: one of that name is named as such, not "File exists".
    std::error_code ec;
    if (open_error == EEXIST && std::filesystem::is_directory(std::filesystem::symlink_status(tmp, ec)))
      throw WriteError(tmp_file, "",
                       "cannot create " + what + ": a directory holds the name of its temporary file; remove it",
                       open_error);
    throw WriteError(tmp_file, "", "cannot create " + what + ": " + std::strerror(open_error), open_error);
  }
  try {
    write_all(fd, bytes.data(), bytes.size(), tmp_file, "cannot write " + what + ": ");
    if (::fsync(fd) != 0) throw WriteError(tmp_file, "", "cannot sync " + what + ": " + errno_text(), errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int close_error = errno;
    ::unlink(tmp.c_str());
    throw WriteError(tmp_file, "", "cannot close " + what + ": " + std::strerror(close_error), close_error);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_error = errno;
    ::unlink(tmp.c_str());
    throw WriteError(file, "", "cannot move the new " + what + " into place: " + std::strerror(rename_error),
                     rename_error);
  }
  // The rename itself lives in the directory; sync it so the new name survives a crash.
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    // Some filesystems refuse fsync on directories (EINVAL): best effort there; an I/O error
    // is the device failing, and the new name may not survive a crash: said.
    const int sync_error = ::fsync(dfd) != 0 ? errno : 0;
    ::close(dfd);
    if (sync_error == EIO)
      throw WriteError(dir.string(), "", "cannot sync the directory that holds " + what + ": " + std::strerror(EIO),
                       EIO);
  }
}

}  // namespace ermak
