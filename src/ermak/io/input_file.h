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

// Why an input file could not be opened, for the reader's error: "file not found", or
// "cannot open the file: " and the system's reason (`open_errno`: errno right after the
// failed open; e.g. "Permission denied", "Too many open files").
std::string cannot_open_input(const std::filesystem::path& file, int open_errno);

}  // namespace ermak
