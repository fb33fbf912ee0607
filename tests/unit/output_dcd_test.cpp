// io/dcd_writer: byte layout read back independently, resume (truncate + append) gives
// the same bytes as an uninterrupted run, existing files are not overwritten by accident.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/dcd_writer.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

std::vector<unsigned char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Little-endian readers written independently of the writer's helpers.
std::int32_t i32_at(const std::vector<unsigned char>& b, std::size_t at) {
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= std::uint32_t(b.at(at + k)) << (8 * k);
  return static_cast<std::int32_t>(v);
}
float f32_at(const std::vector<unsigned char>& b, std::size_t at) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(i32_at(b, at)));
}

// Deterministic coordinates for frame f, atom i, component c.
float coord(int f, int i, int c) { return 0.25f * float(i) - 3.5f * float(c) + 1.125f * float(f) + 0.001f * float(i * i); }

struct Frame {
  std::vector<float> x, y, z;
};
Frame make_frame(int f, int n) {
  Frame fr;
  for (int i = 0; i < n; ++i) {
    fr.x.push_back(coord(f, i, 0));
    fr.y.push_back(coord(f, i, 1));
    fr.z.push_back(coord(f, i, 2));
  }
  return fr;
}
void write(DcdWriter& w, int f, int n) {
  const Frame fr = make_frame(f, n);
  w.write_frame(fr.x.data(), fr.y.data(), fr.z.data());
}

TEST(OutputDcd, HeaderAndFrameByteLayout) {
  const auto dir = test::fresh_directory("output-dcd-layout");
  const auto path = dir / "t.dcd";
  const int n = 7;
  {
    DcdWriter w = DcdWriter::create(path, n, /*first_step=*/1000, /*stride=*/500,
                                    /*timestep_ps=*/0.5, /*overwrite=*/false);
    EXPECT_EQ(w.frames(), 0);
    for (int f = 0; f < 3; ++f) write(w, f, n);
    EXPECT_EQ(w.frames(), 3);
    EXPECT_EQ(w.bytes_written(), std::filesystem::file_size(path));
    w.sync();
  }
  const auto b = read_bytes(path);

  // Header record: 84, "CORD", ICNTRL[20], 84.
  ASSERT_GE(b.size(), 92u);
  EXPECT_EQ(i32_at(b, 0), 84);
  EXPECT_EQ(std::string(b.begin() + 4, b.begin() + 8), "CORD");
  const std::size_t ic = 8;
  EXPECT_EQ(i32_at(b, ic + 0), 3);                       // NSET
  EXPECT_EQ(i32_at(b, ic + 4), 1000);                    // ISTART
  EXPECT_EQ(i32_at(b, ic + 8), 500);                     // NSAVC
  EXPECT_EQ(i32_at(b, ic + 12), 1000 + 2 * 500);         // step of the last frame
  EXPECT_EQ(i32_at(b, ic + 32), 0);                      // NAMNF
  EXPECT_NEAR(f32_at(b, ic + 36), 0.5 / 0.04888821, 1e-4);  // DELTA, AKMA
  EXPECT_EQ(i32_at(b, ic + 40), 0);                      // no unit cell
  EXPECT_EQ(i32_at(b, ic + 76), 24);                     // CHARMM version
  EXPECT_EQ(i32_at(b, 88), 84);

  // Title record.
  const std::int32_t title_bytes = i32_at(b, 92);
  const std::int32_t lines = i32_at(b, 96);
  ASSERT_GE(lines, 1);
  EXPECT_EQ(title_bytes, 4 + 80 * lines);
  const std::string title(b.begin() + 100, b.begin() + 100 + 80 * lines);
  EXPECT_EQ(title.rfind("REMARKS", 0), 0u);
  EXPECT_NE(title.find("first_step=1000"), std::string::npos);
  EXPECT_EQ(i32_at(b, 96 + title_bytes), title_bytes);

  // NATOM record.
  const std::size_t natom_at = 100 + std::size_t(title_bytes);
  EXPECT_EQ(i32_at(b, natom_at), 4);
  EXPECT_EQ(i32_at(b, natom_at + 4), n);
  EXPECT_EQ(i32_at(b, natom_at + 8), 4);

  // Frames: X, Y, Z records of 4N bytes each, the floats bit-exact.
  std::size_t at = natom_at + 12;
  for (int f = 0; f < 3; ++f) {
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(i32_at(b, at), 4 * n);
      for (int i = 0; i < n; ++i) EXPECT_EQ(f32_at(b, at + 4 + 4 * i), coord(f, i, c));
      EXPECT_EQ(i32_at(b, at + 4 + 4 * n), 4 * n);
      at += 8 + 4 * std::size_t(n);
    }
  }
  EXPECT_EQ(at, b.size());
  EXPECT_EQ(DcdWriter::frame_bytes(n), 3u * (8 + 4 * n));
  EXPECT_EQ(natom_at + 12, 276u);  // docs/outputs.md quotes the header size
}

TEST(OutputDcd, HeaderCountsFramesAfterEveryFrame) {
  // A run that dies leaves a file whose NSET matches its frames without a close.
  const auto path = test::fresh_directory("output-dcd-live") / "t.dcd";
  DcdWriter w = DcdWriter::create(path, 3, 0, 10, 0.1, false);
  for (int f = 0; f < 4; ++f) {
    write(w, f, 3);
    const auto b = read_bytes(path);  // read while the writer is still open
    EXPECT_EQ(i32_at(b, 8), f + 1);
    EXPECT_EQ(i32_at(b, 20), 10 * f);
    EXPECT_EQ(b.size(), w.bytes_written());
  }
}

TEST(OutputDcd, AppendAfterTruncateEqualsUninterruptedWrite) {
  const auto dir = test::fresh_directory("output-dcd-append");
  const int n = 5;
  {
    DcdWriter w = DcdWriter::create(dir / "straight.dcd", n, 200, 100, 0.25, false);
    for (int f = 0; f < 6; ++f) write(w, f, n);
  }
  std::uint64_t checkpoint_offset = 0;
  {
    // The interrupted run: a checkpoint after frame 3, then two more frames before it dies.
    DcdWriter w = DcdWriter::create(dir / "resumed.dcd", n, 200, 100, 0.25, false);
    for (int f = 0; f < 3; ++f) write(w, f, n);
    w.flush();
    checkpoint_offset = w.bytes_written();
    write(w, 3, n);
    write(w, 99, n);  // would be a duplicate/garbage after the resume point
  }
  {
    DcdWriter w = DcdWriter::append(dir / "resumed.dcd", n, checkpoint_offset);
    EXPECT_EQ(w.frames(), 3);
    EXPECT_EQ(w.bytes_written(), checkpoint_offset);
    for (int f = 3; f < 6; ++f) write(w, f, n);
    EXPECT_EQ(w.frames(), 6);
  }
  EXPECT_EQ(read_bytes(dir / "straight.dcd"), read_bytes(dir / "resumed.dcd"));

  // Resuming at the very start (checkpoint before the first frame) works too.
  {
    DcdWriter w = DcdWriter::create(dir / "empty.dcd", n, 200, 100, 0.25, false);
    const std::uint64_t header = w.bytes_written();
    write(w, 7, n);
    w = DcdWriter::append(dir / "empty.dcd", n, header);
    EXPECT_EQ(w.frames(), 0);
    for (int f = 0; f < 6; ++f) write(w, f, n);
  }
  EXPECT_EQ(read_bytes(dir / "straight.dcd"), read_bytes(dir / "empty.dcd"));
}

TEST(OutputDcd, AppendRejectsBadOffsetsAndAtomCounts) {
  const auto dir = test::fresh_directory("output-dcd-append-errors");
  const auto path = dir / "t.dcd";
  std::uint64_t size = 0, header = 0;
  {
    DcdWriter w = DcdWriter::create(path, 4, 0, 1, 0.1, false);
    header = w.bytes_written();
    write(w, 0, 4);
    write(w, 1, 4);
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
  EXPECT_NE(message([&] { DcdWriter::append(path, 5, size); }).find("4 atoms"), std::string::npos);
  EXPECT_NE(message([&] { DcdWriter::append(path, 4, size - 1); }).find("frame boundary"),
            std::string::npos);
  EXPECT_NE(message([&] { DcdWriter::append(path, 4, header - 4); }).find("frame boundary"),
            std::string::npos);
  EXPECT_NE(message([&] { DcdWriter::append(path, 4, size + DcdWriter::frame_bytes(4)); })
                .find("shorter"),
            std::string::npos);
  // Nothing was cut by the failed attempts.
  EXPECT_EQ(std::filesystem::file_size(path), size);

  const auto not_dcd = dir / "not.dcd";
  std::ofstream(not_dcd) << "hello, this is not a trajectory at all, but long enough to be read "
                            "as a header by a careless reader..........................";
  EXPECT_THROW(DcdWriter::append(not_dcd, 4, 0), Error);
}

TEST(OutputDcd, RefusesToOverwriteUnlessAsked) {
  const auto path = test::fresh_directory("output-dcd-overwrite") / "t.dcd";
  std::ofstream(path) << "precious";
  try {
    DcdWriter::create(path, 2, 0, 1, 0.1, /*overwrite=*/false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("exists"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::filesystem::file_size(path), 8u);  // untouched
  DcdWriter w = DcdWriter::create(path, 2, 0, 1, 0.1, /*overwrite=*/true);
  EXPECT_EQ(std::filesystem::file_size(path), w.bytes_written());
}

TEST(OutputDcd, MoveKeepsTheFileOpen) {
  const auto path = test::fresh_directory("output-dcd-move") / "t.dcd";
  DcdWriter a = DcdWriter::create(path, 3, 0, 1, 0.1, false);
  write(a, 0, 3);
  DcdWriter b = std::move(a);
  write(b, 1, 3);
  std::vector<DcdWriter> many;
  many.push_back(std::move(b));
  write(many.back(), 2, 3);
  EXPECT_EQ(many.back().frames(), 3);
  EXPECT_EQ(std::filesystem::file_size(path), many.back().bytes_written());
}

TEST(OutputDcd, StepsBeyondInt32AreSaturatedInTheHeaderAndExactInTheTitle) {
  const auto path = test::fresh_directory("output-dcd-bigstep") / "t.dcd";
  const std::int64_t first = 5'000'000'000;
  {
    DcdWriter w = DcdWriter::create(path, 1, first, 1000, 0.1, false);
    write(w, 0, 1);
  }
  const auto b = read_bytes(path);
  EXPECT_EQ(i32_at(b, 12), 2147483647);
  const std::string title(b.begin() + 100, b.begin() + 100 + 80 * i32_at(b, 96));
  EXPECT_NE(title.find("first_step=5000000000"), std::string::npos) << title;
}

TEST(OutputDcd, FlushRefusesATrajectoryDeletedOrCutUnderTheWriter) {
  const auto dir = test::fresh_directory("output-dcd-gone");
  auto message = [](DcdWriter& w) -> std::string {
    try {
      w.flush();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  DcdWriter deleted = DcdWriter::create(dir / "deleted.dcd", 3, 0, 10, 0.1, false);
  write(deleted, 0, 3);
  EXPECT_EQ(message(deleted), "no error");
  std::filesystem::remove(dir / "deleted.dcd");
  EXPECT_NE(message(deleted).find("deleted.dcd: was deleted while this run wrote it"), std::string::npos);
  DcdWriter cut = DcdWriter::create(dir / "cut.dcd", 3, 0, 10, 0.1, false);
  write(cut, 0, 3);
  std::filesystem::resize_file(dir / "cut.dcd", 100);
  EXPECT_NE(message(cut).find("cut.dcd: was cut to 100 bytes while this run had written"), std::string::npos);
  // The next frame would go to its offset past a hole of zeros: refused before it is written.
  try {
    write(cut, 1, 3);
    ADD_FAILURE() << "a frame was written into a cut DCD";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cut.dcd: was cut to 100 bytes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::filesystem::file_size(dir / "cut.dcd"), 100u);
}

std::size_t open_descriptors() {
  return std::size_t(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                   std::filesystem::directory_iterator()));
}

// A run whose files exceed the open-file limit (docs/outputs.md#how-many-files-a-run-keeps-open):
// frames gather up to 8 KiB (at least one) with no descriptor held, the header counts the
// frames in the file after each write-out, and the file ends with the bytes of a writer
// that kept it open — also resumed, with frames the interrupted run wrote after its checkpoint.
TEST(OutputDcd, OpenedToWriteOutHoldsNoDescriptorAndWritesTheSameBytes) {
  const auto dir = test::fresh_directory("output-dcd-reopened");
  const int n = 34;  // 432 bytes a frame: 18 gather below 8 KiB, the 19th writes them out
  const std::size_t before = open_descriptors();
  DcdWriter kept = DcdWriter::create(dir / "kept.dcd", n, 0, 100, 0.25, false);
  DcdWriter reopened = DcdWriter::create(dir / "reopened.dcd", n, 0, 100, 0.25, false, FileHolding::kOpenedToWriteOut);
  EXPECT_EQ(open_descriptors(), before + 1);
  const std::uint64_t header = reopened.bytes_written();
  EXPECT_EQ(std::filesystem::file_size(dir / "reopened.dcd"), header);
  for (int f = 0; f < 18; ++f) {
    write(kept, f, n);
    write(reopened, f, n);
  }
  EXPECT_EQ(reopened.frames(), 18);
  EXPECT_EQ(std::filesystem::file_size(dir / "reopened.dcd"), header);
  EXPECT_EQ(i32_at(read_bytes(dir / "reopened.dcd"), 8), 0) << "the header counts the frames in the file";
  write(kept, 18, n);
  write(reopened, 18, n);
  EXPECT_EQ(std::filesystem::file_size(dir / "reopened.dcd"), reopened.bytes_written());
  EXPECT_EQ(read_bytes(dir / "reopened.dcd"), read_bytes(dir / "kept.dcd"));
  for (int f = 19; f < 23; ++f) {
    write(kept, f, n);
    write(reopened, f, n);
  }
  EXPECT_EQ(i32_at(read_bytes(dir / "reopened.dcd"), 8), 19);
  reopened.flush();
  EXPECT_EQ(read_bytes(dir / "reopened.dcd"), read_bytes(dir / "kept.dcd"));
  EXPECT_EQ(open_descriptors(), before + 1);

  const std::uint64_t offset = reopened.bytes_written();
  write(reopened, 99, n);
  reopened.flush();
  reopened = DcdWriter::open_to_continue(dir / "reopened.dcd", n, offset, FileHolding::kOpenedToWriteOut);
  EXPECT_EQ(open_descriptors(), before + 1);
  reopened.cut_to_continue();
  EXPECT_EQ(reopened.frames(), 23);
  for (int f = 23; f < 30; ++f) {
    write(kept, f, n);
    write(reopened, f, n);
  }
  reopened = DcdWriter::create(dir / "other.dcd", n, 0, 100, 0.25, false, FileHolding::kOpenedToWriteOut);  // writes out
  EXPECT_EQ(read_bytes(dir / "reopened.dcd"), read_bytes(dir / "kept.dcd"));
  EXPECT_EQ(i32_at(read_bytes(dir / "reopened.dcd"), 8), 30);

  // Larger than 8 KiB, a frame goes out as it comes.
  DcdWriter large = DcdWriter::create(dir / "large.dcd", 1000, 0, 100, 0.25, false, FileHolding::kOpenedToWriteOut);
  write(large, 0, 1000);
  EXPECT_EQ(std::filesystem::file_size(dir / "large.dcd"), large.bytes_written());
}

TEST(OutputDcd, OpenedToWriteOutRefusesATrajectoryDeletedCutOrReplaced) {
  const auto dir = test::fresh_directory("output-dcd-reopened-gone");
  auto message = [](DcdWriter& w) -> std::string {
    try {
      w.flush();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  auto make = [&](const std::string& name) {
    DcdWriter w = DcdWriter::create(dir / name, 3, 0, 10, 0.1, false, FileHolding::kOpenedToWriteOut);
    write(w, 0, 3);
    EXPECT_EQ(message(w), "no error");
    write(w, 1, 3);
    return w;
  };
  DcdWriter deleted = make("deleted.dcd");
  std::filesystem::remove(dir / "deleted.dcd");
  EXPECT_NE(message(deleted).find("deleted.dcd: was deleted or moved away while this run wrote it"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "deleted.dcd")) << "not created again";
  DcdWriter cut = make("cut.dcd");
  std::filesystem::resize_file(dir / "cut.dcd", 100);
  EXPECT_NE(message(cut).find("cut.dcd: was cut to 100 bytes"), std::string::npos);
  EXPECT_EQ(std::filesystem::file_size(dir / "cut.dcd"), 100u) << "no frame past a hole";
  DcdWriter replaced = make("replaced.dcd");
  std::filesystem::copy_file(dir / "replaced.dcd", dir / "copy.dcd");
  std::filesystem::rename(dir / "copy.dcd", dir / "replaced.dcd");
  EXPECT_NE(message(replaced).find("replaced.dcd: was replaced by another file while this run wrote it"),
            std::string::npos);
  // Changed in place by another program (the same inode: an inode freed by a deletion may
  // be reused for the next new file): its modification time says so.
  DcdWriter changed = make("changed.dcd");
  {
    std::ofstream other(dir / "changed.dcd", std::ios::binary | std::ios::app);
    other << "another program's line\n";
  }
  std::filesystem::last_write_time(dir / "changed.dcd",
                                   std::filesystem::last_write_time(dir / "changed.dcd") - std::chrono::hours(1));
  EXPECT_NE(message(changed).find("changed.dcd: was replaced or changed by another program while this run wrote it"),
            std::string::npos);
}

}  // namespace
}  // namespace ermak
