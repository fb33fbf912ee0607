#include "ermak/config/toml_values.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace ermak::config {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double parse_double(const std::string& s) {
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

std::string shortest(double v) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  std::string s(buf, end);
  // TOML reads "50" as an integer; a float key must look like a float.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// SopParameters are floats; "3.8" reads back as 3.8f, where the double 3.799999952... would
// only clutter the log. Double rounding (text → double → float) can in rare cases miss the
// float, so the short form is used only after checking that it does not.
std::string shortest(float f) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, f).ptr;
  std::string s(buf, end);
  if (static_cast<float>(parse_double(s)) != f) return shortest(static_cast<double>(f));
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// The shortest decimal y (in a physical unit) for which to_internal(y) == internal exactly,
// searched among the doubles next to to_physical(internal). No such y may exist (the
// conversion is not onto); the caller then writes the internal value itself.
std::optional<std::string> exact_physical(double internal, Conversion to_physical,
                                          Conversion to_internal) {
  constexpr int kNeighbours = 8;
  const double centre = to_physical(internal);
  std::optional<std::string> best;
  double down = centre, up = centre;
  auto consider = [&](double y) {
    const std::string s = shortest(y);
    if (to_internal(parse_double(s)) != internal) return;
    if (!best || s.size() < best->size()) best = s;
  };
  consider(centre);
  for (int i = 0; i < kNeighbours; ++i) {
    down = std::nextafter(down, -kInf);
    up = std::nextafter(up, kInf);
    consider(down);
    consider(up);
  }
  return best;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else
          out += c;
    }
  }
  return out + "\"";
}

}  // namespace ermak::config
