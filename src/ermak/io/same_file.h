#pragma once
// Whether two paths name one file (through links, `..`, a second name of a hard link): an
// output that would be written over an input is refused before anything is written.
#include <filesystem>

namespace ermak {

// True when both exist and are the same file; false when either is missing.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace ermak
