// io/dcd_reader: what DcdWriter writes reads back exactly (frames, steps, time step), a file
// cut mid-frame gives its whole frames and says how many bytes trail them, and files that are
// no DCD, or DCDs of a kind it does not read, are refused naming the file and what is unsupported.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/dcd_reader.h"
#include "ermak/io/dcd_writer.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

// Deterministic coordinates for frame f, atom i, component c: not round numbers, so that an
// exact comparison checks every bit.
float coord(int f, int i, int c) { return 0.1f * float(i) - 3.3f * float(c) + 1.7f * float(f) + 0.001f * float(i * i); }

fs::path write_dcd(const fs::path& path, int atoms, int frames, std::int64_t first_step, std::int64_t stride) {
  DcdWriter w = DcdWriter::create(path, atoms, first_step, stride, 19.84, /*overwrite=*/true);
  for (int f = 0; f < frames; ++f) {
    std::vector<float> x(atoms), y(atoms), z(atoms);
    for (int i = 0; i < atoms; ++i) {
      x[i] = coord(f, i, 0);
      y[i] = coord(f, i, 1);
      z[i] = coord(f, i, 2);
    }
    w.write_frame(x.data(), y.data(), z.data());
  }
  w.flush();
  return path;
}

std::string refusal(const fs::path& path) {
  try {
    DcdReader::open(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void poke_i32(const fs::path& path, std::size_t at, std::int32_t value) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  unsigned char b[4] = {static_cast<unsigned char>(value), static_cast<unsigned char>(value >> 8),
                        static_cast<unsigned char>(value >> 16), static_cast<unsigned char>(value >> 24)};
  f.seekp(std::streamoff(at));
  f.write(reinterpret_cast<const char*>(b), 4);
}

TEST(DcdReader, ReadsBackWhatTheWriterWrote) {
  const fs::path dir = test::fresh_directory("dcd-reader-round-trip");
  const fs::path path = write_dcd(dir / "t.dcd", 7, 5, 1000, 250);
  DcdReader r = DcdReader::open(path);
  EXPECT_EQ(r.atoms(), 7);
  EXPECT_EQ(r.frames(), 5);
  EXPECT_EQ(r.header_frames(), 5);
  EXPECT_EQ(r.first_step(), 1000);
  EXPECT_EQ(r.steps_between_frames(), 250);
  EXPECT_EQ(r.step_of_frame(4), 2000);
  EXPECT_DOUBLE_EQ(r.timestep_ps(), 19.84);  // the title's exact value, not DELTA's float32
  EXPECT_EQ(r.trailing_bytes(), 0u);
  std::vector<float> x, y, z;
  int f = 0;
  while (r.next_frame(x, y, z)) {
    ASSERT_EQ(x.size(), 7u);
    for (int i = 0; i < 7; ++i) {
      EXPECT_EQ(x[i], coord(f, i, 0)) << "frame " << f << " atom " << i;
      EXPECT_EQ(y[i], coord(f, i, 1));
      EXPECT_EQ(z[i], coord(f, i, 2));
    }
    ++f;
  }
  EXPECT_EQ(f, 5);
  EXPECT_FALSE(r.next_frame(x, y, z));
}

TEST(DcdReader, StepsBeyondInt32ComeFromTheTitle) {
  const fs::path dir = test::fresh_directory("dcd-reader-long");
  const std::int64_t stride = 3'000'000'000LL;  // saturated in the header's NSAVC
  DcdReader r = DcdReader::open(write_dcd(dir / "t.dcd", 2, 2, 0, stride));
  EXPECT_EQ(r.steps_between_frames(), stride);
  EXPECT_EQ(r.step_of_frame(1), stride);
}

TEST(DcdReader, AFileCutMidFrameGivesItsWholeFrames) {
  const fs::path dir = test::fresh_directory("dcd-reader-cut");
  const fs::path path = write_dcd(dir / "t.dcd", 4, 3, 0, 10);
  const std::uint64_t frame = DcdWriter::frame_bytes(4);
  fs::resize_file(path, fs::file_size(path) - 10);  // the last frame loses its last 10 bytes
  DcdReader r = DcdReader::open(path);
  EXPECT_EQ(r.frames(), 2);
  EXPECT_EQ(r.header_frames(), 3);  // what the header said before the cut
  EXPECT_EQ(r.trailing_bytes(), frame - 10);
  std::vector<float> x, y, z;
  ASSERT_TRUE(r.next_frame(x, y, z));
  ASSERT_TRUE(r.next_frame(x, y, z));
  EXPECT_EQ(z[3], coord(1, 3, 2));
  EXPECT_FALSE(r.next_frame(x, y, z));
}

TEST(DcdReader, RefusesWhatIsNoPlainDcdNamingTheFile) {
  const fs::path dir = test::fresh_directory("dcd-reader-refusals");
  {
    std::ofstream(dir / "notes.txt") << "this is a text file, not a trajectory, but long enough to hold a header........"
                                        "..................................................................\n";
  }
  std::string why = refusal(dir / "notes.txt");
  EXPECT_NE(why.find((dir / "notes.txt").string()), std::string::npos) << why;
  EXPECT_NE(why.find("not a DCD file"), std::string::npos) << why;

  { std::ofstream(dir / "tiny.dcd") << "CORD"; }
  why = refusal(dir / "tiny.dcd");
  EXPECT_NE(why.find((dir / "tiny.dcd").string()), std::string::npos) << why;
  EXPECT_NE(why.find("shorter than a DCD header"), std::string::npos) << why;

  // Control words: 8 + 4·k is ICNTRL[k] (docs/outputs.md#dcd).
  const fs::path cell = write_dcd(dir / "cell.dcd", 3, 1, 0, 1);
  poke_i32(cell, 8 + 4 * 10, 1);
  why = refusal(cell);
  EXPECT_NE(why.find(cell.string()), std::string::npos) << why;
  EXPECT_NE(why.find("unit cell records are not supported"), std::string::npos) << why;

  const fs::path fixed = write_dcd(dir / "fixed.dcd", 3, 1, 0, 1);
  poke_i32(fixed, 8 + 4 * 8, 2);
  why = refusal(fixed);
  EXPECT_NE(why.find("fixed atoms (NAMNF = 2) are not supported"), std::string::npos) << why;

  const fs::path big = write_dcd(dir / "big.dcd", 3, 1, 0, 1);
  poke_i32(big, 0, 0x54000000);  // 84 in the other byte order
  why = refusal(big);
  EXPECT_NE(why.find("big-endian DCD files are not supported"), std::string::npos) << why;

  why = refusal(dir / "absent.dcd");
  EXPECT_NE(why.find((dir / "absent.dcd").string()), std::string::npos) << why;
  EXPECT_NE(why.find("cannot open DCD file"), std::string::npos) << why;
}

TEST(DcdReader, XplorFilesAreReadAndFourDimensionalOnesRefused) {
  const fs::path dir = test::fresh_directory("dcd-reader-kinds");
  // X-PLOR: version word 0, DELTA a double over words 9 and 10 (no unit cell flag there).
  const fs::path xplor = write_dcd(dir / "xplor.dcd", 3, 2, 0, 5);
  poke_i32(xplor, 8 + 4 * 19, 0);
  poke_i32(xplor, 8 + 4 * 10, 0x40340000);  // the high word of the double 20.0
  DcdReader r = DcdReader::open(xplor);
  EXPECT_EQ(r.frames(), 2);
  EXPECT_EQ(r.steps_between_frames(), 5);
  const fs::path four = write_dcd(dir / "four.dcd", 3, 1, 0, 1);
  poke_i32(four, 8 + 4 * 11, 1);
  const std::string why = refusal(four);
  EXPECT_NE(why.find(four.string()), std::string::npos) << why;
  EXPECT_NE(why.find("four-dimensional DCD files are not supported"), std::string::npos) << why;
}

TEST(DcdReader, ACorruptFrameIsNamed) {
  const fs::path dir = test::fresh_directory("dcd-reader-corrupt");
  const fs::path path = write_dcd(dir / "t.dcd", 2, 2, 0, 1);
  const std::uint64_t header = fs::file_size(path) - 2 * DcdWriter::frame_bytes(2);
  poke_i32(path, std::size_t(header + DcdWriter::frame_bytes(2)), 99);  // frame 1's X record marker
  DcdReader r = DcdReader::open(path);
  std::vector<float> x, y, z;
  EXPECT_TRUE(r.next_frame(x, y, z));
  try {
    r.next_frame(x, y, z);
    FAIL() << "a corrupt frame was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("corrupt DCD frame 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ermak
