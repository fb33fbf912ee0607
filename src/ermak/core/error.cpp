#include "ermak/core/error.h"

namespace ermak {
namespace {
std::string format_location(const std::string& file, int line, const std::string& field,
                            const std::string& what) {
  std::string out;
  out.append(file.empty() ? "<input>" : file);
  if (line > 0) out.append(":").append(std::to_string(line));
  out.append(": ");
  if (!field.empty()) out.append(field).append(": ");
  out.append(what);
  return out;
}
}  // namespace

Error::Error(std::string file, int line, std::string field, const std::string& what)
    : std::runtime_error(format_location(file, line, field, what)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      what_(what) {}

}  // namespace ermak
