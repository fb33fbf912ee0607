#pragma once
// Small helpers shared by ermak's line-oriented text readers (.top, .etop, symmetry and
// extra-bond files): whitespace splitting and strict number parsing. Strict means the
// whole field must be the number ("1.5x" and "" are not numbers) and reals are finite.
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace ermak::text {

// Whitespace-separated columns (as C's strtok with " \t\r\n" splits them).
inline std::vector<std::string_view> split_columns(std::string_view line) {
  std::vector<std::string_view> columns;
  std::size_t p = 0;
  while (true) {
    while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
    if (p >= line.size()) break;
    std::size_t end = p;
    while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
    columns.push_back(line.substr(p, end - p));
    p = end;
  }
  return columns;
}

// The field without leading and trailing blanks (spaces and tabs).
inline std::string_view trim(std::string_view field) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t' || field.back() == '\r'))
    field.remove_suffix(1);
  return field;
}

// The number that `field` is in full, or nothing. Integers: no sign '+', no decimals.
// Reals: any decimal or exponent notation from_chars accepts; nan/inf are rejected.
template <class T>
std::optional<T> parse_number(std::string_view field) {
  static_assert(std::is_arithmetic_v<T>);
  if (field.empty()) return std::nullopt;
  T value{};
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(value)) return std::nullopt;
  return value;
}

// "an integer" / "a number", for messages.
template <class T>
constexpr const char* kind_of_number() {
  return std::is_integral_v<T> ? "an integer" : "a number";
}

// A line without the UTF-8 byte-order mark some editors put at a file's start (EF BB BF).
inline std::string_view without_bom(std::string_view line) {
  return line.substr(0, 3) == "\xEF\xBB\xBF" ? line.substr(3) : line;
}

// A field or line as an error message quotes it: whole up to `at_most` characters, else
// its start and how long it is (a damaged file's 100 kB token would fill the terminal).
inline std::string shortened(std::string_view text, std::size_t at_most = 80) {
  if (text.size() <= at_most) return std::string(text);
  // Not inside a UTF-8 character: back off over its continuation bytes (10xxxxxx).
  std::size_t cut = at_most;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "… (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace ermak::text
