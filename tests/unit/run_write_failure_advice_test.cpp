// What a run that stopped on a failed write adds to its error (run/run_end_log.h
// write_failure_advice): a full disk (an audit's run ended with only `cannot write table: No
// space left on device`, though `--resume` continued it bit for bit once space was freed) is
// told to resume from its last checkpoint, naming the step, the command and its overrides.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "ermak/run/run_end_log.h"

using namespace ermak;

TEST(WriteFailureAdvice, AFullDiskIsToldToResumeFromTheLastCheckpoint) {
  RunSpec spec;
  spec.config_path = "runs/pull.toml";
  const std::string full = std::string("out/replica_000/energies.tsv: cannot write table: ") + std::strerror(ENOSPC);
  EXPECT_EQ(write_failure_advice(spec, full, 48000, "out/checkpoint.ckpt"),
            "; the disk is full: once space is freed, `ermak run runs/pull.toml --resume` continues the run from its "
            "last checkpoint (step 48000, out/checkpoint.ckpt) bit for bit");
  // The overrides are part of the configuration a resume needs.
  spec.set_overrides = {"run.steps=250000"};
  EXPECT_NE(write_failure_advice(spec, full, 48000, "out/checkpoint.ckpt")
                .find("`ermak run runs/pull.toml --resume` with the same overrides (--set 'run.steps=250000')"),
            std::string::npos);
  // A quota, and another failed write (EFBIG, EIO): the same resume, once the cause is gone.
  EXPECT_NE(write_failure_advice(spec, std::string("x: cannot write DCD file: ") + std::strerror(EDQUOT), 0, "c")
                .find("; the disk quota is exceeded: once space is freed (or the quota raised), `ermak run"),
            std::string::npos);
  EXPECT_NE(write_failure_advice(spec, "x: cannot write DCD file: File too large", 1000, "c")
                .find("; once the cause is fixed, `ermak run runs/pull.toml --resume`"),
            std::string::npos);
  // No checkpoint yet: start again.
  EXPECT_EQ(write_failure_advice(spec, full, -1, "c"),
            "; the disk is full: once space is freed, start the run again (no checkpoint was written to resume from; "
            "--force writes over its files)");
  // Not a failed write: nothing.
  EXPECT_EQ(write_failure_advice(spec, "a FENE bond broke between steps 0 and 1000", 0, "c"), "");
}
