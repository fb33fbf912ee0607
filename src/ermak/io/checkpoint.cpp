#include "ermak/io/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>

#include "ermak/core/error.h"
#include "ermak/core/fnv1a.h"
#include "ermak/io/atomic_file.h"

namespace ermak {
namespace {

// File layout (all integers little-endian):
//    0  char[8]  "ERMAKCKP"
//    8  u32      format version
//   12  u32      reserved, 0
//   16  u64      payload bytes P
//   24  P bytes  payload (below)
// 24+P  u64      FNV-1a 64 of bytes [0, 24+P)
// Payload: u64 seed, i64 step, str fingerprint, state positions, state neighbor_reference,
// u64 count + count × (str name, u64 offset), u64 count + count × (str key, str value),
// and from version 2: str rng_name, str rng_state (the generator's bytes).
// str = u64 length + bytes; state = i32 beads, i32 replicas, i64 step, then beads·replicas
// float32 bit patterns for x, then y, then z.
constexpr char kMagic[8] = {'E', 'R', 'M', 'A', 'K', 'C', 'K', 'P'};
constexpr std::size_t kHeaderBytes = 24;
constexpr std::size_t kTrailerBytes = 8;

static_assert(std::numeric_limits<float>::is_iec559, "checkpoints store IEEE-754 float32");

std::uint64_t fnv1a64(const unsigned char* data, std::size_t size) {
  return ermak::fnv1a64(std::string_view(reinterpret_cast<const char*>(data), size));
}

class Writer {
 public:
  std::vector<unsigned char> bytes;

  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void str(const std::string& s) {
    u64(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void floats(const std::vector<float>& v) {
    const std::size_t at = bytes.size();
    bytes.resize(at + 4 * v.size());
    if constexpr (std::endian::native == std::endian::little) {
      if (!v.empty()) std::memcpy(bytes.data() + at, v.data(), 4 * v.size());
    } else {
      for (std::size_t k = 0; k < v.size(); ++k) {
        const std::uint32_t b = std::bit_cast<std::uint32_t>(v[k]);
        for (int s = 0; s < 4; ++s) bytes[at + 4 * k + s] = static_cast<unsigned char>(b >> (8 * s));
      }
    }
  }

 private:
  void put(std::uint64_t v, int n) {
    for (int s = 0; s < n; ++s) bytes.push_back(static_cast<unsigned char>(v >> (8 * s)));
  }
};

// Bounds-checked reader over the validated payload: a failure here means a file that
// passed the checksum but does not parse, i.e. a writer bug or a foreign file.
class Reader {
 public:
  Reader(const std::string& file, const unsigned char* data, std::size_t size)
      : file_(file), p_(data), end_(data + size) {}

  std::uint32_t u32(const char* field) { return static_cast<std::uint32_t>(get(4, field)); }
  std::uint64_t u64(const char* field) { return get(8, field); }
  std::int32_t i32(const char* field) { return static_cast<std::int32_t>(u32(field)); }
  std::int64_t i64(const char* field) { return static_cast<std::int64_t>(u64(field)); }
  std::string str(const std::string& field) {
    const std::uint64_t n = get(8, field);
    need(n, field);
    std::string s(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(n));
    p_ += n;
    return s;
  }
  void floats(std::vector<float>& v, std::size_t count, const std::string& field) {
    need(4 * std::uint64_t(count), field);
    v.resize(count);
    if constexpr (std::endian::native == std::endian::little) {
      if (count) std::memcpy(v.data(), p_, 4 * count);
    } else {
      for (std::size_t k = 0; k < count; ++k) {
        std::uint32_t b = 0;
        for (int s = 0; s < 4; ++s) b |= std::uint32_t(p_[4 * k + s]) << (8 * s);
        v[k] = std::bit_cast<float>(b);
      }
    }
    p_ += 4 * count;
  }
  std::uint64_t remaining() const { return static_cast<std::uint64_t>(end_ - p_); }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw Error(file_, 0, field, what);
  }

 private:
  void need(std::uint64_t n, const std::string& field) const {
    if (n > remaining())
      fail(field, "checkpoint payload ends early (needs " + std::to_string(n) + " more bytes, " +
                      std::to_string(remaining()) + " left); corrupt or foreign file");
  }
  std::uint64_t get(int n, const std::string& field) {
    need(static_cast<std::uint64_t>(n), field);
    std::uint64_t v = 0;
    for (int s = 0; s < n; ++s) v |= std::uint64_t(p_[s]) << (8 * s);
    p_ += n;
    return v;
  }

  std::string file_;
  const unsigned char* p_;
  const unsigned char* end_;
};

void put_state(Writer& w, const State& s, const std::string& file, const char* field) {
  const std::size_t count = std::size_t(std::max(s.bead_count, 0)) * std::size_t(std::max(s.replica_count, 0));
  if (s.bead_count < 0 || s.replica_count < 0 || s.x.size() != count || s.y.size() != count ||
      s.z.size() != count)
    throw Error(file, 0, field,
                "inconsistent state: " + std::to_string(s.bead_count) + " beads × " +
                    std::to_string(s.replica_count) + " replicas but arrays of " +
                    std::to_string(s.x.size()) + "/" + std::to_string(s.y.size()) + "/" +
                    std::to_string(s.z.size()) + " values");
  w.i32(s.bead_count);
  w.i32(s.replica_count);
  w.i64(s.step);
  w.floats(s.x);
  w.floats(s.y);
  w.floats(s.z);
}

State get_state(Reader& r, const std::string& field) {
  State s;
  s.bead_count = r.i32((field + ".bead_count").c_str());
  s.replica_count = r.i32((field + ".replica_count").c_str());
  s.step = r.i64((field + ".step").c_str());
  if (s.bead_count < 0 || s.replica_count < 0)
    r.fail(field, "negative bead or replica count");
  const std::uint64_t count = std::uint64_t(s.bead_count) * std::uint64_t(s.replica_count);
  // Check before allocating: a corrupt count must not ask for terabytes.
  if (count > r.remaining() / 12)
    r.fail(field, std::to_string(s.bead_count) + " beads × " + std::to_string(s.replica_count) +
                      " replicas do not fit in the rest of the checkpoint");
  r.floats(s.x, count, field + ".x");
  r.floats(s.y, count, field + ".y");
  r.floats(s.z, count, field + ".z");
  return s;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

void write_checkpoint_atomically(const std::filesystem::path& path, const Checkpoint& c,
                                 const std::vector<std::filesystem::path>& output_directories) {
  const std::string file = path.string();
  Writer w;
  w.bytes.insert(w.bytes.end(), kMagic, kMagic + 8);
  w.u32(kCheckpointFormatVersion);
  w.u32(0);
  w.u64(0);  // payload size, patched below
  w.u64(c.seed);
  w.i64(c.step);
  w.str(c.config_fingerprint);
  put_state(w, c.positions, file, "positions");
  put_state(w, c.neighbor_reference, file, "neighbor_reference");
  w.u64(c.output_offsets.size());
  for (const auto& [name, offset] : c.output_offsets) {
    w.str(name);
    w.u64(offset);
  }
  w.u64(c.extra.size());
  for (const auto& [key, value] : c.extra) {
    w.str(key);
    w.str(value);
  }
  w.str(c.rng_name);
  w.str(std::string(c.rng_state.begin(), c.rng_state.end()));
  const std::uint64_t payload = w.bytes.size() - kHeaderBytes;
  for (int s = 0; s < 8; ++s) w.bytes[16 + s] = static_cast<unsigned char>(payload >> (8 * s));
  w.u64(fnv1a64(w.bytes.data(), w.bytes.size()));

  // Outputs first: the checkpoint must never record more bytes than the disk holds. One
  // syncfs per filesystem: the checkpoint's, and any other that holds outputs.
  {
    std::filesystem::path dir = path.parent_path();
    if (dir.empty()) dir = ".";
    std::vector<dev_t> synced_devices;
    auto sync_filesystem_of = [&](const std::filesystem::path& d, bool required) {
      const int dfd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd < 0) {
        if (required) throw Error(file, 0, "", "cannot open the checkpoint's directory: " + errno_text());
        return;
      }
      struct stat st{};
      const bool known = ::fstat(dfd, &st) == 0;
      if (known && std::find(synced_devices.begin(), synced_devices.end(), st.st_dev) != synced_devices.end()) {
        ::close(dfd);
        return;
      }
      const bool synced = ::syncfs(dfd) == 0;
      const int sync_errno = synced ? 0 : errno;
      ::close(dfd);
      if (!synced) {
        // A write-back error (EIO, ENOSPC, EDQUOT: on NFS and quota'd storage a full disk shows
        // only here) means the outputs the checkpoint would count may not be on disk: keep the
        // previous checkpoint. Only a kernel without syncfs falls back to sync().
        if (!syncfs_unsupported(sync_errno))
          throw Error(file, 0, "",
                      "the outputs in " + d.string() + " could not be flushed to disk (" + std::strerror(sync_errno) +
                          "): the previous checkpoint is kept, as this one would count bytes the disk may not hold");
        ::sync();
      }
      if (known) synced_devices.push_back(st.st_dev);
    };
    sync_filesystem_of(dir, true);
    for (const std::filesystem::path& d : output_directories) sync_filesystem_of(d.empty() ? "." : d, false);
  }

  write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(w.bytes.data()), w.bytes.size()),
                        "checkpoint");
}

bool syncfs_unsupported(int error_number) { return error_number == ENOSYS || error_number == EOPNOTSUPP; }

Checkpoint read_checkpoint(const std::filesystem::path& path) {
  const std::string file = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(file, 0, "", "cannot open checkpoint: " + errno_text());
  std::vector<unsigned char> bytes;
  {
    struct stat st{};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      throw Error(file, 0, "", "cannot stat checkpoint: " + errno_text());
    }
    bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        throw Error(file, 0, "", "cannot read checkpoint: " + (n < 0 ? errno_text() : "file shrank"));
      }
      got += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }

  auto le = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int s = 0; s < n; ++s) v |= std::uint64_t(bytes[at + s]) << (8 * s);
    return v;
  };
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw Error(file, 0, "", "not an ermak checkpoint (the file does not start with ERMAKCKP)");
  if (bytes.size() < kHeaderBytes + kTrailerBytes)
    throw Error(file, 0, "", "checkpoint is truncated: " + std::to_string(bytes.size()) +
                                 " bytes, shorter than any valid checkpoint");
  const auto version = static_cast<std::uint32_t>(le(8, 4));
  if (version < kCheckpointOldestReadableVersion || version > kCheckpointFormatVersion)
    throw Error(file, 0, "", "checkpoint format version " + std::to_string(version) +
                                 ", this ermak reads versions " +
                                 std::to_string(kCheckpointOldestReadableVersion) + " to " +
                                 std::to_string(kCheckpointFormatVersion) +
                                 (version > kCheckpointFormatVersion ? " (written by a newer ermak)" : ""));
  const std::uint64_t payload = le(16, 8);
  const std::uint64_t expected = kHeaderBytes + kTrailerBytes + payload;
  if (payload > bytes.size() || expected != bytes.size())
    throw Error(file, 0, "", "checkpoint is truncated or has trailing bytes: its header says " +
                                 std::to_string(expected) + " bytes, the file has " +
                                 std::to_string(bytes.size()));
  const std::size_t body = kHeaderBytes + static_cast<std::size_t>(payload);
  if (fnv1a64(bytes.data(), body) != le(body, 8))
    throw Error(file, 0, "", "checkpoint checksum mismatch: the file is corrupt");

  Reader r(file, bytes.data() + kHeaderBytes, static_cast<std::size_t>(payload));
  Checkpoint c;
  c.seed = r.u64("seed");
  c.step = r.i64("step");
  c.config_fingerprint = r.str("config_fingerprint");
  c.positions = get_state(r, "positions");
  c.neighbor_reference = get_state(r, "neighbor_reference");
  const std::uint64_t n_offsets = r.u64("output_offsets");
  if (n_offsets > r.remaining() / 16) r.fail("output_offsets", "count exceeds the file");
  c.output_offsets.reserve(static_cast<std::size_t>(n_offsets));
  for (std::uint64_t k = 0; k < n_offsets; ++k) {
    std::string name = r.str("output_offsets.name");
    c.output_offsets.emplace_back(std::move(name), r.u64("output_offsets.offset"));
  }
  const std::uint64_t n_extra = r.u64("extra");
  if (n_extra > r.remaining() / 16) r.fail("extra", "count exceeds the file");
  c.extra.reserve(static_cast<std::size_t>(n_extra));
  for (std::uint64_t k = 0; k < n_extra; ++k) {
    std::string key = r.str("extra.key");
    c.extra.emplace_back(std::move(key), r.str("extra.value"));
  }
  if (version >= 2) {
    c.rng_name = r.str("rng_name");
    const std::string state = r.str("rng_state");
    c.rng_state.assign(state.begin(), state.end());
  }
  if (r.remaining() != 0)
    r.fail("", std::to_string(r.remaining()) + " unexpected bytes after the last field");
  return c;
}

}  // namespace ermak
