#pragma once
// Lines of text a writer gathers for its HeldOutputFile (io/held_output_file.h) — a table's
// rows (io/tsv_writer.h), SOP-GPU's .dat lines (run/sopgpu_outputs.cpp) — and when they are
// due to be written out.
#include <chrono>
#include <cstddef>
#include <span>
#include <string>

#include "ermak/io/file_holding.h"
#include "ermak/io/held_output_file.h"

namespace ermak {

class GatheredLines {
 public:
  // A file kept open writes out at 64 KiB or when its last write-out is a second old, so that
  // a watcher (tail -f) lags at most about a second behind a busy writer and a slow one reaches
  // the file line by line. A file opened to write out waits for kOpenedToWriteOutBytes and has
  // no age rule: at 10⁴ replicas it would open every file every second.
  static constexpr std::size_t kKeptOpenBytes = 64 * 1024;
  static constexpr auto kMaxAge = std::chrono::seconds(1);

  explicit GatheredLines(FileHolding holding = FileHolding::kKeptOpen) : holding_(holding) {}

  // Where the next line goes; `room` is about the longest line, reserved once for everything a
  // file opened to write out gathers (file_holding.h's make_room_to_gather).
  std::string& for_next_line(std::size_t room) {
    if (holding_ == FileHolding::kOpenedToWriteOut) make_room_to_gather(text_, room);
    return text_;
  }
  // After a whole line: whether to write out now.
  bool due() const {
    if (holding_ == FileHolding::kOpenedToWriteOut) return text_.size() >= kOpenedToWriteOutBytes;
    return text_.size() >= kKeptOpenBytes || std::chrono::steady_clock::now() - last_write_out_ >= kMaxAge;
  }
  std::size_t size() const { return text_.size(); }
  std::span<const std::byte> bytes() const { return std::as_bytes(std::span(text_)); }
  // What the HeldOutputFile calls once the lines are in the file: forget them.
  HeldOutputFile::Then written() {
    return [this](int) {
      text_.clear();
      last_write_out_ = std::chrono::steady_clock::now();
    };
  }
  void restart_clock() { last_write_out_ = std::chrono::steady_clock::now(); }

 private:
  FileHolding holding_;
  std::string text_;
  std::chrono::steady_clock::time_point last_write_out_ = std::chrono::steady_clock::now();
};

}  // namespace ermak
