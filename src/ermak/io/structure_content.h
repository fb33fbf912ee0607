#pragma once
// What a file given as a structure holds when it is not what its name says: PDB records
// named .cif, mmCIF named .pdb, or a topology (SOP-GPU .top, ermak .etop). Said at once,
// rather than the parse error or "no C-alpha atom" that the wrong reader would give
// (docs/formats.md#pdb-and-mmcif).
#include <filesystem>
#include <string>

namespace ermak {

// Throws ermak::Error(file, 0, "structure", …) when `text`, about to be read as mmCIF
// (`as_mmcif`) or as PDB, holds another format, and says what to do with it.
void check_structure_content(const std::filesystem::path& file, const std::string& text, bool as_mmcif);

}  // namespace ermak
