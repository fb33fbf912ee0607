#pragma once
// How a run holds its replicas' output files under the open-file limit
// (docs/outputs.md#how-many-files-a-run-keeps-open): kept open from start to end when
// they fit, else each opened only to write out what it has gathered.
#include <cstdint>
#include <string>

#include "ermak/io/file_holding.h"
#include "ermak/run/open_file_limit.h"

namespace ermak {

struct RunSpec;
class RunReporter;

struct RunFileHolding {
  OpenFileLimit limit;                             // after raising the soft limit to the hard one
  FileHolding replicas = FileHolding::kKeptOpen;   // how each replica's files are held
  std::int64_t replica_files = 0;                  // every replica's files together
  std::string replica_file_names;                  // "energies.tsv, trajectory.dcd per replica"
  std::uint64_t needed_to_keep_open = 0;           // descriptors the run needs with all of them open
};

// Raises the open-file limit and chooses how the replicas' files are held. Throws
// key_error(spec, "run.replicas", …) before anything is written when the files that stay
// open whatever the choice — a .sop run's SOP-GPU outputs (`extra`, may be null) — do not
// fit, naming the limit and what to do.
RunFileHolding choose_replica_file_holding(const RunSpec& spec, const RunReporter* extra);

// The run log's line for a run whose replicas' files are opened to write out ("" otherwise).
std::string file_holding_note(const RunFileHolding& holding);

}  // namespace ermak
