#pragma once
// What `--resume` checks before it continues a run from its checkpoint, and the entries the run
// driver adds to every checkpoint for it (docs/outputs.md#resume): the settings and the model
// the run started with, and where a finished run's tables stood before their last rows.
#include <filesystem>
#include <string>

#include "ermak/config/spec.h"
#include "ermak/io/checkpoint.h"
#include "ermak/io/load_system.h"
#include "ermak/model/topology.h"

namespace ermak {

// Checkpoint extra: the output sizes before a finished run's off-interval last rows, in
// the order of output_offsets (docs/outputs.md#resume).
inline constexpr const char* kOffsetsBeforeEndRows = "resume.offsets_before_end_rows";
// Checkpoint extra: present in the checkpoint a run writes at its last step, after that
// step's rows. A resume whose [run] steps equals the step of a checkpoint without it (a
// periodic or a stop checkpoint) still owes the rows that step adds off the tables' intervals.
inline constexpr const char* kFinishedAtStep = "run.finished_at_step";
// Checkpoint extra: the settings of the run's fingerprint (run/config_fingerprint.h), so that
// a resume with another configuration can name what changed.
inline constexpr const char* kConfigSettings = "config.fingerprinted_settings";
// Checkpoint extras: the model the run started with, by content (run/config_fingerprint.h),
// and its size for the message of a resume given another model.
inline constexpr const char* kModelFingerprint = "model.fingerprint";
inline constexpr const char* kModelSummary = "model.summary";

// A structure's C-alpha model is built with SOP-GPU's float distances since 2026-11-29
// (io/ca_model_builder.h); a run started before kept the double-precision model in its
// checkpoint (by content since that day, not at all before). Resuming such a run rebuilds
// that model into `system`, so the run goes on bit for bit. Returns a note for the log, or "".
std::string keep_the_model_the_run_started_with(const RunSpec& spec, const std::filesystem::path& checkpoint_path,
                                                LoadedSystem& system);

// kOffsetsBeforeEndRows's text: the offsets in the order of `offsets`.
std::string encode_offsets(const Checkpoint::Offsets& offsets);

// The offsets to continue from when a finished run is extended: the checkpoint's, with each
// file's off-interval end rows cut away (`text`: kOffsetsBeforeEndRows's). Throws ermak::Error
// naming `file` when the two do not match.
Checkpoint::Offsets offsets_without_end_rows(const Checkpoint& cp, const std::string& text,
                                             const std::filesystem::path& file);

// Throws ermak::Error naming `checkpoint_path` unless `cp` was written by a run of this
// configuration (its fingerprint, or one of an earlier ermak's; the message names up to four
// settings that changed) and this model (by content), with no more steps than `spec` asks
// for, and of the model's and the run's shape (beads × replicas).
void check_checkpoint_of_this_run(const Checkpoint& cp, const RunSpec& spec,
                                  const std::filesystem::path& checkpoint_path, const Topology& topology);

}  // namespace ermak
