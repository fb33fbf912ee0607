// io/gathered_lines: when a writer's gathered lines are due to be written out — kept open, at
// 64 KiB or a second after the last write-out (what a tail -f watcher waits at most); opened
// to write out, at kOpenedToWriteOutBytes and never by age.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "ermak/io/gathered_lines.h"

namespace ermak {
namespace {

TEST(GatheredLines, AKeptOpenFileWritesOutAt64KiBOrASecondAfterItsLastWriteOut) {
  GatheredLines lines(FileHolding::kKeptOpen);
  lines.for_next_line(100) += "1\t2.5\n";
  EXPECT_FALSE(lines.due());
  EXPECT_EQ(lines.size(), 6u);
  lines.for_next_line(100) += std::string(GatheredLines::kKeptOpenBytes - lines.size() - 1, 'x');
  EXPECT_FALSE(lines.due()) << "one byte short of 64 KiB";
  lines.for_next_line(100) += "\n";
  EXPECT_TRUE(lines.due());

  // The write-out forgets the lines and restarts the clock; a second later a short line is due.
  lines.written()(-1);
  EXPECT_EQ(lines.size(), 0u);
  lines.for_next_line(100) += "3\t4\n";
  EXPECT_FALSE(lines.due());
  std::this_thread::sleep_for(GatheredLines::kMaxAge + std::chrono::milliseconds(50));
  EXPECT_TRUE(lines.due());
  lines.restart_clock();
  EXPECT_FALSE(lines.due()) << "a resumed file's clock starts at its cut";
}

TEST(GatheredLines, AFileOpenedToWriteOutWaitsForItsBytesWhateverTheirAge) {
  GatheredLines lines(FileHolding::kOpenedToWriteOut);
  lines.for_next_line(1024) += "1\t2.5\n";
  std::this_thread::sleep_for(GatheredLines::kMaxAge + std::chrono::milliseconds(50));
  EXPECT_FALSE(lines.due()) << "no age rule: at 10^4 replicas it would open every file every second";
  // Room for everything gathered before a write-out is reserved at once (file_holding.h).
  std::string& text = lines.for_next_line(1024);
  EXPECT_GE(text.capacity(), kOpenedToWriteOutBytes + 1024);
  text += std::string(kOpenedToWriteOutBytes - text.size(), 'x');
  EXPECT_TRUE(lines.due());
  EXPECT_EQ(lines.bytes().size(), kOpenedToWriteOutBytes);
}

}  // namespace
}  // namespace ermak
