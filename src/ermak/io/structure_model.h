#pragma once
// All-atom structures (PDB, mmCIF) as read by gemmi, and ermak's residue-level view of
// one model of them: the input of the topology builder (docs/topology.md).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gemmi/model.hpp>
#include <gemmi/resinfo.hpp>

#include "ermak/core/vec3.h"

namespace ermak {

enum class StructureFormat { Pdb, Mmcif };

// Where native contacts' ε_h comes from: a constant, or the structure's B-factor or occupancy
// column (`--eh VALUE | B | O`, SOP-GPU's `eh`). With a column, every atom record of the file
// must hold a number there (read_structure_file).
enum class EpsilonSource { Constant, BFactor, Occupancy };

// A structure file parsed by gemmi. `notes` holds non-fatal findings of the reading
// (e.g. old-layout columns 73-80 ignored), without the file name.
struct ParsedStructure {
  gemmi::Structure structure;
  StructureFormat format = StructureFormat::Pdb;
  std::vector<std::string> notes;
  // A PDB file whose last record is an atom record (no TER, ENDMDL or END after it), or an
  // mmCIF file whose last line is a row of the _atom_site loop (no `#` line or other category
  // after it): that line, else 0 (cut_short_note).
  int ends_in_atom_record_line = 0;
  // A PDB file: whether it has an END record, and the number of residues its SEQRES records
  // list per chain (column 12), for cut_short_note.
  bool pdb_end_record = false;
  std::map<std::string, int> seqres_length;
  // An mmCIF's assembly categories that gemmi skipped for a missing tag
  // (io/cif_assembly_tags.h); said when an assembly is asked for.
  std::vector<std::string> assembly_tags_missing;
};

// A note when the file may have been cut short: a PDB that ends in an atom record, or an mmCIF
// that ends in a row of its atom list, within a residue that has fewer atoms than the model's
// other residues of its name (a complete file without END, or without the `#` after its last
// category, ends with a whole residue), or a PDB without END that ends in an atom record with
// its last chain short of the residues its SEQRES lists; "" otherwise.
std::string cut_short_note(const ParsedStructure& parsed, const gemmi::Model& model);

// Reads PDB (extensions .pdb/.ent) or mmCIF (.cif/.mmcif), other names by content ("data_"
// first means mmCIF). PDB coordinate columns are checked strictly before gemmi reads them
// (gemmi is lenient with truncated records). Throws ermak::Error naming the file (and the
// line where known) when it is missing, empty, a directory, or does not parse. A UTF-8
// byte-order mark at the start is ignored (with a note). With `eh_source` a column, an atom
// record without a number there (too short to hold it, blank, or `?`/`.`) is an error: gemmi
// would give it a default (PDB B 20 or occupancy 1, mmCIF B 50) as a contact energy.
ParsedStructure read_structure_file(const std::filesystem::path& file,
                                    EpsilonSource eh_source = EpsilonSource::Constant);

// The warning for a file whose NCS operators (MTRIX, _struct_ncs_oper, not "given") generate
// further copies of its chains when the model is built without them (`ermak topology`
// without --assembly, `[input] structure`); "" for none.
std::string ncs_copies_note(std::size_t operators_to_generate);

// One heavy atom of a residue, after the choice of alternative conformation.
struct StructureAtom {
  std::string name;
  Vec3d position_A;
  float occupancy = 1.0f;
  float b_factor = 0.0f;
  float mass_amu = 0.0f;  // element mass (informational)
};

// One amino-acid residue of the chosen model.
struct StructureResidue {
  std::string chain_id;     // author chain name (after assembly expansion: unique copy name)
  std::string subchain;     // mmCIF label_asym_id (assembly generators select by it)
  std::string source_chain; // chain name in the file (before expansion)
  int copy = 0;             // index of the symmetry copy (0 without expansion)
  int number = 0;           // author residue number
  char icode = ' ';         // insertion code, ' ' for none
  std::string file_name;    // residue name as written (MSE)
  std::string name;         // name used in the model: the parent for modified residues (MET)
  bool hetatm = false;
  float weight_amu = 0.0f;  // gemmi's tabulated molecular weight of `name`
  std::vector<StructureAtom> atoms;  // heavy atoms only (hydrogens are dropped)

  const StructureAtom* find(const std::string& atom_name) const;
  std::string label() const;  // "A:LYS 6" or "A:SER 52A"
};

// A disulfide listed in the file (PDB SSBOND, mmCIF struct_conn conn_type disulf): the two
// cysteines by source chain, number and insertion code.
struct DisulfideRecord {
  std::string chain1, chain2;
  int number1 = 0, number2 = 0;
  char icode1 = ' ', icode2 = ' ';
};

// x' = R x + t.
struct SymmetryOperator {
  std::string name;
  double r[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double t[3] = {0, 0, 0};

  Vec3d apply(const Vec3d& p) const {
    return {r[0][0] * p.x + r[0][1] * p.y + r[0][2] * p.z + t[0],
            r[1][0] * p.x + r[1][1] * p.y + r[1][2] * p.z + t[1],
            r[2][0] * p.x + r[2][1] * p.y + r[2][2] * p.z + t[2]};
  }
  bool is_identity(double tolerance = 1e-6) const;
};

// A biological assembly of the file: for each generator, the operators applied to the
// chains (PDB REMARK 350) or subchains (mmCIF _pdbx_struct_assembly_gen) it names.
struct AssemblyRecord {
  std::string id;
  std::string details;  // oligomeric details, when given
  struct Generator {
    std::vector<std::string> chains;     // "(all)" means every chain
    std::vector<std::string> subchains;
    std::vector<SymmetryOperator> operators;
  };
  std::vector<Generator> generators;
};

struct StructureReadOptions {
  std::optional<int> model;  // the model's number (MODEL record: 0 to 9999); none: the file's first
  bool keep_hetero = false;  // amino-acid residues in HETATM records become beads
  // Only these chains, by their names in the file (io/chain_names.h); empty: every chain.
  std::vector<std::string> chains;
};

// The residues of one model that become beads, plus what the builder needs from the file.
struct StructureModel {
  std::string source;                 // the file, for messages
  StructureFormat format = StructureFormat::Pdb;
  std::string model_name;             // gemmi's model name ("1"): its MODEL number
  int model_position = 1;             // which of the file's models it is (1 = the first)
  int model_count = 0;
  std::vector<std::string> chains_selected;  // StructureReadOptions::chains (empty: every chain)
  std::vector<StructureResidue> residues;     // chains in file order, residues in file order
  std::vector<DisulfideRecord> disulfides;    // from the file (empty when none listed)
  std::vector<AssemblyRecord> assemblies;     // biological assemblies listed in the file
  std::vector<std::string> assembly_tags_missing;  // ParsedStructure's: why assemblies may be absent
  std::vector<SymmetryOperator> ncs_operators;// strict NCS operators to generate (not "given")
  // ORIGX (PDB ORIGXn, mmCIF _database_PDB_matrix.origx): the map from the entry's
  // coordinates to the depositors' submitted frame, kept only when it is not the identity
  // (old entries; the NCS operators of some are written in that frame, see
  // docs/topology.md#ncs-operators-and-origx).
  std::optional<SymmetryOperator> origx;
  std::vector<std::string> warnings;          // findings while reading, without the file name
  int skipped_hetero_amino_acids = 0;         // amino-acid HETATM residues left out
  int skipped_other = 0;                      // ligands, ions, nucleotides, glycans
  int skipped_water = 0;
  int skipped_no_ca = 0;
  int hydrogens_ignored = 0;
};

// The residue-level model of `parsed` (see docs/topology.md#reading-the-structure):
// amino-acid residues of the chosen model (ATOM records; HETATM ones with keep_hetero),
// one conformer each (highest occupancy), hydrogens dropped, modified residues named by
// their parent where gemmi knows it (MSE → MET), residues without C-alpha skipped with a
// warning. Throws ermak::Error naming `source` for a model number that does not exist
// and when no residue with a C-alpha remains.
StructureModel extract_structure_model(const ParsedStructure& parsed, const std::string& source,
                                       const StructureReadOptions& options);

// Throws ermak::Error naming the model's source, the residue and the atom when a heavy
// atom's coordinate is not finite or of magnitude 10⁷ Å or more (model/coordinate_range.h): the
// builders check it first, after any assembly expansion.
void check_structure_coordinates(const StructureModel& model);

// For a chain break between residues numbered `before` and `after`: which residue numbers
// in between the model lacks, as " — residue 65 is not in the model (missing from the
// file…)"; with `hetero_skipped` (a builder that leaves HETATM records out) the hint that
// --keep-hetero keeps amino acids there; `after_icode` and `before_icode` the residues'
// insertion codes (97 to 100B lacks 98 to 100A, 100A to 100C lacks 100B). "" when none.
std::string residues_missing_between(int before, int after, bool hetero_skipped, char after_icode = ' ',
                                     char before_icode = ' ', bool without_ca_skipped = false);

// The standard residue a modified amino acid derives from, as gemmi's residue table
// encodes it (lower-case one-letter code): "MSE" → "MET", "SEP" → "SER"; the name itself
// when it is standard or gemmi does not know a parent.
std::string parent_residue_name(const std::string& name);

// gemmi's table entry of a residue name; for the protonation-state names of the force
// fields (CHARMM HSD, HSE, HSP, ASPP, GLUP; AMBER HID, HIE, HIP, CYX, CYM, ASH, GLH, LYN;
// GROMACS HISD, HISE, HISH, HISA, HISB, HIS1, HISP, LYSH, ASPH, GLUH, CYSH, CYS1, CYS2,
// ARGN, ASN1), which the table does not hold, that of the standard residue (HIS, CYS,
// ASP, GLU, LYS, ARG, ASN): SOP-GPU's own C-alpha models (PF8_sop.pdb) name histidines HSD.
gemmi::ResidueInfo amino_acid_info(const std::string& name);

// The molecular weight of the free amino acid `name` in its neutral form (docs/topology.md:
// a bead's mass_amu): the table's weight, less one hydrogen for LYS, ARG and HIS, which the
// chemical-component dictionary lists as cations. 0 for a name the table does not know.
float free_amino_acid_weight_amu(const std::string& name);

// True when the table (amino_acid_info) calls the residue an amino acid, or (names it does
// not know) the residue has atoms N, CA and C.
bool is_amino_acid_residue(const gemmi::Residue& residue);

// The C-alpha of the highest-occupancy conformer (first one on ties). Matched by name only:
// CHARMM-style files shift "CA" to column 13, where gemmi infers calcium, and an amino acid
// has no other atom of that name.
const gemmi::Atom* best_ca(const gemmi::Residue& residue);

// Whether `next`, which follows `previous` in a chain under the same sequence id, is an
// alternative to it at one position (microheterogeneity, whose atoms carry alternate-location
// labels: the builders keep the one whose C-alpha has the highest occupancy), rather than
// another residue under a reused number (both with unlabelled C-alphas: both become beads,
// and ReusedResidueNumbers says so: io/residue_notes.h). docs/formats.md#pdb-and-mmcif.
bool alternative_residues(const gemmi::Residue& previous, const gemmi::Residue& next);

// "DA (10), DC (9)": residue names with how often they were met (up to 12 names), for the
// warnings that list what a builder skipped.
std::string counted_names(const std::map<std::string, int>& counts);

}  // namespace ermak
