#include "ermak/io/input_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <system_error>

#include "ermak/core/error.h"
#include "ermak/io/file_kind.h"

namespace ermak {

std::string cr_only_line_endings(const std::filesystem::path& file) {
  // The path as given, and the converted file beside it: the command works from where ermak ran.
  const std::string name = file.string();
  std::filesystem::path fixed = file;
  fixed.replace_filename("fixed-" + file.filename().string());
  return "the file's lines end in a carriage return alone (CR, old Mac OS line endings), which ermak's readers do "
         "not split into lines; convert them to LF first (tr '\\r' '\\n' < " + name + " > " + fixed.string() + ")";
}

void check_text_input_file(const std::filesystem::path& file, const std::string& field) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(file, ec);
  // A FIFO is read as the stream it is: process substitution (<(sed … run.toml)) gives one,
  // and is not read ahead here.
  if (ec || !std::filesystem::exists(status) || std::filesystem::is_fifo(status)) return;
  if (!std::filesystem::is_regular_file(status))
    throw Error(file.string(), 0, field,
                std::string("is ") + special_file_kind(status) + ", not a file to read; give a regular file");
  // The file's start: no LF in it, and more than one CR.
  std::ifstream in(file, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  if (has_cr_only_line_endings(head)) throw Error(file.string(), 0, field, cr_only_line_endings(file));
}

bool has_cr_only_line_endings(std::string_view text) {
  // A binary file (gzip, NUL bytes) is no text with odd line endings: its reader names it.
  const bool binary = text.find('\0') != std::string_view::npos ||
                      (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
                       static_cast<unsigned char>(text[1]) == 0x8b);
  return !binary && text.find('\n') == std::string_view::npos && std::count(text.begin(), text.end(), '\r') > 1;
}

std::string cannot_open_input(const std::filesystem::path& file, int open_errno) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec) && !ec) return "file not found";
  return std::string("cannot open the file: ") + std::strerror(open_errno);
}

}  // namespace ermak
