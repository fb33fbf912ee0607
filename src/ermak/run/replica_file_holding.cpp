#include "ermak/run/replica_file_holding.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/run/simulation.h"

namespace ermak {
namespace {

// Descriptors a run needs beyond the files it keeps open, while it runs: the run log, the
// checkpoint being written, the PDBs written at the start and the end, and the GPU
// driver's own (about a dozen with CUDA).
constexpr std::uint64_t kDescriptorsForTheRun = 32;

}  // namespace

RunFileHolding choose_replica_file_holding(const RunSpec& spec, const RunReporter* extra) {
  RunFileHolding holding;
  holding.limit = raise_open_file_limit();
  if (spec.output.write_directory) {
    std::vector<std::string> names = {"energies.tsv"};
    if (spec.output.trajectory_every_steps > 0) names.push_back("trajectory.dcd");
    if (spec.pulling.enabled || spec.force_clamp.enabled) names.push_back("pulling.tsv");
    if (spec.plane_pulling.enabled) names.push_back("plane.tsv");
    if (spec.indentation.enabled) names.push_back("indentation.tsv");
    holding.replica_files = std::int64_t(names.size()) * spec.replicas;
    for (const std::string& name : names)
      holding.replica_file_names += (holding.replica_file_names.empty() ? "" : ", ") + name;
    holding.replica_file_names += " per replica";
  }
  const std::uint64_t sopgpu_files = extra ? std::uint64_t(std::max<std::int64_t>(0, extra->files_kept_open())) : 0;
  const std::uint64_t base = holding.limit.open_now + kDescriptorsForTheRun + sopgpu_files;
  holding.needed_to_keep_open = base + std::uint64_t(holding.replica_files);
  if (holding.needed_to_keep_open <= holding.limit.soft) return holding;

  // Opened to write out, a file holds a descriptor only while the writer thread, or one of
  // the threads that flush the replicas side by side at a checkpoint, writes it out.
  const std::uint64_t flushing_threads = std::max(1u, std::thread::hardware_concurrency()) + 1;
  if (holding.replica_files > 0) holding.replicas = FileHolding::kOpenedToWriteOut;
  const std::uint64_t needed = base + (holding.replica_files > 0 ? flushing_threads : 0);
  if (sopgpu_files == 0 || needed <= holding.limit.soft) return holding;

  // A .sop run's SOP-GPU files stay open (run/sopgpu_outputs.h): above the limit, the run stops here.
  const std::uint64_t per_trajectory = std::max<std::uint64_t>(1, sopgpu_files / std::uint64_t(spec.replicas));
  const std::uint64_t others = needed - sopgpu_files;
  const std::uint64_t room = holding.limit.soft > others ? holding.limit.soft - others : 0;
  const bool raisable = holding.limit.hard > holding.limit.soft;
  throw key_error(spec, "run.replicas",
                  "this run keeps " + std::to_string(sopgpu_files) + " SOP-GPU output files open (" +
                      std::to_string(spec.replicas) + " trajectories) and needs " + std::to_string(needed) +
                      " open files with those it holds otherwise, but this process may open only " +
                      std::to_string(holding.limit.soft) + " (ulimit -n" +
                      (raisable ? "" : ", already raised to the hard limit") + "). Run at most " +
                      std::to_string(room / per_trajectory) +
                      " trajectories per run (split them over several runs with different seeds), or raise the limit "
                      "before starting ermak: ulimit -n " + std::to_string(needed) +
                      " (above the hard limit this needs the administrator, e.g. nofile in /etc/security/limits.conf)");
}

std::string file_holding_note(const RunFileHolding& holding) {
  if (holding.replicas != FileHolding::kOpenedToWriteOut) return "";
  return "the replicas' " + std::to_string(holding.replica_files) + " files (" + holding.replica_file_names +
         ") would need " + std::to_string(holding.needed_to_keep_open) +
         " open files kept open, above the open-file limit of " + std::to_string(holding.limit.soft) +
         ": each is opened only to write out, when " + std::to_string(kOpenedToWriteOutBytes / 1024) +
         " KiB of its rows or frames have gathered and at every checkpoint and the run's end "
         "(docs/outputs.md#how-many-files-a-run-keeps-open)";
}

}  // namespace ermak
