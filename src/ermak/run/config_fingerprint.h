#pragma once
// What a resumed run must share with the run that wrote its checkpoint: a fingerprint of
// the resolved configuration (docs/outputs.md#resuming-elsewhere).
#include <string>

namespace ermak {

// Stable 64-bit FNV-1a fingerprint of the parts of a resolved configuration that a
// resumed run must share with the original: everything but the step count, the noise
// generator (checked on its own) and where the run is computed ([run] backend, device,
// threads, cuda_kernels; [output] directory).
std::string config_fingerprint(const std::string& resolved_toml);
// The fingerprint of checkpoints written before 2026-11-23 (only the step counts and the
// generator left out), still accepted on --resume.
std::string legacy_config_fingerprint(const std::string& resolved_toml);

}  // namespace ermak
