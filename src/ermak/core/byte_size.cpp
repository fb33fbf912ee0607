#include "ermak/core/byte_size.h"

#include <fmt/format.h>

namespace ermak {

std::string format_byte_size(double bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 5) {
    bytes /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} B", bytes);
  // Three significant digits: "1.37 GiB", "54.2 MiB", "120 GiB".
  const int decimals = bytes < 10.0 ? 2 : bytes < 100.0 ? 1 : 0;
  return fmt::format("{:.{}f} {}", bytes, decimals, units[unit]);
}

}  // namespace ermak
