#include "ermak/io/held_output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "ermak/core/error.h"
#include "ermak/io/write_all.h"

namespace ermak {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string(), 0, "", what);
}

}  // namespace

HeldOutputFile::HeldOutputFile(const std::filesystem::path& path, FileHolding holding, OutputPlacement placement,
                               std::string noun)
    : holding_(holding), placement_(placement), path_(path), noun_(std::move(noun)) {}

HeldOutputFile HeldOutputFile::create(const std::filesystem::path& path, bool overwrite, FileHolding holding,
                                      OutputPlacement placement, std::string noun,
                                      std::span<const std::byte> header) {
  HeldOutputFile f(path, holding, placement, std::move(noun));
  // O_EXCL makes "refuse to overwrite" atomic: no window between a check and the open.
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (placement == OutputPlacement::kAppended ? O_APPEND : 0) |
                    (overwrite ? O_TRUNC : O_EXCL);
  f.fd_ = ::open(path.c_str(), flags, 0644);
  if (f.fd_ < 0) {
    if (errno == EEXIST) fail(path, "output file already exists and overwriting was not requested");
    // A full disk or quota at the start is a failed write too (write_failure_advice).
    if (errno == ENOSPC || errno == EDQUOT)
      throw WriteError(path.string(), "", "cannot create " + f.noun_ + ": " + std::strerror(errno), errno);
    fail(path, "cannot create " + f.noun_ + ": " + std::strerror(errno));
  }
  f.live_ = true;
  f.put(f.fd_, header);
  f.bytes_found_ = header.size();
  f.continue_at(header.size());
  return f;
}

HeldOutputFile HeldOutputFile::open_to_continue(const std::filesystem::path& path, FileHolding holding,
                                                OutputPlacement placement, std::string noun) {
  HeldOutputFile f(path, holding, placement, std::move(noun));
  f.fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC | (placement == OutputPlacement::kAppended ? O_APPEND : 0));
  if (f.fd_ < 0) fail(path, "cannot reopen " + f.noun_ + " to continue it: " + std::strerror(errno));
  f.live_ = true;
  struct stat st{};
  if (::fstat(f.fd_, &st) != 0) fail(path, "cannot stat " + f.noun_ + ": " + std::strerror(errno));
  f.bytes_found_ = static_cast<std::uint64_t>(st.st_size);
  return f;
}

void HeldOutputFile::continue_at(std::uint64_t offset) {
  file_bytes_ = offset;
  bytes_to_cut_ = bytes_found_ - offset;
  identity_ = identity_of_output_file(fd_, path_);
  if (holding_ == FileHolding::kKeptOpen) return;
  ::close(fd_);
  fd_ = -1;
}

template <class Use>
void HeldOutputFile::with_file(bool to_cut, Use&& use) {
  if (holding_ == FileHolding::kKeptOpen) return use(fd_);
  const int flags = placement_ == OutputPlacement::kAtOffset ? O_RDWR : to_cut ? O_WRONLY : O_WRONLY | O_APPEND;
  // Longer than file_bytes_ until cut: checked for no size then.
  ReopenedOutputFile file(path_, flags, identity_, to_cut ? 0 : file_bytes_);
  use(file.fd());
  identity_ = file.close();
}

void HeldOutputFile::cut_to_continue(const Then& then) {
  with_file(true, [&](int fd) {
    if (::ftruncate(fd, static_cast<off_t>(file_bytes_)) != 0)
      fail(path_, "cannot truncate " + noun_ + ": " + std::strerror(errno));
    if (then) then(fd);
  });
}

HeldOutputFile::HeldOutputFile(HeldOutputFile&& o) noexcept
    : live_(std::exchange(o.live_, false)), holding_(o.holding_), placement_(o.placement_), identity_(o.identity_),
      fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), noun_(std::move(o.noun_)),
      file_bytes_(o.file_bytes_), bytes_found_(o.bytes_found_), bytes_to_cut_(o.bytes_to_cut_) {}

HeldOutputFile& HeldOutputFile::operator=(HeldOutputFile&& other) noexcept {
  if (this != &other) {
    std::destroy_at(this);  // closes its descriptor
    std::construct_at(this, std::move(other));
  }
  return *this;
}

HeldOutputFile::~HeldOutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void HeldOutputFile::last_write_out(std::span<const std::byte> gathered, const Then& then) noexcept {
  try {
    write_out(gathered, then);
  } catch (...) {
    // A destructor cannot report; flush() is the place to see write errors.
  }
}

void HeldOutputFile::put(int fd, std::span<const std::byte> bytes) {
  const auto* data = reinterpret_cast<const char*>(bytes.data());
  if (placement_ == OutputPlacement::kAppended)
    write_all(fd, data, bytes.size(), path_.string(), "cannot write " + noun_ + ": ");
  else
    write_all_at(fd, data, bytes.size(), file_bytes_, path_.string(), "cannot write " + noun_ + ": ");
}

void HeldOutputFile::write_gathered(int fd, std::span<const std::byte> gathered, const Then& then) {
  if (gathered.empty()) return;
  try {
    put(fd, gathered);
  } catch (const Error&) {
    // A full disk or a file-size limit: the file keeps its whole rows or frames only.
    [[maybe_unused]] const int ignored = ::ftruncate(fd, static_cast<off_t>(file_bytes_));
    throw;
  }
  file_bytes_ += gathered.size();
  then(fd);
}

void HeldOutputFile::write_out(std::span<const std::byte> gathered, const Then& then) {
  if (!live_ || gathered.empty()) return;
  with_file(false, [&](int fd) { write_gathered(fd, gathered, then); });
}

void HeldOutputFile::flush(std::span<const std::byte> gathered, const Then& then) {
  if (!live_) return;
  // Opened (and so checked) even with nothing to write: a checkpoint counts what it holds.
  with_file(false, [&](int fd) { write_gathered(fd, gathered, then); });
  if (holding_ == FileHolding::kKeptOpen) check_output_file_intact(fd_, path_, file_bytes_);
}

void HeldOutputFile::sync(std::span<const std::byte> gathered, const Then& then) {
  if (!live_) return;
  with_file(false, [&](int fd) {
    write_gathered(fd, gathered, then);
    if (::fdatasync(fd) != 0)
      throw WriteError(path_.string(), "", "cannot sync " + noun_ + " to disk: " + std::strerror(errno), errno);
  });
}

}  // namespace ermak
