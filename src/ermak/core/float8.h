#pragma once
// Eight floats in one 256-bit register (GCC/Clang vector extensions), with the arithmetic
// the physics functions use, so `physics::repulsion<kEnergy, Float8>` evaluates 8 pairs
// at once from the same source as the scalar and CUDA code. The cluster-pair force loop
// (backend/cpu/pair_forces.h) keeps 4 i beads' accumulators in such registers across a
// whole list row, which an auto-vectorised lane loop does not; the list build tests 8
// candidates at once (docs/benchmarks.md#cpu-backend).
#include <cstdint>
#include <cstring>
#if defined(__AVX512VL__)
#include <immintrin.h>
#endif

namespace ermak {

using F8 = float __attribute__((vector_size(32)));
using U8 = std::uint32_t __attribute__((vector_size(32)));

struct Float8 {
  F8 v;
  Float8() = default;
  Float8(F8 x) : v(x) {}
  Float8(float s) : v(F8{} + s) {}  // broadcast

  static Float8 load(const float* p) {
    F8 x;
    std::memcpy(&x, p, sizeof x);
    return x;
  }
  void store(float* p) const { std::memcpy(p, &v, sizeof v); }
};

inline Float8 operator+(Float8 a, Float8 b) { return a.v + b.v; }
inline Float8 operator-(Float8 a, Float8 b) { return a.v - b.v; }
inline Float8 operator*(Float8 a, Float8 b) { return a.v * b.v; }
inline Float8 operator/(Float8 a, Float8 b) { return a.v / b.v; }
inline Float8& operator+=(Float8& a, Float8 b) { a.v += b.v; return a; }
inline Float8& operator-=(Float8& a, Float8 b) { a.v -= b.v; return a; }

// Eight 32-bit integers (indices, bit masks) from memory.
inline U8 load_u8(const void* p) {
  U8 x;
  std::memcpy(&x, p, sizeof x);
  return x;
}

// Lane-wise a < b as all-ones / zero lanes.
inline U8 less(Float8 a, Float8 b) { return U8(a.v < b.v); }
// Lanes of a where m is set, zero elsewhere.
inline Float8 keep(U8 m, Float8 a) { return F8(U8(a.v) & m); }
// Lanes of a where m is set, b elsewhere.
inline Float8 select(U8 m, Float8 a, Float8 b) { return F8((U8(a.v) & m) | (U8(b.v) & ~m)); }

// Lane sets for the pair loops: which lanes are listed partners within the cutoff, and
// values that count only in those lanes (Masked8). With AVX-512VL the lanes live in a
// mask register and the accumulations are masked FMAs (no extra instructions); otherwise
// the lanes are all-ones / zero and the value is zeroed once outside them. Either way a
// value outside the lanes (inf for a bead with itself) never reaches an accumulator.
#if defined(__AVX512VL__)
using Lanes8 = __mmask8;
// Lanes k with (bits[k] & mask[k]) != 0.
inline Lanes8 lanes_with_bits(U8 mask, U8 bits) { return _mm256_test_epi32_mask(__m256i(mask), __m256i(bits)); }
// Lanes of m where a < b.
inline Lanes8 lanes_less(Lanes8 m, Float8 a, Float8 b) {
  return _mm256_mask_cmp_ps_mask(m, __m256(a.v), __m256(b.v), _CMP_LT_OQ);
}
struct Masked8 {
  Float8 value;
  Lanes8 lanes;
};
inline Masked8 masked(Lanes8 m, Float8 x) { return {x, m}; }
// acc + x·y in x's lanes, acc elsewhere.
inline Float8 add_product(Float8 acc, Masked8 x, Float8 y) {
  return F8(_mm256_mask3_fmadd_ps(__m256(x.value.v), __m256(y.v), __m256(acc.v), x.lanes));
}
// acc − x·y in x's lanes, acc elsewhere.
inline Float8 sub_product(Float8 acc, Masked8 x, Float8 y) {
  return F8(_mm256_mask3_fnmadd_ps(__m256(x.value.v), __m256(y.v), __m256(acc.v), x.lanes));
}
// acc + x in x's lanes, acc elsewhere.
inline Float8 add(Float8 acc, Masked8 x) {
  return F8(_mm256_mask_add_ps(__m256(acc.v), x.lanes, __m256(acc.v), __m256(x.value.v)));
}
#else
using Lanes8 = U8;
inline Lanes8 lanes_with_bits(U8 mask, U8 bits) { return U8((mask & bits) != 0); }
inline Lanes8 lanes_less(Lanes8 m, Float8 a, Float8 b) { return m & less(a, b); }
struct Masked8 {
  Float8 value;  // zero outside the lanes
};
inline Masked8 masked(Lanes8 m, Float8 x) { return {keep(m, x)}; }
inline Float8 add_product(Float8 acc, Masked8 x, Float8 y) { return acc + x.value * y; }
inline Float8 sub_product(Float8 acc, Masked8 x, Float8 y) { return acc - x.value * y; }
inline Float8 add(Float8 acc, Masked8 x) { return acc + x.value; }
#endif

// Sum of the 8 lanes in a fixed order (pairwise), so results do not depend on context.
inline float horizontal_sum(Float8 a) {
  float l[8];
  a.store(l);
  return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

}  // namespace ermak
