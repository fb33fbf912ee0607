#pragma once
// The symmetry operators a PDB file writes as three rows each — REMARK 350 BIOMT1-3 of a
// biological assembly, MTRIX1-3 of the NCS — checked before gemmi reads them
// (docs/formats.md#pdb-and-mmcif). gemmi drops an operator that misses a row, joins rows
// numbered apart into one operator, and reads a garbled number by its prefix: an assembly or
// capsid built from such a file silently lacks subunits (an audit's 1CWP with one MTRIX3
// row removed gave 177 of 180 chains).
#include <string>
#include <string_view>

namespace ermak {

// Throws ermak::Error(file, line, "BIOMTn" | "MTRIXn", …) for a row out of order (BIOMT3
// after BIOMT1), a row of another operator's number within an operator, an operator cut
// short (the next record is no row of it), or a field that is not a number.
void check_pdb_operator_records(const std::string& file, std::string_view text);

}  // namespace ermak
