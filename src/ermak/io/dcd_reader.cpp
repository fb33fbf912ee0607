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
#include "ermak/io/dcd_header.h"
#include "ermak/io/dcd_writer.h"

namespace ermak {
namespace {

static_assert(std::numeric_limits<float>::is_iec559, "DCD stores IEEE-754 float32");

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string(), 0, "", what);
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

  // The control record with its two markers: 92 bytes.
  if (file_bytes < 92) fail(path, "not a DCD file: shorter than a DCD header");
  const DcdHeader header = read_dcd_header(r.fd_, path);
  const std::int32_t* icntrl = header.icntrl;
  const std::int32_t version = icntrl[19];
  if (icntrl[8] != 0)
    fail(path, "DCD files with fixed atoms (NAMNF = " + std::to_string(icntrl[8]) + ") are not supported");
  // In an X-PLOR file (version 0) words 9 and 10 hold DELTA as a double: no unit cell flag.
  if (version != 0) {
    if (icntrl[10] != 0) fail(path, "DCD files with unit cell records are not supported");
    if (icntrl[11] != 0) fail(path, "four-dimensional DCD files are not supported");
    r.timestep_ps_ = double(std::bit_cast<float>(icntrl[9])) * DcdWriter::kAkmaTime_ps;
  }
  r.header_frames_ = icntrl[0];
  r.first_step_ = icntrl[1];
  r.stride_steps_ = icntrl[2];
  r.atoms_ = header.atoms;
  r.header_bytes_ = header.header_bytes;
  const std::string& title = header.title;

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

  const std::uint64_t frame = DcdWriter::frame_bytes(r.atoms_);
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
  // Counted from the file's size at open(): a file cut since then ends inside this frame.
  const std::string which = "frame " + std::to_string(next_);
  read_dcd_bytes(fd_, buffer_.data(), frame, header_bytes_ + std::uint64_t(next_) * frame, path_, which.c_str());
  const std::uint32_t record = 4 * std::uint32_t(atoms_);
  const unsigned char* p = buffer_.data();
  for (std::vector<float>* c : {&x_A, &y_A, &z_A}) {
    if (dcd_u32(p) != record || dcd_u32(p + 4 + record) != record)
      fail(path_, "corrupt DCD frame " + std::to_string(next_) + ": a coordinate record marker is not 4 × " +
                      std::to_string(atoms_));
    c->resize(static_cast<std::size_t>(atoms_));
    for (std::int32_t i = 0; i < atoms_; ++i) (*c)[std::size_t(i)] = std::bit_cast<float>(dcd_u32(p + 4 + 4 * std::size_t(i)));
    p += 8 + record;
  }
  ++next_;
  return true;
}

}  // namespace ermak
