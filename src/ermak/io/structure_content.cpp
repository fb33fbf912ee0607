#include "ermak/io/structure_content.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "ermak/core/error.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

// Whether a line of `text` starts with `prefix` (PDB records and CIF keywords start in column 1).
bool a_line_starts_with(std::string_view text, std::string_view prefix) {
  std::string after_newline(1, '\n');
  after_newline += prefix;
  return text.starts_with(prefix) || text.find(after_newline) != std::string_view::npos;
}

// A SOP-GPU .top section header, "[ atoms ]" (topio.cpp writes them so; "[atoms]" is read
// alike): no PDB record and no CIF line starts with '['.
bool has_top_section(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text::trim(text.substr(start, end - start));
    start = end + 1;
    if (!line.starts_with("[") || !line.ends_with("]")) continue;
    std::string name(text::trim(line.substr(1, line.size() - 2)));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (name == "atoms" || name == "bonds" || name == "native" || name == "pairs") return true;
  }
  return false;
}

bool named_as(const std::filesystem::path& file, std::initializer_list<const char*> extensions) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(extensions.begin(), extensions.end(), ext) != extensions.end();
}

}  // namespace

void check_structure_content(const std::filesystem::path& file, const std::string& text, bool as_mmcif) {
  const std::string name = file.string();
  // Topologies first: the files of a run's [input] topology, given as its structure.
  if (text::without_bom(text).starts_with("# ermak topology "))
    throw Error(name, 0, "structure",
                "holds an ermak topology (.etop), not a structure: give it as the topology — input.topology of a "
                "run, --topology of ermak energy (it stores its coordinates; input.coordinates or --coordinates may "
                "give others)");
  if (has_top_section(text))
    throw Error(name, 0, "structure",
                "holds a SOP-GPU topology ([ atoms ], [ bonds ] sections), not a structure: give it as the "
                "topology — input.topology of a run, --topology of ermak energy — with its coordinates (a PDB with "
                "one ATOM record per bead) as input.coordinates or --coordinates");
  if (as_mmcif) {
    // gemmi would report a CIF parse error at the first line.
    if (text.find("data_") == std::string::npos &&
        (a_line_starts_with(text, "ATOM  ") || a_line_starts_with(text, "HETATM") || a_line_starts_with(text, "HEADER")))
      throw Error(name, 0, "structure",
                  "named as mmCIF, but it holds PDB records (ATOM/HETATM/HEADER) and no data_ block: rename it .pdb");
    return;
  }
  // mmCIF read as PDB: its atom rows ("ATOM 1 N N . LYS A 1 6 45.848 ...") are no fixed-column
  // records, so the PDB reader would call a coordinate "not a number". No PDB line starts with
  // data_, loop_ or _atom_site.
  if (a_line_starts_with(text, "data_") && (a_line_starts_with(text, "loop_") || a_line_starts_with(text, "_atom_site.")))
    throw Error(name, 0, "structure",
                std::string(named_as(file, {".pdb", ".ent"}) ? "named as PDB, but it holds" : "holds") +
                    " mmCIF (a data_ block with loop_/_atom_site items), not PDB records: rename it .cif");
}

}  // namespace ermak
