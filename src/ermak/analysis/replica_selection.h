#pragma once
// Which replicas of a run get files of their own in `ermak analyze` — the smoothed curve
// table and the plot (--replica-files, docs/analysis.md#options). A run of 10⁴ replicas
// would otherwise write 2·10⁴ such files, as much as the run itself; the tables of peaks,
// fits and statistics cover every replica whatever is chosen here.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ermak::analysis {

// The default: the first kDefaultReplicaFiles replicas of the run (as the overlays draw).
inline constexpr std::size_t kDefaultReplicaFiles = 100;

struct ReplicaSelection {
  enum class Kind { first, all, none, listed };
  Kind kind = Kind::first;
  std::size_t first_count = kDefaultReplicaFiles;   // Kind::first
  std::vector<std::pair<int, int>> ranges;           // Kind::listed: replica numbers, inclusive

  // `number`: the replica's NNN; `position`: its place among the run's replicas (0, 1, …).
  bool includes(int number, std::size_t position) const;
  // For summary.txt: "the first 100 replicas", "every replica", "no replica",
  // "replicas 0-9, 5123".
  std::string describe() const;
  // For a listed selection, a warning for each entry that names no replica of the run, or
  // only some of it ("--replica-files: 200 names no replica of this run (its 150 replicas
  // are numbered 0 to 149)"): a typo would otherwise give nothing. `numbers`: the run's (with
  // `pooled`, the pooled runs', and the warning says so).
  std::vector<std::string> unmatched_warnings(const std::vector<int>& numbers, bool pooled = false) const;
};

// "all", "none" (in any case), or replica numbers and inclusive ranges separated by commas
// ("0-9,5123"; blanks around them, as in a quoted "0-9, 5123", are ignored).
// Throws ermak::Error naming --replica-files and the part it cannot read.
ReplicaSelection parse_replica_selection(const std::string& text);

}  // namespace ermak::analysis
