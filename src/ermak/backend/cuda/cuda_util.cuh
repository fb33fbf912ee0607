#pragma once
// Error checking and device memory ownership for the CUDA backend. Every CUDA call goes
// through ERMAK_CUDA (a failure becomes an ermak::Error naming the call and the place);
// every allocation is a DeviceBuffer owned by exactly one object (no implicit host/device
// mirrors: copies are explicit calls at report time).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ermak/core/byte_size.h"
#include "ermak/core/error.h"

namespace ermak::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

#define ERMAK_CUDA(call) ::ermak::cuda::check_cuda((call), #call, __FILE__, __LINE__)

// After a kernel launch: launch errors always; in debug builds (no NDEBUG) also wait for
// the stream and report what went wrong inside the kernel, at the launch that caused it
// (not while the stream is being captured into a graph, where waiting is not allowed).
void check_launch(const char* kernel, cudaStream_t stream, const char* file, int line);
#define ERMAK_CUDA_LAUNCHED(name, stream) ::ermak::cuda::check_launch(name, stream, __FILE__, __LINE__)

// An integer environment variable (the ERMAK_CUDA_* diagnostics), `fallback` when unset
// or empty; anything else than an integer is an Error naming the variable.
inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0') throw Error(std::string("environment variable ") + name + "=\"" + v + "\" is not an integer");
  return int(x);
}

// An environment variable that may only take one of `allowed` (a layout override), 0 when
// unset or empty; any other value is an Error naming the variable and the values it takes.
inline int env_choice(const char* name, std::initializer_list<int> allowed) {
  const int x = env_int(name, 0);
  if (x == 0) return 0;
  std::string listed;
  for (const int a : allowed) {
    if (x == a) return x;
    listed += (listed.empty() ? "" : ", ") + std::to_string(a);
  }
  throw Error(std::string("environment variable ") + name + "=" + std::to_string(x) + " must be one of " + listed);
}

// One device allocation of `count` elements of T.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer tmp(std::move(other));
    swap(tmp);
    return *this;
  }
  ~DeviceBuffer() { release(); }

  void swap(DeviceBuffer& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
  }
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  // Discards the contents.
  void resize(std::size_t count) {
    if (count == count_) return;
    release();
    if (count == 0) return;
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, count * sizeof(T));
    if (status != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free allocation error
      std::size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      int device = -1;
      cudaGetDevice(&device);
      throw Error("CUDA: could not allocate " + format_byte_size(double(count * sizeof(T))) + " of memory on GPU " +
                  std::to_string(device) + " (" + format_byte_size(double(free_bytes)) + " free of " +
                  format_byte_size(double(total_bytes)) + "): " + cudaGetErrorString(status));
    }
    ptr_ = static_cast<T*>(p);
    count_ = count;
  }
  void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    if (count > count_) resize(count);
    if (count) ERMAK_CUDA(cudaMemcpyAsync(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    resize(host.size());
    upload(host.data(), host.size(), stream);
  }
  void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    if (count) ERMAK_CUDA(cudaMemcpyAsync(host, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  void fill_zero(cudaStream_t stream = nullptr) {
    if (count_) ERMAK_CUDA(cudaMemsetAsync(ptr_, 0, count_ * sizeof(T), stream));
  }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Host memory for the copies of positions at report stops, page-locked where the system
// allows: a copy from pageable memory goes through the driver's own bounce buffer and
// holds the stream up two to three times as long (docs/gpu.md#what-overlaps-the-steps).
// Where page-locking fails (a run of ~10⁸ beads asks for GBs) it is ordinary memory.
template <class T>
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;
  ~PinnedHostBuffer() { release(); }

  // Discards the contents.
  void resize(std::size_t count) {
    if (count == count_) return;
    release();
    if (count == 0) return;
    void* p = nullptr;
    if (cudaMallocHost(&p, count * sizeof(T)) == cudaSuccess) {
      ptr_ = static_cast<T*>(p);
      pinned_ = true;
    } else {
      cudaGetLastError();  // not sticky; fall back to pageable memory
      fallback_.resize(count);
      ptr_ = fallback_.data();
    }
    count_ = count;
  }
  void release() noexcept {
    if (pinned_) cudaFreeHost(ptr_);
    fallback_ = {};
    ptr_ = nullptr;
    count_ = 0;
    pinned_ = false;
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  T& operator[](std::size_t k) { return ptr_[k]; }
  const T& operator[](std::size_t k) const { return ptr_[k]; }
  bool pinned() const { return pinned_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  bool pinned_ = false;
  std::vector<T> fallback_;
};

}  // namespace ermak::cuda
