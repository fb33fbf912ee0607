#pragma once
// What a binary was built from, for `ermak --version` and the run log's first line.
#include <string>

namespace ermak {

// "0.1.0 (commit db55fb7 of 2026-11-30)": the version and the source tree's commit at build
// time ("+ local changes" when tracked files differed from it; "unknown" outside a git
// checkout, e.g. a build from an archive).
std::string build_description();

}  // namespace ermak
