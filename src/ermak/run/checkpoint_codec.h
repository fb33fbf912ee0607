#pragma once
// Checkpoint support: the reference beads' start positions (float bits, exact) and the
// engine's protocol state (double bits, exact) as text for Checkpoint::extra
// (io/checkpoint.h), so that a resumed run resolves its protocols again to the identical
// EngineSetup (run/protocol_setup.h) and continues bit for bit.
#include <cstdint>
#include <string>
#include <vector>

#include "ermak/model/state.h"

namespace ermak {

std::string encode_floats(const std::vector<float>& values);
std::vector<float> decode_floats(const std::string& text, const std::string& what);
std::string encode_doubles(const std::vector<double>& values);
std::vector<double> decode_doubles(const std::string& text, const std::string& what);

// The start positions of `beads` in every replica of `state`, x y z per bead, replica-major.
std::vector<float> gather_positions(const State& state, const std::vector<std::int32_t>& beads);
// A State of `bead_count` beads with the gathered positions put back (other beads NaN).
State scatter_positions(const std::vector<float>& values, const std::vector<std::int32_t>& beads,
                        std::int32_t bead_count, std::int32_t replicas, std::int64_t step);

}  // namespace ermak
