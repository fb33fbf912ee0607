// The dry run's timing and report (run/dry_run.h, docs/outputs.md#dry-run): every step it
// takes is counted, it never steps past the run's end, and the estimate is the remaining
// steps over the timed rate. `ermak run --dry-run` end to end: tests/regression/run_dry_run_cli_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "ermak/run/dry_run.h"
#include "ermak/run/engine_choice.h"
#include "support/test_systems.h"

namespace ermak {
namespace {

std::unique_ptr<Engine> ww_engine(const LoadedSystem& ww) {
  EngineSetup setup;
  setup.topology = &ww.topology;
  setup.replicas = 2;
  setup.seed = 3;
  setup.threads = 1;
  auto engine = make_engine("cpu", setup);
  State start(ww.topology.bead_count(), 2);
  for (std::int32_t r = 0; r < 2; ++r)
    for (std::int32_t i = 0; i < ww.topology.bead_count(); ++i)
      start.set_position(r, i, vec_cast<float>(ww.initial_positions_A[i]));
  engine->set_state(start);
  return engine;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

TEST(DryRun, CountsEveryStepItTakes) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  auto engine = ww_engine(*ww);
  const StepTiming timing = time_engine_steps(*engine, 1000000000, 0.3);
  EXPECT_GT(timing.warm_up_steps, 0);
  EXPECT_GT(timing.timed_steps, 0);
  EXPECT_GT(timing.timed_seconds, 0.0);
  // The engine is exactly as far as the steps counted.
  EXPECT_EQ(engine->state().step, timing.warm_up_steps + timing.timed_steps);
  // ~0.3 s were asked for: the chunk is sized from the warm-up's last rate (generous
  // bounds: a loaded test machine).
  EXPECT_GT(timing.timed_seconds, 0.05);
  EXPECT_LT(timing.timed_seconds, 5.0);
}

TEST(DryRun, NeverStepsPastTheRunsEnd) {
  const auto ww = test::load_ww_reference();
  if (!ww) FAIL() << "test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  auto engine = ww_engine(*ww);
  // Chunks of 10, then 40 cut to the 15 left: all of it warm-up, nothing timed.
  const StepTiming timing = time_engine_steps(*engine, 25, 2.0);
  EXPECT_EQ(timing.warm_up_steps, 25);
  EXPECT_EQ(timing.timed_steps, 0);
  EXPECT_EQ(engine->state().step, 25);
  auto none = ww_engine(*ww);
  const StepTiming nothing = time_engine_steps(*none, 0, 2.0);
  EXPECT_EQ(nothing.warm_up_steps + nothing.timed_steps, 0);
  EXPECT_EQ(none->state().step, 0);
}

TEST(DryRun, EstimatesTheRemainingStepsAtTheTimedRate) {
  DryRunFacts facts;
  facts.backend = "cuda (block/ap/S1/g11)";
  facts.gpu_bytes = 3ll << 30;
  facts.beads_per_replica = 1000;
  facts.replicas = 3;
  facts.first_step = 0;
  facts.last_step = 100000000;
  facts.timing.warm_up_steps = 850;
  facts.timing.timed_steps = 20000;
  facts.timing.timed_seconds = 2.0;  // 10⁴ steps/s: 10⁸ steps take 10⁴ s
  const std::string text = joined(describe_dry_run(facts));
  EXPECT_NE(text.find("engine cuda (block/ap/S1/g11), GPU memory 3.00 GiB (1073742 B per bead)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("20000 steps timed in 2.00 s after 850 to warm up: 1e+04 steps/s, 3e+07 bead-steps/s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("steps 0 .. 100000000 (100000000 steps) at that rate: about 2h46m"), std::string::npos) << text;
  EXPECT_NE(text.find("nothing was written"), std::string::npos) << text;
  // A resumed run: only the steps left.
  facts.first_step = 64000000;
  EXPECT_NE(joined(describe_dry_run(facts)).find("(36000000 steps) at that rate: about 1h00m"), std::string::npos);
  facts.gpu_bytes = 54 << 20;
  EXPECT_NE(joined(describe_dry_run(facts)).find("GPU memory 54.0 MiB (18874 B per bead)"), std::string::npos);
  // The CPU engine has no GPU memory to tell.
  facts.gpu_bytes = -1;
  facts.backend = "cpu";
  EXPECT_EQ(joined(describe_dry_run(facts)).find("GPU memory"), std::string::npos);
}

// What a crash can lose: checkpoints fall on multiples of checkpoint_every, so a resumed run
// whose next multiple is at or past its end checkpoints only there (docs/outputs.md#checkpoint).
TEST(DryRun, WarnsOfARunWhoseOnlyCheckpointIsItsEnd) {
  DryRunFacts facts;
  facts.backend = "cpu";
  facts.beads_per_replica = 34;
  facts.replicas = 1;
  facts.first_step = 0;
  facts.last_step = 100000000;
  facts.timing.warm_up_steps = 850;
  facts.timing.timed_steps = 20000;
  facts.timing.timed_seconds = 2.0;  // 10⁴ steps/s
  const std::string warning = "writes checkpoints only at the start and the end";
  facts.checkpoint_every = 60000000;  // one at 6·10⁷ steps, between the start and the end
  EXPECT_EQ(joined(describe_dry_run(facts)).find(warning), std::string::npos);
  EXPECT_NE(joined(describe_dry_run(facts)).find("a checkpoint every 60000000 steps: about every 1h40m"),
            std::string::npos);
  // Resumed at 6·10⁷: the next multiple, 1.2·10⁸, lies past the end (4000 s of steps left).
  facts.first_step = 60000000;
  const std::string resumed = joined(describe_dry_run(facts));
  EXPECT_NE(resumed.find("output.checkpoint_every = 60000000 " + warning), std::string::npos) << resumed;
  EXPECT_NE(resumed.find("loses the whole ~1h06m run"), std::string::npos) << resumed;
  // Resumed before the multiple: one still falls between.
  facts.first_step = 50000000;
  EXPECT_EQ(joined(describe_dry_run(facts)).find(warning), std::string::npos);
  facts.checkpoint_every = 0;
  EXPECT_NE(joined(describe_dry_run(facts)).find(warning), std::string::npos);
}

TEST(DryRun, SaysWhenThereIsNothingToTime) {
  DryRunFacts facts;
  facts.backend = "cpu";
  facts.beads_per_replica = 34;
  facts.replicas = 1;
  facts.first_step = facts.last_step = 5000;
  EXPECT_NE(joined(describe_dry_run(facts)).find("no steps to time (the run ends at step 5000)"), std::string::npos);
  facts.last_step = 5025;
  facts.timing.warm_up_steps = 25;
  EXPECT_NE(joined(describe_dry_run(facts)).find("were all taken while warming up (25 steps)"), std::string::npos);
}

}  // namespace
}  // namespace ermak
