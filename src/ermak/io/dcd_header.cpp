#include "ermak/io/dcd_header.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "ermak/core/error.h"

namespace ermak {
namespace {

constexpr std::int32_t kHeaderRecordBytes = 84;  // "CORD" + 20 int32 control words
constexpr std::int32_t kTitleLineBytes = 80;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string(), 0, "", what);
}

}  // namespace

std::uint32_t dcd_u32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

void read_dcd_bytes(int fd, unsigned char* data, std::size_t size, std::uint64_t offset,
                    const std::filesystem::path& path, const char* what) {
  while (size > 0) {
    const ssize_t n = ::pread(fd, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, std::string("cannot read DCD ") + what + ": " + std::strerror(errno));
    }
    if (n == 0) fail(path, std::string("not a complete DCD file: it ends inside the ") + what);
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

DcdHeader read_dcd_header(int fd, const std::filesystem::path& path) {
  DcdHeader header;
  unsigned char h[4 + kHeaderRecordBytes + 4];
  read_dcd_bytes(fd, h, sizeof h, 0, path, "header");
  if (dcd_i32(h) != kHeaderRecordBytes) {
    if (dcd_u32(h) == 0x54000000u) fail(path, "big-endian DCD files are not supported (byte-swapped record markers)");
    fail(path, "not a DCD file (the first record marker is not 84)");
  }
  if (std::memcmp(h + 4, "CORD", 4) != 0) {
    // 8-byte markers: 84 as int64, then "CORD".
    if (dcd_i32(h + 4) == 0 && std::memcmp(h + 8, "CORD", 4) == 0)
      fail(path, "DCD files with 8-byte record markers are not supported");
    fail(path, "not a DCD coordinate file (no \"CORD\" after the first record marker)");
  }
  if (dcd_i32(h + 4 + kHeaderRecordBytes) != kHeaderRecordBytes)
    fail(path, "corrupt DCD header record (its end marker is not 84)");
  for (int k = 0; k < 20; ++k) header.icntrl[k] = dcd_i32(h + 8 + 4 * k);

  unsigned char t[8];
  const std::uint64_t title_at = sizeof h;
  read_dcd_bytes(fd, t, sizeof t, title_at, path, "title");
  const std::int32_t title_record = dcd_i32(t);
  const std::int32_t title_lines = dcd_i32(t + 4);
  if (title_lines < 0 || title_record != 4 + kTitleLineBytes * title_lines)
    fail(path, "corrupt DCD title record (its length is not 4 + 80 × its line count)");
  header.title.assign(static_cast<std::size_t>(title_record - 4), ' ');
  read_dcd_bytes(fd, reinterpret_cast<unsigned char*>(header.title.data()), header.title.size(), title_at + 8, path,
                 "title");
  const std::uint64_t title_end_at = title_at + 4 + std::uint64_t(title_record);
  unsigned char n[16];  // the title's end marker, then the NATOM record
  read_dcd_bytes(fd, n, sizeof n, title_end_at, path, "atom count");
  if (dcd_i32(n) != title_record) fail(path, "corrupt DCD title record (its end marker)");
  if (dcd_i32(n + 4) != 4 || dcd_i32(n + 12) != 4) fail(path, "corrupt DCD atom count record");
  header.atoms = dcd_i32(n + 8);
  if (header.atoms <= 0 || header.atoms > std::numeric_limits<std::int32_t>::max() / 4)
    fail(path, "DCD atom count " + std::to_string(header.atoms) + " is out of range");
  header.header_bytes = title_end_at + sizeof n;
  return header;
}

}  // namespace ermak
