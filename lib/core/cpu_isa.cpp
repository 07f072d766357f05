#include "core/cpu_isa.h"

#include <cstdlib>

#include "core/error.h"

namespace embed {

CpuIsa cpu_isa_supported() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // libgcc's and compiler-rt's checks include the operating system's support (XGETBV):
  // a kernel that does not save the ZMM registers reports no AVX-512.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma")) {
    return CpuIsa::avx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return CpuIsa::avx2;
  }
#endif
  return CpuIsa::baseline;
}

std::string_view cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::avx512:
      return "avx512";
    case CpuIsa::avx2:
      return "avx2";
    case CpuIsa::baseline:
      break;
  }
  return "baseline";
}

namespace {

CpuIsa chosen_isa() {
  const CpuIsa supported = cpu_isa_supported();
  const char* asked = std::getenv("EMBED_CPU_ISA");
  if (asked == nullptr || *asked == '\0') return supported;
  for (CpuIsa isa : {CpuIsa::baseline, CpuIsa::avx2, CpuIsa::avx512}) {
    if (cpu_isa_name(isa) != asked) continue;
    if (isa > supported) {
      throw Error("EMBED_CPU_ISA=" + std::string(asked) + ": this CPU supports at most " + std::string(cpu_isa_name(supported)));
    }
    return isa;
  }
  throw Error("EMBED_CPU_ISA=" + std::string(asked) + ": expected avx512, avx2 or baseline");
}

}  // namespace

CpuIsa cpu_isa() {
  static const CpuIsa isa = chosen_isa();
  return isa;
}

std::string cpu_isa_summary() {
  try {
    const CpuIsa isa = cpu_isa(), supported = cpu_isa_supported();
    std::string summary(cpu_isa_name(isa));
    if (isa != supported) summary += " (EMBED_CPU_ISA; this CPU: " + std::string(cpu_isa_name(supported)) + ")";
    return summary;
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace embed
