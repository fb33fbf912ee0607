#include "ermak/backend/stability_screen.h"

namespace ermak {

std::vector<BondScreen> make_bond_screen(const std::vector<Bond>& bonds, float max_stretch_A) {
  std::vector<BondScreen> screen;
  screen.reserve(bonds.size());
  for (const Bond& b : bonds) {
    // Widened by 10⁻⁴ so that every bond the exact test (in float, with a square root)
    // finds broken lies outside, whatever the rounding.
    const double far = (double(b.r0_A) + max_stretch_A) * (1.0 - 1e-4);
    const double near = (double(b.r0_A) - max_stretch_A) * (1.0 + 1e-4);
    screen.push_back({b.i, b.j, near > 0.0 ? float(near * near) : -1.0f, float(far * far)});
  }
  return screen;
}

}  // namespace ermak
