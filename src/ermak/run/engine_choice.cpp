#include "ermak/run/engine_choice.h"

#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "ermak/backend/cuda_engine.h"
#include "ermak/backend/split_engine.h"
#include "ermak/core/error.h"
#include "ermak/model/topology.h"

namespace ermak {

std::string resolve_backend(const std::string& backend, std::string* reason, int device) {
  std::string why;
  if (backend == "cuda") {
    // Which GPU and which of the build's code it runs, for the log; the engine itself
    // refuses a GPU that cannot run it.
    if (reason && cuda_backend_available(&why, device)) *reason = why;
    return backend;
  }
  if (backend != "auto") return backend;
  const bool gpu = cuda_backend_available(&why, device);
  if (reason) *reason = "auto: " + why;
  return gpu ? "cuda" : "cpu";
}

std::vector<int> resolve_devices(const std::vector<int>& listed, bool all) {
  if (!all) return listed;
  std::vector<int> every(std::size_t(std::max(cuda_device_count(), 0)));
  for (std::size_t d = 0; d < every.size(); ++d) every[d] = int(d);
  return every;
}

std::unique_ptr<Engine> make_engine(const std::string& backend, const EngineSetup& setup,
                                    const std::string& cuda_kernels) {
  const std::string chosen = resolve_backend(backend, nullptr, first_device(setup));
  if (chosen == "cpu") return make_cpu_engine(setup);
  if (chosen == "cuda") {
    CudaEngineOptions options;
    options.device = first_device(setup);
    if (cuda_kernels == "block") options.family = CudaKernelFamily::kBlock;
    else if (cuda_kernels == "perbead") options.family = CudaKernelFamily::kPerBead;
    else if (cuda_kernels != "auto")
      throw Error("unknown CUDA kernel family \"" + cuda_kernels + "\" (known: auto, block, perbead)");
    // Several GPUs: a slice of the replicas each (no more GPUs than replicas).
    const int gpus = std::min<int>(int(setup.devices.size()), setup.replicas);
    if (gpus > 1)
      return std::make_unique<SplitEngine>(setup, gpus, [&](const EngineSetup& part, int k) {
        CudaEngineOptions on_gpu = options;
        on_gpu.device = setup.devices[std::size_t(k)];
        return make_cuda_engine(part, on_gpu);
      });
    return make_cuda_engine(setup, options);
  }
  throw Error("unknown backend \"" + backend + "\" (known: auto, cpu, cuda)");
}

EngineSetup engine_setup_for(const RunSpec& spec, const Topology& topology) {
  EngineSetup setup;
  setup.topology = &topology;
  setup.sop = spec.sop;
  setup.langevin = spec.langevin;  // hydrodynamics.method resolved by then (run/hydrodynamics_check.h)
  setup.temperature = spec.temperature;
  setup.seed = spec.seed;
  setup.rng = spec.rng;
  setup.rng_layout = spec.rng_layout;
  setup.replicas = spec.replicas;
  setup.fixed_beads = spec.fixed_beads;
  setup.neighbor_skin_A = spec.neighbor.skin_A;
  setup.threads = spec.threads;
  setup.device = spec.device;
  setup.devices = resolve_devices(spec.devices, spec.all_devices);
  if (spec.all_devices && setup.devices.empty() && spec.backend == "cuda")
    throw key_error(spec, "run.device", "\"all\": this machine has no CUDA GPU this ermak can use");
  if (setup.devices.size() == 1) {
    setup.device = setup.devices.front();
    setup.devices.clear();
  }
  return setup;
}

namespace {

// "auto" falls back to the CPU where there is no GPU (a configuration travels to a laptop),
// but a GPU the user named that this machine lacks, beside GPUs it has, is a mistake to be
// told about — not a run on the CPU that may take a hundred times longer
// (docs/config.md#run--the-dynamics).
void refuse_a_named_gpu_that_does_not_exist(const RunSpec& spec, const EngineSetup& setup,
                                           const std::string& backend) {
  if (spec.backend != "auto" || backend != "cpu") return;
  const int gpus = cuda_device_count();
  const char* from_environment = std::getenv("ERMAK_CUDA_DEVICE");
  int device = first_device(setup);
  if (device < 0 && from_environment) device = std::atoi(from_environment);
  if (gpus <= 0 || device < gpus) return;  // also the default, GPU 0
  std::string why;
  cuda_backend_available(&why, device);
  const std::string hint = "; name one of these, or set run.backend = \"cpu\" to run on the CPU";
  if (first_device(setup) < 0)
    throw Error("ERMAK_CUDA_DEVICE=" + std::string(from_environment) + ": " + why + hint);
  throw key_error(spec, "run.device", why + hint);
}

}  // namespace

std::string choose_backend(const RunSpec& spec, const EngineSetup& setup, spdlog::logger& log) {
  const std::int32_t replicas = setup.replicas;
  std::string backend_reason;
  const std::string backend = resolve_backend(spec.backend, &backend_reason, first_device(setup));
  refuse_a_named_gpu_that_does_not_exist(spec, setup, backend);
  // The CPU engine's thread count (CpuEngine: run.threads, or 0 = omp_get_max_threads(), which
  // honours OMP_NUM_THREADS), so that the log says what ran.
  const std::string cpu_threads =
      backend != "cpu" ? ""
      : setup.threads > 0
          ? fmt::format(", {} thread{}", setup.threads, setup.threads == 1 ? "" : "s")
          : fmt::format(", {} thread{} (run.threads = 0: all available)", omp_get_max_threads(),
                        omp_get_max_threads() == 1 ? "" : "s");
  log.info("backend: {}{}{}", backend, cpu_threads, backend_reason.empty() ? "" : " (" + backend_reason + ")");
  if (backend == "cpu" && setup.threads > omp_get_num_procs())
    log.warn("warning: run.threads = {} is more than the {} processors this run may use; its steps are slower "
             "than with {} (run.threads = 0 uses them all)",
             setup.threads, omp_get_num_procs(), omp_get_num_procs());
  if (backend == "cuda" && setup.devices.empty() && replicas > 1)
    if (const int gpus = cuda_device_count(); gpus > 1)
      log.info("note: this machine has {} GPUs and the run uses one; run.device = \"all\" would split its {} "
               "replicas between them (docs/gpu.md#several-gpus)",
               gpus, replicas);
  if (backend == "cuda" && setup.devices.size() > 1) {
    // Every GPU of the list must run this build's code (the log names each).
    for (std::size_t k = 1; k < setup.devices.size(); ++k) {
      std::string why;
      if (!cuda_backend_available(&why, setup.devices[k])) throw key_error(spec, "run.device", why);
      log.info("backend: {}", why);
    }
    if (setup.rng != "philox" && replicas > 1) throw key_error(spec, "run.device", sliced_noise_refusal(setup.rng));
    const auto slices = split_replicas(replicas, std::min<int>(int(setup.devices.size()), replicas));
    std::string split;
    for (std::size_t k = 0; k < slices.size(); ++k)
      split += fmt::format("{}{} on GPU {}", k ? ", " : "",
                           slices[k].count == 1 ? std::to_string(slices[k].first)
                                                : fmt::format("{}-{}", slices[k].first,
                                                              slices[k].first + slices[k].count - 1),
                           setup.devices[k]);
    log.info("replicas split over {} GPUs: {}{}", slices.size(), split,
             slices.size() < setup.devices.size() ? " (no more GPUs than replicas)" : "");
  }
  return backend;
}

}  // namespace ermak
