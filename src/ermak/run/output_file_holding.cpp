#include "ermak/run/output_file_holding.h"

#include <algorithm>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/core/error.h"
#include "ermak/run/engine_choice.h"
#include "ermak/run/replica_loop.h"
#include "ermak/run/simulation.h"

namespace ermak {
namespace {

// Descriptors a run needs beyond the files it keeps open, while it runs: the run log, the
// checkpoint being written, the PDBs written at the start and the end, and the GPU
// driver's own (about a dozen with CUDA).
constexpr std::uint64_t kDescriptorsForTheRun = 32;

}  // namespace

RunFileHolding choose_file_holding(const RunSpec& spec, const RunReporter* extra, int requested_report_threads) {
  RunFileHolding holding;
  holding.limit = raise_open_file_limit();
  if (spec.output.write_directory) {
    std::vector<std::string> names = {"energies.tsv"};
    if (spec.output.trajectory_every_steps > 0) names.push_back("trajectory.dcd");
    if (spec.pulling.enabled || spec.force_clamp.enabled) names.push_back("pulling.tsv");
    if (spec.plane_pulling.enabled) names.push_back("plane.tsv");
    if (spec.indentation.enabled) names.push_back("indentation.tsv");
    holding.files = std::int64_t(names.size()) * spec.replicas;
    for (const std::string& name : names) holding.file_names += (holding.file_names.empty() ? "" : ", ") + name;
    holding.file_names += " per replica";
  }
  if (const std::int64_t sopgpu = extra ? extra->files_kept_open() : 0; sopgpu > 0) {
    holding.files += sopgpu;
    holding.file_names += (holding.file_names.empty() ? "" : ", ") + std::to_string(sopgpu) + " SOP-GPU output files";
  }
  const std::uint64_t for_the_run = holding.limit.open_now + kDescriptorsForTheRun;
  holding.needed_to_keep_open = for_the_run + std::uint64_t(holding.files);
  if (holding.files == 0 || holding.needed_to_keep_open <= holding.limit.soft) return holding;
  holding.holding = FileHolding::kOpenedToWriteOut;
  // Opened to write out, a file holds a descriptor only while a thread writes it out: the
  // report writer, or one of the threads that write the replicas side by side (1 on the
  // CPU backend unless asked). "auto" is the backend it will resolve to: without a usable
  // GPU the CPU's (an audit's CPU-only machine was refused at limits the CPU run fits).
  const int device = spec.devices.empty() ? spec.device : spec.devices.front();
  const bool cpu_engine = resolve_backend(spec.backend, nullptr, device) == "cpu";
  const int writer_threads = max_report_threads(cpu_engine, requested_report_threads);
  const std::uint64_t needed = for_the_run + 1 + std::uint64_t(writer_threads);
  if (needed <= holding.limit.soft) return holding;
  throw Error("the open-file limit (ulimit -n) is " + std::to_string(holding.limit.soft) +
              (holding.limit.hard > holding.limit.soft ? "" : ", already raised to the hard limit") +
              ", too few for the run itself: it needs " + std::to_string(needed) +
              " open files even with each of its " + std::to_string(holding.files) +
              " output files opened only to write out (the run's log, checkpoint and PDBs" +
              (cpu_engine ? "" : ", the GPU driver's") + ", one per thread that writes the files: " +
              std::to_string(writer_threads) + "). Raise it before starting ermak: ulimit -n " +
              std::to_string(needed) + (writer_threads > 1 ? " (or write with fewer threads: --report-threads 1)" : "") +
              " (docs/outputs.md#how-many-files-a-run-keeps-open)");
}

std::string file_holding_note(const RunFileHolding& holding) {
  if (holding.holding != FileHolding::kOpenedToWriteOut) return "";
  return "the run's " + std::to_string(holding.files) + " output files (" + holding.file_names + ") would need " +
         std::to_string(holding.needed_to_keep_open) + " open files kept open, above the open-file limit of " +
         std::to_string(holding.limit.soft) + ": each is opened only to write out, when " +
         std::to_string(kOpenedToWriteOutBytes / 1024) +
         " KiB of its rows or frames have gathered and at every checkpoint and the run's end "
         "(docs/outputs.md#how-many-files-a-run-keeps-open)";
}

}  // namespace ermak
