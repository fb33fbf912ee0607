#include "ermak/rng/rng_benchmark.h"

#include <fmt/format.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "ermak/backend/cuda_engine.h"
#include "ermak/backend/cuda_rng.h"
#include "ermak/core/error.h"
#include "ermak/rng/noise_source.h"

namespace ermak::rng {
namespace {

std::vector<std::int64_t> parse_sizes(const std::string& text) {
  std::vector<std::int64_t> sizes;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    try {
      std::size_t used = 0;
      const double value = std::stod(item, &used);  // accepts 1e6
      if (used != item.size() || !(value >= 1) || value > 2e8 || value != std::floor(value)) throw std::exception();
      sizes.push_back(std::int64_t(value));
    } catch (const std::exception&) {
      throw Error("bench --rng-sizes: \"" + item + "\" is not a positive whole number of oscillators");
    }
  }
  if (sizes.empty()) throw Error("bench --rng-sizes: no sizes given");
  return sizes;
}

// Seconds per call of run(1) over about `seconds` (probing the count first).
template <class Run>
std::pair<double, std::int64_t> time_per_step(Run&& run, double seconds) {
  using Clock = std::chrono::steady_clock;
  run(1);  // first touch
  std::int64_t probe = 1;
  double probe_time = 0;
  for (;;) {
    const auto t0 = Clock::now();
    run(probe);
    probe_time = std::chrono::duration<double>(Clock::now() - t0).count();
    if (probe_time > 0.05 || probe_time * 4 > seconds) break;
    probe *= 4;
  }
  const auto steps = std::max<std::int64_t>(1, std::int64_t(seconds * double(probe) / probe_time));
  const auto t0 = Clock::now();
  run(steps);
  return {std::chrono::duration<double>(Clock::now() - t0).count() / double(steps), steps};
}

void print_time(double t, std::int64_t steps, std::int64_t n) {
  const char* unit = "s";
  double shown = t;
  if (t < 1e-3) { shown = t * 1e6; unit = "us"; } else if (t < 1) { shown = t * 1e3; unit = "ms"; }
  std::printf("%9lld %9.4g %-2s %14.3g\n", (long long)steps, shown, unit, t * 1e9 / double(n));
  std::fflush(stdout);
}

// The rows of one table: for each generator, layout and size, the row's description and
// `time_case(generator, layout, n)` (which prints the timing columns), or a skip note when
// the generator state would exceed --rng-max-state-mb.
template <class TimeCase>
void table_rows(const RngBenchOptions& o, const std::vector<std::string>& generators,
                const std::vector<std::int64_t>& sizes, TimeCase&& time_case) {
  std::printf("%-17s %-10s %12s %6s %6s %9s %9s %12s %14s\n", "generator", "layout", "state/thread", "reads",
              "writes", "N", "steps", "time/step", "ns/oscillator");
  for (const std::string& generator : generators) {
    for (const std::string& layout : layout_names(generator)) {
      for (const std::int64_t n64 : sizes) {
        const auto n = std::int32_t(n64);
        const GeneratorLayoutInfo info = generator_layout_info(generator, layout, n);
        // (fmt, not "[" + … + "]": GCC 12 warns falsely about that concatenation, -Wrestrict.)
        const std::string state = info.state_bytes_shared > 0 ? fmt::format("[{}]", info.state_bytes_shared)
                                                              : std::to_string(info.state_bytes_per_thread);
        std::printf("%-17s %-10s %12s %6g %6g %9d ", generator.c_str(), layout.c_str(), state.c_str(),
                    info.reads_per_4, info.writes_per_4, n);
        const double state_mb =
            double(info.state_bytes_shared + info.state_bytes_per_thread * std::int64_t(n)) / (1024.0 * 1024.0);
        if (state_mb > o.max_state_mb) {
          std::printf("%9s %12s %14s  (state %.0f MB > --rng-max-state-mb)\n", "-", "skipped", "-", state_mb);
          std::fflush(stdout);
          continue;
        }
        time_case(generator, layout, n);
      }
    }
  }
}

// The GPU table: the same oscillators on the device, one step = one launch of the device
// generator (state loaded and stored once per step; docs/rng.md#gpu) + one update launch.
void run_gpu_table(const RngBenchOptions& o, const std::vector<std::string>& generators,
                   const std::vector<std::int64_t>& sizes) {
  std::string device;
  {
    auto probe = make_cuda_oscillators("philox", "", 1, 1, 1, 1.0, 0.0, 1);
    device = probe->device_name();
  }
  std::printf("# GPU: %s; one step = the device generator's launch (4 words + Box-Muller per oscillator, state\n"
              "# loaded and stored once) + the update launch; double positions.\n",
              device.c_str());
  table_rows(o, generators, sizes, [&](const std::string& generator, const std::string& layout, std::int32_t n) {
    auto gpu = make_cuda_oscillators(generator, layout, 12345, 1, n, 1.0 - 6.0e-7, 0.0223607, 1);
    std::int64_t step = 0;
    const auto [t, steps] = time_per_step(
        [&](std::int64_t count) {
          gpu->advance(0, step, count);
          step += count;
          gpu->synchronize();
        },
        o.seconds);
    print_time(t, steps, n);
  });
}

}  // namespace

int run_rng_benchmark(const RngBenchOptions& o) {
  const std::vector<std::int64_t> sizes = parse_sizes(o.sizes);
  bool cpu = false, cuda = false;
  if (o.backends == "auto") {
    cpu = true;
    cuda = cuda_backend_available();
  } else {
    std::stringstream list(o.backends);
    std::string item;
    while (std::getline(list, item, ',')) {
      if (item == "cpu") cpu = true;
      else if (item == "cuda") cuda = true;
      else throw Error("bench --rng-backend: \"" + item + "\" is not cpu or cuda");
    }
  }
  std::vector<std::string> generators;
  if (o.generators == "all") {
    generators = generator_names();
  } else {
    std::stringstream list(o.generators);
    std::string item;
    while (std::getline(list, item, ',')) generators.push_back(item);
  }
  if (!cpu) {
    if (cuda) run_gpu_table(o, generators, sizes);
    return 0;
  }
  std::printf("# ermak bench --rng: one step of N independent 3-D oscillators (noise for 3N components from\n"
              "# 4 words per oscillator + Euler update), CPU, %d OpenMP threads, 1 replica.\n"
              "# state/thread: bytes of generator state per thread (shared layout: the replica's whole state\n"
              "# in brackets); reads/writes: state words loaded/stored per 4 numbers (docs/rng.md#cost).\n",
              omp_get_max_threads());
  table_rows(o, generators, sizes, [&](const std::string& generator, const std::string& layout, std::int32_t n) {
    auto source = make_noise_source(generator, layout, 12345, 1, n);
    std::vector<float> x(n, 10.0f), y(n, 0.0f), z(n, 0.0f), gx(n), gy(n), gz(n);
    const float a = 1.0f - 6.0e-7f, s = 0.0223607f;  // 1 − Δt/τ and sqrt(2DΔt) in nm, the OU update of `ermak rng ou`
    std::int64_t step = 0;
    auto run = [&](std::int64_t count) {
      for (std::int64_t k = 0; k < count; ++k, ++step) {
        source->fill(0, step, gx.data(), gy.data(), gz.data());
#pragma omp parallel for schedule(static) if (n >= 4096)
        for (std::int32_t i = 0; i < n; ++i) {
          x[i] = a * x[i] + s * gx[i];
          y[i] = a * y[i] + s * gy[i];
          z[i] = a * z[i] + s * gz[i];
        }
      }
    };
    const auto [t, steps] = time_per_step(run, o.seconds);
    double checksum = 0;
    for (std::int32_t i = 0; i < n; i += 97) checksum += x[i];
    print_time(t, steps, n);
    if (!std::isfinite(checksum)) throw Error("bench --rng: non-finite oscillator positions");
  });
  if (cuda) run_gpu_table(o, generators, sizes);
  return 0;
}

}  // namespace ermak::rng
