#pragma once
// MT19937, the Mersenne Twister (Matsumoto & Nishimura, ACM TOMACS 8, 3 (1998)):
// 624-word state, recurrence x[k+624] = x[k+397] ⊕ A((x[k] & upper) | (x[k+1] & lower)),
// A multiplying by the twist matrix (0x9908b0df), output tempered. Period 2¹⁹⁹³⁷ − 1.
// State: 624 uint32 + an index = 2500 bytes.
//
// This implementation twists one word per output (the "lazy" form suited to one GPU
// thread per state): the word i is replaced by x[i+397] ⊕ A(x[i], x[i+1]) just before it
// is tempered. That gives exactly the sequence of the reference block-twist code (and of
// std::mt19937), since x[i+1] and x[i+397] hold the same values in both at that moment.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/rng/splitmix64.h"

namespace ermak::rng {

inline constexpr int kMtN = 624;
inline constexpr int kMtM = 397;

struct Mt19937State {
  std::uint32_t mt[kMtN];
  std::int32_t index;  // next word to twist and output
};

// The reference init_genrand(s) (Knuth's multiplier 1812433253): the seeding of
// std::mt19937(s).
ERMAK_HD void mt19937_init_genrand(Mt19937State& s, std::uint32_t seed) {
  s.mt[0] = seed;
  for (int i = 1; i < kMtN; ++i)
    s.mt[i] = 1812433253u * (s.mt[i - 1] ^ (s.mt[i - 1] >> 30)) + std::uint32_t(i);
  s.index = 0;
}

// The reference init_by_array(key, length) of mt19937ar.c.
ERMAK_HD void mt19937_init_by_array(Mt19937State& s, const std::uint32_t* key, int length) {
  mt19937_init_genrand(s, 19650218u);
  int i = 1, j = 0;
  for (int k = (kMtN > length ? kMtN : length); k > 0; --k) {
    s.mt[i] = (s.mt[i] ^ ((s.mt[i - 1] ^ (s.mt[i - 1] >> 30)) * 1664525u)) + key[j] + std::uint32_t(j);
    ++i;
    ++j;
    if (i >= kMtN) { s.mt[0] = s.mt[kMtN - 1]; i = 1; }
    if (j >= length) j = 0;
  }
  for (int k = kMtN - 1; k > 0; --k) {
    s.mt[i] = (s.mt[i] ^ ((s.mt[i - 1] ^ (s.mt[i - 1] >> 30)) * 1566083941u)) - std::uint32_t(i);
    ++i;
    if (i >= kMtN) { s.mt[0] = s.mt[kMtN - 1]; i = 1; }
  }
  s.mt[0] = 0x80000000u;  // non-zero initial state
  s.index = 0;
}

// The new word i from x[i], x[i+1] and x[i+397] (indices mod 624).
ERMAK_HD std::uint32_t mt19937_twist(std::uint32_t xi, std::uint32_t xi1, std::uint32_t xim) {
  const std::uint32_t y = (xi & 0x80000000u) | (xi1 & 0x7fffffffu);
  return xim ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
}

ERMAK_HD std::uint32_t mt19937_temper(std::uint32_t v) {
  v ^= v >> 11;
  v ^= (v << 7) & 0x9d2c5680u;
  v ^= (v << 15) & 0xefc60000u;
  v ^= v >> 18;
  return v;
}

// One output from a state held in any word container (`words[k]` a reference to word k):
// the struct below, or a GPU thread's words strided through global memory
// (backend/cuda/rng_kernels.cu) — one definition for both.
template <class Words>
ERMAK_HD std::uint32_t mt19937_next_in(Words& words, std::int32_t& index) {
  const int i = index;
  const int i1 = (i + 1 == kMtN) ? 0 : i + 1;
  const int im = (i + kMtM >= kMtN) ? i + kMtM - kMtN : i + kMtM;
  const std::uint32_t v = mt19937_twist(words[i], words[i1], words[im]);
  words[i] = v;
  index = i1;
  return mt19937_temper(v);
}

ERMAK_HD std::uint32_t mt19937_next(Mt19937State& s) {
  std::uint32_t* words = s.mt;
  return mt19937_next_in(words, s.index);
}

// ermak's seeding: init_by_array with a 128-bit key from the seeding stream, so that the
// states of 10⁶ threads do not collide (a 32-bit init_genrand seed would give ~10²
// identical pairs among 10⁶ threads by the birthday bound).
ERMAK_HD void mt19937_seed(Mt19937State& s, SplitMix64& seeder) {
  std::uint32_t key[4];
  for (int k = 0; k < 4; ++k) key[k] = splitmix64_next32(seeder);
  mt19937_init_by_array(s, key, 4);
}

}  // namespace ermak::rng
