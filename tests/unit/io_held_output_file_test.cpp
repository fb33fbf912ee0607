// io/held_output_file: a write-out that fails part way (a full disk, a file-size limit) cuts
// the file back to its last whole size, for both placements and both holdings.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/held_output_file.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

// A file-size limit for this process while it lives: write() then fails with EFBIG (SIGXFSZ
// ignored, as ermak's main does) after writing what still fits.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = SIG_DFL;
};

TEST(HeldOutputFile, AWriteOutThatFailsPartWayCutsTheFileBackToItsLastWholeSize) {
  const auto dir = test::fresh_directory("io-held-output-file-cut-back");
  const std::string header = "header\n";
  const std::vector<char> rows(100, 'x');
  int k = 0;
  for (const OutputPlacement placement : {OutputPlacement::kAppended, OutputPlacement::kAtOffset}) {
    for (const FileHolding holding : {FileHolding::kKeptOpen, FileHolding::kOpenedToWriteOut}) {
      SCOPED_TRACE(k);
      const auto path = dir / ("f" + std::to_string(k++));
      HeldOutputFile file =
          HeldOutputFile::create(path, false, holding, placement, "test file", std::as_bytes(std::span(header)));
      bool then_called = false;
      try {
        const FileSizeLimit limit(64);  // the header and part of the rows fit
        file.write_out(std::as_bytes(std::span(rows)), [&](int) { then_called = true; });
        ADD_FAILURE() << "the write-out beyond the file-size limit did not fail";
      } catch (const Error& e) {
        EXPECT_EQ(e.description(), "cannot write test file: File too large");
      }
      EXPECT_FALSE(then_called);
      EXPECT_EQ(file.size(), header.size());
      EXPECT_EQ(test::read_file(path), header);
    }
  }
}

}  // namespace
}  // namespace ermak
