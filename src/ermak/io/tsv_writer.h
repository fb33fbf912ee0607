#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "ermak/io/file_holding.h"
#include "ermak/io/gathered_lines.h"
#include "ermak/io/held_output_file.h"

namespace ermak {

// A time-series table (docs/outputs.md#tsv-time-series): one header line "# " + tab-separated column
// names, each carrying its unit in brackets ("time[ns]", "force[pN]"; the caller names
// them), then one line per row, values tab-separated, printed like printf "%.8g" — a time
// column ("time[ns]") "%.12g" — (integers such as the step count exactly, without exponent). Loads with
// numpy.loadtxt, pandas.read_csv(sep="\t", comment=...), gnuplot, awk.
//
// Rows are buffered and reach the file when 64 KiB have gathered or when the previous
// write-out is more than a second old, so a watcher (tail -f) lags at most about a
// second behind a busy writer and a slow one reaches the file row by row. A writer
// opened only to write out (FileHolding::kOpenedToWriteOut) holds no descriptor between
// write-outs, which come when kOpenedToWriteOutBytes have gathered and at flush().
class TsvWriter {
 public:
  // Starts a new file and writes the header. Throws ermak::Error if the file exists and
  // !overwrite, if there are no columns, or if a name holds a tab or a line break.
  static TsvWriter create(const std::filesystem::path& path, std::vector<std::string> columns,
                          bool overwrite, FileHolding holding = FileHolding::kKeptOpen);

  // Reopens a file for a resumed run: reads its header (and, when expected_columns is
  // not empty, checks it names exactly those columns), cuts the file to
  // truncate_to_bytes — the bytes_written() recorded in the checkpoint, which must end
  // a line and not lie beyond the end of the file — and continues from there.
  static TsvWriter append(const std::filesystem::path& path, std::uint64_t truncate_to_bytes,
                          const std::vector<std::string>& expected_columns = {},
                          FileHolding holding = FileHolding::kKeptOpen);
  // append() in two steps, for a run that checks all its files before cutting any: the
  // same checks, without cutting; then cut_to_continue() cuts the file to the offset and
  // continues there (rows may be written only after it).
  static TsvWriter open_to_continue(const std::filesystem::path& path, std::uint64_t truncate_to_bytes,
                                    const std::vector<std::string>& expected_columns = {},
                                    FileHolding holding = FileHolding::kKeptOpen);
  void cut_to_continue();
  // What cut_to_continue() cuts: the bytes the file holds beyond the offset.
  std::uint64_t bytes_to_cut() const { return file_.bytes_to_cut(); }

  TsvWriter(TsvWriter&& other) noexcept;
  TsvWriter& operator=(TsvWriter&& other) noexcept;
  TsvWriter(const TsvWriter&) = delete;
  TsvWriter& operator=(const TsvWriter&) = delete;
  ~TsvWriter();  // writes out buffered rows (errors there cannot be reported)

  // One row: exactly columns().size() values, each printed with %.8g (a time column %.12g).
  void row(std::span<const double> values);
  // One row whose first column is an integer (the step), printed exactly.
  void row(std::int64_t step, std::span<const double> rest);

  // Size of the file once buffered rows are written out: the resume offset to record in
  // a checkpoint, after flush().
  std::uint64_t bytes_written() const { return file_.size() + lines_.size(); }
  // Hands buffered rows to the OS, so that the file holds bytes_written() bytes for other
  // processes and survives a crash of this one. Call before recording bytes_written() in
  // a checkpoint.
  void flush();
  // flush() and make the file durable against an OS crash or power loss (fdatasync).
  // That costs milliseconds per file; for many files at once, write_checkpoint_atomically
  // syncs the whole filesystem in one call instead.
  void sync();

  const std::vector<std::string>& columns() const { return columns_; }
  const std::filesystem::path& path() const { return file_.path(); }
  FileHolding holding() const { return file_.holding(); }

 private:
  TsvWriter() = default;
  void end_row(std::string& buffer);

  HeldOutputFile file_;
  std::vector<std::string> columns_;
  std::vector<int> digits_;  // significant digits per column, set with the columns
  GatheredLines lines_;      // rows not yet written out
};

}  // namespace ermak
