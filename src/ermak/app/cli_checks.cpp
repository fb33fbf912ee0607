#include "ermak/app/cli_checks.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace ermak::app {

CLI::Validator whole_number_at_least(long long least) {
  return CLI::Validator(
      [least](std::string& text) {
        // Unsigned where no negative is allowed, so that 64-bit seeds up to 2^64 − 1 pass.
        bool ok = false;
        if (least >= 0) {
          unsigned long long value = 0;
          const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
          ok = ec == std::errc() && end == text.data() + text.size() && value >= static_cast<unsigned long long>(least);
        } else {
          long long value = 0;
          const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
          ok = ec == std::errc() && end == text.data() + text.size() && value >= least;
        }
        if (!ok) return "must be a whole number >= " + std::to_string(least) + ", got " + text;
        return std::string();
      },
      ">= " + std::to_string(least));
}

CLI::Validator positive_float() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0.0;
        constexpr double least = std::numeric_limits<float>::min(), most = std::numeric_limits<float>::max();
        if (!CLI::detail::lexical_cast(text, value) || !(value >= least && value <= most))
          return fmt::format("must be a number between {:.6g} and {:.6g} (a float's range), got {}", least, most,
                             text);
        return std::string();
      },
      "> 0");
}

CLI::Validator positive_finite() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0.0;
        if (!CLI::detail::lexical_cast(text, value) || !(value > 0.0) || !std::isfinite(value))
          return "must be a number > 0 and finite, got " + text;
        return std::string();
      },
      "> 0");
}

}  // namespace ermak::app
