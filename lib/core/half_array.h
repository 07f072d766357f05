// Converting many 16-bit floats at once, for reading f16/bf16 .emb rows in bulk:
// F16C/AVX-512 instructions where the CPU has them (one instruction per 8 or 16 values),
// exact same results as the scalar f16_to_f32 / bf16_to_f32 in half.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace embed {

void f16_to_f32_array(const std::uint16_t* in, float* out, std::size_t count);
void bf16_to_f32_array(const std::uint16_t* in, float* out, std::size_t count);

}  // namespace embed
