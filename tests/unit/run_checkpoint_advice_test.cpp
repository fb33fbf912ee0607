// The run log's advice on costly checkpoints (run/checkpoint_advice.h).
#include <gtest/gtest.h>

#include "ermak/run/checkpoint_advice.h"

using namespace ermak;

TEST(CheckpointAdvice, CheapCheckpointsGetNoAdvice) {
  // 5 checkpoints of 20 ms in a 10 s run: 1 %.
  const CheckpointAdvice a = checkpoint_advice(100000, 5, 0, 0.1, 10.0);
  EXPECT_FALSE(a.costly);
  EXPECT_NEAR(a.fraction, 0.01, 1e-12);
  EXPECT_EQ(a.suggested_every_steps, 0);
}

TEST(CheckpointAdvice, CostlyCheckpointsGetARoundLongerInterval) {
  // The 10⁴-replica WW run on an H100: 4 checkpoints of ~0.5 s in ~10 s, 20 %: an
  // interval 10× longer brings them to 2 %.
  const CheckpointAdvice a = checkpoint_advice(100000, 4, 0, 2.0, 10.0);
  EXPECT_TRUE(a.costly);
  EXPECT_NEAR(a.fraction, 0.2, 1e-12);
  EXPECT_EQ(a.suggested_every_steps, 1000000);
  // 6 %: 3× longer, rounded up to 5×.
  EXPECT_EQ(checkpoint_advice(100000, 10, 0, 0.6, 10.0).suggested_every_steps, 500000);
  // 30 %: 15× longer, rounded up to 2·10⁶.
  EXPECT_EQ(checkpoint_advice(100000, 10, 0, 3.0, 10.0).suggested_every_steps, 2000000);
}

TEST(CheckpointAdvice, OnlyTheIntervalsCheckpointsCanBeMadeRarer) {
  // One checkpoint (at the end) or none, no interval, or a run too short to time.
  EXPECT_FALSE(checkpoint_advice(100000, 1, 0, 5.0, 10.0).costly);
  EXPECT_FALSE(checkpoint_advice(0, 3, 0, 5.0, 10.0).costly);
  EXPECT_FALSE(checkpoint_advice(100000, 3, 0, 5.0, 0.0).costly);
}

// The checkpoint a new run takes at its start is there at any interval, like the end's: a
// short run of many replicas with those two alone (a 10-step WW × 1000 run on the CPU:
// 61 % of its 0.18 s) gets no advice, where it was told checkpoint_every = 5000000.
TEST(CheckpointAdvice, TheStartsCheckpointIsNotTheIntervals) {
  EXPECT_FALSE(checkpoint_advice(100000, 2, 1, 0.11, 0.18).costly);
  EXPECT_TRUE(checkpoint_advice(100000, 2, 0, 0.11, 0.18).costly);  // the same two counted as before
  // Beside the interval's: left out with its share of the time, the advice of the run's
  // other checkpoints (those of CostlyCheckpointsGetARoundLongerInterval's 20 % run).
  const CheckpointAdvice a = checkpoint_advice(100000, 5, 1, 2.5, 10.0);
  EXPECT_TRUE(a.costly);
  EXPECT_NEAR(a.fraction, 0.2, 1e-12);
  EXPECT_EQ(a.suggested_every_steps, 1000000);
}

// Checkpoints written in the background cost the run their driver's share, plus the waits
// for the writer in proportion to the writer's time they take.
TEST(CheckpointAdvice, BackgroundCheckpointsCostTheirShareOfTheWaits) {
  // WW × 9000 on an H100: 10 checkpoints, 0.025 s copying the state, 5.5 s of the writer's
  // 9.0 s writing them, 0.64 s waiting for the writer: ~0.42 s.
  EXPECT_NEAR(checkpoint_cost_seconds(0.025, 0.64, 9.0, 5.5), 0.025 + 0.64 * 5.5 / 9.0, 1e-12);
  EXPECT_DOUBLE_EQ(checkpoint_cost_seconds(0.1, 0.0, 9.0, 5.5), 0.1);  // no waits: the driver's share
  EXPECT_DOUBLE_EQ(checkpoint_cost_seconds(0.1, 2.0, 0.0, 0.0), 0.1);  // nothing written in the background
  EXPECT_DOUBLE_EQ(checkpoint_cost_seconds(0.0, 2.0, 1.0, 1.0), 2.0);  // the writer did only checkpoints
}
