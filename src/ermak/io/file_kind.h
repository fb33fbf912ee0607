#pragma once
// What a path that is no regular file holds, by name ("a FIFO"), for the messages of the
// input checks (io/input_file.h) and of outputs that must be regular files (atomic writes,
// analysis and topology outputs).
#include <filesystem>

namespace ermak {

inline const char* special_file_kind(const std::filesystem::file_status& status) {
  namespace fs = std::filesystem;
  return fs::is_directory(status)        ? "a directory"
         : fs::is_character_file(status) ? "a character device"
         : fs::is_block_file(status)     ? "a block device"
         : fs::is_fifo(status)           ? "a FIFO"
         : fs::is_socket(status)         ? "a socket"
                                         : "not a regular file";
}

}  // namespace ermak
