#include <gtest/gtest.h>

#include "ermak/physics/fene.h"

TEST(Placeholder, Builds) { EXPECT_EQ(ermak::physics::fene<true>(3.8f * 3.8f, 3.8f, {20, 2}).energy, 0.0f); }
