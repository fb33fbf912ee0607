#pragma once
// Files written whole or not at all: a sibling temporary (same directory, so the rename is
// atomic), its contents synced, then renamed over the target and the directory synced. A run
// stopped or a machine crashing mid-write leaves the old file or the new one, never a part
// (docs/outputs.md#checkpoint).
#include <filesystem>
#include <string>
#include <string_view>

namespace ermak {

// Replaces `path` by `bytes` (through a symbolic link: the file it names). Errors (ermak::Error) name the file and say "cannot … {what}"
// ("cannot create checkpoint: No such file or directory"); a name that holds a directory, device
// (/dev/null), FIFO or socket is refused, since the rename would replace it.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes, const std::string& what);

}  // namespace ermak
