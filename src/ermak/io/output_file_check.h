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

}  // namespace ermak
