#include "kernels/common/cuda_memory.h"

#include "core/error.h"
#include "core/progress.h"

namespace embed::cuda {
namespace {

std::string bytes_text(std::size_t bytes) { return human_bytes(static_cast<double>(bytes)); }

}  // namespace

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so the message is about this call
  fail("CUDA error while {}: {} ({})", what, cudaGetErrorString(status), cudaGetErrorName(status));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, const std::string& what) {
  if (bytes == 0) return;
  void* data = nullptr;
  const cudaError_t status = cudaMalloc(&data, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    fail("out of GPU memory: {} for {} does not fit in the {} free (of {}); use --table host or a smaller "
         "--gpu-memory",
         bytes_text(bytes), what, bytes_text(free), bytes_text(total));
  }
  check(status, ("allocating GPU memory for " + what).c_str());
  data_.reset(data);
}

PinnedBuffer::PinnedBuffer(std::size_t bytes, const std::string& what) {
  if (bytes == 0) return;
  void* data = nullptr;
  const cudaError_t status = cudaHostAlloc(&data, bytes, cudaHostAllocPortable);
  if (status != cudaSuccess) {
    cudaGetLastError();
    fail("cannot allocate {} of pinned host memory for {}: {}", bytes_text(bytes), what, cudaGetErrorString(status));
  }
  data_.reset(data);
}

HostRegistration::HostRegistration(void* data, std::size_t bytes, const std::string& what) {
  const cudaError_t status = cudaHostRegister(data, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped);
  if (status != cudaSuccess) {
    cudaGetLastError();
    fail("cannot pin {} of host memory for {}: {} (is the locked-memory limit, ulimit -l, too low?)", bytes_text(bytes),
         what, cudaGetErrorString(status));
  }
  data_.reset(data);
}

void* HostRegistration::device_pointer() const {
  void* device = nullptr;
  check(cudaHostGetDevicePointer(&device, data_.get(), 0), "mapping pinned host memory");
  return device;
}

CurrentDevice::CurrentDevice(int ordinal) { check(cudaSetDevice(ordinal), "selecting the GPU"); }

Stream::Stream() {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a stream");
  stream_.reset(stream);
}

Event::Event(bool timing) {
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, timing ? cudaEventDefault : cudaEventDisableTiming), "creating an event");
  event_.reset(event);
}

}  // namespace embed::cuda
