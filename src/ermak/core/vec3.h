#pragma once
#include <cmath>

#include "ermak/core/hd.h"

namespace ermak {

// Plain 3-vector used in physics functions on both backends. Storage of many beads is
// SoA (model/state.h); Vec3 is only the value type of one bead or one pair.
template <class T>
struct Vec3 {
  T x{}, y{}, z{};
};

using Vec3f = Vec3<float>;
using Vec3d = Vec3<double>;

template <class T>
ERMAK_HD Vec3<T> operator+(Vec3<T> a, Vec3<T> b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T>
ERMAK_HD Vec3<T> operator-(Vec3<T> a, Vec3<T> b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T>
ERMAK_HD Vec3<T> operator-(Vec3<T> a) { return {-a.x, -a.y, -a.z}; }
template <class T>
ERMAK_HD Vec3<T> operator*(T s, Vec3<T> a) { return {s * a.x, s * a.y, s * a.z}; }
template <class T>
ERMAK_HD Vec3<T> operator*(Vec3<T> a, T s) { return {s * a.x, s * a.y, s * a.z}; }
template <class T>
ERMAK_HD Vec3<T>& operator+=(Vec3<T>& a, Vec3<T> b) { a.x += b.x; a.y += b.y; a.z += b.z; return a; }
template <class T>
ERMAK_HD Vec3<T>& operator-=(Vec3<T>& a, Vec3<T> b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; return a; }
template <class T>
ERMAK_HD T dot(Vec3<T> a, Vec3<T> b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T>
ERMAK_HD T norm2(Vec3<T> a) { return dot(a, a); }
template <class T>
ERMAK_HD T norm(Vec3<T> a) { return std::sqrt(norm2(a)); }
template <class T>
ERMAK_HD Vec3<T> cross(Vec3<T> a, Vec3<T> b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class To, class From>
ERMAK_HD Vec3<To> vec_cast(Vec3<From> a) { return {To(a.x), To(a.y), To(a.z)}; }

}  // namespace ermak
