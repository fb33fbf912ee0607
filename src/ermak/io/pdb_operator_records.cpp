#include "ermak/io/pdb_operator_records.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

// One row of an operator: which row (1-3), the operator's number and the line.
struct OperatorRow {
  int row = 0;
  std::string serial;
  int line = 0;
};

// The rows of one kind of record (BIOMT of one assembly, or MTRIX), in file order, fed one by
// one; each operator must be rows 1, 2, 3 of one number, one after the other.
class OperatorRows {
 public:
  OperatorRows(std::string file, std::string record) : file_(std::move(file)), record_(std::move(record)) {}

  void add(const OperatorRow& row) {
    const int expected = open_ ? open_->row + 1 : 1;
    if (row.row != expected) {
      if (open_)
        throw Error(file_, row.line, record_ + std::to_string(row.row),
                    fmt::format("{}{} follows {}{} of operator {} (line {}): operator {} misses its row {}; an "
                                "operator is rows 1, 2 and 3, one after the other",
                                record_, row.row, record_, open_->row, open_->serial, open_->line, open_->serial,
                                expected));
      throw Error(file_, row.line, record_ + std::to_string(row.row),
                  fmt::format("operator {} starts with its row {}: it misses row 1; an operator is rows 1, 2 and 3, "
                              "one after the other",
                              row.serial, row.row));
    }
    if (open_ && row.serial != open_->serial)
      throw Error(file_, row.line, record_ + std::to_string(row.row),
                  fmt::format("row {} is numbered {}, but rows 1-{} above are of operator {} (line {}): one "
                              "operator's rows carry one number",
                              row.row, row.serial, open_->row, open_->serial, open_->line));
    open_ = row.row == 3 ? std::nullopt : std::optional<OperatorRow>(row);
  }

  // Another record (or the file's end) after the rows: an operator still open is cut short.
  void close(int line) {
    if (!open_) return;
    throw Error(file_, open_->line, record_ + std::to_string(open_->row),
                fmt::format("operator {} ends after its row {}{}: it misses row {} (the file is damaged or was "
                            "edited)",
                            open_->serial, open_->row, line > 0 ? fmt::format(" (line {} is no row of it)", line) : "",
                            open_->row + 1));
  }

 private:
  std::string file_, record_;
  std::optional<OperatorRow> open_;
};

std::string_view field(std::string_view line, std::size_t first, std::size_t count) {
  return first < line.size() ? text::trim(line.substr(first, count)) : std::string_view();
}

void check_number(const std::string& file, int line_number, const std::string& record, std::string_view value,
                  const std::string& what) {
  if (!text::parse_number<double>(value))
    throw Error(file, line_number, record,
                "'" + std::string(value) + "' (" + what + ") is not a number: the operator would be read wrong");
}

// MTRIXn: serial in columns 8-10, the row's three matrix elements in 11-20, 21-30, 31-40 and
// its translation in 46-55 (PDB format 3.3).
OperatorRow mtrix_row(const std::string& file, int line_number, std::string_view line) {
  const std::string record(line.substr(0, 6));
  const int row = line[5] - '0';
  const std::string serial(field(line, 7, 3));
  for (const auto& [first, what] : {std::pair{std::size_t(10), "its first element, columns 11-20"},
                                    {std::size_t(20), "its second element, columns 21-30"},
                                    {std::size_t(30), "its third element, columns 31-40"},
                                    {std::size_t(45), "its translation, columns 46-55"}})
    check_number(file, line_number, record, field(line, first, 10), what);
  return {row, serial, line_number};
}

// REMARK 350 BIOMTn: free columns after the record's name — the serial, three elements and
// the translation.
OperatorRow biomt_row(const std::string& file, int line_number, std::string_view line) {
  const std::vector<std::string_view> columns = text::split_columns(line.substr(10));
  const std::string record(columns.at(0));
  const int row = record[5] - '0';
  if (columns.size() < 6)
    throw Error(file, line_number, record,
                fmt::format("the row holds {} of its 5 values (the operator's number, three elements, the "
                            "translation)",
                            columns.size() - 1));
  check_number(file, line_number, record, columns[1], "the operator's number");
  const char* what[] = {"its first element", "its second element", "its third element", "its translation"};
  for (std::size_t k = 0; k < 4; ++k) check_number(file, line_number, record, columns[2 + k], what[k]);
  return {row, std::string(columns[1]), line_number};
}

bool is_row_record(std::string_view name, std::string_view prefix) {
  return name.size() == 6 && name.substr(0, 5) == prefix && name[5] >= '1' && name[5] <= '3';
}

}  // namespace

void check_pdb_operator_records(const std::string& file, std::string_view text) {
  OperatorRows mtrix(file, "MTRIX");
  std::optional<OperatorRows> biomt;  // of the current BIOMOLECULE
  bool mtrix_open = false, biomt_open = false;
  int line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const bool mtrix_row_here = line.size() >= 6 && is_row_record(line.substr(0, 6), "MTRIX");
    const bool remark_350 = line.starts_with("REMARK 350");
    const std::vector<std::string_view> remark_columns =
        remark_350 && line.size() > 10 ? text::split_columns(line.substr(10)) : std::vector<std::string_view>{};
    const bool biomt_row_here = !remark_columns.empty() && is_row_record(remark_columns[0], "BIOMT");
    if (mtrix_open && !mtrix_row_here) {
      mtrix.close(line_number);
      mtrix_open = false;
    }
    if (biomt_open && !biomt_row_here) {
      biomt->close(line_number);
      biomt_open = false;
    }
    if (mtrix_row_here) {
      mtrix.add(mtrix_row(file, line_number, line));
      mtrix_open = true;
    } else if (biomt_row_here) {
      if (!biomt) biomt.emplace(file, "BIOMT");
      biomt->add(biomt_row(file, line_number, line));
      biomt_open = true;
    } else if (!remark_columns.empty() && remark_columns[0] == "BIOMOLECULE:") {
      biomt.emplace(file, "BIOMT");
    }
  }
  if (mtrix_open) mtrix.close(0);
  if (biomt_open) biomt->close(0);
}

}  // namespace ermak
