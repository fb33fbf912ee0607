#include "ermak/run/output_directories.h"

#include <unistd.h>

#include <string>
#include <system_error>

#include "ermak/core/error.h"

namespace ermak {
namespace fs = std::filesystem;

void check_output_directory(const RunSpec& spec, const fs::path& dir, const std::string& key) {
  std::error_code error;
  const fs::path absolute = fs::absolute(dir, error);
  if (error) throw key_error(spec, key, dir.string() + ": " + error.message());
  // The nearest part of the path that exists decides: a directory we may write into (to
  // make the rest, or to write files in `dir` itself), or not.
  fs::path existing = absolute;
  while (!fs::exists(existing, error)) {
    if (existing == existing.parent_path()) break;
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, error)) {
    throw key_error(spec, key,
                    dir.string() + ": " + existing.string() +
                        (existing == absolute ? " exists and is not a directory" : " is a file, not a directory") +
                        "; give a directory for the run's files");
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    throw key_error(spec, key,
                    dir.string() + ": " + (existing == absolute ? "" : "cannot be created: ") + existing.string() +
                        " is not writable (" + std::error_code(errno, std::generic_category()).message() +
                        "); choose another directory or fix its permissions");
  }
}

void check_file_to_continue(const fs::path& file, std::uint64_t offset) {
  std::error_code error;
  if (!fs::is_regular_file(file, error))
    throw Error(file.string(), 0, "", "missing: --resume continues the run's files as its checkpoint left them");
  const std::uintmax_t size = fs::file_size(file, error);
  if (error || size < offset)
    throw Error(file.string(), 0, "",
                "holds " + std::to_string(size) + " bytes, fewer than the " + std::to_string(offset) +
                    " it had at the checkpoint: --resume cannot continue it");
}

void make_output_directory(const RunSpec& spec, const fs::path& dir, const std::string& key) {
  check_output_directory(spec, dir, key);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw key_error(spec, key, dir.string() + ": cannot be created (" + error.message() + ")");
}

}  // namespace ermak
