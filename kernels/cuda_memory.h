// Owners of CUDA resources (device and pinned buffers, streams, events, host
// registrations), and the error check that turns a CUDA status into embed::Error.
// Compiled by the host compiler; only kernels/ includes it.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime.h>

namespace embed::cuda {

// Throws embed::Error("CUDA error while <what>: <reason>") unless status is cudaSuccess.
void check(cudaError_t status, const char* what);

// Device memory. An allocation the device cannot satisfy throws embed::Error naming
// the size, what it was for, the free memory, and the flags that need less.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, const std::string& what);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-locked host memory, which copies can run from asynchronously.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(std::size_t bytes, const std::string& what);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Pins existing host memory (a RowMatrix) and maps it into the device's address space.
class HostRegistration {
 public:
  HostRegistration() = default;
  HostRegistration(void* data, std::size_t bytes, const std::string& what);
  ~HostRegistration();
  HostRegistration(HostRegistration&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  HostRegistration& operator=(HostRegistration&& other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  // The address kernels use for this memory.
  void* device_pointer() const;

 private:
  void* data_ = nullptr;
};

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace embed::cuda
