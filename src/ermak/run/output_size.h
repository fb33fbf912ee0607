#pragma once
// What a run's files will take on disk (docs/outputs.md#disk-space): estimated before the
// first step from the output intervals, so that a run of 10⁴ replicas and 10⁹ steps is
// not found to fill its file system days after it started. `ermak run` logs the estimate
// and warns when it exceeds the free space; `--dry-run` prints it.
#include <cstdint>
#include <filesystem>
#include <string>

#include "ermak/config/spec.h"

namespace spdlog {
class logger;
}

namespace ermak {

class ProtocolSetup;

struct OutputSizeEstimate {
  // Bytes each kind of file gains from first_step to last_step, all replicas together.
  double energies = 0, trajectories = 0, protocol_tables = 0, final_structures = 0, model = 0;
  // A SOP-GPU configuration's own files (RunReporter::bytes_to_write).
  double sopgpu_files = 0;
  // One checkpoint; while one is written atomically the old one still exists, so the run
  // needs twice this at its peak.
  double checkpoint = 0;
  double total() const {
    return energies + trajectories + protocol_tables + final_structures + model + sopgpu_files + 2 * checkpoint;
  }
};

// The output directory's own files ([output] write_directory) and the checkpoint of a run
// from `first_step` to `last_step` (`resume`: the files exist up to first_step); a SOP-GPU
// configuration's own files are added by the caller (sopgpu_files). TSV rows are counted at 11 bytes a value ("%.8g" and a tab);
// DCD frames exactly.
// `native_contacts` sizes the model files (the .etop lists them).
OutputSizeEstimate estimate_output_size(const RunSpec& spec, const ProtocolSetup* protocol, std::int32_t beads,
                                        std::int64_t first_step, std::int64_t last_step, bool resume,
                                        std::size_t native_contacts = 0);

// Stops at the multiples of `every` after first_step up to last_step, and the start's in a
// new run (0 when every ≤ 0): a table's rows, a trajectory's frames.
double stops_at_multiples(std::int64_t every, std::int64_t first_step, std::int64_t last_step, bool resume);

// A DCD's growth by `frames` frames of `beads` beads: three records of 4N bytes between
// 4-byte markers each, and the ~300-byte header of a new file.
double dcd_bytes(double frames, std::int32_t beads, bool new_file);

// Bytes free for this process on the file system that holds `path` (or its nearest
// existing parent); −1 where that cannot be told.
double free_bytes_at(const std::filesystem::path& path);

// "disk: the run writes about 45.3 GiB (energies.tsv …, trajectory.dcd …); 120 GiB free on
// the file system of DIR".
std::string describe_output_size(const OutputSizeEstimate& estimate, double free_bytes,
                                 const std::filesystem::path& directory);

// The run log's line (describe_output_size, with the free space of `directory`'s file
// system) and, when the files do not fit, a warning naming the keys that shrink them
// (`sopgpu`: a SOP-GPU configuration's).
void log_output_size(spdlog::logger& log, const OutputSizeEstimate& estimate, const std::filesystem::path& directory,
                     bool sopgpu);

}  // namespace ermak
