#pragma once
#include <filesystem>

#include "ermak/model/topology.h"

namespace ermak {

// Writes an X-PLOR/CHARMM PSF for a coarse-grained topology (docs/outputs.md#psf), the
// structure file that goes with ermak's DCD trajectories in VMD and MDAnalysis:
//   !NATOM  one line per bead: segment = chain id, resid, resname, atom name (CA/CB),
//           type = atom name, charge 0, mass = bead mass (1.0 when unknown/zero)
//   !NBOND  the FENE bonds, plus the native contacts when native_contacts_as_bonds
//           (so VMD draws the native network; pairs already bonded are not repeated)
//   !NTHETA !NPHI !NIMPHI !NDON !NACC !NNB !NGRP  empty, as readers expect them.
// The standard fixed-column format is used when every field fits it; otherwise the
// whole file is "PSF EXT" (wider columns). Insertion codes are not written (MDAnalysis
// reads resids as integers). Throws ermak::Error if the file exists and !overwrite,
// if a name cannot be represented (longer than 8 characters), or on I/O failure.
// Throws ermak::Error naming `source` and the bead when a chain id, residue number, residue
// name or atom name is longer than the 8 characters a PSF holds — checked before any file of
// a model is written (ermak topology, a run's start and its dry run), not at the PSF.
void check_psf_names(const Topology& topology, const std::string& source);

void write_psf(const std::filesystem::path& path, const Topology& topology,
               bool native_contacts_as_bonds, bool overwrite);

}  // namespace ermak
