// Which SIMD instruction set the hot loops run with: the widest the CPU has, or a lower
// one that EMBED_CPU_ISA asks for, so that a machine with AVX-512 can run and measure the
// AVX2 path and the baseline (x86-64's SSE2) as most users' machines run them.
//
// A hot loop is compiled once per level, each copy a plain function marked with that
// level's EMBED_TARGET_* attribute (the always-inline loops it calls are compiled into
// it), and the caller picks the copy for cpu_isa(). GCC's target_clones would pick by
// itself, but nothing lowers its choice (glibc's tunables do not reach libgcc's CPU
// check), and its "avx2" clone leaves out FMA.
#pragma once

#include <string>
#include <string_view>

namespace embed {

enum class CpuIsa {
  baseline,  // SSE2 on x86-64; the only level elsewhere
  avx2,      // AVX2 and FMA (Intel since Haswell, AMD since Zen 1)
  avx512,    // AVX-512 F, CD, BW, DQ and VL on top (Skylake-SP, Ice Lake, Zen 4)
};

// The widest level this CPU and its operating system support.
CpuIsa cpu_isa_supported();

// The level the hot loops run at: cpu_isa_supported(), or EMBED_CPU_ISA (avx512, avx2 or
// baseline) when set and not above it. Read once; an unknown value or one above what the
// CPU supports is an error (embed::Error), since a measurement of the wrong path would
// otherwise pass unnoticed.
CpuIsa cpu_isa();

// "avx512", "avx2", "baseline": as EMBED_CPU_ISA spells them.
std::string_view cpu_isa_name(CpuIsa isa);

// For --version: the level in use and, when EMBED_CPU_ISA lowered it, what the CPU has
// ("avx2 (EMBED_CPU_ISA; this CPU: avx512)"), or why EMBED_CPU_ISA is refused.
std::string cpu_isa_summary();

// The version of a hot loop for `isa`, from its three (the same function at each level):
//   version_for<Fn>(cpu_isa(), &loop_avx512, &loop_avx2, &loop_baseline)(args...)
template <typename Function>
Function* version_for(CpuIsa isa, Function* avx512, Function* avx2, Function* baseline) {
  switch (isa) {
    case CpuIsa::avx512:
      return avx512;
    case CpuIsa::avx2:
      return avx2;
    case CpuIsa::baseline:
      break;
  }
  return baseline;
}

}  // namespace embed

#if defined(__x86_64__) || defined(__i386__)
// Exactly the features cpu_isa_supported() checks.
#define EMBED_TARGET_AVX512 __attribute__((target("avx512f,avx512cd,avx512bw,avx512dq,avx512vl,avx2,fma")))
#define EMBED_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define EMBED_TARGET_AVX512
#define EMBED_TARGET_AVX2
#endif

// DEFINE(target, level, ...) once per level, for the three versions of a hot loop:
//   #define MY_LOOP(target, isa) target void my_loop_##isa(float* x) { my_loop(x); }
//   EMBED_AT_EACH_ISA(MY_LOOP)
#define EMBED_AT_EACH_ISA(DEFINE, ...)               \
  DEFINE(EMBED_TARGET_AVX512, avx512 __VA_OPT__(, ) __VA_ARGS__) \
  DEFINE(EMBED_TARGET_AVX2, avx2 __VA_OPT__(, ) __VA_ARGS__)     \
  DEFINE(, baseline __VA_OPT__(, ) __VA_ARGS__)
