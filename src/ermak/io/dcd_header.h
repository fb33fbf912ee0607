#pragma once
// The header of a DCD file (docs/outputs.md#dcd) as both DcdWriter (continuing a file of a
// resumed run) and DcdReader (the analysis) read it: the record structure — the 84-byte
// control record with "CORD", the title record, the NATOM record — checked once here; what
// each of them accepts of its content (fixed atoms, unit cells, X-PLOR) is theirs to decide.
#include <cstdint>
#include <filesystem>
#include <string>

namespace ermak {

// Little-endian words, as DCD files hold them.
std::uint32_t dcd_u32(const unsigned char* p);
inline std::int32_t dcd_i32(const unsigned char* p) { return static_cast<std::int32_t>(dcd_u32(p)); }

// pread of exactly `size` bytes at `offset`; throws ermak::Error naming `path` on a read
// error, or "not a complete DCD file: it ends inside the <what>" when the file ends first.
void read_dcd_bytes(int fd, unsigned char* data, std::size_t size, std::uint64_t offset,
                    const std::filesystem::path& path, const char* what);

struct DcdHeader {
  std::int32_t icntrl[20] = {};  // the control words: NSET, ISTART, NSAVC, …, [19] the version (0: X-PLOR)
  std::string title;             // the title lines, 80 characters each, one after the other
  std::int32_t atoms = 0;        // NATOM, > 0
  std::uint64_t header_bytes = 0;  // where the first frame starts
};

// Reads the header at the start of the open file `fd`; throws ermak::Error naming `path`
// for anything but a little-endian DCD with 4-byte record markers and a sound structure.
DcdHeader read_dcd_header(int fd, const std::filesystem::path& path);

}  // namespace ermak
