// The "did you mean" of unknown configuration keys (core/closest_name.h): one slip — a
// letter missing, extra, wrong or two swapped — finds the key; names far from every key or
// equally close to two find none.
#include <gtest/gtest.h>

#include <array>
#include <string>
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

// A name typed without its unit, where several keys carry it with one, names them all: the
// hint must not pick a unit (a review: SOP-GPU's `temperature` is kcal/mol, and "did you mean
// 'temperature_K'?" would have made 0.6 a 0.6 K run).
TEST(ClosestName, AStemOfSeveralKeysNamesThemAll) {
  constexpr std::array<std::string_view, 5> keys = {"steps", "temperature_K", "temperature_kcal_per_mol",
                                                    "tip_radius_nm", "tip_radius_A"};
  EXPECT_EQ(did_you_mean("temperature", keys), " (did you mean 'temperature_K' or 'temperature_kcal_per_mol'?)");
  EXPECT_EQ(did_you_mean("tip_radius", keys), " (did you mean 'tip_radius_nm' or 'tip_radius_A'?)");
  EXPECT_EQ(did_you_mean("step", keys), " (did you mean 'steps'?)");
  EXPECT_EQ(did_you_mean("colour", keys), "");
  // One key with a unit the edit distance would not reach: named too (a config audit's
  // `skin` got no hint beside skin_A).
  constexpr std::array<std::string_view, 2> more = {"skin_A", "native_energy_kcal_per_mol"};
  EXPECT_EQ(did_you_mean("skin", more), " (did you mean 'skin_A'?)");
  EXPECT_EQ(did_you_mean("native_energy", more), " (did you mean 'native_energy_kcal_per_mol'?)");
  // One key whose tail is another word, not a unit: no stem hint ([model] `chain` is no
  // chain_break_A; the edit distance decides alone).
  constexpr std::array<std::string_view, 2> model = {"chain_break_A", "pair_cutoff_A"};
  EXPECT_EQ(did_you_mean("chain", model), "");
  // A name far longer than any key is no slip, and costs nothing (a 3 MB key took 86 s).
  EXPECT_EQ(did_you_mean(std::string(1 << 20, 's'), keys), "");
}

TEST(ClosestName, TwoKeysEquallyCloseGiveNoHint) {
  constexpr std::array<std::string_view, 2> keys = {"speed_A", "speed_B"};
  EXPECT_EQ(closest_name("speed_C", keys), std::nullopt);
  EXPECT_EQ(closest_name("spead_A", keys), "speed_A");
}

}  // namespace
}  // namespace ermak
