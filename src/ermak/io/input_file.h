#pragma once
// Input files are read whole or line by line to their end: a device (/dev/zero), a FIFO or
// a socket given for one would fill the memory or block forever, so each reader refuses it
// by name first.
#include <filesystem>
#include <string>

namespace ermak {

// Throws ermak::Error(file, 0, field, …) when `file` exists (through links) and is not a
// regular file; a missing file is left to the reader's own message.
void check_regular_input_file(const std::filesystem::path& file, const std::string& field);

}  // namespace ermak
