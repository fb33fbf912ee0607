// io/tsv_writer: header and number formatting, resume by truncate + append, refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/tsv_writer.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string printf_g8(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

const std::vector<std::string> kColumns = {"step", "time[ns]", "energy[kcal/mol]"};

void write_row(TsvWriter& w, int k) {
  const double rest[] = {0.125 * k, -12.3456789 + k};
  w.row(std::int64_t(1000) * k, rest);
}

TEST(OutputTsv, HeaderAndRowsFormattedLikePrintf) {
  const auto path = test::fresh_directory("output-tsv-format") / "series.tsv";
  {
    TsvWriter w = TsvWriter::create(path, kColumns, false);
    EXPECT_EQ(w.columns(), kColumns);
    const double rest[] = {1.5e-5, -12.3456789};
    w.row(123456789012345, rest);
    const double all[] = {1e22, 0.1, std::numeric_limits<double>::quiet_NaN()};
    w.row(all);
    w.flush();
    EXPECT_EQ(w.bytes_written(), std::filesystem::file_size(path));
  }
  EXPECT_EQ(read_text(path),
            "# step\ttime[ns]\tenergy[kcal/mol]\n"
            "123456789012345\t1.5e-05\t-12.345679\n"
            "1e+22\t0.1\tnan\n");
  // The formatting is printf's %.8g for ordinary values; a negative zero is written "0".
  const double values[] = {0.0,  -0.0,    1.0,        1.0 / 3.0, 123456789.0, 1e-300,
                           1e300, 2.5e-7, 99999999.5, -4.2e15,   6.02214076e23};
  const auto path2 = test::fresh_directory("output-tsv-printf") / "v.tsv";
  {
    TsvWriter w = TsvWriter::create(path2, {"v[1]"}, false);
    for (double v : values) w.row(std::span<const double>(&v, 1));
  }
  std::string expected = "# v[1]\n";
  for (double v : values) expected += printf_g8(v == 0.0 ? 0.0 : v) + "\n";
  EXPECT_EQ(read_text(path2), expected);
}

TEST(OutputTsv, BufferedRowsReachTheFileOnFlushMoveAndDestruction) {
  const auto dir = test::fresh_directory("output-tsv-buffer");
  const auto path = dir / "s.tsv";
  {
    TsvWriter w = TsvWriter::create(path, kColumns, false);
    for (int k = 0; k < 10; ++k) write_row(w, k);
    EXPECT_LE(std::filesystem::file_size(path), w.bytes_written());
    w.flush();
    const std::string text = read_text(path);
    EXPECT_EQ(text.size(), w.bytes_written());
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 11);
    write_row(w, 10);
    w.sync();
    EXPECT_EQ(std::filesystem::file_size(path), w.bytes_written());

    // Moving a writer moves its buffered rows with it; none is lost or written twice.
    write_row(w, 11);
    std::vector<TsvWriter> writers;
    writers.push_back(std::move(w));
    write_row(writers.back(), 12);
  }  // destruction writes out the rest
  const std::string text = read_text(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 14);
  {
    const auto path2 = dir / "t.tsv";
    {
      TsvWriter w = TsvWriter::create(path2, kColumns, false);
      for (int k = 0; k < 13; ++k) write_row(w, k);
    }
    EXPECT_EQ(read_text(path2), text);
  }
}

TEST(OutputTsv, AppendAfterTruncateEqualsUninterruptedWrite) {
  const auto dir = test::fresh_directory("output-tsv-append");
  {
    TsvWriter w = TsvWriter::create(dir / "straight.tsv", kColumns, false);
    for (int k = 0; k < 8; ++k) write_row(w, k);
  }
  std::uint64_t offset = 0;
  {
    TsvWriter w = TsvWriter::create(dir / "resumed.tsv", kColumns, false);
    for (int k = 0; k < 5; ++k) write_row(w, k);
    w.flush();
    offset = w.bytes_written();
    write_row(w, 5);
    write_row(w, 42);  // rows after the checkpoint, to be discarded
  }
  {
    TsvWriter w = TsvWriter::append(dir / "resumed.tsv", offset, kColumns);
    EXPECT_EQ(w.columns(), kColumns);
    EXPECT_EQ(w.bytes_written(), offset);
    for (int k = 5; k < 8; ++k) write_row(w, k);
  }
  EXPECT_EQ(read_text(dir / "straight.tsv"), read_text(dir / "resumed.tsv"));

  // Without expected columns the header is still read back.
  TsvWriter w = TsvWriter::append(dir / "resumed.tsv", offset);
  EXPECT_EQ(w.columns(), kColumns);
}

TEST(OutputTsv, AppendRejectsWrongHeaderAndOffsets) {
  const auto dir = test::fresh_directory("output-tsv-append-errors");
  const auto path = dir / "s.tsv";
  std::uint64_t size = 0;
  {
    TsvWriter w = TsvWriter::create(path, kColumns, false);
    write_row(w, 1);
    write_row(w, 2);
    w.flush();
    size = w.bytes_written();
  }
  auto message = [&](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), path.string());
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return {};
  };
  const std::vector<std::string> other = {"step", "time[ps]", "energy[kcal/mol]"};
  EXPECT_NE(message([&] { TsvWriter::append(path, size, other); }).find("does not match"),
            std::string::npos);
  EXPECT_NE(message([&] { TsvWriter::append(path, size - 3, kColumns); }).find("end of a line"),
            std::string::npos);
  EXPECT_NE(message([&] { TsvWriter::append(path, size + 10, kColumns); }).find("shorter"),
            std::string::npos);
  EXPECT_NE(message([&] { TsvWriter::append(path, 4, kColumns); }).find("header"),
            std::string::npos);
  EXPECT_EQ(std::filesystem::file_size(path), size);  // failed attempts cut nothing

  // A header edited shorter leaves the file shorter than the checkpoint's offset: the
  // header, not "lost data", is named.
  const std::string text = read_text(path);
  const auto edited = dir / "edited.tsv";
  std::ofstream(edited, std::ios::binary) << "# step\ttime\tenergy\n" << text.substr(text.find('\n') + 1);
  try {
    TsvWriter::append(edited, size, kColumns);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("table header 'step\ttime\tenergy' does not match"), std::string::npos)
        << e.what();
  }

  // Truncating right after the header keeps only the header.
  {
    TsvWriter w = TsvWriter::append(path, std::string("# step\ttime[ns]\tenergy[kcal/mol]\n").size());
  }
  EXPECT_EQ(read_text(path), "# step\ttime[ns]\tenergy[kcal/mol]\n");
}

TEST(OutputTsv, RefusesToOverwriteAndBadColumns) {
  const auto dir = test::fresh_directory("output-tsv-refuse");
  const auto path = dir / "s.tsv";
  std::ofstream(path) << "precious\n";
  try {
    TsvWriter::create(path, kColumns, false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path.string());
    EXPECT_NE(std::string(e.what()).find("exists"), std::string::npos);
  }
  EXPECT_EQ(read_text(path), "precious\n");
  { TsvWriter w = TsvWriter::create(path, kColumns, true); }
  EXPECT_EQ(read_text(path), "# step\ttime[ns]\tenergy[kcal/mol]\n");

  EXPECT_THROW(TsvWriter::create(dir / "a.tsv", {}, false), Error);
  EXPECT_THROW(TsvWriter::create(dir / "b.tsv", {"time\t[ns]"}, false), Error);
  TsvWriter w = TsvWriter::create(dir / "c.tsv", kColumns, false);
  const double two[] = {1.0, 2.0};
  EXPECT_THROW(w.row(two), Error);             // 2 values for 3 columns
  EXPECT_THROW(w.row(1, std::span<const double>(two, 1)), Error);
}

// A table deleted or cut under a running run: flush(), which a checkpoint calls before it
// records the sizes, says so instead of letting the checkpoint count lost rows.
TEST(OutputTsv, FlushRefusesATableDeletedOrCutUnderTheWriter) {
  const auto dir = test::fresh_directory("output-tsv-gone");
  auto message = [](TsvWriter& w) -> std::string {
    try {
      w.flush();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  TsvWriter deleted = TsvWriter::create(dir / "deleted.tsv", kColumns, false);
  write_row(deleted, 1);
  deleted.flush();
  std::filesystem::remove(dir / "deleted.tsv");
  write_row(deleted, 2);
  EXPECT_NE(message(deleted).find("deleted.tsv: was deleted while this run wrote it"), std::string::npos);
  TsvWriter cut = TsvWriter::create(dir / "cut.tsv", kColumns, false);
  write_row(cut, 1);
  cut.flush();
  std::filesystem::resize_file(dir / "cut.tsv", 10);
  // Rows written after the cut (a run goes on writing until its next checkpoint) land at the
  // cut, not past a hole of zeros that would give the file its old size back.
  write_row(cut, 2);
  const std::string said = message(cut);
  EXPECT_NE(said.find("cut.tsv: was cut to "), std::string::npos) << said;
  EXPECT_EQ(read_text(dir / "cut.tsv").find('\0'), std::string::npos);
  // /dev/null (an output one does not want) has no size to check.
  TsvWriter discarded = TsvWriter::create("/dev/null", kColumns, true);
  write_row(discarded, 1);
  EXPECT_EQ(message(discarded), "no error");
  TsvWriter kept = TsvWriter::create(dir / "kept.tsv", kColumns, false);
  write_row(kept, 1);
  EXPECT_EQ(message(kept), "no error");
}

// Descriptors this process has open (the listing's own one included, the same every time).
std::size_t open_descriptors() {
  return std::size_t(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                   std::filesystem::directory_iterator()));
}

// A run whose files exceed the open-file limit (docs/outputs.md#how-many-files-a-run-keeps-open):
// the writer holds no descriptor between write-outs, writes out when 8 KiB have gathered and
// at flush(), and its file ends with the bytes of a writer that kept it open — also resumed.
TEST(OutputTsv, OpenedToWriteOutHoldsNoDescriptorAndWritesTheSameBytes) {
  const auto dir = test::fresh_directory("output-tsv-reopened");
  const std::size_t before = open_descriptors();
  TsvWriter kept = TsvWriter::create(dir / "kept.tsv", kColumns, false);
  EXPECT_EQ(open_descriptors(), before + 1);
  TsvWriter reopened = TsvWriter::create(dir / "reopened.tsv", kColumns, false, FileHolding::kOpenedToWriteOut);
  EXPECT_EQ(open_descriptors(), before + 1);
  const std::uint64_t header = std::filesystem::file_size(dir / "reopened.tsv");
  int k = 0;
  while (reopened.bytes_written() + 64 < header + kOpenedToWriteOutBytes) {  // a row is < 64 bytes
    write_row(kept, k);
    write_row(reopened, k++);
  }
  EXPECT_EQ(std::filesystem::file_size(dir / "reopened.tsv"), header) << "rows gather below 8 KiB";
  while (std::filesystem::file_size(dir / "reopened.tsv") == header) {
    write_row(kept, k);
    write_row(reopened, k++);
    ASSERT_LT(reopened.bytes_written(), header + kOpenedToWriteOutBytes + 64);
  }
  EXPECT_EQ(std::filesystem::file_size(dir / "reopened.tsv"), reopened.bytes_written());
  write_row(kept, k);
  write_row(reopened, k++);
  EXPECT_LT(std::filesystem::file_size(dir / "reopened.tsv"), reopened.bytes_written());
  reopened.flush();
  kept.flush();
  EXPECT_EQ(std::filesystem::file_size(dir / "reopened.tsv"), reopened.bytes_written());
  EXPECT_EQ(read_text(dir / "reopened.tsv"), read_text(dir / "kept.tsv"));
  EXPECT_EQ(open_descriptors(), before + 1);

  // Resumed from a checkpoint's offset, with rows the interrupted run wrote after it.
  const std::uint64_t offset = reopened.bytes_written();
  for (int extra = 0; extra < 3; ++extra) write_row(reopened, 1000 + extra);
  reopened.flush();
  EXPECT_GT(std::filesystem::file_size(dir / "reopened.tsv"), offset);
  reopened = TsvWriter::open_to_continue(dir / "reopened.tsv", offset, kColumns, FileHolding::kOpenedToWriteOut);
  EXPECT_EQ(open_descriptors(), before + 1);
  reopened.cut_to_continue();
  EXPECT_EQ(std::filesystem::file_size(dir / "reopened.tsv"), offset);
  for (int more = 0; more < 5; ++more) {
    write_row(kept, k);
    write_row(reopened, k++);
  }
  EXPECT_EQ(open_descriptors(), before + 1);
  reopened = TsvWriter::create(dir / "other.tsv", kColumns, false, FileHolding::kOpenedToWriteOut);  // destroys: writes out
  kept.flush();
  EXPECT_EQ(read_text(dir / "reopened.tsv"), read_text(dir / "kept.tsv"));
}

// Deleted, cut, or replaced by another file between write-outs: flush() says so.
TEST(OutputTsv, OpenedToWriteOutRefusesATableDeletedCutOrReplaced) {
  const auto dir = test::fresh_directory("output-tsv-reopened-gone");
  auto message = [](TsvWriter& w) -> std::string {
    try {
      w.flush();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  auto make = [&](const std::string& name) {
    TsvWriter w = TsvWriter::create(dir / name, kColumns, false, FileHolding::kOpenedToWriteOut);
    write_row(w, 1);
    EXPECT_EQ(message(w), "no error");
    write_row(w, 2);
    return w;
  };
  TsvWriter deleted = make("deleted.tsv");
  std::filesystem::remove(dir / "deleted.tsv");
  EXPECT_NE(message(deleted).find("deleted.tsv: was deleted or moved away while this run wrote it"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "deleted.tsv")) << "not created again";
  TsvWriter cut = make("cut.tsv");
  std::filesystem::resize_file(dir / "cut.tsv", 10);
  EXPECT_NE(message(cut).find("cut.tsv: was cut to 10 bytes"), std::string::npos);
  EXPECT_EQ(std::filesystem::file_size(dir / "cut.tsv"), 10u) << "nothing written after the cut";
  TsvWriter replaced = make("replaced.tsv");
  std::filesystem::copy_file(dir / "replaced.tsv", dir / "copy.tsv");
  std::filesystem::rename(dir / "copy.tsv", dir / "replaced.tsv");
  EXPECT_NE(message(replaced).find("replaced.tsv: was replaced by another file while this run wrote it"),
            std::string::npos);
  // Changed in place by another program (the same inode: an inode freed by a deletion may
  // be reused for the next new file): its modification time says so.
  TsvWriter changed = make("changed.tsv");
  {
    std::ofstream other(dir / "changed.tsv", std::ios::binary | std::ios::app);
    other << "another program's line\n";
  }
  std::filesystem::last_write_time(dir / "changed.tsv",
                                   std::filesystem::last_write_time(dir / "changed.tsv") - std::chrono::hours(1));
  EXPECT_NE(message(changed).find("changed.tsv: was replaced or changed by another program while this run wrote it"),
            std::string::npos);
}

}  // namespace
}  // namespace ermak
