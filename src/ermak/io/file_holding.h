#pragma once
// Whether an output writer keeps its file open for its whole life or opens it only to write
// out what it has gathered (docs/outputs.md#how-many-files-a-run-keeps-open). A run whose
// per-replica files do not fit under the open-file limit uses the second.
#include <algorithm>
#include <cstddef>

namespace ermak {

enum class FileHolding {
  kKeptOpen,          // one descriptor from creation to destruction; rows reach the file within ~1 s
  kOpenedToWriteOut,  // no descriptor between write-outs, which come when kWriteOutBytes have
                      // gathered and at every flush() (checkpoints, stops, the run's end)
};

// What a writer that is opened only to write out gathers first. Small, because every
// replica's files gather at once: 10⁴ replicas with three files each hold at most
// 3·10⁴ × 8 KiB = 240 MiB; large enough that a file is opened once per ~70 energy rows,
// not at every report.
inline constexpr std::size_t kOpenedToWriteOutBytes = 8 * 1024;

// Makes room in a writer's gathered bytes (a std::string or std::vector of bytes) for `more`
// bytes, all at once for everything the writer gathers before a write-out: up to
// kOpenedToWriteOutBytes and `more` (a row's room, or one frame where a frame is larger).
// Growing by doubling would leave up to 16 KiB per file past 8 KiB, and a heap fragmented
// by the steps of thousands of files growing side by side (measured: 275 MB against 212 MB
// for 18 000 files).
template <class Buffer>
void make_room_to_gather(Buffer& gathered, std::size_t more) {
  if (gathered.size() + more <= gathered.capacity()) return;
  gathered.reserve(more >= kOpenedToWriteOutBytes ? gathered.size() + more
                                                  : std::max(kOpenedToWriteOutBytes, gathered.size()) + more);
}

}  // namespace ermak
