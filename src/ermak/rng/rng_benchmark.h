#pragma once
// `ermak bench --rng` (docs/rng.md#speed): the table of the SOP-GPU RNG study (its Table
// II and Fig. 5) for ermak's generators on this machine: per generator and layout, bytes
// of state per thread, state words read and written per 4 numbers, and the time of one
// step of N independent 3-D harmonic oscillators (noise + Euler update) for each N, on
// the CPU and (when one is present) on the GPU.
#include <cstdint>
#include <string>

namespace ermak::rng {

struct RngBenchOptions {
  bool enabled = false;
  std::string sizes = "1000,10000,100000,1000000";  // oscillator counts N
  std::string generators = "all";                   // comma-separated names, or "all"
  double seconds = 0.25;                            // timed duration per case
  double max_state_mb = 512;                        // skip cases whose state is larger
  std::string backends = "auto";                    // "cpu", "cuda", "cpu,cuda"; auto: cuda too if a GPU is present
};

// Prints the table to stdout; returns the exit status.
int run_rng_benchmark(const RngBenchOptions& options);

}  // namespace ermak::rng
