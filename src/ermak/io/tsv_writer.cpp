#include "ermak/io/tsv_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include "ermak/core/error.h"
#include "ermak/io/output_file_check.h"
#include "ermak/io/write_all.h"

namespace ermak {
namespace {

constexpr std::size_t kBufferBytes = 64 * 1024;
// Beyond kOpenedToWriteOutBytes, the room for the row that crosses it (a row of a table
// with many columns, e.g. a plane table of several groups, is a few hundred bytes).
constexpr std::size_t kRowRoom = 1024;
constexpr auto kMaxBufferAge = std::chrono::seconds(1);

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string(), 0, "", what);
}

std::string header_line(const std::vector<std::string>& columns) {
  std::string line = "# ";
  for (std::size_t k = 0; k < columns.size(); ++k) {
    if (k) line += '\t';
    line += columns[k];
  }
  line += '\n';
  return line;
}

constexpr int kDigits = 8;       // significant digits of a value
constexpr int kTimeDigits = 12;  // of a time column ("time[ns]")

// std::to_chars with a precision is specified as printf("%.*g") in the C locale, so the
// output does not change with the user's locale (no decimal commas).
void append_double(std::string& out, double v, int digits) {
  if (v == 0.0) v = 0.0;  // "-0" (e.g. a plane at travel −v·0) reads as a string apart from "0"
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
  out.append(buf, r.ptr);
}

// A time column needs more than 8 digits: a 10¹⁰-step run reaches 2·10⁸ ns, and 8 digits
// would give successive rows 20 ns apart the same time (the long-run audit).
int digits_of_column(const std::string& name) { return name.rfind("time[", 0) == 0 ? kTimeDigits : kDigits; }

}  // namespace

TsvWriter TsvWriter::create(const std::filesystem::path& path, std::vector<std::string> columns,
                            bool overwrite, FileHolding holding) {
  if (columns.empty()) fail(path, "a table needs at least one column");
  for (const std::string& c : columns)
    if (c.empty() || c.find_first_of("\t\r\n") != std::string::npos)
      throw Error(path.string(), 0, "columns",
                  "column name '" + c + "' is empty or holds a tab or line break");
  TsvWriter w;
  w.path_ = path;
  w.columns_ = std::move(columns);
  for (const std::string& c : w.columns_) w.digits_.push_back(digits_of_column(c));
  // O_EXCL makes "refuse to overwrite" atomic: no window between a check and the open.
  // Append mode: rows written after someone cut the file land at its new end, which the
  // checkpoint's size check then sees (io/output_file_check.h), instead of past a hole.
  const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
  w.fd_ = ::open(path.c_str(), flags, 0644);
  if (w.fd_ < 0) {
    if (errno == EEXIST) fail(path, "output file already exists and overwriting was not requested");
    fail(path, std::string("cannot create table: ") + std::strerror(errno));
  }
  w.live_ = true;
  w.holding_ = holding;
  const std::string header = header_line(w.columns_);
  write_all(w.fd_, header.data(), header.size(), path.string(), "cannot write table: ");
  w.file_bytes_ = header.size();
  w.last_write_out_ = std::chrono::steady_clock::now();
  w.hold_file();
  return w;
}

TsvWriter TsvWriter::append(const std::filesystem::path& path, std::uint64_t truncate_to_bytes,
                            const std::vector<std::string>& expected_columns, FileHolding holding) {
  TsvWriter w = open_to_continue(path, truncate_to_bytes, expected_columns, holding);
  w.cut_to_continue();
  return w;
}

TsvWriter TsvWriter::open_to_continue(const std::filesystem::path& path, std::uint64_t truncate_to_bytes,
                                      const std::vector<std::string>& expected_columns, FileHolding holding) {
  TsvWriter w;
  w.path_ = path;
  w.fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (w.fd_ < 0) fail(path, std::string("cannot reopen table to continue it: ") + std::strerror(errno));
  w.live_ = true;
  w.holding_ = holding;
  struct stat st{};
  if (::fstat(w.fd_, &st) != 0) fail(path, std::string("cannot stat table: ") + std::strerror(errno));
  const std::uint64_t file_bytes = static_cast<std::uint64_t>(st.st_size);
  // Checked after the header: an edited header is the likelier (and more useful) answer.
  const auto fail_if_short = [&] {
    if (truncate_to_bytes > file_bytes)
      fail(path, "table is shorter (" + std::to_string(file_bytes) + " bytes) than the checkpoint records (" +
                     std::to_string(truncate_to_bytes) + " bytes): it was replaced or lost data");
  };

  // The header line (read in chunks: it is short, the rows after it may be gigabytes)
  // and the last kept byte are all that the checks need.
  auto read_at = [&](char* data, std::size_t size, std::uint64_t offset) {
    for (;;) {
      const ssize_t n = ::pread(w.fd_, data, size, static_cast<off_t>(offset));
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) fail(path, std::string("cannot read table: ") + std::strerror(errno));
    }
  };
  std::string head;
  std::size_t header_end = std::string::npos;
  const std::uint64_t header_limit = std::min(truncate_to_bytes, file_bytes);
  while (header_end == std::string::npos && head.size() < header_limit) {
    char chunk[4096];
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(sizeof chunk, header_limit - head.size()));
    const std::size_t n = read_at(chunk, want, head.size());
    if (n == 0) break;
    const std::size_t before = head.size();
    head.append(chunk, n);
    const std::size_t nl = head.find('\n', before);
    if (nl != std::string::npos) header_end = nl;
  }
  if (head.rfind("# ", 0) != 0 || header_end == std::string::npos) {
    fail_if_short();
    fail(path, "resume offset " + std::to_string(truncate_to_bytes) +
                   " does not keep a complete '# ' header line; not an ermak table?");
  }
  const std::string names = head.substr(2, header_end - 2);
  for (std::size_t start = 0;;) {
    const std::size_t tab = names.find('\t', start);
    w.columns_.push_back(names.substr(start, tab == std::string::npos ? tab : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  if (!expected_columns.empty() && w.columns_ != expected_columns) {
    const std::string expected = header_line(expected_columns);
    fail(path, "table header '" + names + "' does not match the columns of this run '" +
                   expected.substr(2, expected.size() - 3) + "'");
  }
  fail_if_short();
  char last = 0;
  if (read_at(&last, 1, truncate_to_bytes - 1) != 1 || last != '\n')
    fail(path, "resume offset " + std::to_string(truncate_to_bytes) + " is not at the end of a line");

  for (const std::string& c : w.columns_) w.digits_.push_back(digits_of_column(c));
  w.file_bytes_ = truncate_to_bytes;  // cut_to_continue() cuts the file there
  w.bytes_to_cut_ = file_bytes - truncate_to_bytes;
  w.hold_file();
  return w;
}

void TsvWriter::hold_file() {
  identity_ = identity_of_output_file(fd_, path_);
  if (holding_ == FileHolding::kKeptOpen) return;
  ::close(fd_);
  fd_ = -1;
}

void TsvWriter::cut_to_continue() {
  if (holding_ == FileHolding::kOpenedToWriteOut) {
    // Longer than file_bytes_ until cut: checked for no size here.
    ReopenedOutputFile file(path_, O_WRONLY, identity_, 0);
    if (::ftruncate(file.fd(), static_cast<off_t>(file_bytes_)) != 0)
      fail(path_, std::string("cannot truncate table: ") + std::strerror(errno));
    identity_ = file.close();
  } else {
    if (::ftruncate(fd_, static_cast<off_t>(file_bytes_)) != 0)
      fail(path_, std::string("cannot truncate table: ") + std::strerror(errno));
    if (::lseek(fd_, static_cast<off_t>(file_bytes_), SEEK_SET) < 0)
      fail(path_, std::string("cannot seek in table: ") + std::strerror(errno));
  }
  last_write_out_ = std::chrono::steady_clock::now();
}

TsvWriter::TsvWriter(TsvWriter&& other) noexcept { *this = std::move(other); }

TsvWriter& TsvWriter::operator=(TsvWriter&& other) noexcept {
  if (this != &other) {
    close();
    live_ = std::exchange(other.live_, false);
    holding_ = other.holding_;
    identity_ = other.identity_;
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    columns_ = std::move(other.columns_);
    digits_ = std::move(other.digits_);
    file_bytes_ = other.file_bytes_;
    bytes_to_cut_ = other.bytes_to_cut_;
    buffer_ = std::move(other.buffer_);
    other.buffer_.clear();
    last_write_out_ = other.last_write_out_;
  }
  return *this;
}

TsvWriter::~TsvWriter() { close(); }

void TsvWriter::close() noexcept {
  if (!live_) return;
  try {
    write_out();
  } catch (...) {
    // A destructor cannot report; flush() is the place to see write errors.
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  live_ = false;
}

void TsvWriter::row(std::span<const double> values) {
  if (!live_) fail(path_, "table writer is closed");
  if (holding_ == FileHolding::kOpenedToWriteOut) make_room_to_gather(buffer_, kRowRoom);
  if (values.size() != columns_.size())
    fail(path_, "row has " + std::to_string(values.size()) + " values for " +
                    std::to_string(columns_.size()) + " columns");
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (k) buffer_ += '\t';
    append_double(buffer_, values[k], digits_[k]);
  }
  end_row();
}

void TsvWriter::row(std::int64_t step, std::span<const double> rest) {
  if (!live_) fail(path_, "table writer is closed");
  if (holding_ == FileHolding::kOpenedToWriteOut) make_room_to_gather(buffer_, kRowRoom);
  if (rest.size() + 1 != columns_.size())
    fail(path_, "row has " + std::to_string(rest.size() + 1) + " values for " +
                    std::to_string(columns_.size()) + " columns");
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, step);
  buffer_.append(buf, r.ptr);
  for (std::size_t k = 0; k < rest.size(); ++k) {
    buffer_ += '\t';
    append_double(buffer_, rest[k], digits_[k + 1]);
  }
  end_row();
}

void TsvWriter::end_row() {
  buffer_ += '\n';
  if (holding_ == FileHolding::kOpenedToWriteOut) {
    // No age rule: at 10⁴ replicas it would open every file every second.
    if (buffer_.size() >= kOpenedToWriteOutBytes) write_out();
    return;
  }
  if (buffer_.size() >= kBufferBytes ||
      std::chrono::steady_clock::now() - last_write_out_ >= kMaxBufferAge)
    write_out();
}

void TsvWriter::write_out() {
  if (!live_ || buffer_.empty()) return;
  if (holding_ == FileHolding::kOpenedToWriteOut) {
    ReopenedOutputFile file(path_, O_WRONLY | O_APPEND, identity_, file_bytes_);
    write_buffer(file.fd());
    identity_ = file.close();
  } else {
    write_buffer(fd_);
  }
}

void TsvWriter::write_buffer(int fd) {
  if (buffer_.empty()) return;
  try {
    write_all(fd, buffer_.data(), buffer_.size(), path_.string(), "cannot write table: ");
  } catch (const Error&) {
    // A full disk or a file-size limit: the table keeps its whole rows only.
    [[maybe_unused]] const int ignored = ::ftruncate(fd, static_cast<off_t>(file_bytes_));
    throw;
  }
  file_bytes_ += buffer_.size();
  buffer_.clear();
  last_write_out_ = std::chrono::steady_clock::now();
}

void TsvWriter::flush() {
  if (!live_) return;
  if (holding_ == FileHolding::kOpenedToWriteOut) {
    // Opened (and so checked) even with nothing to write: a checkpoint counts what it holds.
    ReopenedOutputFile file(path_, O_WRONLY | O_APPEND, identity_, file_bytes_);
    write_buffer(file.fd());
    identity_ = file.close();
    return;
  }
  write_out();
  check_output_file_intact(fd_, path_, file_bytes_);
}

void TsvWriter::sync() {
  if (!live_) return;
  auto sync_fd = [&](int fd) {
    write_buffer(fd);
    if (::fdatasync(fd) != 0) fail(path_, std::string("cannot sync table to disk: ") + std::strerror(errno));
  };
  if (holding_ == FileHolding::kOpenedToWriteOut) {
    ReopenedOutputFile file(path_, O_WRONLY | O_APPEND, identity_, file_bytes_);
    sync_fd(file.fd());
    identity_ = file.close();
  } else {
    sync_fd(fd_);
  }
}

}  // namespace ermak
