#pragma once
// Which engine a run gets: the backend ("auto", "cpu", "cuda"), the GPU or GPUs, the CUDA
// kernel family (docs/gpu.md#selecting-the-backend-and-the-gpu).
#include <memory>
#include <string>
#include <vector>

#include "ermak/backend/engine.h"
#include "ermak/config/spec.h"

namespace spdlog {
class logger;
}

namespace ermak {

// "auto" → "cuda" when this build has the CUDA backend and GPU `device` (−1:
// $ERMAK_CUDA_DEVICE, else 0) can run its code, else "cpu" (the reason in *reason);
// "cpu" and "cuda" stay as they are ("cuda": the GPU and the code it runs in *reason).
std::string resolve_backend(const std::string& backend, std::string* reason = nullptr, int device = -1);

// The GPUs of run.device's list, or every GPU this process sees when `all` (none
// without CUDA or GPU).
std::vector<int> resolve_devices(const std::vector<int>& listed, bool all);

// Makes the engine of a backend ("auto", "cpu" or "cuda"; setup.device picks the GPU —
// setup.devices several, which then share the replicas: backend/split_engine.h —
// cuda_kernels the CUDA kernel family: "auto", "block", "perbead"); a clear Error when
// it is not available in this build or on this machine.
std::unique_ptr<Engine> make_engine(const std::string& backend, const EngineSetup& setup,
                                    const std::string& cuda_kernels = "auto");

// The engine's setup for a run of `spec` on `topology` (the protocols are added by
// ProtocolSetup::fill), its GPUs resolved: run.device = "all" lists every GPU this
// process sees (an error with backend "cuda" when there is none), and a list of one
// becomes that device.
EngineSetup engine_setup_for(const RunSpec& spec, const Topology& topology);

// The backend of the run ("cpu" or "cuda"), logged with the reason and, over several
// GPUs, with each GPU and its replicas; refuses a GPU of the list that cannot run this
// build's code, and a generator with state over several GPUs (docs/gpu.md#several-gpus).
// On the CPU, warns when run.threads asks for more threads than the processors it may use.
std::string choose_backend(const RunSpec& spec, const EngineSetup& setup, spdlog::logger& log);

}  // namespace ermak
