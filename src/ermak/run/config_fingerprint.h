#pragma once
// What a resumed run must share with the run that wrote its checkpoint: a fingerprint of
// the resolved configuration (docs/outputs.md#resuming-elsewhere).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "ermak/model/topology.h"

namespace ermak {

// Stable 64-bit FNV-1a fingerprint of the parts of a resolved configuration that a
// resumed run must share with the original: everything but the step count, the noise
// generator (checked on its own), where the run is computed ([run] backend, device,
// threads, cuda_kernels; [output] directory), the input files' paths (the model they
// give is compared by content: model_fingerprint) and [minimize] (a resume starts from the
// checkpoint's positions).
std::string config_fingerprint(const std::string& resolved_toml);
// The fingerprint of checkpoints written from 2026-11-28 to commit db9cf06, which also covered
// [minimize] and a .sop run's heating stop.
std::string config_fingerprint_with_minimize(const std::string& resolved_toml);
// The lines config_fingerprint covers (with their table headers), which a checkpoint keeps
// so that a resume that refuses can say what changed; without paths of where the run is
// computed, so runs in two directories keep the same text.
std::string fingerprinted_text(const std::string& resolved_toml);
// What differs between two resolved configurations (or their fingerprinted_text) in what config_fingerprint covers, for
// the message of a resume that refuses: "run.seed = 100, was 99", "model.x = 1 is new", …
// (at most `at_most` of them, in the order of the earlier configuration). `shown_name`, if
// given, names a setting ("pulling.speed_um_per_s") as the user wrote it (a .sop file's
// "deltax"), or returns it unchanged.
std::vector<std::string> fingerprint_differences(
    const std::string& before, const std::string& now, std::size_t at_most = 4,
    const std::function<std::string(const std::string&)>& shown_name = {});
// The fingerprint of checkpoints written from 2026-11-23 to 2026-11-28, which also covered
// [minimize] and the input files' paths ([input] structure, topology, coordinates, replica_coordinates):
// since, the model is compared by content (model_fingerprint), so a project moved or copied
// elsewhere resumes, and an edited model file does not.
std::string config_fingerprint_with_input_paths(const std::string& resolved_toml);
// The fingerprint of checkpoints written before 2026-11-23 (only the step counts and the
// generator left out), still accepted on --resume.
std::string legacy_config_fingerprint(const std::string& resolved_toml);

// FNV-1a fingerprint of what a model gives a run: its beads (count, chain, residue number,
// insertion code, residue and atom names, which bead selections resolve against), bonds
// and native contacts with their parameters — not the native or start coordinates (a
// resumed run takes its positions from the checkpoint) nor the informational columns.
std::string model_fingerprint(const Topology& topology);
// "34 beads, 33 bonds, 75 native contacts": for the message of a resume that refuses.
std::string model_summary(const Topology& topology);

}  // namespace ermak
