#pragma once
// Whether an output file a run keeps open is still the file it wrote: deleted (rm) or cut
// (truncate, an administrator freeing space) under a running run, its rows and frames are
// lost while the run would record them in its next checkpoint (docs/outputs.md#checkpoint).
#include <cstdint>
#include <filesystem>

namespace ermak {

// Throws ermak::Error naming `path` when the open regular file `fd` has no name left (deleted)
// or holds fewer than `bytes_written` bytes (cut); a device (/dev/null) passes. The tables are
// written in append mode, so that rows written after a cut land at the cut and leave the file
// short (not past a hole of zeros); the DCD, which rewrites its header in place, is checked
// before every frame. Also checked when a checkpoint records the sizes.
void check_output_file_intact(int fd, const std::filesystem::path& path, std::uint64_t bytes_written);

// Which file a path named when a writer last wrote it: device and inode numbers, and the
// time of its last change (an inode freed by a deletion may be reused for a new file).
struct OutputFileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t modified_ns = 0;
  bool operator==(const OutputFileIdentity&) const = default;
};
OutputFileIdentity identity_of_output_file(int fd, const std::filesystem::path& path);

// Opens `path` again with `flags` (never O_CREAT) for a writer that holds no descriptor
// between write-outs (io/file_holding.h), and checks it as check_output_file_intact does: a
// file deleted under the run gets the same error, and so does one that is no longer the
// file `identity` names (replaced, e.g. by a copy, or changed by another program since the
// writer's last write-out). The descriptor closes with the object.
class ReopenedOutputFile {
 public:
  ReopenedOutputFile(const std::filesystem::path& path, int flags, const OutputFileIdentity& identity,
                     std::uint64_t bytes_written);
  ~ReopenedOutputFile();  // closes without a word (after an error, or where close() was called)
  ReopenedOutputFile(const ReopenedOutputFile&) = delete;
  ReopenedOutputFile& operator=(const ReopenedOutputFile&) = delete;
  int fd() const { return fd_; }
  // Closes the file after writing it, and throws ermak::Error naming it when that fails: a
  // network file system may report a full disk or quota (ENOSPC, EDQUOT) only here.
  // Returns the file's identity as the writer left it, for the next reopen's check.
  OutputFileIdentity close();

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace ermak
