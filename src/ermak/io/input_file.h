#pragma once
// Input files are read whole or line by line to their end: a device (/dev/zero) or a socket
// given for one would fill the memory or never end, so each reader refuses it by name first.
// A FIFO is read (process substitution, `ermak run <(sed … run.toml)`, gives one).
#include <filesystem>
#include <string>

namespace ermak {

// Throws ermak::Error(file, 0, field, …) when `file` exists (through links) and is neither a
// regular file nor a FIFO; a missing file is left to the reader's own message.
void check_regular_input_file(const std::filesystem::path& file, const std::string& field);

}  // namespace ermak
