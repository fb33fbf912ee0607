#pragma once
// The file under an output writer (io/tsv_writer.h, io/dcd_writer.h): kept open or opened only
// to write out (io/file_holding.h), grown by write-outs whose size it tracks, cut back to a
// checkpoint's offset when a run resumes. What goes into it is the writer's.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "ermak/io/file_holding.h"
#include "ermak/io/output_file_check.h"

namespace ermak {

enum class OutputPlacement {
  // At the end, in append mode (a table): rows written after someone cut the file land at its
  // new end, which the checkpoint's size check then sees (io/output_file_check.h), instead of
  // past a hole.
  kAppended,
  kAtOffset,  // at size() (a DCD, which also rewrites its header in place)
};

class HeldOutputFile {
 public:
  // What a writer does once its gathered bytes are in the file, given the descriptor they went
  // through (a DCD rewrites its header there): it forgets them.
  using Then = std::function<void(int fd)>;

  HeldOutputFile() = default;
  // Creates the file and writes `header`; refuses an existing file unless `overwrite`. `noun`
  // names the file in errors ("cannot write table: ...").
  static HeldOutputFile create(const std::filesystem::path& path, bool overwrite, FileHolding holding,
                               OutputPlacement placement, std::string noun, std::span<const std::byte> header);
  // Opens an existing file to continue it: the writer checks it through fd() and bytes_found(),
  // then calls continue_at() with its checkpoint's offset, where cut_to_continue() cuts it.
  static HeldOutputFile open_to_continue(const std::filesystem::path& path, FileHolding holding,
                                         OutputPlacement placement, std::string noun);
  // Also keeps the descriptor or closes it (holding()).
  void continue_at(std::uint64_t offset);
  void cut_to_continue(const Then& then = {});

  HeldOutputFile(HeldOutputFile&& other) noexcept;
  HeldOutputFile& operator=(HeldOutputFile&& other) noexcept;
  ~HeldOutputFile();  // closes without writing out: see last_write_out()

  // Writes `gathered` (if any) at the end of the file, then `then`. A failed write cuts the file
  // back to size(), so that it keeps whole rows or frames.
  void write_out(std::span<const std::byte> gathered, const Then& then);
  // write_out(), then checks that the file holds size() bytes (io/output_file_check.h).
  void flush(std::span<const std::byte> gathered, const Then& then);
  void sync(std::span<const std::byte> gathered, const Then& then);  // write_out(), fdatasync
  // The write-out of a writer's destructor, which cannot report errors.
  void last_write_out(std::span<const std::byte> gathered, const Then& then) noexcept;

  bool live() const { return live_; }
  FileHolding holding() const { return holding_; }
  const std::filesystem::path& path() const { return path_; }
  int fd() const { return fd_; }  // -1 between write-outs of a file opened to write out
  std::uint64_t bytes_found() const { return bytes_found_; }  // by open_to_continue()
  std::uint64_t size() const { return file_bytes_; }          // bytes handed to the OS
  std::uint64_t bytes_to_cut() const { return bytes_to_cut_; }

 private:
  HeldOutputFile(const std::filesystem::path& path, FileHolding holding, OutputPlacement placement,
                 std::string noun);
  // Runs use(fd) on the kept descriptor, or on the file opened again and checked for size().
  template <class Use>
  void with_file(bool to_cut, Use&& use);
  void write_gathered(int fd, std::span<const std::byte> gathered, const Then& then);
  void put(int fd, std::span<const std::byte> bytes);

  bool live_ = false;  // created or reopened, not yet closed or moved from
  FileHolding holding_ = FileHolding::kKeptOpen;
  OutputPlacement placement_ = OutputPlacement::kAppended;
  OutputFileIdentity identity_;  // the file opened first, for a file opened to write out
  int fd_ = -1;
  std::filesystem::path path_;
  std::string noun_;
  std::uint64_t file_bytes_ = 0;
  std::uint64_t bytes_found_ = 0;
  std::uint64_t bytes_to_cut_ = 0;
};

}  // namespace ermak
