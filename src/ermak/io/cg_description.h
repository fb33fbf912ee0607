#pragma once
// Coarse-graining descriptions in the format of SOP-GPU's sop-top2 (`aa_to_cg.inp`):
// which beads each residue type becomes, where they sit, which atoms they represent and
// how they are bonded (docs/topology.md#coarse-graining-descriptions-aa_to_cginp).
// Plain data; the model is built from it by io/cg_model_builder.
#include <filesystem>
#include <string>
#include <vector>

namespace ermak {

// MASS index symbol mass: the mass of atoms whose name starts with `symbol`.
struct CgMass {
  std::string symbol;  // first letter of the atom names it applies to ("C", "N", ...)
  double mass_amu = 0.0;
  int line = 0;
};

// A bead that a connection names: "CA" in the same residue, "+CA" in the next residue
// of the chain, "-CA" in the previous one.
struct CgConnection {
  int residue_offset = 0;  // 0, +1 or -1
  std::string bead;        // bead name without the sign
  int line = 0;
};

// BEAD name type ... ENDBEAD.
struct CgBead {
  std::string name;                          // bead (atom) name in the outputs: CA, CB, CZ, CR
  std::string type;                          // CA, SC, SH, ... (informational)
  std::vector<std::string> represented;      // REPR: atoms the bead stands for
  std::vector<std::string> coordinate_atoms; // COOR: the bead sits at their mean position
  double charge = 0.0;                       // CHAR, elementary charges (informational)
  std::vector<CgConnection> connections;     // CONN
  double mass_amu = 0.0;  // sum of the MASS of every REPR name's first letter (as sop-top2)
  int line = 0;           // of BEAD
  int coor_line = 0;      // of COOR
};

// RESI name ... ENDRESI.
struct CgResidue {
  std::string name;
  std::vector<CgBead> beads;  // in file order: the order of the beads in the model
  int line = 0;

  const CgBead* find(const std::string& bead_name) const;
};

struct CgDescription {
  std::string source;  // the file, for messages
  std::vector<CgMass> masses;
  std::vector<CgResidue> residues;

  const CgResidue* find(const std::string& residue_name) const;
};

// Reads a description. Records (first word, case-insensitive): MASS, RESI, BEAD, REPR,
// COOR, CHAR, CONN, ENDBEAD, ENDRESI; `!` starts a comment; blank lines are skipped.
// Throws ermak::Error "file:line: RECORD: what" for an unknown record, a record out of
// place (BEAD outside RESI, REPR outside BEAD, ...), REPR/COOR/CHAR twice in a bead,
// missing or malformed fields, a RESI or BEAD not closed, a bead without COOR, duplicate
// residue or bead names, and an in-residue CONN naming no bead of the residue.
CgDescription read_cg_description(const std::filesystem::path& file);

}  // namespace ermak
