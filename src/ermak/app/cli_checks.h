#pragma once
// Checks of command-line numbers with messages that say what is allowed ("--count: must be a
// whole number >= 0, got -1"): CLI11's Range and PositiveNumber print DBL_MAX in full and
// let nan and inf through.
#include <CLI/CLI.hpp>

namespace ermak::app {

// A whole number ≥ `least` (counts, seeds, model numbers).
CLI::Validator whole_number_at_least(long long least);

// A number > 0 and finite (lengths, spring constants, durations).
CLI::Validator positive_finite();
// A positive value kept as a float (model parameters): from the smallest normal float to the
// largest, so that it never becomes 0 or infinity.
CLI::Validator positive_float();

}  // namespace ermak::app
