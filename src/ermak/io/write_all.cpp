#include "ermak/io/write_all.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ermak/core/error.h"

namespace ermak {

void write_all(int fd, const char* data, std::size_t size, const std::string& file, const std::string& failure) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw WriteError(file, "", failure + std::strerror(errno), errno);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void write_all_at(int fd, const char* data, std::size_t size, std::uint64_t offset, const std::string& file,
                  const std::string& failure) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw WriteError(file, "", failure + std::strerror(errno), errno);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

}  // namespace ermak
