#include "ermak/run/checkpoint_codec.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "ermak/core/error.h"

namespace ermak {

// Exact text encodings for Checkpoint::extra.

std::string encode_floats(const std::vector<float>& values) {
  std::string out;
  out.reserve(values.size() * 9);
  char buf[16];
  for (float v : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(buf, sizeof buf, "%08" PRIx32, bits);
    if (!out.empty()) out += ' ';
    out += buf;
  }
  return out;
}

std::vector<float> decode_floats(const std::string& text, const std::string& what) {
  std::vector<float> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const unsigned long long bits = std::strtoull(word.c_str(), &end, 16);
    if (word.size() != 8 || *end != '\0') throw Error("checkpoint: " + what + ": malformed value \"" + word + "\"");
    const auto b = std::uint32_t(bits);
    float v;
    std::memcpy(&v, &b, sizeof v);
    out.push_back(v);
  }
  return out;
}

std::string encode_doubles(const std::vector<double>& values) {
  std::string out;
  char buf[24];
  for (double v : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(buf, sizeof buf, "%016" PRIx64, bits);
    if (!out.empty()) out += ' ';
    out += buf;
  }
  return out;
}

std::vector<double> decode_doubles(const std::string& text, const std::string& what) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const unsigned long long bits = std::strtoull(word.c_str(), &end, 16);
    if (word.size() != 16 || *end != '\0') throw Error("checkpoint: " + what + ": malformed value \"" + word + "\"");
    const auto b = std::uint64_t(bits);
    double v;
    std::memcpy(&v, &b, sizeof v);
    out.push_back(v);
  }
  return out;
}

std::vector<float> gather_positions(const State& state, const std::vector<std::int32_t>& beads) {
  std::vector<float> out;
  out.reserve(std::size_t(state.replica_count) * beads.size() * 3);
  for (std::int32_t r = 0; r < state.replica_count; ++r)
    for (std::int32_t b : beads) {
      const Vec3f p = state.position(r, b);
      out.push_back(p.x);
      out.push_back(p.y);
      out.push_back(p.z);
    }
  return out;
}

State scatter_positions(const std::vector<float>& values, const std::vector<std::int32_t>& beads,
                        std::int32_t bead_count, std::int32_t replicas, std::int64_t step) {
  if (values.size() != std::size_t(replicas) * beads.size() * 3)
    throw Error("checkpoint: the protocol start positions hold " + std::to_string(values.size()) + " values, expected " +
                std::to_string(std::size_t(replicas) * beads.size() * 3));
  State s(bead_count, replicas);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::fill(s.x.begin(), s.x.end(), nan);
  std::fill(s.y.begin(), s.y.end(), nan);
  std::fill(s.z.begin(), s.z.end(), nan);
  s.step = step;
  std::size_t k = 0;
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t b : beads) {
      s.set_position(r, b, {values[k], values[k + 1], values[k + 2]});
      k += 3;
    }
  return s;
}

}  // namespace ermak
