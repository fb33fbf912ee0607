#pragma once
// Gaussian variates of a bead from four 32-bit words, by Box–Muller, for every
// generator: words (w0, w1) give (g_x, g_y), words (w2, w3) give g_z (the sine branch of
// the second pair is discarded) — the transform of philox_gaussian.h, so a Philox block
// gives exactly rng::gaussian3 (docs/model.md#noise, docs/rng.md#gaussians).
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"
#include "ermak/rng/philox_gaussian.h"

namespace ermak::rng {

ERMAK_HD Vec3f gaussian3_from_words(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2, std::uint32_t w3) {
  return gaussian3_of_block({{w0, w1, w2, w3}});
}

}  // namespace ermak::rng
