// core/simulated_time: model time in the unit that keeps it readable (the run log's
// "running steps" line), three significant digits.
#include <gtest/gtest.h>

#include "ermak/core/simulated_time.h"

namespace ermak {
namespace {

TEST(SimulatedTime, PicksTheUnitThatKeepsItReadable) {
  EXPECT_EQ(format_simulated_time(5e8 * 19.84), "9.92 ms");  // SOP-GPU's WW pulling run
  EXPECT_EQ(format_simulated_time(40000 * 19.84), "794 ns");
  EXPECT_EQ(format_simulated_time(4e6 * 19.84), "79.4 µs");
  EXPECT_EQ(format_simulated_time(1e10 * 19.84), "198 ms");
  EXPECT_EQ(format_simulated_time(1e11 * 19.84), "1.98 s");
  EXPECT_EQ(format_simulated_time(19.84), "19.8 ps");
  EXPECT_EQ(format_simulated_time(0.0), "0 ps");
  EXPECT_EQ(format_simulated_time(1000.0), "1 ns");
}

}  // namespace
}  // namespace ermak
