#pragma once
// The coordinates a model may hold (docs/topology.md#errors): finite and of magnitude below 10⁷ Å,
// what the model's and final PDB files write in their 8 columns. Larger ones come from
// damaged inputs (1.0e+20 in a PDB column, a BIOMT translation of 1e300) and would only
// overflow the builders' cell grids.
#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "ermak/core/vec3.h"

namespace ermak {

inline constexpr double kLargestCoordinate_A = 1e7;

// False for NaN and ±∞ too.
inline bool coordinate_fits(double v_A) { return std::abs(v_A) < kLargestCoordinate_A; }
inline bool coordinates_fit(const Vec3d& p_A) {
  return coordinate_fits(p_A.x) && coordinate_fits(p_A.y) && coordinate_fits(p_A.z);
}

// For the builders' refusals: "is at (x, y, z) Å: a coordinate that is not finite or …".
inline std::string out_of_range_position(const Vec3d& p_A) {
  return fmt::format("is at ({:g}, {:g}, {:g}) Å: a coordinate that is not finite or of magnitude 10⁷ Å or more "
                     "(beyond what a PDB file holds)",
                     p_A.x, p_A.y, p_A.z);
}

// For the PDB readers' refusal of one coordinate field, at its line: "'1.0e+20' in columns
// 31-38 is …".
inline std::string out_of_range_field(std::string_view field, int first_column) {
  return fmt::format("'{}' in columns {}-{} is not finite or of magnitude 10⁷ Å or more (beyond what a PDB "
                     "file's 8 columns hold): a damaged record",
                     field, first_column, first_column + 7);
}

}  // namespace ermak
