// The "did you mean" of unknown configuration keys (core/closest_name.h): one slip — a
// letter missing, extra, wrong or two swapped — finds the key; names far from every key or
// equally close to two find none.
#include <gtest/gtest.h>

#include <array>
#include <string_view>

#include "ermak/core/closest_name.h"

namespace ermak {
namespace {

TEST(ClosestName, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(name_edit_distance("numsteps", "numsteps"), 0u);
  EXPECT_EQ(name_edit_distance("numstep", "numsteps"), 1u);
  EXPECT_EQ(name_edit_distance("numstepss", "numsteps"), 1u);
  EXPECT_EQ(name_edit_distance("nunsteps", "numsteps"), 1u);
  EXPECT_EQ(name_edit_distance("nmusteps", "numsteps"), 1u);
  EXPECT_EQ(name_edit_distance("NumSteps", "numsteps"), 0u) << "letters compared without case";
  EXPECT_EQ(name_edit_distance("", "abc"), 3u);
  EXPECT_EQ(name_edit_distance("kitten", "sitting"), 3u);
}

TEST(ClosestName, FindsTheOneKeyASlipAway) {
  constexpr std::array<std::string_view, 5> keys = {"steps", "seed", "replicas", "temperature_K", "timestep_ps"};
  EXPECT_EQ(closest_name("step", keys), "steps");
  EXPECT_EQ(closest_name("replcias", keys), "replicas");
  EXPECT_EQ(closest_name("temprature_K", keys), "temperature_K");
  EXPECT_EQ(closest_name("temperature", keys), "temperature_K") << "a key typed without its unit";
  EXPECT_EQ(closest_name("Seed", keys), "seed");
  EXPECT_EQ(closest_name("steps", keys), std::nullopt) << "a known name needs no hint";
  EXPECT_EQ(closest_name("colour", keys), std::nullopt);
  // Short names allow one edit only: "sed" is one from "seed", "sep" two from both "seed" and "steps".
  EXPECT_EQ(closest_name("sed", keys), "seed");
  EXPECT_EQ(closest_name("sep", keys), std::nullopt);
}

TEST(ClosestName, TwoKeysEquallyCloseGiveNoHint) {
  constexpr std::array<std::string_view, 2> keys = {"speed_A", "speed_B"};
  EXPECT_EQ(closest_name("speed_C", keys), std::nullopt);
  EXPECT_EQ(closest_name("spead_A", keys), "speed_A");
}

}  // namespace
}  // namespace ermak
