#include "ermak/run/output_directories.h"

#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>
#include <system_error>

#include "ermak/core/error.h"
#include "ermak/io/same_file.h"

namespace ermak {
namespace fs = std::filesystem;

namespace {

// The name of the kernel pseudo file system `existing` lies on (proc, sysfs, …), or null.
const char* pseudo_file_system(const fs::path& existing) {
  struct statfs info {};
  if (::statfs(existing.c_str(), &info) != 0) return nullptr;
  switch (static_cast<unsigned long>(info.f_type)) {
    case PROC_SUPER_MAGIC: return "proc";
    case SYSFS_MAGIC: return "sysfs";
    case CGROUP_SUPER_MAGIC: return "cgroup";
    case CGROUP2_SUPER_MAGIC: return "cgroup2";
    case DEBUGFS_MAGIC: return "debugfs";
    case TRACEFS_MAGIC: return "tracefs";
    case SECURITYFS_MAGIC: return "securityfs";
    case DEVPTS_SUPER_MAGIC: return "devpts";
    default: return nullptr;
  }
}

}  // namespace

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
  // The kernel's own file systems pass access() for root, but take no new directory or file
  // (a real run then fails at mkdir; the dry run would pass).
  if (const char* pseudo = pseudo_file_system(existing))
    throw key_error(spec, key,
                    dir.string() + ": " + existing.string() + " is on the kernel's " + pseudo +
                        " file system, where no run can write its files; choose another directory");
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    throw key_error(spec, key,
                    dir.string() + ": " + (existing == absolute ? "" : "cannot be created: ") + existing.string() +
                        " is not writable (" + std::error_code(errno, std::generic_category()).message() +
                        "); choose another directory or fix its permissions");
  }
}

void check_inputs_are_not_run_files(const RunSpec& spec, const std::vector<fs::path>& run_files) {
  std::vector<std::pair<std::string, fs::path>> inputs = {{"input.structure", spec.input.structure},
                                                          {"input.topology", spec.input.topology},
                                                          {"input.coordinates", spec.input.coordinates}};
  for (const fs::path& p : spec.input.replica_coordinates) inputs.emplace_back("input.replica_coordinates", p);
  inputs.emplace_back("", spec.config_path);
  for (const auto& [key, input] : inputs) {
    if (input.empty()) continue;
    for (const fs::path& file : run_files) {
      if (!same_file(input, file)) continue;
      const std::string what =
          input.string() + (fs::absolute(input).lexically_normal() == fs::absolute(file).lexically_normal()
                                ? std::string(" is")
                                : " is " + file.string() + ",") +
          " one of the files the run writes (and --force removes): copy it elsewhere or choose another output "
          "directory";
      if (key.empty()) throw Error(spec.config_path.string(), 0, "", what);
      throw key_error(spec, key, what);
    }
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
