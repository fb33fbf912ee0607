#pragma once
// The run driver: Spec → Topology + State → Engine steps → reporters → files
// (DESIGN.md §3). It owns the output directory, the schedule of reports, trajectory
// frames and checkpoints, and resuming.
#include <filesystem>
#include <memory>
#include <string>

#include "ermak/backend/engine.h"
#include "ermak/config/spec.h"

namespace ermak {

struct RunOptions {
  bool resume = false;  // continue from OUTDIR/checkpoint.ckpt
  bool force = false;   // allow overwriting an existing output directory's files
  bool quiet = false;   // no console log lines (the run log is always written)
};

struct RunSummary {
  std::filesystem::path output_directory;
  std::int64_t first_step = 0, last_step = 0;
  double wall_seconds = 0.0;
  double steps_per_second = 0.0;
};

RunSummary run_simulation(const RunSpec& spec, const RunOptions& options);

// "auto" → "cuda" when this build has the CUDA backend and a GPU is usable, else "cpu"
// (the reason in *reason); "cpu" and "cuda" stay as they are.
std::string resolve_backend(const std::string& backend, std::string* reason = nullptr);

// Makes the engine of a backend ("auto", "cpu" or "cuda"; setup.device picks the GPU,
// cuda_kernels the CUDA kernel family: "auto", "block", "perbead"); a clear Error when
// it is not available in this build or on this machine.
std::unique_ptr<Engine> make_engine(const std::string& backend, const EngineSetup& setup,
                                    const std::string& cuda_kernels = "auto");

// Stable 64-bit FNV-1a fingerprint of the parts of a resolved configuration that a
// resumed run must share with the original (everything but the step count).
std::string config_fingerprint(const std::string& resolved_toml);

}  // namespace ermak
