#pragma once
#include <stdexcept>
#include <string>

namespace ermak {

// Every error a user can cause carries where it came from: the file, the line (0 when
// not known) and the field or key. The message reads "file:line: field: what".
class Error : public std::runtime_error {
 public:
  // A NUL in the text is written "\0" (it would end the printed message there).
  explicit Error(const std::string& what);
  Error(std::string file, int line, std::string field, const std::string& what);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }
  // The bare description without the location prefix.
  const std::string& description() const { return what_; }

 private:
  std::string file_;
  int line_ = 0;
  std::string field_;
  std::string what_;
};

}  // namespace ermak
