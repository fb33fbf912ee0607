#pragma once
// Coarse-grained PDB files: one ATOM record per bead (docs/formats.md#coarse-grained-pdb).
// All-atom structures are read with gemmi (io/ca_model_builder.h), not here.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "ermak/core/vec3.h"
#include "ermak/model/topology.h"

namespace ermak {

// x, y, z (columns 31-54) of every ATOM/HETATM record of the first model, in file order
// (reading stops at ENDMDL or END). Throws ermak::Error "file:line: x|y|z: ..." for a
// truncated record or a coordinate that does not parse, and when there is no record.
std::vector<Vec3d> read_pdb_coordinates(const std::filesystem::path& file);

// One ATOM record per bead, with its residue information; chain id column 22 holds the
// first character of chain_id and the segment id (columns 73-76) its first four, so
// chains with names of up to four characters stay distinct for VMD/MDAnalysis. Serial
// numbers above 99999 are written in hybrid-36 (which MDAnalysis, VMD and gemmi read),
// residue numbers above 9999 as their last four digits (which MDAnalysis unwraps; it does
// not decode hybrid-36 residue numbers), 4-character residue names in columns 18-21;
// columns never shift. `remark` lines (split at '\n') go into REMARK records. Then one CONECT
// record per bond of the topology (serials in columns 7-11 and 12-16, the lower first, in the
// topology's order), as SOP-GPU writes them, except in a file of more than 99 999 beads
// (hybrid-36 serials, which VMD's CONECT reader does not decode); then END.
// x, y, z: bead coordinates in Å, topology.bead_count() each.
void write_pdb(const std::filesystem::path& file, const Topology& topology, const float* x,
               const float* y, const float* z, const std::string& remark = "");
// write_pdb, unless a coordinate does not fit a PDB's 8 columns (beyond −9 999 999 …
// 99 999 999 Å, or not finite): then nothing is written and the first such coordinate is
// returned, as "bead 3 x = -11735672 A"; "" when written. A run whose beads drifted that far
// finishes without its final structure rather than failing at its end.
std::string write_pdb_if_it_fits(const std::filesystem::path& file, const Topology& topology, const float* x,
                                 const float* y, const float* z, const std::string& remark = "");
void write_pdb(std::ostream& out, const Topology& topology, const float* x, const float* y,
               const float* z, const std::string& remark = "");

// "" when every chain keeps its own PDB segment id and VMD segment name; else a warning
// naming chains whose names share their first four characters (e.g. C60-1 … C60-4 of an
// assembly expanded by a symmetry file), which the PDB cannot tell apart and the PSF can,
// and those sharing their first seven (ABC1-10 and ABC1-100), which VMD's psfplugin cannot
// tell apart in the PSF either.
std::string segment_id_clash(const Topology& topology);

// "" when every residue number fits the PDB's four columns; else a warning that those above
// 9 999 are written as their last four digits (below −999 as −999), that MDAnalysis misreads
// the chains after a wrapped one, and that the PSF holds them whole.
std::string residue_numbers_beyond_pdb(const Topology& topology);

// About the bytes write_pdb writes for a chain model of `beads` beads, for disk-space
// estimates: a 77-byte ATOM line a bead, a 17-byte CONECT line a bond (about one a bead; none
// beyond 99 999 beads) and ~200 bytes of REMARK and END records.
double pdb_bytes_estimate(std::int64_t beads);

// Hybrid-36 encoding of `value` in `width` columns (decimal while it fits); exposed for tests.
std::string hybrid36(long value, int width);

}  // namespace ermak
