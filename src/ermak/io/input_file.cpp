#include "ermak/io/input_file.h"

#include <cstring>
#include <system_error>

#include "ermak/core/error.h"
#include "ermak/io/file_kind.h"

namespace ermak {

void check_regular_input_file(const std::filesystem::path& file, const std::string& field) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(file, ec);
  // A FIFO is read as the stream it is: process substitution (<(sed … run.toml)) gives one.
  if (ec || !std::filesystem::exists(status) || std::filesystem::is_regular_file(status) ||
      std::filesystem::is_fifo(status))
    return;
  throw Error(file.string(), 0, field,
              std::string("is ") + special_file_kind(status) + ", not a file to read; give a regular file");
}

std::string cannot_open_input(const std::filesystem::path& file, int open_errno) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec) && !ec) return "file not found";
  return std::string("cannot open the file: ") + std::strerror(open_errno);
}

}  // namespace ermak
