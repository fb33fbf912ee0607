#include "ermak/run/previous_run.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace ermak {
namespace fs = std::filesystem;

namespace {

// replica_ followed by three or more digits, as replica_dir_name writes them.
bool is_replica_directory(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  const std::string prefix = "replica_";
  if (!entry.is_directory() || name.size() < prefix.size() + 3 || name.compare(0, prefix.size(), prefix) != 0)
    return false;
  return std::all_of(name.begin() + std::ptrdiff_t(prefix.size()), name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// run.log.new: the log of a --force run killed before it removed the earlier run's files
// (pending_run_log); run.log.previous: the earlier run's log that ermak 0.1's --force set
// aside, left by one killed so.
const std::vector<const char*> kRunFiles = {"run.log",         "run.log.new", "run.log.previous",
                                           "checkpoint.ckpt", "checkpoint.ckpt.tmp", "model.psf",
                                           "model.pdb",       "model.etop"};
const std::vector<const char*> kReplicaFiles = {"energies.tsv", "trajectory.dcd",  "pulling.tsv",
                                               "plane.tsv",    "indentation.tsv", "final.pdb"};

std::vector<fs::path> replica_directories(const fs::path& dir) {
  std::vector<fs::path> replicas;
  for (const auto& entry : fs::directory_iterator(dir))
    if (is_replica_directory(entry)) replicas.push_back(entry.path());
  return replicas;
}

}  // namespace

bool directory_has_run(const fs::path& dir) {
  if (!fs::is_directory(dir)) return false;
  if (fs::exists(dir / "checkpoint.ckpt") || fs::exists(dir / "model.psf")) return true;
  for (const auto& entry : fs::directory_iterator(dir))
    if (is_replica_directory(entry)) return true;
  return false;
}

std::vector<fs::path> model_files_without_run(const fs::path& dir) {
  std::vector<fs::path> files;
  if (directory_has_run(dir)) return files;
  std::error_code ec;
  for (const char* name : {"model.pdb", "model.etop"})
    if (fs::exists(fs::symlink_status(dir / name, ec))) files.push_back(dir / name);
  return files;
}

std::vector<fs::path> previous_run_files(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  auto add_existing = [&](const fs::path& in, const std::vector<const char*>& names) {
    std::error_code ec;
    for (const char* name : names)
      if (fs::exists(fs::symlink_status(in / name, ec))) files.push_back(in / name);
  };
  add_existing(dir, kRunFiles);
  // A replica directory that is a symbolic link is removed as the link: its target's files
  // are not the run's to remove (an audit's --force emptied a directory outside the run).
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!is_replica_directory(entry)) continue;
    if (entry.is_symlink())
      files.push_back(entry.path());
    else
      add_existing(entry.path(), kReplicaFiles);
  }
  return files;
}

fs::path pending_run_log(const fs::path& log) { return fs::path(log) += ".new"; }

std::size_t remove_previous_run(const fs::path& dir, bool keep_run_log) {
  std::size_t removed = 0;
  for (const fs::path& file : previous_run_files(dir))
    if (!(keep_run_log && (file == dir / "run.log" || file == pending_run_log(dir / "run.log"))))
      removed += fs::remove(file) ? 1 : 0;
  if (fs::is_directory(dir))
    for (const fs::path& replica : replica_directories(dir))
      if (fs::is_empty(replica)) fs::remove(replica);
  return removed;
}

std::string earlier_analysis_note(const fs::path& dir, const std::string& whose) {
  std::error_code ec;
  if (!fs::exists(dir / "analysis" / "summary.txt", ec)) return "";
  return (dir / "analysis").string() + " holds the analysis of " + whose + "; `ermak analyze " + dir.string() +
         " --force` redoes it for this one";
}

bool is_absent_empty_or_ermak_log(const fs::path& log) {
  std::error_code ec;
  // Only a regular file with something in it can be someone's notes (a directory of that
  // name is refused when the log is opened, naming it).
  if (!fs::is_regular_file(log, ec) || fs::file_size(log, ec) == 0) return true;
  std::ifstream in(log, std::ios::binary);
  std::string first;
  std::getline(in, first);
  // "[2026-11-30 15:03:10] …"
  static constexpr std::string_view kShape = "[dddd-dd-dd dd:dd:dd] ";
  if (first.size() < kShape.size()) return false;
  for (std::size_t k = 0; k < kShape.size(); ++k)
    if (kShape[k] == 'd' ? !std::isdigit(static_cast<unsigned char>(first[k])) : first[k] != kShape[k]) return false;
  return true;
}

}  // namespace ermak
