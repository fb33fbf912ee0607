#include "ermak/io/dcd_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "ermak/core/error.h"

namespace ermak {
namespace {

static_assert(std::numeric_limits<float>::is_iec559, "DCD stores IEEE-754 float32");

// The layout is docs/outputs.md#dcd (and dcd_writer.h); these are the reader's own copies.
constexpr std::int32_t kHeaderRecordBytes = 84;  // "CORD" + 20 int32 control words
constexpr std::int32_t kTitleLineBytes = 80;
constexpr double kAkmaTime_ps = 0.04888821;      // CHARMM's time unit, DELTA's unit

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string(), 0, "", what);
}

std::uint32_t get_u32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
std::int32_t get_i32(const unsigned char* p) { return static_cast<std::int32_t>(get_u32(p)); }

// pread until `size` bytes are in; false when the file ends first.
bool read_at(int fd, unsigned char* data, std::size_t size, std::uint64_t offset, const std::filesystem::path& path) {
  while (size > 0) {
    const ssize_t n = ::pread(fd, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, std::string("cannot read DCD file: ") + std::strerror(errno));
    }
    if (n == 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

void read_or_fail(int fd, unsigned char* data, std::size_t size, std::uint64_t offset,
                  const std::filesystem::path& path, const char* what) {
  if (!read_at(fd, data, size, offset, path))
    fail(path, std::string("not a complete DCD file: it ends inside the ") + what);
}

// The number after `key` in ermak's title text ("first_step=1000"), if there.
template <typename T>
bool title_number(const std::string& title, const char* key, T& value) {
  const auto at = title.find(key);
  if (at == std::string::npos) return false;
  const char* from = title.c_str() + at + std::strlen(key);
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_integral_v<T>) {
    const long long v = std::strtoll(from, &end, 10);
    if (end == from || errno != 0) return false;
    value = static_cast<T>(v);
  } else {
    const double v = std::strtod(from, &end);
    if (end == from || errno != 0) return false;
    value = static_cast<T>(v);
  }
  return true;
}

}  // namespace

DcdReader DcdReader::open(const std::filesystem::path& path) {
  DcdReader r;
  r.path_ = path;
  r.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r.fd_ < 0) fail(path, std::string("cannot open DCD file: ") + std::strerror(errno));
  struct stat st{};
  if (::fstat(r.fd_, &st) != 0) fail(path, std::string("cannot stat DCD file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
  const std::uint64_t file_bytes = static_cast<std::uint64_t>(st.st_size);

  unsigned char h[4 + kHeaderRecordBytes + 4];
  if (file_bytes < sizeof h) fail(path, "not a DCD file: shorter than a DCD header");
  read_or_fail(r.fd_, h, sizeof h, 0, path, "header");
  if (get_i32(h) != kHeaderRecordBytes) {
    if (get_u32(h) == 0x54000000u) fail(path, "big-endian DCD files are not supported (byte-swapped record markers)");
    fail(path, "not a DCD file (the first record marker is not 84)");
  }
  if (std::memcmp(h + 4, "CORD", 4) != 0) {
    // 8-byte markers: 84 as int64, then "CORD".
    if (get_i32(h + 4) == 0 && std::memcmp(h + 8, "CORD", 4) == 0)
      fail(path, "DCD files with 8-byte record markers are not supported");
    fail(path, "not a DCD coordinate file (no \"CORD\" after the first record marker)");
  }
  if (get_i32(h + 4 + kHeaderRecordBytes) != kHeaderRecordBytes)
    fail(path, "corrupt DCD header record (its end marker is not 84)");
  const unsigned char* icntrl = h + 8;
  const std::int32_t version = get_i32(icntrl + 4 * 19);
  if (get_i32(icntrl + 4 * 8) != 0)
    fail(path, "DCD files with fixed atoms (NAMNF = " + std::to_string(get_i32(icntrl + 4 * 8)) +
                   ") are not supported");
  // In an X-PLOR file (version 0) words 9 and 10 hold DELTA as a double: no unit cell flag.
  if (version != 0) {
    if (get_i32(icntrl + 4 * 10) != 0) fail(path, "DCD files with unit cell records are not supported");
    if (get_i32(icntrl + 4 * 11) != 0) fail(path, "four-dimensional DCD files are not supported");
    r.timestep_ps_ = double(std::bit_cast<float>(get_u32(icntrl + 4 * 9))) * kAkmaTime_ps;
  }
  r.header_frames_ = get_i32(icntrl + 4 * 0);
  r.first_step_ = get_i32(icntrl + 4 * 1);
  r.stride_steps_ = get_i32(icntrl + 4 * 2);

  unsigned char t[8];
  const std::uint64_t title_at = sizeof h;
  read_or_fail(r.fd_, t, sizeof t, title_at, path, "title");
  const std::int32_t title_record = get_i32(t);
  const std::int32_t title_lines = get_i32(t + 4);
  if (title_lines < 0 || title_record != 4 + kTitleLineBytes * title_lines)
    fail(path, "corrupt DCD title record (its length is not 4 + 80 × its line count)");
  std::string title(static_cast<std::size_t>(title_record - 4), ' ');
  read_or_fail(r.fd_, reinterpret_cast<unsigned char*>(title.data()), title.size(), title_at + 8, path, "title");
  const std::uint64_t title_end_at = title_at + 4 + std::uint64_t(title_record);
  unsigned char n[16];  // the title's end marker, then the NATOM record
  read_or_fail(r.fd_, n, sizeof n, title_end_at, path, "atom count");
  if (get_i32(n) != title_record) fail(path, "corrupt DCD title record (its end marker)");
  if (get_i32(n + 4) != 4 || get_i32(n + 12) != 4) fail(path, "corrupt DCD atom count record");
  r.atoms_ = get_i32(n + 8);
  if (r.atoms_ <= 0 || r.atoms_ > std::numeric_limits<std::int32_t>::max() / 4)
    fail(path, "DCD atom count " + std::to_string(r.atoms_) + " is out of range");
  r.header_bytes_ = title_end_at + sizeof n;

  // ermak's writer keeps the exact first step and stride in its title (the header words are
  // int32, saturated beyond: docs/outputs.md#dcd).
  if (title.find("REMARKS ermak") != std::string::npos || title.find("steps_between_frames=") != std::string::npos) {
    std::int64_t v = 0;
    if (title_number(title, "first_step=", v)) r.first_step_ = v;
    if (title_number(title, "steps_between_frames=", v)) r.stride_steps_ = v;
    double dt = 0.0;
    if (title_number(title, "dt_ps=", dt) && dt > 0.0) r.timestep_ps_ = dt;
  }
  if (r.stride_steps_ <= 0)
    fail(path, "DCD header gives no steps between frames (NSAVC = " + std::to_string(r.stride_steps_) + ")");

  const std::uint64_t frame = 3 * (8 + 4 * std::uint64_t(r.atoms_));
  const std::uint64_t body = file_bytes - r.header_bytes_;
  r.frames_ = static_cast<std::int64_t>(body / frame);
  r.trailing_bytes_ = body % frame;
  r.buffer_.resize(frame);
  return r;
}

DcdReader::DcdReader(DcdReader&& other) noexcept { *this = std::move(other); }

DcdReader& DcdReader::operator=(DcdReader&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    atoms_ = other.atoms_;
    frames_ = other.frames_;
    header_frames_ = other.header_frames_;
    first_step_ = other.first_step_;
    stride_steps_ = other.stride_steps_;
    timestep_ps_ = other.timestep_ps_;
    header_bytes_ = other.header_bytes_;
    trailing_bytes_ = other.trailing_bytes_;
    next_ = other.next_;
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

DcdReader::~DcdReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool DcdReader::next_frame(std::vector<float>& x_A, std::vector<float>& y_A, std::vector<float>& z_A) {
  if (next_ >= frames_) return false;
  const std::uint64_t frame = buffer_.size();
  if (!read_at(fd_, buffer_.data(), frame, header_bytes_ + std::uint64_t(next_) * frame, path_))
    fail(path_, "DCD file became shorter while it was read (frame " + std::to_string(next_) + ")");
  const std::uint32_t record = 4 * std::uint32_t(atoms_);
  const unsigned char* p = buffer_.data();
  for (std::vector<float>* c : {&x_A, &y_A, &z_A}) {
    if (get_u32(p) != record || get_u32(p + 4 + record) != record)
      fail(path_, "corrupt DCD frame " + std::to_string(next_) + ": a coordinate record marker is not 4 × " +
                      std::to_string(atoms_));
    c->resize(static_cast<std::size_t>(atoms_));
    for (std::int32_t i = 0; i < atoms_; ++i) (*c)[std::size_t(i)] = std::bit_cast<float>(get_u32(p + 4 + 4 * std::size_t(i)));
    p += 8 + record;
  }
  ++next_;
  return true;
}

}  // namespace ermak
