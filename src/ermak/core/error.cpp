#include "ermak/core/error.h"

namespace ermak {
namespace {
// A NUL in a name the user gave (a TOML "\u0000") would end the printed message there.
std::string visible(std::string text) {
  for (std::size_t p = text.find('\0'); p != std::string::npos; p = text.find('\0', p + 2)) text.replace(p, 1, "\\0");
  return text;
}

std::string format_location(const std::string& file, int line, const std::string& field,
                            const std::string& what) {
  std::string out;
  out.append(file.empty() ? "<input>" : file);
  if (line > 0) out.append(":").append(std::to_string(line));
  out.append(": ");
  if (!field.empty()) out.append(field).append(": ");
  out.append(what);
  return visible(std::move(out));
}
}  // namespace

Error::Error(const std::string& what) : std::runtime_error(visible(what)), what_(visible(what)) {}

Error::Error(std::string file, int line, std::string field, const std::string& what)
    : std::runtime_error(format_location(file, line, field, what)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      what_(visible(what)) {}

}  // namespace ermak
