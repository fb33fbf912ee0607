#pragma once
// Input files are read whole or line by line to their end: a device (/dev/zero) or a socket
// given for one would fill the memory or never end, so each reader refuses it by name first.
// A FIFO is read (process substitution, `ermak run <(sed … run.toml)`, gives one).
#include <filesystem>
#include <string>
#include <string_view>

namespace ermak {

// Throws ermak::Error(file, 0, field, …) when `file` exists (through links) and is neither a
// regular file nor a FIFO, or is a regular text file whose lines end in a carriage return
// alone (old Mac OS line endings: read line by line it is one long line, which each reader
// would report as something else — "no [ atoms ] entries", "has 1 atoms", a missing key):
// its first 64 KiB hold more than one CR and no LF. A FIFO is not read ahead, and a binary
// file (gzip, NUL bytes) is left to its reader's message, as is a missing one.
void check_text_input_file(const std::filesystem::path& file, const std::string& field);

// The advice for CR-only line endings: what they are and the command that converts them.
std::string cr_only_line_endings(const std::filesystem::path& file);

// Whether a text (or a file's start) has its lines ended by CR alone: more than one CR and
// no LF. Binary bytes (gzip's magic, NUL) make it no such text.
bool has_cr_only_line_endings(std::string_view text);

// Why an input file could not be opened, for the reader's error: "file not found", or
// "cannot open the file: " and the system's reason (`open_errno`: errno right after the
// failed open; e.g. "Permission denied", "Too many open files").
std::string cannot_open_input(const std::filesystem::path& file, int open_errno);

}  // namespace ermak
