#pragma once
// Reading a DCD trajectory back, frame by frame (docs/outputs.md#dcd): the files ermak's
// DcdWriter writes, and any CHARMM or NAMD DCD of the same plain kind — little-endian,
// 4-byte record markers, no unit cell records, no fixed atoms, three dimensions. Anything
// else is refused with an ermak::Error naming the file and what it has that is not read.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace ermak {

class DcdReader {
 public:
  // Opens `path` and reads its header. The frames are counted from the file's size, not from
  // the header's NSET (a writer that dies between a frame and the header update leaves NSET
  // one short; VMD and MDAnalysis count the same way). Bytes after the last whole frame (a
  // file cut mid-frame) are not read: trailing_bytes() says how many there are.
  static DcdReader open(const std::filesystem::path& path);

  DcdReader(DcdReader&& other) noexcept;
  DcdReader& operator=(DcdReader&& other) noexcept;
  DcdReader(const DcdReader&) = delete;
  DcdReader& operator=(const DcdReader&) = delete;
  ~DcdReader();

  const std::filesystem::path& path() const { return path_; }
  std::int32_t atoms() const { return atoms_; }
  std::int64_t frames() const { return frames_; }
  // The step of the first frame and the steps between frames: ermak's title line
  // "REMARKS first_step=… steps_between_frames=…" where the file has one (exact beyond int32),
  // else the header's ISTART and NSAVC.
  std::int64_t first_step() const { return first_step_; }
  std::int64_t steps_between_frames() const { return stride_steps_; }
  std::int64_t step_of_frame(std::int64_t frame) const { return first_step_ + frame * stride_steps_; }
  // The integration time step, ps: ermak's title "dt_ps=…" where present, else the header's
  // DELTA (float32, AKMA units); 0 where neither gives one (an X-PLOR file).
  double timestep_ps() const { return timestep_ps_; }
  // The frame count the header states (NSET), for messages.
  std::int64_t header_frames() const { return header_frames_; }
  // Bytes after the last whole frame: a file cut mid-frame (a copy broken off, a disk full).
  std::uint64_t trailing_bytes() const { return trailing_bytes_; }

  // Reads the next frame (frame 0 first) into x, y, z (resized to atoms(), Å). Returns false
  // after the last whole frame. Throws ermak::Error naming the file and the frame when a
  // record marker is wrong (a corrupt file).
  bool next_frame(std::vector<float>& x_A, std::vector<float>& y_A, std::vector<float>& z_A);
  // The frame the next call of next_frame reads.
  std::int64_t next_frame_index() const { return next_; }

 private:
  DcdReader() = default;
  int fd_ = -1;
  std::filesystem::path path_;
  std::int32_t atoms_ = 0;
  std::int64_t frames_ = 0, header_frames_ = 0;
  std::int64_t first_step_ = 0, stride_steps_ = 1;
  double timestep_ps_ = 0.0;
  std::uint64_t header_bytes_ = 0, trailing_bytes_ = 0;
  std::int64_t next_ = 0;
  std::vector<unsigned char> buffer_;  // one frame's bytes
};

}  // namespace ermak
