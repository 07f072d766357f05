#include "core/half_array.h"

#include <cstring>
#include <type_traits>

#include "core/cpu_isa.h"
#include "core/half.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define EMBED_X86_DISPATCH 1
#endif

namespace embed {
namespace {

void f16_scalar(const std::uint16_t* in, float* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = f16_to_f32(in[i]);
}

void to_f16_scalar(const float* in, std::uint16_t* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = f32_to_f16(in[i]);
}

// row[i] += now[i] - before[i]; an f16 row's sum rounded once.
template <typename Row>
void add_change_scalar(Row* row, const std::uint16_t* now, const std::uint16_t* before, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const float change = f16_to_f32(now[i]) - f16_to_f32(before[i]);
    if constexpr (std::is_same_v<Row, float>) {
      row[i] += change;
    } else {
      row[i] = f32_to_f16(f16_to_f32(row[i]) + change);
    }
  }
}

#ifdef EMBED_X86_DISPATCH
// GCC 12's _mm512_cvtph_ps starts from _mm512_undefined_ps(), which -Wmaybe-uninitialized flags.
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) void f16_avx512(const std::uint16_t* in, float* out, std::size_t count) {
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i halves = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(halves));
  }
  f16_scalar(in + i, out + i, count - i);
}
#pragma GCC diagnostic pop

__attribute__((target("avx,f16c"))) void f16_f16c(const std::uint16_t* in, float* out, std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i halves = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(halves));
  }
  f16_scalar(in + i, out + i, count - i);
}

// Rounding to nearest even, as f32_to_f16: vcvtps2ph's immediate 0. (The same GCC 12
// warning as above, from _mm512_cvtps_ph.)
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) void to_f16_avx512(const float* in, std::uint16_t* out, std::size_t count) {
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  }
  to_f16_scalar(in + i, out + i, count - i);
}
#pragma GCC diagnostic pop

__attribute__((target("avx,f16c"))) void to_f16_f16c(const float* in, std::uint16_t* out, std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  }
  to_f16_scalar(in + i, out + i, count - i);
}

// The fused scatters: the same conversions as above, with the difference and the sum
// between them in registers (f32, in the scalar version's order, so the results agree).
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <typename Row>
__attribute__((target("avx512f"))) void add_change_avx512(Row* row, const std::uint16_t* now, const std::uint16_t* before,
                                                          std::size_t count) {
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512 change = _mm512_sub_ps(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(now + i))),
                                        _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(before + i))));
    if constexpr (std::is_same_v<Row, float>) {
      _mm512_storeu_ps(row + i, _mm512_add_ps(_mm512_loadu_ps(row + i), change));
    } else {
      auto* held = reinterpret_cast<__m256i*>(row + i);
      const __m512 sum = _mm512_add_ps(_mm512_cvtph_ps(_mm256_loadu_si256(held)), change);
      _mm256_storeu_si256(held, _mm512_cvtps_ph(sum, _MM_FROUND_TO_NEAREST_INT));
    }
  }
  add_change_scalar(row + i, now + i, before + i, count - i);
}
#pragma GCC diagnostic pop

template <typename Row>
__attribute__((target("avx,f16c"))) void add_change_f16c(Row* row, const std::uint16_t* now, const std::uint16_t* before,
                                                         std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 change = _mm256_sub_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(now + i))),
                                        _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(before + i))));
    if constexpr (std::is_same_v<Row, float>) {
      _mm256_storeu_ps(row + i, _mm256_add_ps(_mm256_loadu_ps(row + i), change));
    } else {
      auto* held = reinterpret_cast<__m128i*>(row + i);
      const __m256 sum = _mm256_add_ps(_mm256_cvtph_ps(_mm_loadu_si128(held)), change);
      _mm_storeu_si128(held, _mm256_cvtps_ph(sum, _MM_FROUND_TO_NEAREST_INT));
    }
  }
  add_change_scalar(row + i, now + i, before + i, count - i);
}

// F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports does not know "f16c".
bool cpu_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
}

// The best of three versions of a conversion for cpu_isa(). A CPU with F16C but no AVX2
// (Sandy and Ivy Bridge) takes the F16C version too, unless EMBED_CPU_ISA lowered the level.
template <typename Fn>
Fn* best_of(Fn* avx512, Fn* f16c, Fn* scalar) {
  const CpuIsa isa = cpu_isa();
  if (isa == CpuIsa::avx512) return avx512;
  if (isa == CpuIsa::avx2) return f16c;
  __builtin_cpu_init();
  if (isa == cpu_isa_supported() && __builtin_cpu_supports("avx") && cpu_has_f16c()) return f16c;
  return scalar;
}
#endif

}  // namespace

void f16_to_f32_array(const std::uint16_t* in, float* out, std::size_t count) {
#ifdef EMBED_X86_DISPATCH
  static const auto convert = best_of(&f16_avx512, &f16_f16c, &f16_scalar);
  convert(in, out, count);
#else
  f16_scalar(in, out, count);
#endif
}

void f32_to_f16_array(const float* in, std::uint16_t* out, std::size_t count) {
#ifdef EMBED_X86_DISPATCH
  static const auto convert = best_of(&to_f16_avx512, &to_f16_f16c, &to_f16_scalar);
  convert(in, out, count);
#else
  to_f16_scalar(in, out, count);
#endif
}

namespace {

// add_f16_change for either kind of row, on the best version this CPU runs.
template <typename Row>
void add_f16_change_to(Row* row, const std::uint16_t* now, const std::uint16_t* before, std::size_t count) {
#ifdef EMBED_X86_DISPATCH
  static const auto add = best_of(&add_change_avx512<Row>, &add_change_f16c<Row>, &add_change_scalar<Row>);
  add(row, now, before, count);
#else
  add_change_scalar(row, now, before, count);
#endif
}

}  // namespace

void add_f16_change(float* row, const std::uint16_t* now, const std::uint16_t* before, std::size_t count) {
  add_f16_change_to(row, now, before, count);
}

void add_f16_change(std::uint16_t* row, const std::uint16_t* now, const std::uint16_t* before, std::size_t count) {
  add_f16_change_to(row, now, before, count);
}

// f32_to_bf16 without a branch, so that each clone vectorises it: a NaN keeps its top
// bits and is made quiet, anything else rounds to nearest even.
namespace {
__attribute__((always_inline)) inline void f32_to_bf16_loop(const float* in, std::uint16_t* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, in + i, sizeof bits);
    const bool nan = static_cast<std::int32_t>(bits & 0x7FFFFFFFu) > 0x7F800000;
    const std::uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
    out[i] = static_cast<std::uint16_t>(nan ? (bits >> 16) | 0x40u : rounded);
  }
}

EMBED_TARGET_AVX512 void f32_to_bf16_avx512(const float* in, std::uint16_t* out, std::size_t count) {
  f32_to_bf16_loop(in, out, count);
}
EMBED_TARGET_AVX2 void f32_to_bf16_avx2(const float* in, std::uint16_t* out, std::size_t count) { f32_to_bf16_loop(in, out, count); }
void f32_to_bf16_baseline(const float* in, std::uint16_t* out, std::size_t count) { f32_to_bf16_loop(in, out, count); }
}  // namespace

void f32_to_bf16_array(const float* in, std::uint16_t* out, std::size_t count) {
  version_for(cpu_isa(), &f32_to_bf16_avx512, &f32_to_bf16_avx2, &f32_to_bf16_baseline)(in, out, count);
}

void bf16_to_f32_array(const std::uint16_t* in, float* out, std::size_t count) {
  // A shift the compiler vectorises for any instruction set.
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t bits = static_cast<std::uint32_t>(in[i]) << 16;
    std::memcpy(out + i, &bits, sizeof bits);
  }
}

}  // namespace embed
