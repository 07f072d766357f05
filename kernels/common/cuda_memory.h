// Owners of CUDA resources (device and pinned buffers, streams, events, host
// registrations), and the error check that turns a CUDA status into embed::Error.
// Compiled by the host compiler; only kernels/ includes it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <cuda_runtime.h>

namespace embed::cuda {

// Throws embed::Error("CUDA error while <what>: <reason>") unless status is cudaSuccess.
void check(cudaError_t status, const char* what);

namespace detail {
// Releases for std::unique_ptr: the owners below get their moves and destructors from it.
struct FreeDevice {
  void operator()(void* p) const { cudaFree(p); }
};
struct FreePinned {
  void operator()(void* p) const { cudaFreeHost(p); }
};
struct Unregister {
  void operator()(void* p) const { cudaHostUnregister(p); }
};
struct DestroyStream {
  void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
};
struct DestroyEvent {
  void operator()(cudaEvent_t e) const { cudaEventDestroy(e); }
};
}  // namespace detail

// An owned allocation released by `Free`, read through get<T>().
template <typename Free>
class OwnedMemory {
 public:
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(data_.get());
  }

 protected:
  std::unique_ptr<void, Free> data_;
};

// Device memory. An allocation the device cannot satisfy throws embed::Error naming
// the size, what it was for, the free memory, and the flags that need less.
class DeviceBuffer : public OwnedMemory<detail::FreeDevice> {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, const std::string& what);
};

// Page-locked host memory, which copies can run from asynchronously.
class PinnedBuffer : public OwnedMemory<detail::FreePinned> {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(std::size_t bytes, const std::string& what);
};

// Pins existing host memory (a RowMatrix) and maps it into the device's address space.
class HostRegistration {
 public:
  HostRegistration() = default;
  HostRegistration(void* data, std::size_t bytes, const std::string& what);
  // The address kernels use for this memory.
  void* device_pointer() const;

 private:
  std::unique_ptr<void, detail::Unregister> data_;
};

// Makes a device current. As a member declared before a class's streams, events or
// cuBLAS handle, it selects the device before they are made (they belong to the device
// current when they are created).
struct CurrentDevice {
  explicit CurrentDevice(int ordinal);
};

class Stream {
 public:
  Stream();
  cudaStream_t get() const { return stream_.get(); }

 private:
  std::unique_ptr<CUstream_st, detail::DestroyStream> stream_;
};

class Event {
 public:
  // Events for ordering only, unless `timing` (cudaEventElapsedTime).
  explicit Event(bool timing = false);
  cudaEvent_t get() const { return event_.get(); }

 private:
  std::unique_ptr<CUevent_st, detail::DestroyEvent> event_;
};

}  // namespace embed::cuda
