#include "ermak/analysis/tsv_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>

#include "ermak/core/error.h"
#include "ermak/io/input_file.h"

namespace ermak::analysis {
namespace {

// read()'s block: large enough that reading is not slowed by its calls, small beside the columns.
constexpr std::size_t kReadBlockBytes = std::size_t(1) << 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Fields of one row: separated by tabs (or runs of blanks, for hand-edited files).
void split_fields(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t k = 0;
  while (k < line.size()) {
    while (k < line.size() && is_space(line[k])) ++k;
    if (k >= line.size()) break;
    std::size_t end = k;
    while (end < line.size() && !is_space(line[end])) ++end;
    out.push_back(line.substr(k, end - k));
    k = end;
  }
}

bool parse_double(std::string_view text, double& value) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;  // from_chars refuses a leading '+'
  const auto r = std::from_chars(first, last, value);
  return r.ec == std::errc() && r.ptr == last;
}

}  // namespace

std::pair<std::string_view, std::string_view> split_column_name(std::string_view name) {
  const std::size_t open = name.find('[');
  if (open == std::string_view::npos || name.back() != ']') return {name, {}};
  return {name.substr(0, open), name.substr(open + 1, name.size() - open - 2)};
}

// Turns a table's lines, one at a time, into its columns: parse() feeds it from text in
// memory and read() from blocks of a file, so both read the format the same way.
class TsvTable::LineParser {
 public:
  explicit LineParser(std::string source) { table_.source_ = std::move(source); }

  // The number of line breaks in the whole text, when known before its lines: the columns
  // are then allocated once at their size, not grown by doubling (room for up to twice the
  // values, and a column's old and new copies at once while it moves).
  void expect_lines(std::size_t lines) { expected_lines_ = lines; }

  // One line without its '\n'; `complete` is false for a last line that has none.
  void add(std::string_view line, bool complete) {
    TsvTable& t = table_;
    const std::string& source = t.source_;
    const int line_no = ++line_no_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!have_header_) {
      if (line.rfind("# ", 0) != 0)
        throw Error(source, line_no, "",
                    "an ermak table starts with a header line '# ' + tab-separated column names");
      std::string_view names = line.substr(2);
      for (std::size_t start = 0;;) {
        const std::size_t tab = names.find('\t', start);
        std::string_view name = names.substr(start, tab == std::string_view::npos ? tab : tab - start);
        while (!name.empty() && is_space(name.back())) name.remove_suffix(1);
        while (!name.empty() && is_space(name.front())) name.remove_prefix(1);
        if (name.empty()) throw Error(source, line_no, "", "empty column name in the header");
        t.columns_.emplace_back(name);
        if (tab == std::string_view::npos) break;
        start = tab + 1;
      }
      t.data_.resize(t.columns_.size());
      // Every line after the header is at most one row.
      const std::size_t rows = expected_lines_ > 1 ? expected_lines_ - 1 : 0;
      for (auto& column : t.data_) column.reserve(rows);
      t.row_lines_.reserve(rows);
      have_header_ = true;
      return;
    }
    split_fields(line, fields_);
    if (fields_.empty() || fields_.front().front() == '#') return;  // blank line or comment
    // ermak ends every row with a newline: a last line without one was cut while being written
    // (or by a full disk), even where its fields parse — "…\t3" may be the start of 39.55.
    if (!complete) {
      t.warnings_.push_back(source + ":" + std::to_string(line_no) +
                            ": incomplete last line left out (table still being written?)");
      return;
    }
    if (fields_.size() != t.columns_.size()) {
      throw Error(source, line_no, "",
                  "row has " + std::to_string(fields_.size()) + " values for " +
                      std::to_string(t.columns_.size()) + " columns");
    }
    for (std::size_t c = 0; c < fields_.size(); ++c) {
      double v = 0.0;
      if (!parse_double(fields_[c], v)) {
        throw Error(source, line_no, t.columns_[c], "'" + std::string(fields_[c]) + "' is not a number");
      }
      t.data_[c].push_back(v);
    }
    t.row_lines_.push_back(line_no);
    ++t.rows_;
  }

  TsvTable finish() && {
    if (!have_header_) throw Error(table_.source_, 0, "", "empty table: no '# ' header line");
    return std::move(table_);
  }

 private:
  TsvTable table_;
  int line_no_ = 0;
  bool have_header_ = false;
  std::size_t expected_lines_ = 0;
  std::vector<std::string_view> fields_;
};

TsvTable TsvTable::read(const std::filesystem::path& path) { return read_in_blocks(path, kReadBlockBytes); }

TsvTable TsvTable::read_in_blocks(const std::filesystem::path& path, std::size_t block_bytes) {
  if (std::filesystem::is_directory(path)) throw Error(path.string(), 0, "", "is a directory, not a table");
  check_text_input_file(path, "");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string(), 0, "", std::string("cannot open table: ") + std::strerror(errno));
  block_bytes = std::max<std::size_t>(block_bytes, 1);
  std::error_code error;
  const std::uintmax_t bytes = std::filesystem::file_size(path, error);
  const auto cannot_read = [&] { return Error(path.string(), 0, "", "cannot read table"); };
  // Reading holds the columns (8 bytes a value, ~9–11 characters written: a little less than
  // the file) and one block. A table too big for the memory says so by name.
  try {
    LineParser parser(path.string());
    // The text read but not parsed yet: the start of a line that the last block cut, then the
    // next block. It holds a block and the longest line at most.
    std::string pending;
    if (!error) {
      // A file (not a pipe) is counted first, a pass at memchr's speed, so that the columns
      // are allocated once; the second pass finds it in the page cache.
      pending.resize(block_bytes);
      std::size_t lines = 0;
      while (in.read(pending.data(), std::streamsize(block_bytes)) || in.gcount() > 0)
        lines += std::size_t(std::count(pending.data(), pending.data() + in.gcount(), '\n'));
      if (in.bad()) throw cannot_read();
      parser.expect_lines(lines);
      pending.clear();
      in.clear();
      if (!in.seekg(0)) throw cannot_read();
    }
    for (;;) {
      const std::size_t carried = pending.size();
      pending.resize(carried + block_bytes);
      in.read(pending.data() + carried, std::streamsize(block_bytes));
      const std::size_t got = std::size_t(in.gcount());
      pending.resize(carried + got);
      if (in.bad()) throw cannot_read();
      if (got == 0) break;
      std::size_t start = 0;
      for (std::size_t nl = pending.find('\n', carried); nl != std::string::npos; nl = pending.find('\n', start)) {
        parser.add(std::string_view(pending).substr(start, nl - start), true);
        start = nl + 1;
      }
      pending.erase(0, start);
    }
    if (!pending.empty()) parser.add(pending, false);
    return std::move(parser).finish();
  } catch (const std::bad_alloc&) {
    throw Error(path.string(), 0, "",
                fmt::format("not enough memory to read this table ({:.3g} GB: its values take about as much); "
                            "analyse it on a machine with more memory, or write rows less often "
                            "(pulling.output_every, output.energy_every)",
                            double(bytes) / 1e9));
  }
}

TsvTable TsvTable::parse(std::string_view text, const std::string& source) {
  LineParser parser(source);
  parser.expect_lines(std::size_t(std::count(text.begin(), text.end(), '\n')));
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    const bool complete = nl != std::string_view::npos;
    if (!complete) nl = text.size();
    parser.add(text.substr(pos, nl - pos), complete);
    pos = nl + 1;
  }
  return std::move(parser).finish();
}

void TsvTable::require_rising_steps() const {
  const std::span<const double> step = column("step");
  for (std::size_t i = 1; i < step.size(); ++i)
    if (!(step[i] > step[i - 1]))
      throw Error(source_, row_lines_[i], "step",
                  fmt::format("step {} does not follow step {}: the rows are out of order or written twice "
                              "(a damaged table)",
                              step[i], step[i - 1]));
}

void TsvTable::require_within(std::string_view name, double lo, double hi) const {
  const std::span<const double> values = column(name);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::isfinite(values[i]) && !(values[i] >= lo && values[i] <= hi))
      throw Error(source_, row_lines_[i], columns_[*find(name)],
                  std::isinf(hi) ? fmt::format("{} is below {}, which no run writes there (a damaged table)", values[i], lo)
                                 : fmt::format("{} is outside {} to {}, which no run writes there (a damaged table)",
                                               values[i], lo, hi));
}

void TsvTable::require_no_larger(std::string_view part_name, std::string_view whole_name) const {
  const std::span<const double> part = column(part_name), whole = column(whole_name);
  for (std::size_t i = 0; i < part.size(); ++i)
    if (std::isfinite(part[i]) && std::isfinite(whole[i]) &&
        std::abs(part[i]) > std::abs(whole[i]) * (1.0 + 1e-6) + 1e-6)
      throw Error(source_, row_lines_[i], columns_[*find(part_name)],
                  fmt::format("{} is larger than {} = {} in the same row, which it is a part of (a damaged table)",
                              part[i], columns_[*find(whole_name)], whole[i]));
}

std::optional<std::size_t> TsvTable::find(std::string_view name) const {
  const auto [base, unit] = split_column_name(name);
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const auto [cbase, cunit] = split_column_name(columns_[c]);
    if (cbase != base) continue;
    if (!unit.empty() && cunit != unit) continue;
    return c;
  }
  return std::nullopt;
}

std::span<const double> TsvTable::column(std::string_view name) const {
  if (const auto c = find(name)) return data_[*c];
  std::string have;
  for (const auto& c : columns_) have += (have.empty() ? "" : ", ") + c;
  const auto [base, unit] = split_column_name(name);
  if (!unit.empty()) {
    for (const auto& c : columns_) {
      const auto [cbase, cunit] = split_column_name(c);
      if (cbase == base)
        throw Error(source_, 0, std::string(name),
                    "column '" + c + "' has unit [" + std::string(cunit) + "], expected [" +
                        std::string(unit) + "]");
    }
  }
  throw Error(source_, 0, std::string(name), "required column not found; the table has: " + have);
}

std::span<const double> TsvTable::column(std::size_t index) const { return data_.at(index); }

}  // namespace ermak::analysis
