#pragma once
// FNV-1a, 64 bit: the checkpoint's checksum and the configuration fingerprint.
#include <cstdint>
#include <string_view>

namespace ermak {

constexpr std::uint64_t kFnv1a64Basis = 0xcbf29ce484222325ull;

// Continues `hash` over `bytes` (start from kFnv1a64Basis, or from a previous result).
inline std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t hash = kFnv1a64Basis) {
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace ermak
