// FloatBuffer: a std::vector<float> that does not zero what it grows into, and asks
// the kernel for transparent huge pages when large. Parsers resize first and then
// write every element, so zero-filling would be a wasted pass over hundreds of MB,
// and 4 kB pages would mean a page fault every 1,024 floats.
#pragma once

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <vector>

namespace embed {

template <typename T>
struct UninitializedAllocator {
  using value_type = T;
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    constexpr std::size_t kHugePage = 2u << 20;
    const std::size_t bytes = n * sizeof(T);
    if (bytes < 8 * kHugePage) return static_cast<T*>(::operator new(bytes));
    void* p = std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
    if (p == nullptr) throw std::bad_alloc();
    ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < 16u << 20) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  // Value-initialization is what zero-fills; default-initialize instead.
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const UninitializedAllocator<U>&) const noexcept { return true; }
};

using FloatBuffer = std::vector<float, UninitializedAllocator<float>>;

}  // namespace embed
