#pragma once
// A run's log (run.log, docs/outputs.md#layout-of-an-output-directory): every line on the
// terminal and in run.log, and the long dumps (the resolved configuration) in run.log only.
#include <spdlog/spdlog.h>

#include <atomic>
#include <filesystem>
#include <memory>

namespace ermak {

struct RunLog {
  std::shared_ptr<spdlog::logger> both;       // run log and console
  std::shared_ptr<spdlog::logger> file_only;  // run log only (long dumps)
  // Set once a line could not be written to the run log (make_logger's error handler).
  std::shared_ptr<std::atomic<bool>> file_failed = std::make_shared<std::atomic<bool>>(false);
};

// The run log at `log_file` (appended to when `append`: a resume), on the terminal too unless
// `quiet`; and (a SOP-GPU configuration with --ermak-output, whose log sits beside its restart
// files) the same lines in `copy_file` too, so that the output directory holds the run.log
// that `ermak analyze` reads (temperature, loading rate). Throws ermak::Error naming a file
// that cannot be opened.
RunLog make_logger(const std::filesystem::path& log_file, bool quiet, bool append,
                   const std::filesystem::path& copy_file = {});

// A dry run's log: the console only (it writes no file).
RunLog make_console_logger();

}  // namespace ermak
