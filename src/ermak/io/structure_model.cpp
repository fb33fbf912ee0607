#include "ermak/io/structure_model.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
#include <gemmi/pdb.hpp>
#include <gemmi/resinfo.hpp>
#if __has_include(<tao/pegtl.hpp>)
// gemmi's CIF parser needs PEGTL (Debian: tao-pegtl-dev); without it only PDB is read.
#include <gemmi/cif.hpp>
#include <gemmi/mmcif.hpp>
#define ERMAK_HAVE_MMCIF 1
#endif

#include "ermak/core/error.h"
#include "ermak/io/chain_names.h"
#include "ermak/io/cif_assembly_tags.h"
#include "ermak/io/cif_loop_rows.h"
#include "ermak/io/cif_operator_expressions.h"
#include "ermak/io/input_file.h"
#include "ermak/io/pdb_operator_records.h"
#include "ermak/io/residue_notes.h"
#include "ermak/io/residue_stand_ins.h"
#include "ermak/io/structure_content.h"
#include "ermak/io/text_fields.h"
#include "ermak/model/coordinate_range.h"

namespace ermak {
namespace {

// gemmi keeps occupancy and B-factor as floats: a value beyond their range would become
// ±inf, written to the model's .etop and .top, which no reader takes back (an audit's
// B-factor of 1.0e39).
bool fits_single_precision(double value) { return std::abs(value) <= double(std::numeric_limits<float>::max()); }
constexpr const char* kBeyondSinglePrecision = " is beyond single precision (±3.4·10³⁸), where ermak keeps it";

// The force fields' protonation-state and variant names of the standard amino acids, which
// gemmi's table does not hold (docs/topology.md#reading-the-structure): CHARMM, AMBER, and
// GROMACS's residuetypes.dat (GROMOS, OPLS-AA and CHARMM ports).
const std::map<std::string, std::string>& force_field_names() {
  static const std::map<std::string, std::string> kNames = {
      {"HSD", "HIS"},  {"HSE", "HIS"},  {"HSP", "HIS"},  {"HID", "HIS"},  {"HIE", "HIS"},  {"HIP", "HIS"},
      {"HISD", "HIS"}, {"HISE", "HIS"}, {"HISH", "HIS"}, {"HISA", "HIS"}, {"HISB", "HIS"}, {"HIS1", "HIS"},
      {"HISP", "HIS"}, {"CYX", "CYS"},  {"CYM", "CYS"},  {"CYSH", "CYS"}, {"CYS1", "CYS"}, {"CYS2", "CYS"},
      {"ASH", "ASP"},  {"ASPH", "ASP"}, {"ASPP", "ASP"}, {"GLH", "GLU"},  {"GLUH", "GLU"}, {"GLUP", "GLU"},
      {"LYN", "LYS"},  {"LYSH", "LYS"}, {"ARGN", "ARG"}, {"ASN1", "ASN"}};
  return kNames;
}

bool is_four_letter_residue_name(std::string_view name) {
  return name.size() == 4 && force_field_names().count(std::string(name)) > 0;
}

std::string read_whole_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw Error(name, 0, "structure", "file not found");
  if (std::filesystem::is_directory(file, ec))
    throw Error(name, 0, "structure", "is a directory, not a structure file");
  check_text_input_file(file, "structure");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(name, 0, "structure", "cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool ends_with_ci(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

// By extension first (what the user said), by content for anything else.
StructureFormat detect_format(const std::filesystem::path& file, const std::string& text) {
  const std::string name = file.filename().string();
  if (ends_with_ci(name, ".pdb") || ends_with_ci(name, ".ent")) return StructureFormat::Pdb;
  if (ends_with_ci(name, ".cif") || ends_with_ci(name, ".mmcif")) return StructureFormat::Mmcif;
  std::size_t p = text.find_first_not_of(" \t\r\n");
  while (p != std::string::npos && text[p] == '#') {  // CIF comments
    p = text.find('\n', p);
    if (p != std::string::npos) p = text.find_first_not_of(" \t\r\n", p);
  }
  if (p != std::string::npos && text.compare(p, 5, "data_") == 0) return StructureFormat::Mmcif;
  if (p != std::string::npos && text[p] == '{')
    throw Error(file.string(), 0, "structure", "mmJSON is not supported; use PDB or mmCIF");
  return StructureFormat::Pdb;
}

// gemmi 0.5.7 refuses the old PDB layout whose columns 73-80 hold the entry id and a
// line count ("1CWP 381"; read as a charge); a coarse-grained model needs none of segment
// id, element or charge there, so such columns are blanked.
bool valid_charge_columns(char digit, char sign) {
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  if (is_digit(sign)) std::swap(digit, sign);
  return !is_digit(digit) || sign == '+' || sign == '-' || sign == ' ' || sign == '\0';
}

// A PDB column range ("columns 31-38") for messages.
std::string columns_text(int first, int last) {
  return "columns " + std::to_string(first) + "-" + std::to_string(last);
}

// A MODEL record (gemmi takes any record whose name starts with "MODE" for one).
bool is_model_record(std::string_view line) {
  return line.size() >= 5 && std::equal(line.begin(), line.begin() + 5, "MODEL", [](char a, char b) {
           return std::toupper(static_cast<unsigned char>(a)) == b;
         });
}

// A MODEL record with its serial number in columns 11-14, where gemmi 0.5.7 reads it (as
// 4 characters, past the end of a shorter line: "MODEL 1" and "MODEL 2", as some tools
// write them, became models 0 and 4). The serial is the integer after MODEL wherever it
// stands; a record without one is an error at its line.
std::string model_record(const std::string& file, int line_number, std::string_view line) {
  const auto columns = text::split_columns(line.substr(5));
  const auto serial = columns.empty() ? std::nullopt : text::parse_number<int>(columns.front());
  if (!serial || *serial < 0 || *serial > 9999)
    throw Error(file, line_number, "MODEL",
                "'" + std::string(line) + "': the model number (an integer from 0 to 9999 after MODEL, in "
                "columns 11-14) is " + (columns.empty() ? std::string("missing") : "'" + std::string(columns.front()) + "'"));
  return fmt::format("MODEL     {:>4}", *serial);
}

// An END record ("END", not ENDMDL; any case, as gemmi reads it): gemmi stops reading there.
bool is_end_record(std::string_view line) {
  return line.size() >= 3 &&
         std::equal(line.begin(), line.begin() + 3, "END",
                    [](char a, char b) { return std::toupper(static_cast<unsigned char>(a)) == b; }) &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
}

// The column ε_h is read from (--eh B | O): its PDB field and columns, its mmCIF column, and
// the letter of the option.
struct EhColumn {
  const char* pdb_field;
  std::size_t first;  // 0-based first PDB column
  const char* cif_column;
  char letter;
};

std::optional<EhColumn> eh_column(EpsilonSource source) {
  if (source == EpsilonSource::BFactor) return EhColumn{"tempFactor", 60, "B_iso_or_equiv", 'B'};
  if (source == EpsilonSource::Occupancy) return EhColumn{"occupancy", 54, "occupancy", 'O'};
  return std::nullopt;
}

// With --eh B | O, a record must hold the whole field (a right-justified number ends at its
// last column; gemmi reads a field only from a line that reaches near its end, else gives B
// 20 or occupancy 1) with a number in it. A blank field is refused as well: gemmi reads it
// as 0, and it differs from a record too short to hold the field only by trailing blanks,
// which editors strip.
void check_eh_field(const std::string& file, int line_number, std::string_view line, const EhColumn& column) {
  const std::string where = columns_text(int(column.first) + 1, int(column.first) + 6);
  const std::string why = fmt::format(", and ε_h is read from it (eh {}): give every atom record a value there, or "
                                      "ε_h as a number",
                                      column.letter);
  if (line.size() < column.first + 6)
    throw Error(file, line_number, column.pdb_field,
                fmt::format("the record ends at column {}, without the whole {} field ({}){}", line.size(),
                            column.pdb_field, where, why));
  if (text::trim(line.substr(column.first, 6)).empty())
    throw Error(file, line_number, column.pdb_field, where + " are blank" + why);
}

// A digit in the insertion-code column (27) right after a digit in column 26 is a 5-digit
// residue number written in columns 23-27 (10000), which gemmi reads as 1000 with insertion
// code '0'.
void check_five_digit_residue_number(const std::string& file, int line_number, std::string_view line) {
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  if (line.size() > 26 && is_digit(line[25]) && is_digit(line[26]))
    throw Error(file, line_number, "resSeq/iCode",
                "'" + std::string(line.substr(22, 5)) + "' in " + columns_text(23, 27) +
                    ": the residue number seems to have 5 digits, and PDB holds 4 (columns 23-26; column 27 is "
                    "the insertion code): write it in hybrid-36 (A000 = 10000) or use mmCIF");
}

// The records that tell gemmi's PDB reader where residues and chains start.
struct PdbRecord {
  enum Kind { Atom, Ter, Model } kind;  // Model: MODEL or ENDMDL
  std::size_t start;                    // in the text
};

// Standard PDB puts the residue name in columns 18-20 and the chain in 22 (gemmi reads 21-22,
// for two-character ids). GROMACS (`%4.4s`), VMD and AMBER write a 4-letter name in columns
// 18-21, which gemmi would cut to 3 letters, taking the 4th for a chain id's first character:
// the residue would leave its chain. Where columns 18-21 hold a 4-letter name ermak knows
// (force_field_names) and the file has no two-character chain ids (HISAB: HIS of chain AB),
// the name is columns 18-21 and the chain column 22.
struct PdbResidueColumns {
  std::string name, chain;
  bool four_letter_name = false;
};

PdbResidueColumns pdb_residue_columns(std::string_view line, bool two_character_chains) {
  if (!two_character_chains && is_four_letter_residue_name(line.substr(17, 4)))
    return {std::string(line.substr(17, 4)), std::string(text::trim(line.substr(21, 1))), true};
  return {std::string(text::trim(line.substr(17, 3))), std::string(text::trim(line.substr(20, 2))), false};
}

// Whether the file writes two-character chain ids in columns 21-22: a record of a residue
// that gemmi's table knows by its 3-letter name (ALA, HOH, DA) with column 21 not blank,
// where columns 18-21 are no 4-letter name. A file of 4-letter names leaves column 21 blank
// after the other residues' 3-letter names.
bool uses_two_character_chains(std::string_view text, const std::vector<PdbRecord>& records) {
  for (const PdbRecord& record : records) {
    if (record.kind != PdbRecord::Atom) continue;
    const std::string_view line = text.substr(record.start, 22);
    if (line[20] == ' ' || is_four_letter_residue_name(line.substr(17, 4))) continue;
    if (gemmi::find_tabulated_residue(std::string(text::trim(line.substr(17, 3)))).found()) return true;
  }
  return false;
}

// gemmi joins the records of a chain that share a residue's number, insertion code, name and
// segment id wherever they stand; only records that follow one another are one residue
// (ResidueOccurrences). A residue whose number and name come back later (a chain numbered
// domain by domain), and a 4-letter name (pdb_residue_columns), get a stand-in name in columns
// 18-20, restored after gemmi has read the file; column 21 of a 4-letter name becomes a blank.
void give_gemmi_residue_names(const std::string& file, std::string& text, const std::vector<PdbRecord>& records,
                              ResidueStandIns& stand_ins) {
  const bool two_character_chains = uses_two_character_chains(text, records);
  const auto line_at = [&](std::size_t start) {
    const std::size_t end = text.find('\n', start);
    return std::string_view(text.data() + start, (end == std::string::npos ? text.size() : end) - start);
  };
  ResidueOccurrences occurrences;
  ResidueRun run;
  const auto finish_run = [&] {
    if (run.items.empty()) return;
    const int occurrence = occurrences.of(run.position, run.name, run.has_ca);
    const bool four_letter_name = run.name.size() == 4;
    if (occurrence > 1 || four_letter_name) {
      const std::string code = stand_ins.stand_in(run.name, occurrence, file);
      for (const std::size_t start : run.items) {
        text.replace(start + 17, 3, code);
        if (four_letter_name) text[start + 20] = ' ';
      }
    }
    run.items.clear();
  };
  for (const PdbRecord& record : records) {
    if (record.kind != PdbRecord::Atom) {
      finish_run();
      if (record.kind == PdbRecord::Ter) occurrences.end_chain();
      else occurrences.clear();
      continue;
    }
    const std::string_view line = line_at(record.start);
    PdbResidueColumns columns = pdb_residue_columns(line, two_character_chains);
    const std::string segment = line.size() > 72 ? std::string(text::trim(line.substr(72, 4))) : std::string();
    std::string position = columns.chain + '\x1f' + std::string(line.substr(22, 5)) + '\x1f' + segment;
    if (!run.continues(position, columns.name)) {
      finish_run();
      run.position = std::move(position);
      run.name = std::move(columns.name);
      run.has_ca = false;
    }
    run.items.push_back(record.start);
    run.has_ca = run.has_ca || text::trim(line.substr(12, 4)) == "CA";
  }
  finish_run();
}

// A blank occupancy field (columns 55-60; MD and modelling programs leave it so) is no value,
// but gemmi reads it as 0, which the builders would report as atoms "not observed": it is
// given 1, as gemmi gives a record too short to hold the field. (--eh O refuses a blank field
// before: check_eh_field.)
void fill_blank_occupancy(std::string& text, std::size_t line_start, std::string_view line) {
  if (line.size() <= 54 || !text::trim(line.substr(54, 6)).empty()) return;
  const std::size_t width = std::min<std::size_t>(6, line.size() - 54);
  text.replace(line_start + 54, width, std::string_view("  1.00").substr(6 - width));
}

// gemmi reads the numeric columns leniently — a cut "12.3" or "1.0x0" passes, a residue
// number or B-factor that is not a number becomes 0, a record shifted by a column reads
// as another residue, a record not starting in column 1 is skipped — which would silently
// build a wrong model from a damaged file; check them strictly first (docs/formats.md#pdb-and-mmcif).
void prepare_pdb_text(const std::string& file, std::string& text, ParsedStructure& parsed, EpsilonSource eh_source,
                      ResidueStandIns& stand_ins) {
  std::vector<std::string>& notes = parsed.notes;
  static constexpr std::array<const char*, 3> kAxis = {"x", "y", "z"};
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  const std::optional<EhColumn> eh = eh_column(eh_source);
  int line_number = 0, blanked = 0;
  int end_line = 0;  // the first END record: gemmi reads nothing after it
  bool ends_in_atoms = false;  // the last record an ATOM/HETATM one: no TER, ENDMDL or END after it
  struct Rewrite {
    std::size_t start, size;
    std::string line;
  };
  std::vector<Rewrite> model_records;  // MODEL records to rewrite in the standard columns
  std::vector<PdbRecord> records;  // ATOM/HETATM, TER, MODEL and ENDMDL
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_number;
    const std::size_t line_start = start;
    start = end + 1;
    if (line.find_first_not_of(" \t") != std::string_view::npos)
      ends_in_atoms = line.starts_with("ATOM") || line.starts_with("HETATM") || line.starts_with("ANISOU");
    if (end_line == 0 && is_end_record(line)) end_line = line_number;
    // SEQRES: the chain (column 12) and its number of residues (columns 14-17), for
    // cut_short_note.
    if (line.starts_with("SEQRES") && line.size() >= 17)
      if (const auto count = text::parse_number<int>(text::trim(line.substr(13, 4))))
        parsed.seqres_length[std::string(1, line[11])] = *count;
    if (is_model_record(line)) {
      records.push_back({PdbRecord::Model, line_start});
      if (auto standard = model_record(file, line_number, line); standard != line)
        model_records.push_back({line_start, line.size(), std::move(standard)});
      continue;
    }
    if (!(line.starts_with("ATOM") || line.starts_with("HETATM"))) {
      if (line.starts_with("ENDMDL")) records.push_back({PdbRecord::Model, line_start});
      if (line.starts_with("TER") && (line.size() == 3 || line[3] == ' ' || line[3] == '\t'))
        records.push_back({PdbRecord::Ter, line_start});
      const std::size_t leading = std::min(line.find_first_not_of(" \t"), line.size());
      const std::string_view rest = line.substr(leading);
      if (leading > 0 && (rest.starts_with("ATOM ") || rest.starts_with("HETATM")))
        throw Error(file, line_number, "record",
                    "the record name must start in column 1 (the line starts with " + std::to_string(leading) +
                        " blank(s): its columns are shifted)");
      continue;
    }
    // Atoms after END (`cat a.pdb b.pdb` of files that end in END) would be dropped silently.
    if (end_line > 0)
      throw Error(file, line_number, "END",
                  fmt::format("an ATOM/HETATM record after the END record of line {}: the file holds records "
                              "after its END (two files concatenated, or the frames of a trajectory?), which would "
                              "be ignored; remove the END line(s) to read them as one structure where they are "
                              "parts of one, or keep only the file or frame you want (split the file)",
                              end_line));
    if (line.size() < 54)
      throw Error(file, line_number, "coordinates",
                  "the ATOM/HETATM record is truncated (" + std::to_string(line.size()) +
                      " characters; x, y, z need columns 31-54)");
    for (int axis = 0; axis < 3; ++axis) {
      std::string_view field = line.substr(30 + 8 * axis, 8);
      const auto value = text::parse_number<double>(text::trim(field));
      if (!value)
        throw Error(file, line_number, kAxis[axis],
                    "'" + std::string(field) + "' in " + columns_text(31 + 8 * axis, 38 + 8 * axis) +
                        " is not a number");
      // Caught here, at its line; check_structure_coordinates still checks what assembly
      // operators make of the coordinates.
      if (!coordinate_fits(*value))
        throw Error(file, line_number, kAxis[axis], out_of_range_field(field, 31 + 8 * axis));
    }
    check_five_digit_residue_number(file, line_number, line);
    // resSeq: an integer ending in column 26 (one that does not belongs to a record shifted
    // by a column, whose residue name gemmi would read as another), or a hybrid-36 number
    // (A000 = 10000, which gemmi decodes).
    if (line.size() >= 26) {
      const std::string_view field = line.substr(22, 4);
      const bool hybrid36 = std::isalpha(static_cast<unsigned char>(field[0])) &&
                            std::all_of(field.begin(), field.end(),
                                        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
      if (!text::trim(field).empty() && !hybrid36 &&
          !(is_digit(field[3]) && text::parse_number<int>(text::trim(field))))
        throw Error(file, line_number, "resSeq",
                    "'" + std::string(field) + "' in " + columns_text(23, 26) +
                        (text::parse_number<int>(text::trim(field))
                             ? " does not end in column 26 (integers are right-justified: is the line shifted?)"
                             : " is not an integer"));
    }
    if (eh) check_eh_field(file, line_number, line, *eh);
    // occupancy and tempFactor: blank or a number (gemmi would read 0).
    for (const auto& [first, name] : {std::pair<std::size_t, const char*>{54, "occupancy"}, {60, "tempFactor"}}) {
      if (line.size() <= first) continue;
      const std::string_view field = line.substr(first, 6);
      const auto value = text::parse_number<double>(text::trim(field));
      if (!text::trim(field).empty() && !value)
        throw Error(file, line_number, name,
                    "'" + std::string(field) + "' in " + columns_text(int(first) + 1, int(first) + 6) +
                        " is not a number");
      if (value && !fits_single_precision(*value))
        throw Error(file, line_number, name,
                    "'" + std::string(field) + "' in " + columns_text(int(first) + 1, int(first) + 6) +
                        kBeyondSinglePrecision);
    }
    fill_blank_occupancy(text, line_start, line);
    if (line.size() > 78 && !valid_charge_columns(line[78], line.size() > 79 ? line[79] : '\0')) {
      std::fill(text.begin() + line_start + 72, text.begin() + line_start + line.size(), ' ');
      ++blanked;
    }
    // The stand-ins' mark (io/residue_stand_ins.h): no name of a text file holds it.
    if (is_stand_in(line.substr(17, 1)))
      throw Error(file, line_number, "resName",
                  "columns 18-20 hold a control character (0x01): the file is damaged or not a PDB text file");
    records.push_back({PdbRecord::Atom, line_start});
  }
  // Before the MODEL records' rewrites, which move the records after them.
  give_gemmi_residue_names(file, text, records, stand_ins);
  // Last first: a rewritten line may differ in length, which moves the lines after it.
  for (auto r = model_records.rbegin(); r != model_records.rend(); ++r) text.replace(r->start, r->size, r->line);
  if (blanked > 0)
    notes.push_back("columns 73-80 of " + std::to_string(blanked) +
                    " ATOM/HETATM records hold no segment/element/charge (old PDB layout); ignored");
  parsed.ends_in_atom_record_line = ends_in_atoms ? line_number : 0;
  parsed.pdb_end_record = end_line > 0;
}

// gemmi reports "Problem in line N: ..." (PDB) or "name:N:C: ..." (CIF).
int line_from_gemmi_message(const std::string& message, const std::string& source) {
  auto digits_at = [&](std::size_t p) {
    int value = 0;
    std::from_chars(message.data() + p, message.data() + message.size(), value);
    return value;
  };
  if (auto p = message.find("line "); p != std::string::npos) return digits_at(p + 5);
  if (message.starts_with(source + ":")) return digits_at(source.size() + 1);
  return 0;
}

SymmetryOperator from_gemmi(const gemmi::Transform& tr, const std::string& name) {
  SymmetryOperator op;
  op.name = name;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) op.r[i][j] = tr.mat[i][j];
    op.t[i] = tr.vec.at(i);
  }
  return op;
}

// A PDB record without an element column: gemmi infers the element from columns 13-14 (the
// PDB convention), and a 4-character hydrogen name starting in column 13 (HD11) from its first
// letter, but a deuterium's (DD11, DG12) gives "DD", no element. Amino-acid heavy atoms never
// have such names; 2-letter elements (FE, SE) are found, so they stay heavy.
bool is_unrecognised_deuterium(const gemmi::Atom& atom) {
  return atom.element == gemmi::El::X && atom.name.size() == 4 &&
         std::toupper(static_cast<unsigned char>(atom.name[0])) == 'D';
}

bool is_hydrogen(const gemmi::Atom& atom) {
  if (atom.element == gemmi::El::H || atom.element == gemmi::El::D) return true;
  if (is_unrecognised_deuterium(atom)) return true;
  // Names like HB2, 1HB, HN: amino-acid heavy atoms never start with H (after digits).
  std::size_t p = 0;
  while (p < atom.name.size() && std::isdigit(static_cast<unsigned char>(atom.name[p]))) ++p;
  return p < atom.name.size() && atom.name[p] == 'H';
}

bool has_backbone(const gemmi::Residue& r) {
  return r.find_atom("N", '*') && r.find_atom("CA", '*') && r.find_atom("C", '*');
}

// One conformer of `r`: atoms without altloc, plus, per atom name, the copy of the
// preferred altloc (the one with the highest occupancy over the residue; the first on
// ties) or else the highest-occupancy copy of that atom.
std::vector<const gemmi::Atom*> choose_conformer(const gemmi::Residue& r) {
  char preferred = '\0';
  float preferred_occ = -1.0f;
  for (const gemmi::Atom& a : r.atoms)
    if (a.altloc != '\0' && a.occ > preferred_occ) {
      preferred = a.altloc;
      preferred_occ = a.occ;
    }
  std::vector<const gemmi::Atom*> chosen;
  std::map<std::string, std::size_t> by_name;
  for (const gemmi::Atom& a : r.atoms) {
    auto [it, fresh] = by_name.emplace(a.name, chosen.size());
    if (fresh) {
      chosen.push_back(&a);
      continue;
    }
    const gemmi::Atom*& kept = chosen[it->second];
    const bool kept_preferred = kept->altloc == preferred || kept->altloc == '\0';
    const bool this_preferred = a.altloc == preferred;
    if ((this_preferred && !kept_preferred) || (!kept_preferred && a.occ > kept->occ)) kept = &a;
  }
  return chosen;
}

#ifdef ERMAK_HAVE_MMCIF
// CIF tags are case-insensitive (pdb2cif writes _atom_site.cartn_x): compared in lower case.
std::string lower_case(std::string tag) {
  std::transform(tag.begin(), tag.end(), tag.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return tag;
}

// gemmi reads no atom at all from an _atom_site loop that lacks one of the columns it
// needs (this list: gemmi 0.5's make_structure), which would surface as "no atoms found",
// and stops without a line at one that lacks both the label_ and the auth_ column of the
// atom or residue name ("Neither _atom_site.label_atom_id nor auth_atom_id found"); the
// missing columns, at the loop's line, say what is wrong.
void check_atom_site_columns(const gemmi::cif::Document& document, const std::string& file) {
  if (document.blocks.empty()) return;
  static const char* const kNeeded[] = {"id",         "type_symbol", "label_alt_id", "label_asym_id",
                                        "Cartn_x",    "Cartn_y",     "Cartn_z",      "occupancy",
                                        "B_iso_or_equiv", "auth_seq_id"};
  static const std::pair<const char*, const char*> kEitherOr[] = {{"label_atom_id", "auth_atom_id"},
                                                                   {"label_comp_id", "auth_comp_id"}};
  const auto lower = lower_case;
  std::set<std::string> present;
  int line = 0;
  for (const gemmi::cif::Item& item : document.blocks[0].items) {
    std::vector<std::string> tags;
    if (item.type == gemmi::cif::ItemType::Loop) tags = item.loop.tags;
    if (item.type == gemmi::cif::ItemType::Pair) tags = {item.pair[0]};
    for (const std::string& tag : tags)
      if (lower(tag).rfind("_atom_site.", 0) == 0) {
        present.insert(lower(tag.substr(std::string("_atom_site.").size())));
        if (line == 0) line = item.line_number;
      }
  }
  if (present.empty()) return;  // no atoms at all: the general message
  std::string missing;
  for (const char* column : kNeeded)
    if (!present.count(lower(column))) missing += (missing.empty() ? "_atom_site." : ", _atom_site.") + std::string(column);
  for (const auto& [label, auth] : kEitherOr)
    if (!present.count(label) && !present.count(auth))  // both in lower case already
      missing += (missing.empty() ? "_atom_site." : ", _atom_site.") + std::string(label) + " (or _atom_site." + auth + ")";
  if (!missing.empty())
    throw Error(file, std::max(line, 0), "_atom_site",
                "the atom list lacks the column(s) " + missing + ", without which no atom can be read");
}


// gemmi reads a coordinate of '?' as NaN, a B-factor of 'b' as a default, and stops at a
// residue number 'X' with a message that names neither line nor column; the columns a
// model is built from must hold numbers (B-factor and occupancy may be unknown: '?' or '.',
// except the one ε_h is read from, where gemmi's default, B 50 or occupancy 1, would be
// taken for a contact energy).
void check_atom_site_values(const gemmi::cif::Document& document, const std::string& file, const std::string& text,
                            EpsilonSource eh_source) {
  const std::optional<EhColumn> eh = eh_column(eh_source);
  if (document.blocks.empty()) return;
  struct Column {
    const char* name;
    bool may_be_unknown, integer;
  };
  static constexpr std::array<Column, 6> kColumns = {{{"Cartn_x", false, false},
                                                      {"Cartn_y", false, false},
                                                      {"Cartn_z", false, false},
                                                      {"occupancy", true, false},
                                                      {"B_iso_or_equiv", true, false},
                                                      {"auth_seq_id", true, true}}};
  for (const gemmi::cif::Item& item : document.blocks[0].items) {
    if (item.type != gemmi::cif::ItemType::Loop) continue;
    const gemmi::cif::Loop& loop = item.loop;
    const int id_column = loop.find_tag("_atom_site.id");
    for (const Column& column : kColumns) {
      const int c = loop.find_tag(std::string("_atom_site.") + column.name);
      if (c < 0) continue;
      const std::size_t width = loop.tags.size();
      for (std::size_t row = 0; row * width + c < loop.values.size(); ++row) {
        const std::string& raw = loop.values[row * width + c];
        const bool eh_values = eh && std::string_view(eh->cif_column) == column.name;
        if (column.may_be_unknown && !eh_values && gemmi::cif::is_null(raw)) continue;
        std::string_view number = raw;
        if (const auto open = number.find('('); open != std::string_view::npos && number.ends_with(")"))
          number = number.substr(0, open);  // a standard uncertainty, 12.345(6)
        const auto real = text::parse_number<double>(number);
        const bool ok = column.integer ? text::parse_number<int>(number).has_value() : real.has_value();
        // Coordinates also within what the model's PDB files hold (model/coordinate_range.h).
        const bool coordinate = std::string_view(column.name).starts_with("Cartn_");
        const bool in_range = !coordinate || !ok || coordinate_fits(*real);
        if (ok && in_range && (column.integer || fits_single_precision(*real))) continue;
        const std::string atom =
            id_column >= 0 ? " (atom " + loop.values[row * width + id_column] + ")" : std::string();
        const std::string what =
            eh_values && gemmi::cif::is_null(raw)
                ? fmt::format(" holds no value, and ε_h is read from this column (eh {}): give every atom a value "
                              "there, or ε_h as a number",
                              eh->letter)
            : !in_range ? std::string(" is not finite or of magnitude 10⁷ Å or more (beyond what the model's PDB files "
                                      "hold): a damaged value")
            : ok        ? std::string(kBeyondSinglePrecision)
                        : std::string(" is not ") + (column.integer ? "an integer" : "a number");
        throw Error(file, cif_loop_value_line(text, item.line_number, row * width + c),
                    std::string("_atom_site.") + column.name, "'" + raw + "'" + atom + what);
      }
    }
  }
}

// An atom whose auth_seq_id is unknown ('?' or '.') would be residue 0 (gemmi), silently: its
// label_seq_id, where the file gives one, numbers it instead, with a note; without either the
// atom has no place in its chain, an error at its line.
void number_atoms_without_auth_seq_id(gemmi::cif::Document& document, const std::string& file,
                                      const std::string& text, std::vector<std::string>& notes) {
  if (document.blocks.empty()) return;
  for (gemmi::cif::Item& item : document.blocks[0].items) {
    if (item.type != gemmi::cif::ItemType::Loop) continue;
    gemmi::cif::Loop& loop = item.loop;
    const int auth = loop.find_tag("_atom_site.auth_seq_id");
    if (auth < 0) continue;
    const int label = loop.find_tag("_atom_site.label_seq_id");
    const int id = loop.find_tag("_atom_site.id");
    const std::size_t width = loop.tags.size();
    int numbered = 0;
    std::string first;
    for (std::size_t row = 0; (row + 1) * width <= loop.values.size(); ++row) {
      std::string& number = loop.values[row * width + auth];
      if (!gemmi::cif::is_null(number)) continue;
      const std::string atom = id >= 0 ? "atom " + loop.values[row * width + id] : "an atom";
      const std::string* label_number = label >= 0 ? &loop.values[row * width + label] : nullptr;
      if (!label_number || gemmi::cif::is_null(*label_number) || !text::parse_number<int>(*label_number))
        throw Error(file, cif_loop_value_line(text, item.line_number, row * width + auth), "_atom_site.auth_seq_id",
                    "'" + number + "' (" + atom + "): its residue has no number — no auth_seq_id, and " +
                        (label_number ? "label_seq_id '" + *label_number + "' is none either" : "no label_seq_id") +
                        "; give auth_seq_id the residue's number");
      if (numbered++ == 0) first = atom + ": residue " + *label_number;
      number = *label_number;
    }
    if (numbered > 0)
      notes.push_back(fmt::format("{} atom(s) have no auth_seq_id ('?'): their label_seq_id numbers their residues "
                                  "(e.g. {})",
                                  numbered, first));
  }
}

// give_gemmi_residue_names for an mmCIF's atom list: gemmi keys a model's residues on the
// chain (auth_asym_id, else label_asym_id), auth_seq_id, pdbx_PDB_ins_code and the residue
// name (auth_comp_id, else label_comp_id) wherever the rows stand.
void give_gemmi_cif_residue_names(gemmi::cif::Document& document, const std::string& file,
                                  ResidueStandIns& stand_ins) {
  if (document.blocks.empty()) return;
  for (gemmi::cif::Item& item : document.blocks[0].items) {
    if (item.type != gemmi::cif::ItemType::Loop) continue;
    gemmi::cif::Loop& loop = item.loop;
    const auto first_of = [&](const char* preferred, const char* other) {
      const int column = loop.find_tag(preferred);
      return column >= 0 ? column : loop.find_tag(other);
    };
    const int number = loop.find_tag("_atom_site.auth_seq_id");
    const int chain = first_of("_atom_site.auth_asym_id", "_atom_site.label_asym_id");
    const int name_column = first_of("_atom_site.auth_comp_id", "_atom_site.label_comp_id");
    const int icode = loop.find_tag("_atom_site.pdbx_PDB_ins_code");
    const int model = loop.find_tag("_atom_site.pdbx_PDB_model_num");
    if (number < 0 || chain < 0 || name_column < 0) continue;
    const int atom_name = first_of("_atom_site.auth_atom_id", "_atom_site.label_atom_id");
    const std::size_t width = loop.tags.size();
    const auto value = [&](std::size_t row, int column) {
      return column < 0 ? std::string() : gemmi::cif::as_string(loop.values[row * width + column]);
    };
    ResidueOccurrences occurrences;
    ResidueRun run;
    const auto finish_run = [&] {
      if (run.items.empty()) return;
      const int occurrence = occurrences.of(run.position, run.name, run.has_ca);
      if (occurrence > 1)
        for (const std::size_t row : run.items)
          loop.values[row * width + name_column] = stand_ins.stand_in(run.name, occurrence, file);
      run.items.clear();
    };
    std::string current_model;
    for (std::size_t row = 0; (row + 1) * width <= loop.values.size(); ++row) {
      if (model >= 0 && value(row, model) != current_model) {
        finish_run();
        current_model = value(row, model);
        occurrences.clear();
      }
      std::string name = value(row, name_column);
      if (is_stand_in(name))
        throw Error(file, 0, "_atom_site", "a residue name holds a control character (0x01): the file is damaged");
      std::string position = value(row, chain) + '\x1f' + value(row, number) + '\x1f' + value(row, icode);
      if (!run.continues(position, name)) {
        finish_run();
        run.position = std::move(position);
        run.name = std::move(name);
        run.has_ca = false;
      }
      run.items.push_back(row);
      run.has_ca = run.has_ca || value(row, atom_name) == "CA";
    }
    finish_run();
  }
}

// An mmCIF file cut short inside its atom list at a row's end (an interrupted download)
// parses, lacking the atoms after the cut. Its sign: the file's last item is the _atom_site
// loop and its last non-blank line a row of it — no `#` line (which mmCIF writers put after
// every category) and no other category after it. That line, else 0 (cut_short_note).
int last_atom_site_row_line(const gemmi::cif::Document& document, const std::string& text) {
  if (document.blocks.empty() || document.blocks.back().items.empty()) return 0;
  const gemmi::cif::Item& item = document.blocks.back().items.back();
  if (item.type != gemmi::cif::ItemType::Loop || item.loop.values.empty() ||
      !lower_case(item.loop.tags.front()).starts_with("_atom_site."))
    return 0;
  const std::size_t last = text.find_last_not_of(" \t\r\n");
  if (last == std::string::npos) return 0;
  const std::size_t start = text.rfind('\n', last) == std::string::npos ? 0 : text.rfind('\n', last) + 1;
  if (text[text.find_first_not_of(" \t", start)] == '#') return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::ptrdiff_t(start), '\n'));
}
#endif

}  // namespace

const StructureAtom* StructureResidue::find(const std::string& atom_name) const {
  for (const StructureAtom& a : atoms)
    if (a.name == atom_name) return &a;
  return nullptr;
}

void check_structure_coordinates(const StructureModel& model) {
  for (const StructureResidue& residue : model.residues)
    for (const StructureAtom& atom : residue.atoms)
      if (!coordinates_fit(atom.position_A))
        throw Error(model.source, 0, "structure",
                    "atom " + atom.name + " of residue " + residue.label() + " " +
                        out_of_range_position(atom.position_A) +
                        " — a damaged record, or an assembly operator's translation");
}

std::string StructureResidue::label() const {
  std::string out = chain_id + ":" + name + " " + std::to_string(number);
  if (icode != ' ' && icode != '\0') out += icode;
  return out;
}

bool SymmetryOperator::is_identity(double tolerance) const {
  for (int i = 0; i < 3; ++i) {
    if (std::abs(t[i]) > tolerance) return false;
    for (int j = 0; j < 3; ++j)
      if (std::abs(r[i][j] - (i == j ? 1.0 : 0.0)) > tolerance) return false;
  }
  return true;
}

std::string parent_residue_name(const std::string& name) {
  const gemmi::ResidueInfo info = gemmi::find_tabulated_residue(name);
  if (!info.found() || !info.is_amino_acid() || info.is_standard()) return name;
  static const std::map<char, const char*> kStandard = {
      {'a', "ALA"}, {'r', "ARG"}, {'n', "ASN"}, {'d', "ASP"}, {'c', "CYS"},
      {'q', "GLN"}, {'e', "GLU"}, {'g', "GLY"}, {'h', "HIS"}, {'i', "ILE"},
      {'l', "LEU"}, {'k', "LYS"}, {'m', "MET"}, {'f', "PHE"}, {'p', "PRO"},
      {'s', "SER"}, {'t', "THR"}, {'w', "TRP"}, {'y', "TYR"}, {'v', "VAL"}};
  auto it = kStandard.find(info.one_letter_code);
  return it == kStandard.end() ? name : it->second;
}

std::string counted_names(const std::map<std::string, int>& counts) {
  std::string names;
  std::size_t listed = 0;
  for (const auto& [n, count] : counts) {
    if (listed++ == 12) return names + " and " + std::to_string(counts.size() - 12) + " more names";
    names += (names.empty() ? "" : ", ") + n + " (" + std::to_string(count) + ")";
  }
  return names;
}

namespace {

// A PDB file without an END record whose last record is an atom record (no TER or ENDMDL
// after it), and whose last chain has fewer residues than its SEQRES lists: a download or copy
// cut at a residue's end (the audit's `head -n 700 1TIT.pdb`). Missing residues alone are
// normal (crystal structures lack disordered termini): a file with END is never noted.
std::string seqres_short_note(const ParsedStructure& parsed, const gemmi::Model& model, const gemmi::Residue& last) {
  if (parsed.format != StructureFormat::Pdb || parsed.pdb_end_record) return "";
  const gemmi::Chain* chain = nullptr;
  for (const gemmi::Chain& c : model.chains)
    if (!c.residues.empty() && &c.residues.back() == &last) chain = &c;
  if (!chain) return "";
  const auto listed = parsed.seqres_length.find(chain->name);
  if (listed == parsed.seqres_length.end()) return "";
  const auto present = std::count_if(chain->residues.begin(), chain->residues.end(),
                                     [](const gemmi::Residue& r) { return !r.is_water(); });
  if (present >= listed->second) return "";
  return fmt::format("the file ends at line {} without an END record (its last record is an atom record, with no "
                     "TER or ENDMDL after it), and chain {} has {} of the {} residues its SEQRES records list, the "
                     "last one read being {} {}: is it complete? (a download or copy cut short loses the residues "
                     "after it without an error; if the file was trimmed on purpose, end it with an END line)",
                     parsed.ends_in_atom_record_line, chain->name, present, listed->second, last.name,
                     last.seqid.str());
}

}  // namespace

std::string cut_short_note(const ParsedStructure& parsed, const gemmi::Model& model) {
  if (parsed.ends_in_atom_record_line == 0) return "";
  const gemmi::Residue* last = nullptr;
  for (const gemmi::Chain& chain : model.chains)
    if (!chain.residues.empty()) last = &chain.residues.back();
  if (!last) return "";
  // Atoms counted by name: the alternative locations of one atom (a CA with altlocs A and B,
  // two records) are one atom of the residue, not two.
  auto heavy_atoms = [](const gemmi::Residue& r) {
    std::set<std::string> names;
    for (const gemmi::Atom& a : r.atoms)
      if (!is_hydrogen(a)) names.insert(a.name);
    return static_cast<std::ptrdiff_t>(names.size());
  };
  std::ptrdiff_t most = 0;
  for (const gemmi::Chain& chain : model.chains)
    for (const gemmi::Residue& r : chain.residues)
      if (&r != last && r.name == last->name) most = std::max(most, heavy_atoms(r));
  const std::ptrdiff_t has = heavy_atoms(*last);
  if (has >= most) return seqres_short_note(parsed, model, *last);
  const char* ending = parsed.format == StructureFormat::Pdb
                           ? "an atom record, without TER, ENDMDL or END"
                           : "a row of the _atom_site loop, without a '#' line or another category after it";
  return fmt::format("the file ends at line {} with {}, within residue {} {} ({} of the {} atoms other {} residues "
                     "have): is it complete? (a download or copy cut short loses the residues after it without an "
                     "error)",
                     parsed.ends_in_atom_record_line, ending, last->name, last->seqid.str(), has, most, last->name);
}

const gemmi::Atom* best_ca(const gemmi::Residue& r) {
  const gemmi::Atom* best = nullptr;
  for (const gemmi::Atom& a : r.atoms)
    if (a.name == "CA" && (!best || a.occ > best->occ)) best = &a;
  return best;
}

namespace {

bool has_unlabelled_ca(const gemmi::Residue& r) {
  return std::any_of(r.atoms.begin(), r.atoms.end(),
                     [](const gemmi::Atom& a) { return a.name == "CA" && a.altloc == '\0'; });
}

}  // namespace

bool alternative_residues(const gemmi::Residue& previous, const gemmi::Residue& next) {
  return previous.seqid == next.seqid && !(has_unlabelled_ca(previous) && has_unlabelled_ca(next));
}

gemmi::ResidueInfo amino_acid_info(const std::string& name) {
  const auto alias = force_field_names().find(name);
  return gemmi::find_tabulated_residue(alias == force_field_names().end() ? name : alias->second);
}

float free_amino_acid_weight_amu(const std::string& name) {
  const gemmi::ResidueInfo info = amino_acid_info(name);
  if (!info.found()) return 0.0f;
  // Upper-case codes are the standard residues: LYS, ARG, HIS (and their force-field names).
  const bool cation = info.one_letter_code == 'K' || info.one_letter_code == 'R' || info.one_letter_code == 'H';
  return cation ? info.weight - 1.008f : info.weight;
}

bool is_amino_acid_residue(const gemmi::Residue& r) {
  const gemmi::ResidueInfo info = amino_acid_info(r.name);
  return info.found() ? info.is_amino_acid() : has_backbone(r);
}

std::string ncs_copies_note(std::size_t operators_to_generate) {
  if (operators_to_generate == 0) return "";
  return "the file lists " + std::to_string(operators_to_generate) +
         " NCS operators that generate further copies of its chains (a capsid or other particle deposited as its "
         "asymmetric unit); this model is the file's chains only — `ermak topology FILE --assembly ncs` builds the "
         "whole particle (docs/topology.md#assemblies-and-symmetry)";
}

ParsedStructure read_structure_file(const std::filesystem::path& file, EpsilonSource eh_source) {
  const std::string name = file.string();
  std::string text = read_whole_file(file);
  // A byte-order mark (some Windows editors write one) would hide `data_` from the mmCIF
  // parser and the format detection, and make the first PDB record unknown.
  const bool bom = text::without_bom(text).size() != text.size();
  if (bom) text.erase(0, 3);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(name, 0, "structure", "the file is empty");
  // Compressed and binary files: say what they are, not that no C-alpha was found.
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b)
    throw Error(name, 0, "structure", "the file is gzip-compressed; decompress it first (gunzip -k " + name + ")");
  if (text.find('\0') != std::string::npos)
    throw Error(name, 0, "structure", "the file is binary (it holds NUL bytes), not a PDB or mmCIF text file");
  // Old Mac OS line endings: gemmi would read one long line, without a record in it (a FIFO's
  // text, which read_whole_file's check does not read ahead).
  if (has_cr_only_line_endings(text)) throw Error(name, 0, "structure", cr_only_line_endings(file));
  ParsedStructure parsed;
  if (bom) parsed.notes.push_back("a UTF-8 byte-order mark at the start of the file was ignored");
  parsed.format = detect_format(file, text);
  check_structure_content(file, text, parsed.format == StructureFormat::Mmcif);
  try {
    if (parsed.format == StructureFormat::Pdb) {
      ResidueStandIns stand_ins;
      check_pdb_operator_records(name, text);
      prepare_pdb_text(name, text, parsed, eh_source, stand_ins);
      // TER ends a chain: what follows under the same chain name (molecules of an MD
      // snapshot with a blank or repeated chain column) is another part of the model, never
      // bonded to the one before it, nor merged with it where the numbers repeat
      // (ChainNames names the parts; docs/formats.md#pdb-and-mmcif).
      gemmi::PdbReadOptions options;
      options.split_chain_on_ter = true;
      parsed.structure = gemmi::read_pdb_from_memory(text.data(), text.size(), name, options);
      stand_ins.restore(parsed.structure);
    } else {
#ifdef ERMAK_HAVE_MMCIF
      gemmi::cif::Document document = gemmi::cif::read_memory(text.data(), text.size(), name.c_str());
      check_atom_site_columns(document, name);
      check_atom_site_values(document, name, text, eh_source);
      check_cif_operator_expressions(document, name, text);
      number_atoms_without_auth_seq_id(document, name, text, parsed.notes);
      ResidueStandIns stand_ins;
      give_gemmi_cif_residue_names(document, name, stand_ins);
      parsed.structure = gemmi::make_structure(document);
      stand_ins.restore(parsed.structure);
      if (!document.blocks.empty()) {
        std::vector<std::string> tags;
        for (const gemmi::cif::Item& item : document.blocks[0].items) {
          if (item.type == gemmi::cif::ItemType::Loop) tags.insert(tags.end(), item.loop.tags.begin(), item.loop.tags.end());
          if (item.type == gemmi::cif::ItemType::Pair) tags.push_back(item.pair[0]);
        }
        parsed.assembly_tags_missing = incomplete_assembly_categories(tags);
      }
      parsed.ends_in_atom_record_line = last_atom_site_row_line(document, text);
#else
      throw Error(name, 0, "structure",
                  "this ermak was built without mmCIF support (install tao-pegtl-dev and rebuild)");
#endif
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    const std::string message = e.what();
    // gemmi names the loop's header: name the row (a lost value, a file cut mid-row).
    if (parsed.format == StructureFormat::Mmcif && message.find("Wrong number of values in the loop") != std::string::npos)
      if (const auto row = find_damaged_loop_row(text, line_from_gemmi_message(message, name)))
        throw Error(name, row->line, row->category,
                    fmt::format("this row of the loop has {} value{} where the loop (line {}) has {} columns{}",
                                row->values, row->values == 1 ? "" : "s", line_from_gemmi_message(message, name),
                                row->tags,
                                row->last_row ? " — and the file ends with it: is the file complete?" : ""));
    throw Error(name, line_from_gemmi_message(message, name), "structure",
                std::string(parsed.format == StructureFormat::Pdb ? "PDB" : "mmCIF") +
                    " parse error: " + message);
  }
  return parsed;
}

StructureModel extract_structure_model(const ParsedStructure& parsed, const std::string& source,
                                       const StructureReadOptions& options) {
  const gemmi::Structure& st = parsed.structure;
  StructureModel out;
  out.source = source;
  out.format = parsed.format;
  out.model_count = static_cast<int>(st.models.size());
  out.warnings = parsed.notes;
  out.assembly_tags_missing = parsed.assembly_tags_missing;
  if (st.models.empty())
    throw Error(source, 0, "structure", "no atoms found (the file has no ATOM/HETATM records)");

  // --- the model ---
  const gemmi::Model* model = &st.models[0];
  if (options.model) {
    model = nullptr;
    const std::string wanted = std::to_string(*options.model);
    for (const gemmi::Model& m : st.models)
      if (m.name == wanted) model = &m;
    if (!model && st.models.size() == 1 && *options.model == 1) model = &st.models[0];
    if (!model) {
      std::string names;
      for (const gemmi::Model& m : st.models) names += (names.empty() ? "" : ", ") + m.name;
      throw Error(source, 0, "model",
                  "there is no model " + wanted + "; the file has " +
                      std::to_string(st.models.size()) + " model(s): " + names);
    }
  }
  out.model_name = model->name;
  out.model_position = static_cast<int>(model - st.models.data()) + 1;
  if (std::string note = cut_short_note(parsed, *model); !note.empty()) out.warnings.push_back(std::move(note));
  if (st.models.size() > 1 && !options.model)
    out.warnings.push_back("the file has " + std::to_string(st.models.size()) +
                           " models; model " + model->name + " (the first) is used");

  // --- residues ---
  std::map<std::string, int> mapped;         // "MSE→MET" → count
  std::vector<std::string> untabulated;      // names taken as amino acids by their backbone
  std::map<std::string, int> hetero_names;   // skipped amino-acid HETATM residue names
  std::map<std::string, int> other_names;    // skipped ligands, ions, nucleotides, glycans
  const std::string blank_name = blank_chain_name(*model);
  ChainNames chain_names(blank_name);
  ResidueNotes residue_notes;
  check_chain_selection(*model, options.chains, source, "--chains");
  out.chains_selected = options.chains;
  std::set<std::string> chains_with_residues;  // of the chains asked for: those that give beads
  std::set<std::string> chains_with_hetero_amino_acids;  // … and those with HETATM amino acids left out
  for (const gemmi::Chain& chain : model->chains) {
    const auto& residues = chain.residues;
    // Alternative residues at one position (microheterogeneity): keep one.
    for (std::size_t first = 0; first < residues.size();) {
      if (!chain_selected(options.chains, chain, residues[first], blank_name)) {
        ++first;
        continue;
      }
      std::size_t last = first;
      while (last + 1 < residues.size() && alternative_residues(residues[last], residues[last + 1])) ++last;
      const gemmi::Residue* chosen = nullptr;
      const gemmi::Atom* chosen_ca = nullptr;
      bool any_amino_acid = false, all_water = true, any_hetero_aa = false;
      for (std::size_t k = first; k <= last; ++k) {
        const gemmi::Residue& r = residues[k];
        all_water = all_water && r.is_water();
        if (!is_amino_acid_residue(r)) continue;
        if (r.het_flag == 'H' && !options.keep_hetero) {
          any_hetero_aa = true;
          continue;
        }
        any_amino_acid = true;
        const gemmi::Atom* ca = best_ca(r);
        if (ca && (!chosen_ca || ca->occ > chosen_ca->occ)) {
          chosen = &r;
          chosen_ca = ca;
        }
      }
      const gemmi::Residue& head = residues[first];
      first = last + 1;
      const std::string file_chain = file_chain_name(chain, head, blank_name);
      if (!any_amino_acid) {
        if (any_hetero_aa) {
          ++out.skipped_hetero_amino_acids;
          ++hetero_names[head.name];
          if (!options.chains.empty()) chains_with_hetero_amino_acids.insert(file_chain);
        } else if (all_water) {
          ++out.skipped_water;
        } else {
          ++out.skipped_other;
          ++other_names[head.name];
        }
        continue;
      }
      const std::string chain_id = chain_names.part_of(chain, head, out.warnings).name;
      if (chosen_ca)
        residue_notes.add(*chosen, *chosen_ca, chain_id, chain_id + ":" + chosen->name + " " + chosen->seqid.str());
      if (!chosen_ca) {
        ++out.skipped_no_ca;
        out.warnings.push_back("residue " + chain_id + ":" + head.name + " " + head.seqid.str() +
                               " has no C-alpha atom; skipped");
        continue;
      }
      StructureResidue residue;
      residue.chain_id = chain_id;
      residue.source_chain = file_chain;
      residue.subchain = chosen->subchain;
      residue.number = chosen->seqid.num.has_value() ? *chosen->seqid.num : 0;
      residue.icode = chosen->seqid.icode == '\0' ? ' ' : chosen->seqid.icode;
      residue.file_name = chosen->name;
      residue.name = parent_residue_name(chosen->name);
      residue.hetatm = chosen->het_flag == 'H';
      const gemmi::ResidueInfo info = amino_acid_info(chosen->name);
      residue.weight_amu = free_amino_acid_weight_amu(chosen->name);
      if (!info.found() &&
          std::find(untabulated.begin(), untabulated.end(), chosen->name) == untabulated.end())
        untabulated.push_back(chosen->name);
      if (residue.name != residue.file_name) ++mapped[residue.file_name + "->" + residue.name];
      for (const gemmi::Atom* a : choose_conformer(*chosen)) {
        if (is_hydrogen(*a)) {
          ++out.hydrogens_ignored;
          continue;
        }
        StructureAtom atom;
        atom.name = a->name;
        atom.position_A = {a->pos.x, a->pos.y, a->pos.z};
        atom.occupancy = a->occ;
        atom.b_factor = a->b_iso;
        atom.mass_amu = static_cast<float>(a->element.weight());
        residue.atoms.push_back(std::move(atom));
      }
      // The chosen C-alpha is the highest-occupancy one even if the conformer differs.
      for (StructureAtom& atom : residue.atoms)
        if (atom.name == "CA") {
          atom.position_A = {chosen_ca->pos.x, chosen_ca->pos.y, chosen_ca->pos.z};
          atom.occupancy = chosen_ca->occ;
          atom.b_factor = chosen_ca->b_iso;
        }
      if (!options.chains.empty()) chains_with_residues.insert(file_chain);
      out.residues.push_back(std::move(residue));
    }
  }
  residue_notes.report(out.warnings);
  if (!mapped.empty()) {
    std::string list;
    for (const auto& [names, count] : mapped)
      list += (list.empty() ? "" : ", ") + names + " (" + std::to_string(count) + ")";
    out.warnings.push_back("modified residues named by their parent: " + list);
  }
  if (!untabulated.empty()) {
    std::string names;
    for (const std::string& n : untabulated) names += (names.empty() ? "" : ", ") + n;
    out.warnings.push_back("residue name(s) " + names +
                           " not in gemmi's table; taken as amino acids (they have N, CA and C atoms)");
  }
  if (out.skipped_hetero_amino_acids > 0) {
    std::string names;
    names = counted_names(hetero_names);
    out.warnings.push_back("skipped " + std::to_string(out.skipped_hetero_amino_acids) +
                           " amino-acid residue(s) in HETATM records: " + names +
                           "; --keep-hetero includes them");
  }
  if (out.skipped_other > 0)
    out.warnings.push_back("skipped " + std::to_string(out.skipped_other) +
                           " non-protein residue(s) (ligands, ions, nucleotides, glycans): " +
                           counted_names(other_names));
  if (out.residues.empty() && !options.chains.empty())
    throw Error(source, 0, "--chains", "the chains chosen hold no amino-acid residue with a C-alpha atom");
  // A chain asked for that gives no bead (DNA, a ligand's chain) is said by name: the model's
  // chains are then fewer than the list (a complex audit's --chains 1,3 of 1LMB).
  for (const std::string& wanted : options.chains)
    if (!chains_with_residues.count(wanted))
      out.warnings.push_back("chain " + wanted + " (asked for) holds no amino-acid residue with a C-alpha atom: it "
                             "gives no beads" +
                             std::string(chains_with_hetero_amino_acids.count(wanted)
                                             ? " (its amino acids are HETATM records: --keep-hetero includes them)"
                                             : ""));
  if (out.residues.empty())
    throw Error(source, 0, "structure",
                std::string("no amino-acid residue with a C-alpha atom found (is it a protein "
                            "structure?") +
                    (out.skipped_hetero_amino_acids > 0
                         ? " " + std::to_string(out.skipped_hetero_amino_acids) +
                               " amino acids are HETATM records: use --keep-hetero)"
                         : ")"));

  // --- disulfides listed in the file ---
  for (const gemmi::Connection& c : st.connections) {
    if (c.type != gemmi::Connection::Disulf) continue;
    if (c.asu == gemmi::Asu::Different) {
      out.warnings.push_back("disulfide " + c.partner1.chain_name + ":" + c.partner1.res_id.seqid.str() +
                             "-" + c.partner2.chain_name + ":" + c.partner2.res_id.seqid.str() +
                             " joins symmetry mates; ignored");
      continue;
    }
    DisulfideRecord d;
    d.chain1 = c.partner1.chain_name;
    d.chain2 = c.partner2.chain_name;
    d.number1 = c.partner1.res_id.seqid.num.has_value() ? *c.partner1.res_id.seqid.num : 0;
    d.number2 = c.partner2.res_id.seqid.num.has_value() ? *c.partner2.res_id.seqid.num : 0;
    d.icode1 = c.partner1.res_id.seqid.icode == '\0' ? ' ' : c.partner1.res_id.seqid.icode;
    d.icode2 = c.partner2.res_id.seqid.icode == '\0' ? ' ' : c.partner2.res_id.seqid.icode;
    out.disulfides.push_back(d);
  }

  // --- symmetry information ---
  for (const gemmi::NcsOp& op : st.ncs)
    if (!op.given) out.ncs_operators.push_back(from_gemmi(op.tr, op.id));
  if (st.has_origx) {
    const SymmetryOperator origx = from_gemmi(st.origx, "ORIGX");
    if (!origx.is_identity(1e-5)) out.origx = origx;
  }
  for (const gemmi::Assembly& a : st.assemblies) {
    AssemblyRecord record;
    record.id = a.name;
    record.details = a.oligomeric_details;
    for (const gemmi::Assembly::Gen& g : a.generators) {
      AssemblyRecord::Generator gen;
      gen.chains = g.chains;
      gen.subchains = g.subchains;
      for (const gemmi::Assembly::Operator& o : g.operators)
        gen.operators.push_back(from_gemmi(o.transform, o.name));
      record.generators.push_back(std::move(gen));
    }
    out.assemblies.push_back(std::move(record));
  }
  return out;
}

std::string residues_missing_between(int before, int after, bool hetero_skipped, char after_icode, char before_icode,
                                     bool without_ca_skipped) {
  // Before an inserted residue (100B) come its number's own residue and earlier insertions
  // (100, 100A): the last one missing is 100A, or 100 before 100A; after 100A under the same
  // number, the first missing is 100B.
  const auto letter = [](char c) { return c >= 'A' && c <= 'Z'; };
  const bool inserted = letter(after_icode);
  std::string first, last;
  if (inserted && after == before) {
    const char from = letter(before_icode) ? char(before_icode + 1) : 'A', to = char(after_icode - 1);
    if (to < from) return "";
    first = std::to_string(before) + from;
    last = std::to_string(after) + to;
  } else {
    const int last_number = inserted ? after : after - 1;
    if (last_number <= before) return "";
    last = std::to_string(last_number) +
           (inserted && after_icode > 'A' ? std::string(1, char(after_icode - 1)) : std::string());
    first = std::to_string(before + 1);
  }
  const std::string which = first == last ? "residue " + first + " is" : "residues " + first + " to " + last + " are";
  // Residues left out for want of a C-alpha are in the file: said, not "missing" (an audit).
  return " — " + which + " not in the model (missing from the file" +
         (hetero_skipped ? ", or HETATM records: --keep-hetero keeps amino acids there" : "") +
         (without_ca_skipped ? ", or without a C-alpha atom and skipped: see the warnings" : "") + ")";
}

}  // namespace ermak
