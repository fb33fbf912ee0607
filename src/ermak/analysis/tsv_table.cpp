#include "ermak/analysis/tsv_table.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>

#include "ermak/core/error.h"

namespace ermak::analysis {
namespace {

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

TsvTable TsvTable::read(const std::filesystem::path& path) {
  if (std::filesystem::is_directory(path)) throw Error(path.string(), 0, "", "is a directory, not a table");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string(), 0, "", std::string("cannot open table: ") + std::strerror(errno));
  std::error_code error;
  const std::uintmax_t bytes = std::filesystem::file_size(path, error);
  // The text and its columns (8 bytes a value, ~9–11 characters written) both live until the
  // table is parsed: about twice the file. A table too big for the memory says so by name.
  try {
    std::string text;
    if (!error) {
      text.resize(std::size_t(bytes));
      in.read(text.data(), std::streamsize(bytes));
      text.resize(std::size_t(in.gcount()));
    }
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());  // anything after
    if (in.bad()) throw Error(path.string(), 0, "", "cannot read table");
    return parse(text, path.string());
  } catch (const std::bad_alloc&) {
    throw Error(path.string(), 0, "",
                fmt::format("not enough memory to read this table ({:.3g} GB: reading it takes about twice that); "
                            "analyse it on a machine with more memory, or write rows less often "
                            "(pulling.output_every, output.energy_every)",
                            double(bytes) / 1e9));
  }
}

TsvTable TsvTable::parse(std::string_view text, const std::string& source) {
  TsvTable t;
  t.source_ = source;
  std::size_t pos = 0;
  int line_no = 0;
  bool have_header = false;
  std::vector<std::string_view> fields;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    const bool complete = nl != std::string_view::npos;
    if (!complete) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!have_header) {
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
      have_header = true;
      continue;
    }
    split_fields(line, fields);
    if (fields.empty() || fields.front().front() == '#') continue;  // blank line or comment
    // ermak ends every row with a newline: a last line without one was cut while being written
    // (or by a full disk), even where its fields parse — "…\t3" may be the start of 39.55.
    if (!complete) {
      t.warnings_.push_back(source + ":" + std::to_string(line_no) +
                            ": incomplete last line left out (table still being written?)");
      break;
    }
    if (fields.size() != t.columns_.size()) {
      throw Error(source, line_no, "",
                  "row has " + std::to_string(fields.size()) + " values for " +
                      std::to_string(t.columns_.size()) + " columns");
    }
    for (std::size_t c = 0; c < fields.size(); ++c) {
      double v = 0.0;
      if (!parse_double(fields[c], v)) {
        throw Error(source, line_no, t.columns_[c],
                    "'" + std::string(fields[c]) + "' is not a number");
      }
      t.data_[c].push_back(v);
    }
    t.row_lines_.push_back(line_no);
    ++t.rows_;
  }
  if (!have_header) throw Error(source, 0, "", "empty table: no '# ' header line");
  return t;
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
