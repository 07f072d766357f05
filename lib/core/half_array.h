// Converting many 16-bit floats at once, for reading f16/bf16 .emb rows in bulk and for
// the rows host-placed GPU training stages in f16/bf16: F16C/AVX-512 instructions where
// the CPU has them (one instruction per 8 or 16 values), vectorised integer arithmetic for
// bf16; the same results as the scalar conversions in half.h (a NaN stays a NaN).
#pragma once

#include <cstddef>
#include <cstdint>

namespace embed {

void f16_to_f32_array(const std::uint16_t* in, float* out, std::size_t count);
void bf16_to_f32_array(const std::uint16_t* in, float* out, std::size_t count);
void f32_to_f16_array(const float* in, std::uint16_t* out, std::size_t count);
void f32_to_bf16_array(const float* in, std::uint16_t* out, std::size_t count);

// row[i] += now[i] - before[i], now and before f16: what a GPU batch changed in a row it
// trained in f16, added back into the host's row in one pass (host placement's scatter;
// three conversions to buffers and a pass over them took 1.2 to 1.4x as long:
// bench-host-rows). The difference and the sum are f32, so the results equal widening
// everything, adding and, for an f16 row, rounding the sum once to nearest even.
void add_f16_change(float* row, const std::uint16_t* now, const std::uint16_t* before, std::size_t count);
void add_f16_change(std::uint16_t* row, const std::uint16_t* now, const std::uint16_t* before, std::size_t count);

}  // namespace embed
