#include "ermak/io/tsv_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <utility>

#include "ermak/core/error.h"

namespace ermak {
namespace {

// Beyond kOpenedToWriteOutBytes, the room for the row that crosses it (a row of a table
// with many columns, e.g. a plane table of several groups, is a few hundred bytes).
constexpr std::size_t kRowRoom = 1024;

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
  w.columns_ = std::move(columns);
  for (const std::string& c : w.columns_) w.digits_.push_back(digits_of_column(c));
  const std::string header = header_line(w.columns_);
  w.file_ = HeldOutputFile::create(path, overwrite, holding, OutputPlacement::kAppended, "table",
                                   std::as_bytes(std::span(header)));
  w.lines_ = GatheredLines(holding);
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
  w.file_ = HeldOutputFile::open_to_continue(path, holding, OutputPlacement::kAppended, "table");
  w.lines_ = GatheredLines(holding);
  const std::uint64_t file_bytes = w.file_.bytes_found();
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
      const ssize_t n = ::pread(w.file_.fd(), data, size, static_cast<off_t>(offset));
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
  w.file_.continue_at(truncate_to_bytes);
  return w;
}

void TsvWriter::cut_to_continue() {
  file_.cut_to_continue();
  lines_.restart_clock();
}

TsvWriter::TsvWriter(TsvWriter&& other) noexcept = default;

TsvWriter& TsvWriter::operator=(TsvWriter&& other) noexcept {
  if (this != &other) {
    std::destroy_at(this);  // writes out what it gathered and closes its file
    std::construct_at(this, std::move(other));
  }
  return *this;
}

TsvWriter::~TsvWriter() { file_.last_write_out(lines_.bytes(), lines_.written()); }

void TsvWriter::row(std::span<const double> values) {
  if (!file_.live()) fail(file_.path(), "table writer is closed");
  std::string& buffer = lines_.for_next_line(kRowRoom);
  if (values.size() != columns_.size())
    fail(file_.path(), "row has " + std::to_string(values.size()) + " values for " +
                           std::to_string(columns_.size()) + " columns");
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (k) buffer += '\t';
    append_double(buffer, values[k], digits_[k]);
  }
  end_row(buffer);
}

void TsvWriter::row(std::int64_t step, std::span<const double> rest) {
  if (!file_.live()) fail(file_.path(), "table writer is closed");
  std::string& buffer = lines_.for_next_line(kRowRoom);
  if (rest.size() + 1 != columns_.size())
    fail(file_.path(), "row has " + std::to_string(rest.size() + 1) + " values for " +
                           std::to_string(columns_.size()) + " columns");
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, step);
  buffer.append(buf, r.ptr);
  for (std::size_t k = 0; k < rest.size(); ++k) {
    buffer += '\t';
    append_double(buffer, rest[k], digits_[k + 1]);
  }
  end_row(buffer);
}

void TsvWriter::end_row(std::string& buffer) {
  buffer += '\n';
  if (lines_.due()) file_.write_out(lines_.bytes(), lines_.written());
}

void TsvWriter::flush() { file_.flush(lines_.bytes(), lines_.written()); }

void TsvWriter::sync() { file_.sync(lines_.bytes(), lines_.written()); }

}  // namespace ermak
