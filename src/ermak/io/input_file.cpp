#include "ermak/io/input_file.h"

#include <system_error>

#include "ermak/core/error.h"

namespace ermak {

void check_regular_input_file(const std::filesystem::path& file, const std::string& field) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(file, ec);
  // A FIFO is read as the stream it is: process substitution (<(sed … run.toml)) gives one.
  if (ec || !std::filesystem::exists(status) || std::filesystem::is_regular_file(status) ||
      std::filesystem::is_fifo(status))
    return;
  const char* what = std::filesystem::is_directory(status)       ? "a directory"
                     : std::filesystem::is_character_file(status) ? "a character device"
                     : std::filesystem::is_block_file(status)     ? "a block device"
                     : std::filesystem::is_socket(status)         ? "a socket"
                                                                  : "not a regular file";
  throw Error(file.string(), 0, field, std::string("is ") + what + ", not a file to read; give a regular file");
}

}  // namespace ermak
