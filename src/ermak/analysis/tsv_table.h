#pragma once
// Reading ermak's TSV time series (docs/outputs.md#tsv-time-series) back for analysis: a header line
// "# " + tab-separated column names that carry their units in brackets ("force[pN]"),
// then one row of numbers per line. Columns are looked up by name, so tables with extra
// or reordered columns read the same.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ermak::analysis {

class TsvTable {
 public:
  // Reads a whole table. Throws ermak::Error (file:line) when the file cannot be read,
  // lacks the "# " header, or a row has a value that is not a number or the wrong number
  // of values. A last line without its line break (a table still being written) that is
  // incomplete is left out and noted in warnings(). The file is parsed as it is read, a
  // block at a time: reading holds the columns (8 bytes a value) and one block, not the
  // file's text as well (a run of 10^7 rows a replica writes ~1 GB tables).
  static TsvTable read(const std::filesystem::path& path);
  // read() with blocks of `block_bytes` instead of 1 MiB; tests take tiny blocks so that
  // lines straddle them or are longer than one.
  static TsvTable read_in_blocks(const std::filesystem::path& path, std::size_t block_bytes);
  // The same from text in memory; `source` names it in messages.
  static TsvTable parse(std::string_view text, const std::string& source);

  const std::vector<std::string>& columns() const { return columns_; }
  std::size_t rows() const { return rows_; }
  const std::string& source() const { return source_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Index of a column. `name` is either the full header name ("force_along[pN]") or the
  // bare name ("force_along"); with a unit, a column of that name with another unit is
  // not a match (see column()).
  std::optional<std::size_t> find(std::string_view name) const;
  bool has(std::string_view name) const { return find(name).has_value(); }

  // The values of a required column. Throws ermak::Error naming the file and the column
  // when it is missing (listing the columns the table has) or carries another unit.
  std::span<const double> column(std::string_view name) const;
  std::span<const double> column(std::size_t index) const;

  // A run's time series: throws ermak::Error (file:line, "step") unless the step column
  // rises from row to row. Rows out of order, or a table appended to itself, would
  // otherwise be analysed as one curve.
  void require_rising_steps() const;
  // Throws ermak::Error (file:line, the column) at the first finite value of `column` outside
  // [lo, hi] (hi may be infinite): a number no run writes there (a damaged table). Non-finite
  // values pass (the analyses count those rows themselves).
  void require_within(std::string_view column, double lo, double hi) const;
  // The same where |part| exceeds `whole` in a row (a component beyond its vector's length),
  // beyond the rounding of the tables' 8 digits.
  void require_no_larger(std::string_view part, std::string_view whole) const;

 private:
  class LineParser;  // the one reading of a table's lines, fed by parse() and read()

  std::string source_;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> data_;  // [column][row]
  std::size_t rows_ = 0;
  std::vector<int> row_lines_;  // the file's line of each row, for messages
  std::vector<std::string> warnings_;
};

// "force[pN]" → {"force", "pN"}; "step" → {"step", ""}.
std::pair<std::string_view, std::string_view> split_column_name(std::string_view name);

}  // namespace ermak::analysis
