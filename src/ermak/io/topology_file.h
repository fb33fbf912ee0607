#pragma once
// ermak's own topology file, `.etop`: line-oriented text, exact round trip
// (full specification: docs/formats.md#etop).
#include <filesystem>

#include "ermak/model/topology.h"

namespace ermak {

// The version this build writes and reads (first line "# ermak topology 1").
inline constexpr int kTopologyFileVersion = 1;

// Floats are written with 9 significant digits and coordinates (double) with 17, so
// read_topology_file(write_topology_file(t)) == t bit for bit. Throws ermak::Error when
// a string field cannot be written as one column (contains whitespace).
void write_topology_file(const Topology& topology, const std::filesystem::path& file);

// Throws ermak::Error "file:line: field: what" for a wrong version line, unknown
// keyword, wrong column count, non-numeric value, out-of-range index or a file that
// ends before the announced count of lines; validates the result (validate_topology).
Topology read_topology_file(const std::filesystem::path& file);

}  // namespace ermak
