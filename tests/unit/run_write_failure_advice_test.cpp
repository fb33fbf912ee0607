// What a run that stopped on a failed write adds to its error (run/run_end_log.h
// write_failure_advice): a full disk (an audit's run ended with only `cannot write table: No
// space left on device`, though `--resume` continued it bit for bit once space was freed) is
// told to resume from its last checkpoint, naming the step, the command and its overrides.
// A failed write is known by its type (core/error.h WriteError, thrown by io/'s writers), and
// its cause by the errno it carries, not by the message's words.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "ermak/core/error.h"
#include "ermak/run/run_end_log.h"

using namespace ermak;

namespace {
WriteError failed_write(int system_error) {
  return WriteError("out/replica_000/energies.tsv", "", std::string("cannot write table: ") + std::strerror(system_error),
                    system_error);
}
}  // namespace

TEST(WriteFailureAdvice, AFullDiskIsToldToResumeFromTheLastCheckpoint) {
  RunSpec spec;
  spec.config_path = "runs/pull.toml";
  const WriteError full = failed_write(ENOSPC);
  EXPECT_EQ(write_failure_advice(spec, full, 48000, "out/checkpoint.ckpt"),
            "; the disk is full: once space is freed, `ermak run runs/pull.toml --resume` continues the run from its "
            "last checkpoint (step 48000, out/checkpoint.ckpt) bit for bit");
  // The overrides are part of the configuration a resume needs.
  spec.set_overrides = {"run.steps=250000"};
  EXPECT_NE(write_failure_advice(spec, full, 48000, "out/checkpoint.ckpt")
                .find("`ermak run runs/pull.toml --resume` with the same overrides (--set 'run.steps=250000')"),
            std::string::npos);
  // A quota, and another failed write (EFBIG, EIO): the same resume, once the cause is gone.
  EXPECT_NE(write_failure_advice(spec, failed_write(EDQUOT), 0, "c")
                .find("; the disk quota is exceeded: once space is freed (or the quota raised), `ermak run"),
            std::string::npos);
  EXPECT_NE(write_failure_advice(spec, failed_write(EFBIG), 1000, "c")
                .find("; once the cause is fixed, `ermak run runs/pull.toml --resume`"),
            std::string::npos);
  EXPECT_NE(write_failure_advice(spec, failed_write(EIO), 1000, "c").find("; once the cause is fixed"),
            std::string::npos);
  // No checkpoint yet: start again.
  EXPECT_EQ(write_failure_advice(spec, full, -1, "c"),
            "; the disk is full: once space is freed, start the run again with --force (no checkpoint was written to "
            "resume from, and --force replaces the files this start wrote)");
}

TEST(WriteFailureAdvice, AnOutputDirectoryMadeOnAFullDiskIsAFailedWriteToo) {
  RunSpec spec;
  spec.config_path = "runs/pull.toml";
  const std::filesystem::filesystem_error no_room("create_directories", "out/replica_003",
                                                  std::make_error_code(std::errc::no_space_on_device));
  EXPECT_NE(write_failure_advice(spec, no_room, 2000, "c").find("; the disk is full: once space is freed"),
            std::string::npos);
  const std::filesystem::filesystem_error refused("create_directories", "out/replica_003",
                                                  std::make_error_code(std::errc::permission_denied));
  EXPECT_EQ(write_failure_advice(spec, refused, 2000, "c"), "");
}

TEST(WriteFailureAdvice, OtherErrorsGetNoAdviceWhateverTheirWords) {
  RunSpec spec;
  spec.config_path = "runs/pull.toml";
  EXPECT_EQ(write_failure_advice(spec, Error("a FENE bond broke between steps 0 and 1000"), 0, "c"), "");
  // The words of a failed write in another error (a message quoting a file name, a reader's
  // error) are not a failed write: only the type says so.
  EXPECT_EQ(write_failure_advice(spec, Error("in.toml", 3, "output.dir", "cannot write here: No space left on device"),
                                 0, "c"),
            "");
}
