#pragma once
// Writes a whole buffer to a descriptor: write() may write less than asked (signals,
// quotas), so it loops until done, and retries after EINTR.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ermak {

// Throws ermak::WriteError(file, "", failure + the system's reason, errno) when a write fails
// (`failure`: "cannot write table: ", for example).
void write_all(int fd, const char* data, std::size_t size, const std::string& file, const std::string& failure);
// The same at `offset` (pwrite), for a file that is rewritten in place.
void write_all_at(int fd, const char* data, std::size_t size, std::uint64_t offset, const std::string& file,
                  const std::string& failure);

}  // namespace ermak
