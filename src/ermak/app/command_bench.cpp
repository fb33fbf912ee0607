#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <omp.h>

#include "bench/standard_systems.h"
#include "ermak/app/cli_checks.h"
#include "ermak/app/commands.h"
#include "ermak/backend/cuda_ceiling.h"
#include "ermak/backend/cuda_engine.h"
#include "ermak/backend/engine_timing.h"
#include "ermak/backend/split_engine.h"
#include "ermak/config/spec.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/protocol/harmonic_tether.h"
#include "ermak/protocol/indentation.h"
#include "ermak/rng/noise_source.h"
#include "ermak/rng/rng_benchmark.h"
#include "ermak/run/engine_choice.h"

namespace ermak::app {
namespace {

struct Case {
  std::string system;
  std::int32_t replicas;
  bool pulled = false;    // "p" suffix: first bead fixed, last bead pulled (constant speed)
  bool indented = false;  // "i" suffix: a tip pushed down onto the molecule, which sits on a surface
};

std::vector<Case> parse_cases(const std::string& text) {
  std::vector<Case> cases;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    const auto x = item.find('x');
    const bool pulled = !item.empty() && item.back() == 'p', indented = !item.empty() && item.back() == 'i';
    const std::string replicas =
        x == std::string::npos ? "" : item.substr(x + 1, item.size() - x - 1 - (pulled || indented ? 1 : 0));
    if (replicas.empty() || replicas.size() > 9 || replicas.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(replicas) < 1)
      throw Error("bench: case \"" + item + "\" is not SYSTEMxREPLICAS[p|i] (replicas ≥ 1), e.g. wwx100 or wwx1000p");
    cases.push_back({item.substr(0, x), std::stoi(replicas), pulled, indented});
  }
  return cases;
}

// A comma-separated list of integers ≥ 0 given to `option`.
std::vector<int> parse_ints(const std::string& text, const std::string& option) {
  std::vector<int> out;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    std::size_t used = 0;
    int value = -1;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || value < 0)
      throw Error(option + " " + text + ": \"" + item + "\" is not an integer >= 0 (a comma-separated list: 0,1)");
    out.push_back(value);
  }
  if (out.empty()) throw Error(option + ": the list is empty");
  return out;
}

const bench::BenchSystem& find_system(const std::vector<bench::BenchSystem>& systems, const std::string& name) {
  for (const auto& s : systems)
    if (s.name == name) return s;
  std::string known;
  for (const auto& s : systems) known += (known.empty() ? "" : ", ") + s.name;
  throw Error("bench: unknown system \"" + name + "\" (known: " + known + ")");
}

// `ermak bench --ceiling`: the idealised kernels of cuda_ceiling.h for each case's size.
int run_ceiling(const std::vector<Case>& cases, const std::vector<bench::BenchSystem>& systems, double seconds) {
  for (const Case& c : cases) {
    find_system(systems, c.system);  // an unknown system is named before anything runs
    if (c.pulled || c.indented)
      throw Error("bench --ceiling: case \"" + c.system + "x" + std::to_string(c.replicas) + (c.pulled ? "p" : "i") +
                  "\" must be plain (no p or i: the ceiling kernels have no protocols)");
  }
  if (std::string why; !cuda_backend_available(&why)) throw Error("bench --ceiling needs a GPU: " + why);
  std::printf("# ermak bench --ceiling  (idealised kernels: pair terms, noise and move, every pair repulsive but in "
              "tiles-model and tiles-unified; no lists or protocols; not a simulation; "
              "docs/benchmarks.md#the-instruction-ceiling)\n");
  std::printf("%-11s %7s %8s %-20s %12s %14s %15s %9s\n", "system", "beads", "replicas", "kernel", "steps/s",
              "bead-steps/s", "replicas/block", "registers");
  for (const Case& c : cases) {
    LoadedSystem loaded = bench::load_bench_system(find_system(systems, c.system));
    std::vector<Vec3f> positions;
    for (const Vec3d& p : loaded.initial_positions_A) positions.push_back(vec_cast<float>(p));
    EngineSetup setup;
    setup.topology = &loaded.topology;
    setup.replicas = c.replicas;
    setup.seed = 12345;
    for (const CeilingTiming& t : cuda_ceiling_timings(setup, positions, seconds)) {
      if (t.steps == 0) {
        std::printf("%-11s %7d %8d %-20s  (not built for this size, or one replica does not fit in a block's "
                    "shared memory)\n",
                    c.system.c_str(), int(positions.size()), c.replicas, ceiling_kernel_name(t.kernel).c_str());
        continue;
      }
      const double rate = double(t.steps) / t.seconds;
      std::printf("%-11s %7d %8d %-20s %12.4g %14.4g %15d %9d\n", c.system.c_str(), int(positions.size()), c.replicas,
                  ceiling_kernel_name(t.kernel).c_str(), rate, rate * double(positions.size()) * c.replicas,
                  t.replicas_per_block, t.registers);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Time standard systems and print steps/s and bead-steps/s");
  struct Options {
    std::string cases = "wwx1,wwx100,wwx1000,ubqx1,pf8x1";
    std::string threads = "0";
    std::string backend = "auto";
    double seconds = 2.0;
    std::string noise = "philox";
    std::string hydrodynamics = "none";
    bool ceiling = false;
    std::string devices;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--cases", o->cases, "Comma-separated SYSTEMxREPLICAS[p|i], systems: ww (34 beads), ubq (76), i27 (titin I27, 89), cp (CCMV coat protein, 149), lmb (lambda repressor dimer, 179), fabl (Fab light chain, 211), pf8 (6928), fg (fibrinogen, 2964 beads), ccmv (28 620-bead capsid 1CWP, NCS operators in its ORIGX frame, docs/benchmarks.md), ccmv4 (4 capsids, 114 480 beads); a trailing p pulls: first bead fixed, last bead on a 34.7 pN/nm spring moving at 1 um/s away from the first (e.g. wwx1000p); a trailing i indents: a 50 A tip on a 34.7 pN/nm cantilever moving down at 1 um/s from just above the molecule, which rests on a plane surface at the wall's minimum (e.g. ccmvx1i)")->capture_default_str();
  cmd->add_option("--threads", o->threads, "Comma-separated CPU thread counts (0 = all)")->capture_default_str();
  cmd->add_option("--backend", o->backend, "auto (the GPU when there is one), cpu or cuda")->capture_default_str();
  cmd->add_option("--devices", o->devices,
                  "GPUs that share each case's replicas, comma-separated (e.g. 0,1) or all (docs/gpu.md#several-gpus); "
                  "default: one GPU, $ERMAK_CUDA_DEVICE or 0");
  cmd->add_option("--seconds", o->seconds, "Target timed duration per case")
      ->capture_default_str()
      ->check(positive_finite());
  cmd->add_option("--noise", o->noise,
                  "Noise generator of the dynamics, GENERATOR or GENERATOR/LAYOUT (run.rng, docs/rng.md)")
      ->capture_default_str();
  cmd->add_option("--hydrodynamics", o->hydrodynamics,
                  "Hydrodynamic interactions of the dynamics: none, tea or cholesky ([hydrodynamics] method, "
                  "docs/model.md#hydrodynamic-interactions)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "tea", "cholesky"}));
  cmd->add_flag("--ceiling", o->ceiling,
                "Time the idealised GPU kernels of the cases instead (pair terms, noise and move only: not a "
                "simulation; an upper bound for a real step, docs/benchmarks.md#the-instruction-ceiling)");
  auto rng_options = std::make_shared<rng::RngBenchOptions>();
  cmd->add_flag("--rng", rng_options->enabled, "Benchmark the random number generators instead (docs/rng.md#speed)");
  cmd->add_option("--rng-sizes", rng_options->sizes, "With --rng: comma-separated oscillator counts")->capture_default_str();
  cmd->add_option("--rng-generators", rng_options->generators, "With --rng: comma-separated generators, or all")->capture_default_str();
  cmd->add_option("--rng-seconds", rng_options->seconds, "With --rng: timed duration per case")
      ->capture_default_str()
      ->check(positive_finite());
  cmd->add_option("--rng-max-state-mb", rng_options->max_state_mb, "With --rng: skip cases with more generator state")
      ->capture_default_str()
      ->check(positive_finite());
  cmd->add_option("--rng-backend", rng_options->backends,
                  "With --rng: cpu, cuda or cpu,cuda (auto: the CPU, and the GPU when one is present)")
      ->capture_default_str();
  return [o, rng_options]() {
    // Every kernel loaded when the CUDA context starts, not at its first launch: the
    // GPU-B/bead column is the driver's memory count across a case, and lazy loading
    // charged the first case of a process ~4 MB of kernel images (PF8 × 1: 605 B per bead
    // too many). Before any CUDA call; a value the user set stays.
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    if (rng_options->enabled) return rng::run_rng_benchmark(*rng_options);
    // Bad cases and lists stop before the table.
    const std::vector<Case> cases = parse_cases(o->cases);
    const std::vector<int> thread_counts = parse_ints(o->threads, "--threads");
    // As run.threads (config/spec.h): 10⁵ OpenMP threads crashed the runtime.
    for (const int t : thread_counts)
      if (t > kMaxCpuThreads)
        throw Error("--threads: " + std::to_string(t) + " is more than " + std::to_string(kMaxCpuThreads) +
                    " (the most a run takes: run.threads)");
    // The GPUs of --devices (each case's replicas split between them), else the default one.
    std::vector<int> devices = o->devices.empty() || o->devices == "all" ? resolve_devices({}, !o->devices.empty())
                                                                        : parse_ints(o->devices, "--devices");
    // --devices on a run that cannot use a GPU would time the CPU under a GPU's name.
    if (!o->devices.empty() && (o->backend == "cpu" || cuda_device_count() <= 0))
      throw Error(o->backend == "cpu" ? "--devices: lists GPUs, but --backend is cpu"
                                      : "--devices: this machine has no CUDA GPU this ermak can use");
    if (devices.empty()) devices = {-1};  // no --devices, or "all" without a GPU
    // An unknown generator or layout stops before the table, naming the option (the
    // generators' own check, docs/rng.md).
    try {
      const auto slash = o->noise.find('/');
      rng::generator_layout_info(o->noise.substr(0, slash), slash == std::string::npos ? "" : o->noise.substr(slash + 1),
                                 1);
    } catch (const Error& e) {
      std::string what = e.description();
      if (what.rfind("rng: ", 0) == 0) what.erase(0, 5);
      throw Error("--noise: " + what);
    }
    const auto systems = bench::standard_systems();
    if (o->ceiling) return run_ceiling(cases, systems, o->seconds);
    std::printf("# ermak bench  (shared data: %s, noise %s)\n", bench::shared_data_directory().c_str(),
                o->noise.c_str());
    for (const int device : devices)
      if (std::string gpu; o->backend != "cpu" && cuda_backend_available(&gpu, device))
        std::printf("# %s (this build: %s)\n", gpu.c_str(), cuda_built_architectures().c_str());
    const auto slash = o->noise.find('/');
    std::printf("%-11s %7s %8s %10s %12s %14s %8s %7s %10s %9s %11s %9s  %s\n", "system", "beads", "replicas", "steps",
                "steps/s", "bead-steps/s", "backend", "threads", "pairs", "GPU-B/bead", "alloc-B/bead", "rebuilds",
                "kernel");
    bool gpu_warmed_up = false;
    for (const Case& c : cases) {
      LoadedSystem loaded = bench::load_bench_system(find_system(systems, c.system));
      const std::int32_t n = loaded.topology.bead_count();
      for (const int threads : thread_counts) {
        EngineSetup setup;
        setup.topology = &loaded.topology;
        setup.replicas = c.replicas;
        setup.threads = threads;
        if (devices.size() > 1) setup.devices = devices;
        else setup.device = devices.front();
        setup.seed = 12345;
        setup.rng = o->noise.substr(0, slash);
        setup.rng_layout = slash == std::string::npos ? "" : o->noise.substr(slash + 1);
        setup.langevin.hydrodynamics.method = o->hydrodynamics == "tea"        ? HydrodynamicMethod::kTea
                                              : o->hydrodynamics == "cholesky" ? HydrodynamicMethod::kCholesky
                                                                               : HydrodynamicMethod::kNone;
        if (c.pulled) {
          // Force spectroscopy as users run it (examples/ww_pulling.toml): the first bead
          // fixed, the last on a cantilever spring pulled away from the first.
          const Vec3d first = loaded.initial_positions_A.front(), last = loaded.initial_positions_A.back();
          const Vec3d direction = (1.0 / norm(last - first)) * (last - first);
          HarmonicTether cantilever;
          cantilever.bead = n - 1;
          cantilever.anchor_start_A = last;
          cantilever.anchor_velocity_A_per_tau = units::um_per_s_to_A_per_tau(1.0) * direction;
          cantilever.spring_kcal_per_mol_A2 = units::pN_per_nm_to_internal_spring(34.7);
          setup.tethers = {cantilever};
          setup.fixed_beads = {0};
        }
        if (c.indented) {
          // Nano-indentation as docs/protocols.md#indentation sets it up: the tip starts
          // 4 Å above the top of the molecule and is pushed down (−z); the molecule rests
          // on a plane at the surface wall's minimum (σ) below its lowest bead.
          Vec3d lo = loaded.initial_positions_A.front(), hi = lo, centre{};
          for (const Vec3d& p : loaded.initial_positions_A) {
            lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
            hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
            centre += p;
          }
          centre = (1.0 / double(n)) * centre;
          Indentation& ind = setup.indentation;
          ind.enabled = true;
          ind.tip.radius = 50.0;
          ind.tip_zeta = stokes_tip_friction(setup.langevin.zeta, ind.tip.radius);  // the configuration's default
          ind.tip_start_A = {centre.x, centre.y, hi.z + ind.tip.radius + 4.0};
          ind.base_start_A = ind.tip_start_A;
          ind.direction = {0, 0, -1};
          ind.speed_A_per_tau = units::um_per_s_to_A_per_tau(1.0);
          ind.spring_kcal_per_mol_A2 = units::pN_per_nm_to_internal_spring(34.7);
          ind.surface.enabled = true;
          ind.surface.point_A = {centre.x, centre.y, lo.z - ind.surface.wall.sigma};
          ind.surface.normal = {0, 0, 1};
        }
        State state(n, c.replicas);
        for (std::int32_t r = 0; r < c.replicas; ++r)
          for (std::int32_t i = 0; i < n; ++i)
            state.set_position(r, i, vec_cast<float>(loaded.initial_positions_A[i]));
        if (!gpu_warmed_up && o->backend != "cpu") {
          // A first engine pays the CUDA context's allocations on first use (~2 MB beyond
          // the kernel images, which load eagerly above): run one before the first case's
          // memory count, so that GPU-B/bead is the engine's own memory in every row.
          auto warm_up = make_engine(o->backend, setup);
          if (warm_up->name() == "cuda") {
            warm_up->set_state(state);
            warm_up->advance(20);
          }
          gpu_warmed_up = true;
        }
        // GPU memory of the engine: the driver's count before and after it exists.
        const long long gpu_before = cuda_memory_in_use_bytes(setup.device);
        auto engine = make_engine(o->backend, setup);
        engine->set_state(state);
        // Warm up (first list build, caches), then size the timed run to ~seconds.
        const EngineWarmUp warm = warm_up_engine(*engine, std::numeric_limits<std::int64_t>::max());
        const long long gpu_after = cuda_memory_in_use_bytes(setup.device);  // lists are sized by the first builds
        const auto steps = std::max<std::int64_t>(1, std::int64_t(o->seconds * warm.steps_per_second()));
        const std::int64_t rebuilds_before = engine->stats().neighbor_rebuilds;
        const double t = time_engine_advance(*engine, steps);
        const State& final_state = engine->state();
        // A run that blew up (a FENE bond broke, beads at NaN) times garbage: say so.
        bool finite = true;
        for (std::size_t k = 0; k < final_state.x.size() && finite; ++k)
          finite = std::isfinite(final_state.x[k]) && std::isfinite(final_state.y[k]) && std::isfinite(final_state.z[k]);
        const double rate = double(steps) / t;
        // (The driver's count is of one GPU: not for a case split over several.)
        const bool on_gpu = engine->name() == "cuda" && gpu_before >= 0 && gpu_after >= 0 && !as_split_engine(*engine);
        const double bytes_per_bead = on_gpu ? double(gpu_after - gpu_before) / (double(n) * c.replicas) : 0.0;
        // The engine's own count of what it allocated (the figure it checks against the
        // GPU's free memory): exact, where the driver's difference above also moves with
        // what earlier cases of the process left mapped (± a few MB).
        const long long allocated = cuda_engine_device_bytes(*engine);
        const std::string allocated_per_bead =
            allocated >= 0 ? std::to_string(std::llround(double(allocated) / (double(n) * c.replicas))) : "-";
        // List builds in the timed run, summed over replicas (per-bead family and CPU: per
        // replica list; block family: per block).
        const long long rebuilds = (long long)(engine->stats().neighbor_rebuilds - rebuilds_before);
        // CUDA: the kernel family and its layout (docs/gpu.md#kernel-families).
        const std::string kernel = cuda_kernel_layout(*engine);
        // The CPU threads the engine used (0 asks for all: OpenMP's count); none on a GPU.
        const std::string used_threads =
            engine->name() != "cpu" ? "-" : std::to_string(threads > 0 ? threads : omp_get_max_threads());
        std::printf("%-11s %7d %8d %10lld %12.4g %14.4g %8s %7s %10lld %9s %11s %9lld  %s\n",
                    (c.system + (c.pulled ? "+pull" : c.indented ? "+indent" : "")).c_str(), n, c.replicas,
                    (long long)steps, rate, rate * n * c.replicas, engine->name().c_str(),
                    used_threads.c_str(), (long long)engine->stats().neighbor_pairs,
                    on_gpu ? std::to_string(std::llround(bytes_per_bead)).c_str() : "-", allocated_per_bead.c_str(),
                    rebuilds, kernel.empty() ? "-" : kernel.c_str());
        if (!finite)
          std::printf("  ^ NOT A VALID TIMING: coordinates became non-finite during the run (a bond broke; see "
                      "docs/benchmarks.md)\n");
        std::fflush(stdout);
      }
    }
    return 0;
  };
}

}  // namespace ermak::app
