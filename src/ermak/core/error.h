#pragma once
#include <stdexcept>
#include <string>
#include <utility>

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

// An output the system refused to write, create or sync (a full disk, a quota, a file-size
// limit, a failing device). A run stopped by one says how to continue from its last checkpoint
// (run/run_end_log.h write_failure_advice), which is why it is a type of its own: the cause is
// read from `system_error` (errno; 0 when a stream did not say), not from the message's text.
class WriteError : public Error {
 public:
  WriteError(std::string file, std::string field, const std::string& what, int system_error)
      : Error(std::move(file), 0, std::move(field), what), system_error_(system_error) {}
  int system_error() const { return system_error_; }

 private:
  int system_error_ = 0;
};

}  // namespace ermak
