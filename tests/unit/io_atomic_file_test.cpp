// Files written whole or not at all (io/atomic_file.h): the new contents replace the old in
// one rename, a stale temporary left by a crash is replaced, and names that are no regular
// file — the target or its temporary — are refused with what they are.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/atomic_file.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of(const fs::path& p) {
  try {
    write_file_atomically(p, "new", "checkpoint");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AtomicFile, ReplacesTheFileAndAStaleTemporary) {
  const auto dir = test::fresh_directory("atomic-file");
  std::ofstream(dir / "c.ckpt") << "old";
  std::ofstream(dir / "c.ckpt.tmp") << "left by a crash";
  write_file_atomically(dir / "c.ckpt", "new", "checkpoint");
  EXPECT_EQ(contents(dir / "c.ckpt"), "new");
  EXPECT_FALSE(fs::exists(dir / "c.ckpt.tmp"));
}

// A directory at the temporary's name cannot be unlinked: it is named as a directory (an
// audit's got "cannot create checkpoint: File exists"), and the file keeps its contents.
TEST(AtomicFile, ADirectoryAtTheTemporarysNameIsNamed) {
  const auto dir = test::fresh_directory("atomic-file-tmpdir");
  std::ofstream(dir / "c.ckpt") << "old";
  fs::create_directory(dir / "c.ckpt.tmp");
  const std::string e = error_of(dir / "c.ckpt");
  EXPECT_NE(e.find("c.ckpt.tmp: cannot create checkpoint: a directory holds the name of its temporary file; remove it"),
            std::string::npos)
      << e;
  EXPECT_EQ(contents(dir / "c.ckpt"), "old");
  fs::create_directory(dir / "d.ckpt");
  EXPECT_NE(error_of(dir / "d.ckpt").find("d.ckpt: is not a regular file (a directory)"), std::string::npos)
      << error_of(dir / "d.ckpt");
}

}  // namespace
}  // namespace ermak
