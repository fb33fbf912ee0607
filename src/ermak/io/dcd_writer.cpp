#include "ermak/io/dcd_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "ermak/core/error.h"
#include "ermak/io/dcd_header.h"
#include "ermak/io/write_all.h"

namespace ermak {
namespace {

static_assert(std::numeric_limits<float>::is_iec559, "DCD stores IEEE-754 float32");

constexpr std::int32_t kHeaderRecordBytes = 84;  // "CORD" + 20 int32
constexpr std::int32_t kCharmmVersion = 24;
constexpr std::int32_t kTitleLineBytes = 80;
// Byte offset of ICNTRL[0] (NSET), the first of the header fields rewritten per frame:
// 4 (record marker) + 4 ("CORD").
constexpr std::uint64_t kOffsetNset = 8;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string(), 0, "", what);
}

void put_u32(unsigned char* p, std::uint32_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}
void put_i32(unsigned char* p, std::int32_t v) { put_u32(p, static_cast<std::uint32_t>(v)); }

std::int32_t saturate_i32(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(
      v, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

// A title line is exactly 80 characters, space padded (Fortran CHARACTER*80).
void append_title_line(std::vector<unsigned char>& out, const std::string& text) {
  std::string line = text.substr(0, kTitleLineBytes);
  line.resize(kTitleLineBytes, ' ');
  out.insert(out.end(), line.begin(), line.end());
}

}  // namespace

DcdWriter DcdWriter::create(const std::filesystem::path& path, std::int32_t atoms,
                            std::int64_t first_step, std::int64_t steps_between_frames,
                            double timestep_ps, bool overwrite, FileHolding holding) {
  if (atoms <= 0) fail(path, "a DCD file needs at least one atom, got " + std::to_string(atoms));
  // The frame record length 4N is an int32 marker.
  if (atoms > std::numeric_limits<std::int32_t>::max() / 4)
    fail(path, "too many atoms for a DCD file: " + std::to_string(atoms));
  if (steps_between_frames <= 0)
    fail(path, "steps between DCD frames must be positive, got " +
                   std::to_string(steps_between_frames));
  if (!(timestep_ps > 0.0) || !std::isfinite(timestep_ps))
    fail(path, "the DCD timestep must be positive and finite");

  DcdWriter w;
  w.atoms_ = atoms;
  w.first_step_header_ = saturate_i32(first_step);
  w.stride_header_ = saturate_i32(steps_between_frames);

  std::vector<unsigned char> header;
  // --- header record: 84, "CORD", ICNTRL[20], 84 ---
  header.resize(4 + kHeaderRecordBytes + 4, 0);
  unsigned char* h = header.data();
  put_i32(h, kHeaderRecordBytes);
  std::memcpy(h + 4, "CORD", 4);
  unsigned char* icntrl = h + 8;
  put_i32(icntrl + 4 * 0, 0);                     // NSET: frames, updated per frame
  put_i32(icntrl + 4 * 1, w.first_step_header_);  // ISTART: step of the first frame
  put_i32(icntrl + 4 * 2, w.stride_header_);      // NSAVC: steps between frames
  put_i32(icntrl + 4 * 3, 0);                     // NSTEP: step of the last frame
  // ICNTRL[4..7] = 0; ICNTRL[8] = NAMNF = 0 (no fixed atoms)
  const float delta_akma = static_cast<float>(timestep_ps / kAkmaTime_ps);
  put_u32(icntrl + 4 * 9, std::bit_cast<std::uint32_t>(delta_akma));  // DELTA (float)
  put_i32(icntrl + 4 * 10, 0);                    // QCRYS: no unit cell records
  // ICNTRL[11..18] = 0
  put_i32(icntrl + 4 * 19, kCharmmVersion);       // CHARMM format, float DELTA
  put_i32(h + 4 + kHeaderRecordBytes, kHeaderRecordBytes);

  // --- title record: exact (unsaturated) run parameters, since ISTART/NSAVC are int32 ---
  std::vector<unsigned char> title;
  append_title_line(title, std::string("REMARKS ermak ") + ERMAK_VERSION +
                               " SOP-model trajectory, positions in Angstrom");
  char buf[160];
  std::snprintf(buf, sizeof buf, "REMARKS first_step=%lld steps_between_frames=%lld dt_ps=%.9g",
                static_cast<long long>(first_step), static_cast<long long>(steps_between_frames),
                timestep_ps);
  append_title_line(title, buf);
  const std::int32_t title_lines = static_cast<std::int32_t>(title.size() / kTitleLineBytes);
  const std::int32_t title_record = 4 + kTitleLineBytes * title_lines;
  std::vector<unsigned char> rec(4 + 4);
  put_i32(rec.data(), title_record);
  put_i32(rec.data() + 4, title_lines);
  header.insert(header.end(), rec.begin(), rec.end());
  header.insert(header.end(), title.begin(), title.end());
  put_i32(rec.data(), title_record);
  header.insert(header.end(), rec.begin(), rec.begin() + 4);

  // --- NATOM record ---
  unsigned char natom[12];
  put_i32(natom, 4);
  put_i32(natom + 4, atoms);
  put_i32(natom + 8, 4);
  header.insert(header.end(), natom, natom + 12);

  w.file_ = HeldOutputFile::create(path, overwrite, holding, OutputPlacement::kAtOffset, "DCD file",
                                   std::as_bytes(std::span(header)));
  w.header_bytes_ = header.size();
  return w;
}

DcdWriter DcdWriter::append(const std::filesystem::path& path, std::int32_t atoms,
                            std::uint64_t truncate_to_bytes, FileHolding holding) {
  DcdWriter w = open_to_continue(path, atoms, truncate_to_bytes, holding);
  w.cut_to_continue();
  return w;
}

DcdWriter DcdWriter::open_to_continue(const std::filesystem::path& path, std::int32_t atoms,
                                      std::uint64_t truncate_to_bytes, FileHolding holding) {
  DcdWriter w;
  w.file_ = HeldOutputFile::open_to_continue(path, holding, OutputPlacement::kAtOffset, "DCD file");
  const std::uint64_t file_bytes = w.file_.bytes_found();

  const DcdHeader header = read_dcd_header(w.file_.fd(), path);
  if (header.icntrl[8] != 0) fail(path, "DCD file has fixed atoms (NAMNF != 0); ermak never writes those");
  if (header.icntrl[10] != 0) fail(path, "DCD file has unit cell records; ermak never writes those");
  if (header.icntrl[19] == 0) fail(path, "DCD file is in X-PLOR format (double DELTA); ermak writes CHARMM format");
  w.first_step_header_ = header.icntrl[1];
  w.stride_header_ = header.icntrl[2];
  if (header.atoms != atoms)
    fail(path, "DCD file holds " + std::to_string(header.atoms) + " atoms, this run has " + std::to_string(atoms));
  w.atoms_ = atoms;
  w.header_bytes_ = header.header_bytes;

  const std::uint64_t frame = frame_bytes(atoms);
  if (truncate_to_bytes < w.header_bytes_ || (truncate_to_bytes - w.header_bytes_) % frame != 0)
    fail(path, "resume offset " + std::to_string(truncate_to_bytes) +
                   " is not a frame boundary (header " + std::to_string(w.header_bytes_) +
                   " bytes, frames " + std::to_string(frame) + " bytes each)");
  if (truncate_to_bytes > file_bytes)
    fail(path, "DCD file is shorter (" + std::to_string(file_bytes) +
                   " bytes) than the checkpoint records (" + std::to_string(truncate_to_bytes) +
                   " bytes): it was replaced or lost data");
  w.frames_ = static_cast<std::int64_t>((truncate_to_bytes - w.header_bytes_) / frame);
  if (w.frames_ > 0) {
    // The last kept frame must start with its X record marker: a cheap check that the
    // offset belongs to this file and not to some other run's.
    unsigned char marker[4];
    read_dcd_bytes(w.file_.fd(), marker, 4, truncate_to_bytes - frame, path, "frames");
    if (dcd_i32(marker) != 4 * atoms) fail(path, "corrupt DCD frame before the resume offset");
  }
  w.file_.continue_at(truncate_to_bytes);
  return w;
}

void DcdWriter::cut_to_continue() {
  file_.cut_to_continue([this](int fd) { update_header(fd); });
}

DcdWriter::DcdWriter(DcdWriter&& other) noexcept = default;

DcdWriter& DcdWriter::operator=(DcdWriter&& other) noexcept {
  if (this != &other) {
    std::destroy_at(this);  // writes out what it gathered and closes its file
    std::construct_at(this, std::move(other));
  }
  return *this;
}

DcdWriter::~DcdWriter() { file_.last_write_out(gathered(), wrote()); }

void DcdWriter::write_frame(const float* x_A, const float* y_A, const float* z_A) {
  if (!file_.live()) fail(file_.path(), "DCD writer is closed");
  // Frames go to their offset (pwrite: the header is rewritten in place), so a file cut under
  // the run would grow back over a hole of zeros: checked before each frame instead (and
  // before each write-out of a writer opened to write out, by ReopenedOutputFile).
  if (file_.holding() == FileHolding::kKeptOpen) check_output_file_intact(file_.fd(), file_.path(), file_.size());
  const std::uint64_t record = 4 * std::uint64_t(atoms_);
  const std::size_t frame = frame_bytes(atoms_);
  // Encoded at the end of the gathered frames: kept open, the only one, written at once;
  // opened to write out, at most kOpenedToWriteOutBytes and a frame.
  if (file_.holding() == FileHolding::kOpenedToWriteOut) make_room_to_gather(pending_, frame);
  pending_.resize(pending_.size() + frame);
  unsigned char* p = pending_.data() + pending_.size() - frame;
  for (const float* c : {x_A, y_A, z_A}) {
    put_i32(p, static_cast<std::int32_t>(record));
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(p + 4, c, record);
    } else {
      for (std::int32_t i = 0; i < atoms_; ++i)
        put_u32(p + 4 + 4 * std::size_t(i), std::bit_cast<std::uint32_t>(c[i]));
    }
    put_i32(p + 4 + record, static_cast<std::int32_t>(record));
    p += 8 + record;
  }
  ++frames_;
  if (file_.holding() == FileHolding::kOpenedToWriteOut) {
    if (pending_.size() >= kOpenedToWriteOutBytes) write_out();
    return;
  }
  // One write for the frame, then the header: if we die in between, the header undercounts
  // by one frame, which every reader tolerates (MDAnalysis and VMD count frames from the
  // file size).
  try {
    write_out();
  } catch (const Error&) {
    --frames_;
    pending_.clear();  // the file keeps its whole frames only (write_out cut it back)
    throw;
  }
}

void DcdWriter::write_out() { file_.write_out(gathered(), wrote()); }

HeldOutputFile::Then DcdWriter::wrote() {
  return [this](int fd) {
    pending_.clear();
    update_header(fd);
  };
}

void DcdWriter::update_header(int fd) {
  // ICNTRL[0..3] = NSET, ISTART, NSAVC, NSTEP in one write (ISTART, NSAVC unchanged): the
  // frames in the file, not those still gathered.
  const std::int64_t frames = std::int64_t((file_.size() - header_bytes_) / frame_bytes(atoms_));
  unsigned char v[16];
  put_i32(v, saturate_i32(frames));
  put_i32(v + 4, first_step_header_);
  put_i32(v + 8, stride_header_);
  const std::int64_t last_step =
      frames == 0 ? 0 : std::int64_t(first_step_header_) + (frames - 1) * std::int64_t(stride_header_);
  put_i32(v + 12, saturate_i32(last_step));
  write_all_at(fd, reinterpret_cast<const char*>(v), sizeof v, kOffsetNset, file_.path().string(),
               "cannot write DCD file: ");
}

void DcdWriter::sync() { file_.sync(gathered(), wrote()); }

void DcdWriter::flush() { file_.flush(gathered(), wrote()); }

}  // namespace ermak
