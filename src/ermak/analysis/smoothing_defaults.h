#pragma once
// The defaults of `ermak analyze`'s smoothing (docs/analysis.md#smoothing), which `ermak run`
// also uses to warn at its start when its protocol rows would be too sparse for them.

namespace ermak::analysis {

// The centred running average's width in cantilever-base (or tip) travel when neither
// --smooth-window-nm nor --smooth-points is given.
inline constexpr double kDefaultSmoothWindow_nm = 0.2;

// Below this many rows per smoothing window the noise estimate, the peak criterion and the
// contact rest on too few rows (the analysis notes it; the run warns at its start).
inline constexpr double kFewRowsPerSmoothWindow = 10.0;

}  // namespace ermak::analysis
