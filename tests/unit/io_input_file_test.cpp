// Text input files (io/input_file.h): a device or directory is refused by name, and so are
// lines that end in a carriage return alone (old Mac OS), which every line reader would take
// for one long line — a fuzzing audit found them reported as "no [ atoms ] entries", "has 1
// atoms", a missing key, or a run.log silently without its facts. CRLF and LF are text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ermak/analysis/tsv_table.h"
#include "ermak/core/error.h"
#include "ermak/io/input_file.h"
#include "ermak/io/sopgpu_top.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

std::string error_of(const fs::path& file) {
  try {
    check_text_input_file(file, "topology");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(InputFile, CarriageReturnsAloneAreNamedWithTheirRemedy) {
  const auto dir = test::fresh_directory("input-file-cr");
  std::ofstream(dir / "lf.top") << "[ atoms ]\n0 CA 1 MET CA A 1.00 0.000\n";
  std::ofstream(dir / "crlf.top") << "[ atoms ]\r\n0 CA 1 MET CA A 1.00 0.000\r\n";
  std::ofstream(dir / "cr.top") << "[ atoms ]\r0 CA 1 MET CA A 1.00 0.000\r";
  std::ofstream(dir / "one.top") << "[ atoms ]\r";  // one line ended by CR: not the CR-only layout
  EXPECT_EQ(error_of(dir / "lf.top"), "");
  EXPECT_EQ(error_of(dir / "crlf.top"), "");
  EXPECT_EQ(error_of(dir / "one.top"), "");
  EXPECT_EQ(error_of(dir / "absent.top"), "") << "a missing file is the reader's to name";
  // Binary files with CR bytes and no LF (a small gzip, NUL bytes) are their readers' to name.
  std::ofstream(dir / "x.pdb.gz", std::ios::binary) << std::string("\x1f\x8b\x08\r\r\r", 6);
  std::ofstream(dir / "nul.top", std::ios::binary) << std::string("a\rb\r\0", 5);
  EXPECT_EQ(error_of(dir / "x.pdb.gz"), "");
  EXPECT_EQ(error_of(dir / "nul.top"), "");
  const std::string cr = error_of(dir / "cr.top");
  EXPECT_NE(cr.find("cr.top: topology: the file's lines end in a carriage return alone (CR, old Mac OS line "
                    "endings)"),
            std::string::npos)
      << cr;
  EXPECT_NE(cr.find("(tr '\\r' '\\n' < " + (dir / "cr.top").string() + " > " + (dir / "fixed-cr.top").string() + ")"),
            std::string::npos)
      << cr;
  EXPECT_NE(error_of(dir).find("is a directory, not a file to read"), std::string::npos) << error_of(dir);
  // The readers ask first: a .top and an analysis table.
  EXPECT_THROW(read_sopgpu_top(dir / "cr.top"), Error);
  std::ofstream(dir / "cr.tsv") << "# step\tQ\r0\t1\r10\t1\r";
  try {
    analysis::TsvTable::read(dir / "cr.tsv");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("carriage return alone"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ermak
