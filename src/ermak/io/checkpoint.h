#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ermak/model/state.h"

namespace ermak {

// Everything a run needs to continue bit-for-bit (docs/outputs.md#checkpoint). With
// counter-based noise (Philox, the default) the random stream is a pure function of
// (seed, replica, bead, step, component): seed and step suffice. A stateful generator
// (run.rng, docs/rng.md) keeps its exact state here (format version 2).
struct Checkpoint {
  std::uint64_t seed = 0;
  std::int64_t step = 0;
  // Identifies the physics configuration; resume refuses a different one.
  std::string config_fingerprint;
  State positions;
  // Positions at the last neighbour-list build: the rebuild criterion (displacement >
  // skin/2) must see the same reference after a resume, or lists rebuild on different
  // steps and trajectories diverge. May be empty (0 × 0).
  State neighbor_reference;
  // Output file name → size in bytes at checkpoint time; resume truncates to these.
  using Offsets = std::vector<std::pair<std::string, std::uint64_t>>;
  Offsets output_offsets;
  // Free-form key → value (protocol state, versions) for later additions.
  std::vector<std::pair<std::string, std::string>> extra;
  // The noise generator, "generator/layout" (rng::NoiseSource::name()), and its state
  // (rng::NoiseSource::save_state(); empty for philox). Version-1 files have neither:
  // they were written by philox runs and read back as "philox/per_thread".
  std::string rng_name = "philox/per_thread";
  std::vector<std::uint8_t> rng_state;
};

// Binary little-endian file: "ERMAKCKP", format version, payload size, payload, and an
// FNV-1a 64 checksum over everything before it. Floats are stored as their IEEE-754
// bits, so positions round-trip exactly.
//
// Crash safety: first the filesystem holding <path> is synced (syncfs), so output data
// already handed to the OS — the bytes that output_offsets count, written by
// TsvWriter::flush() and DcdWriter::write_frame or flush() — is on disk before a checkpoint that
// refers to it; one call for any number of replica files, where fdatasync per file costs
// milliseconds each. Then the checkpoint goes to "<path>.tmp", is fsynced, renamed over
// <path>, and the directory is fsynced: a crash at any moment leaves either the previous
// checkpoint or the new one, never a torn file. Throws ermak::Error on failure.
// `output_directories`: where outputs live outside the checkpoint's filesystem (a SOP-GPU
// configuration's dat/, dcd/ may be anywhere); each other filesystem is synced as well.
void write_checkpoint_atomically(const std::filesystem::path& path, const Checkpoint& checkpoint,
                                 const std::vector<std::filesystem::path>& output_directories = {});

// Whether a failed syncfs (its errno) only says the kernel or filesystem lacks it (then sync()
// stands in); any other error — a write-back failure — stops the checkpoint.
bool syncfs_unsupported(int error_number);

// Reads and validates (magic, version, size, checksum, array sizes); every error is an
// ermak::Error naming the file and what is wrong.
Checkpoint read_checkpoint(const std::filesystem::path& path);

// Version 2 added the noise generator section; version 1 files are still read.
inline constexpr std::uint32_t kCheckpointFormatVersion = 2;
inline constexpr std::uint32_t kCheckpointOldestReadableVersion = 1;

}  // namespace ermak
