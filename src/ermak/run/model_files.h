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

}  // namespace ermak
