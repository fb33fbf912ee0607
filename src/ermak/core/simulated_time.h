#pragma once
// Simulated (model) time for messages, in the unit that keeps it readable: a pulling run of
// 5·10⁸ steps of 19.84 ps is "9.92 ms", a test run "794 ns" (docs/units.md#time).
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace ermak {

inline std::string format_simulated_time(double time_ps) {
  struct Unit {
    double ps;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1e12, "s"}, {1e9, "ms"}, {1e6, "µs"}, {1e3, "ns"}};
  for (const Unit& u : kUnits)
    if (std::abs(time_ps) >= u.ps) return fmt::format("{:.3g} {}", time_ps / u.ps, u.name);
  return fmt::format("{:.3g} ps", time_ps);
}

}  // namespace ermak
