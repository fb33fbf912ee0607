#include "ermak/run/previous_run.h"

#include <algorithm>
#include <cctype>
#include <string>
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

std::size_t remove_files(const fs::path& dir, const std::vector<const char*>& names) {
  std::size_t removed = 0;
  for (const char* name : names) removed += fs::remove(dir / name) ? 1 : 0;
  return removed;
}

}  // namespace

bool directory_has_run(const fs::path& dir) {
  if (!fs::is_directory(dir)) return false;
  if (fs::exists(dir / "checkpoint.ckpt") || fs::exists(dir / "model.psf")) return true;
  for (const auto& entry : fs::directory_iterator(dir))
    if (is_replica_directory(entry)) return true;
  return false;
}

std::size_t remove_previous_run(const fs::path& dir) {
  if (!fs::is_directory(dir)) return 0;
  std::size_t removed =
      remove_files(dir, {"run.log", "checkpoint.ckpt", "checkpoint.ckpt.tmp", "model.psf", "model.pdb", "model.etop"});
  std::vector<fs::path> replicas;
  for (const auto& entry : fs::directory_iterator(dir))
    if (is_replica_directory(entry)) replicas.push_back(entry.path());
  for (const fs::path& replica : replicas) {
    removed += remove_files(replica, {"energies.tsv", "trajectory.dcd", "pulling.tsv", "plane.tsv",
                                      "indentation.tsv", "final.pdb"});
    if (fs::is_empty(replica)) fs::remove(replica);
  }
  return removed;
}

}  // namespace ermak
