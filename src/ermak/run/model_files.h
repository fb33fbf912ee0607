#pragma once
// The model files of an output directory (docs/outputs.md#layout-of-an-output-directory):
// model.psf and model.pdb for VMD/MDAnalysis, model.etop for ermak itself.
#include <filesystem>
#include <string>
#include <vector>

#include "ermak/core/vec3.h"
#include "ermak/model/topology.h"

namespace ermak {

// Writes model.psf, model.etop and model.pdb (the input coordinates) into `dir`. With
// `only_missing` (a resumed run) it writes only those that are not there: the checkpoint
// has already compared the model by content, so a file deleted since the start is the same
// model again, and an existing one is never overwritten. Returns the names written.
std::vector<std::string> write_model_files(const std::filesystem::path& dir, const Topology& topology,
                                           const std::vector<Vec3d>& input_positions_A, bool only_missing);

// A resumed run keeps the model.etop it finds in `dir` (write_model_files with only_missing),
// and `ermak analyze` reads that file: throws ermak::Error naming it unless it reads as
// `topology` (by content: model_fingerprint) — a file damaged or replaced since the start
// would otherwise fail or mislead the analysis after the whole run. The message says to
// remove it, so that the resume writes it anew. No file: nothing to check.
void check_kept_model_file(const std::filesystem::path& dir, const Topology& topology);

}  // namespace ermak
