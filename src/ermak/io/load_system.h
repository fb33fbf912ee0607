#pragma once
// The one entry point from InputSpec to a ready Topology and starting coordinates.
#include <cstdint>
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/core/vec3.h"
#include "ermak/io/ca_model_builder.h"
#include "ermak/model/topology.h"

namespace ermak {

struct LoadedSystem {
  Topology topology;
  std::vector<Vec3d> initial_positions_A;  // one per bead
  // input.replica_coordinates read: replica r starts at replica_positions_A[r] (empty:
  // every replica starts at initial_positions_A, which is then replica 0's).
  std::vector<std::vector<Vec3d>> replica_positions_A;
  std::vector<std::string> warnings;       // for the run log
};

// input.structure set: the C-alpha model of that PDB/mmCIF (build), starting at its
//   native coordinates, or at input.coordinates when given.
// else input.topology *.top (SOP-GPU): input.coordinates is required; it gives both the
//   starting and the native coordinates.
// else input.topology *.etop (ermak): starts at input.coordinates when given, otherwise
//   at the native coordinates stored in the file.
// input.replica_coordinates: one PDB per replica, each checked against the topology.
// Throws ermak::Error naming the offending file (e.g. the coordinates file when its bead
// count differs from the topology's); the result passes validate_topology.
// The file the start coordinates come from, for messages: input.coordinates, else the
// structure, else the topology (an .etop's own coordinates).
std::filesystem::path start_coordinates_source(const InputSpec& input);

// "input.replica_coordinates[r]": the setting that names replica r's start file, for
// messages about that file (one of many, so the file's name alone may not find it).
std::string replica_coordinates_field(std::int64_t replica);

// `distances`: the arithmetic of a structure's C-alpha model (io/ca_model_builder.h); a run
// started by an ermak before commit dd1af8e resumes with CaDistances::double_precision.
LoadedSystem load_system(const InputSpec& input, const ModelBuildSpec& build,
                         CaDistances distances = CaDistances::sopgpu_float);

}  // namespace ermak
