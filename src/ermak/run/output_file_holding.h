#pragma once
// How a run holds its output files under the open-file limit
// (docs/outputs.md#how-many-files-a-run-keeps-open): kept open from start to end when they
// fit, else each opened only to write out what it has gathered.
#include <cstdint>
#include <string>

#include "ermak/io/file_holding.h"
#include "ermak/run/open_file_limit.h"

namespace ermak {

struct RunSpec;
class RunReporter;

struct RunFileHolding {
  OpenFileLimit limit;                            // after raising the soft limit to the hard one
  FileHolding holding = FileHolding::kKeptOpen;   // how every replica's and SOP-GPU output file is held
  std::int64_t files = 0;                         // those files together
  std::string file_names;                         // "energies.tsv, trajectory.dcd per replica, 80 SOP-GPU output files"
  std::uint64_t needed_to_keep_open = 0;          // descriptors the run needs with all of them open
};

// Raises the open-file limit and chooses how the run's files — each replica's in the output
// directory and a .sop run's SOP-GPU outputs (`extra`, may be null) — are held. Throws
// ermak::Error before anything is written when the limit leaves too few descriptors even
// for files opened to write out: the run's own (log, checkpoint, PDBs, the GPU driver's)
// and one per thread that writes the replicas' files (`requested_report_threads`: --report-threads,
// 0 automatic).
RunFileHolding choose_file_holding(const RunSpec& spec, const RunReporter* extra, int requested_report_threads);

// The run log's line for a run whose files are opened to write out ("" otherwise).
std::string file_holding_note(const RunFileHolding& holding);

}  // namespace ermak
