#include "ermak/run/run_log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include "ermak/core/error.h"

namespace ermak {
namespace fs = std::filesystem;

RunLog make_logger(const fs::path& log_file, bool quiet, bool append, const fs::path& copy_file) {
  std::vector<spdlog::sink_ptr> files;
  for (const fs::path& path : {log_file, copy_file}) {
    if (path.empty()) continue;
    try {
      files.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(path.string(), !append));
    } catch (const spdlog::spdlog_ex&) {
      // A directory of that name, a read-only file system: say so, not "internal error".
      std::error_code ignored;
      throw Error(path.string(), 0, "",
                  fs::is_directory(path, ignored) ? "cannot open the run log: a directory has its name"
                                                  : std::string("cannot open the run log for writing: ") + std::strerror(errno));
    }
    files.back()->set_pattern("[%Y-%m-%d %H:%M:%S] %v");
  }
  // The terminal first: a log file that cannot be written (a full disk, a file made
  // immutable) throws inside spdlog, which then skips the sinks after it.
  std::vector<spdlog::sink_ptr> sinks;
  if (!quiet) {
    auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    console->set_pattern("%v");
    sinks.push_back(console);
  }
  sinks.insert(sinks.end(), files.begin(), files.end());
  RunLog log;
  log.both = std::make_shared<spdlog::logger>("run", sinks.begin(), sinks.end());
  log.both->flush_on(spdlog::level::info);
  log.file_only = std::make_shared<spdlog::logger>("run-file", files.begin(), files.end());
  log.file_only->flush_on(spdlog::level::info);
  // Said once, in ermak's words, instead of spdlog's "[*** LOG ERROR #0001 ***]" per line; the
  // run goes on (its tables and checkpoints stop it if the disk is full).
  auto on_error = [warned = log.file_failed, file = log_file.string()](const std::string& what) {
    if (!warned->exchange(true))
      std::fprintf(stderr, "ermak: warning: %s: cannot write the run log (%s); the run goes on, but the log misses its "
                           "lines from here (ermak analyze reads the temperature and speeds from it)\n",
                   file.c_str(), what.c_str());
  };
  log.both->set_error_handler(on_error);
  log.file_only->set_error_handler(on_error);
  return log;
}

RunLog make_console_logger() {
  auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  console->set_pattern("%v");
  RunLog log;
  log.both = std::make_shared<spdlog::logger>("run", console);
  log.file_only = std::make_shared<spdlog::logger>("run-file", std::make_shared<spdlog::sinks::null_sink_mt>());
  return log;
}

}  // namespace ermak
