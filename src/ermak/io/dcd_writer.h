#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "ermak/io/file_holding.h"
#include "ermak/io/held_output_file.h"

namespace ermak {

// One CHARMM/NAMD DCD trajectory file (docs/outputs.md#dcd): little-endian, 4-byte
// Fortran record markers, CHARMM flavour (version 24, float DELTA, no unit cell, no
// fixed atoms), positions in Å as float32. VMD, MDAnalysis, MDTraj and CHARMM read it.
//
// Layout (bytes):   92  header record: 84, "CORD", 20 int32 ICNTRL, 84
//                  4+4+80·T+4  title record (T lines of 80 characters)
//                  12  NATOM record: 4, N, 4
//  per frame   3·(8+4N) three records X, Y, Z: 4N, N float32, 4N
//
// After every frame the frame count (ICNTRL[0], NSET) and the step of the last frame
// (ICNTRL[3]) are rewritten in place, so a run that dies leaves a file whose header
// agrees with its contents. Kept open (FileHolding::kKeptOpen), every frame goes to the OS
// when write_frame returns (no user-space buffering), so bytes_written() is always what is
// in the file: two system calls per frame, the frame, then ICNTRL[0..3] in one piece. A
// writer opened only to write out (FileHolding::kOpenedToWriteOut) holds no descriptor
// between write-outs: its frames gather up to kOpenedToWriteOutBytes (at least one frame)
// and at flush(), and the header, counting the frames in the file, is rewritten after each
// write-out; bytes_written() counts the gathered frames too.
class DcdWriter {
 public:
  // 1 AKMA time unit (CHARMM's internal time) = 48.88821 fs. DCD's DELTA is in AKMA.
  static constexpr double kAkmaTime_ps = 0.04888821;
  // Bytes of one frame record triple for `atoms` atoms.
  static std::uint64_t frame_bytes(std::int32_t atoms) {
    return 3 * (8 + 4 * std::uint64_t(atoms));
  }

  // Starts a new file. first_step is the step of the first frame that will be written,
  // steps_between_frames the stride (> 0), timestep_ps the integration step. The DCD
  // header holds these as int32; values beyond int32 are saturated there and kept
  // exactly in the title. Throws ermak::Error if the file exists and !overwrite, or on
  // any I/O failure.
  static DcdWriter create(const std::filesystem::path& path, std::int32_t atoms,
                          std::int64_t first_step, std::int64_t steps_between_frames,
                          double timestep_ps, bool overwrite, FileHolding holding = FileHolding::kKeptOpen);

  // Reopens a file that this writer produced for a resumed run: checks the header (and
  // that it holds `atoms` atoms), cuts the file to truncate_to_bytes — the
  // bytes_written() recorded in the checkpoint, which must lie on a frame boundary and
  // not beyond the end of the file — and continues after the last kept frame. Frames
  // written after the checkpoint by the interrupted run are discarded that way, so the
  // resumed file holds no duplicates.
  static DcdWriter append(const std::filesystem::path& path, std::int32_t atoms,
                          std::uint64_t truncate_to_bytes, FileHolding holding = FileHolding::kKeptOpen);
  // append() in two steps, for a run that checks all its files before cutting any: the
  // same checks, without cutting; then cut_to_continue() cuts the file to the offset and
  // corrects the header (frames may be written only after it).
  static DcdWriter open_to_continue(const std::filesystem::path& path, std::int32_t atoms,
                                    std::uint64_t truncate_to_bytes,
                                    FileHolding holding = FileHolding::kKeptOpen);
  void cut_to_continue();
  // What cut_to_continue() cuts: the bytes the file holds beyond the offset.
  std::uint64_t bytes_to_cut() const { return file_.bytes_to_cut(); }

  DcdWriter(DcdWriter&& other) noexcept;
  DcdWriter& operator=(DcdWriter&& other) noexcept;
  DcdWriter(const DcdWriter&) = delete;
  DcdWriter& operator=(const DcdWriter&) = delete;
  ~DcdWriter();

  // Appends one frame: atoms() values from each array, Å.
  void write_frame(const float* x_A, const float* y_A, const float* z_A);

  // Size of the file once gathered frames are written out; record it in a checkpoint as the
  // resume offset, after flush().
  std::uint64_t bytes_written() const { return file_.size() + pending_.size(); }
  std::int64_t frames() const { return frames_; }
  std::int32_t atoms() const { return atoms_; }
  const std::filesystem::path& path() const { return file_.path(); }
  std::uint64_t header_bytes() const { return header_bytes_; }
  FileHolding holding() const { return file_.holding(); }

  // Kept open, every frame is handed to the OS inside write_frame, so the file that other
  // processes see (and that survives a crash of this one) already holds bytes_written()
  // bytes, and flush() only checks that it still does (deleted or cut under the run:
  // io/output_file_check.h). Opened to write out, flush() writes out the gathered frames.
  void flush();
  // Makes the file durable against an OS crash or power loss (fdatasync). That costs
  // milliseconds per file; for many files at once, write_checkpoint_atomically syncs the
  // whole filesystem in one call instead.
  void sync();

 private:
  DcdWriter() = default;
  void update_header(int fd);
  void write_out();
  std::span<const std::byte> gathered() const { return std::as_bytes(std::span(pending_)); }
  HeldOutputFile::Then wrote();  // forgets the frames written out and counts them in the header

  HeldOutputFile file_;
  std::int32_t atoms_ = 0;
  std::int32_t first_step_header_ = 0;   // ISTART as stored (saturated)
  std::int32_t stride_header_ = 1;       // NSAVC as stored (saturated)
  std::int64_t frames_ = 0;
  std::uint64_t header_bytes_ = 0;
  // Frames not yet in the file: kept open, the one being written (reused: one write()
  // per frame); opened to write out, those gathered since the last write-out.
  std::vector<unsigned char> pending_;
};

}  // namespace ermak
