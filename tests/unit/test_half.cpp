#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "core/half.h"
#include "core/half_array.h"

using namespace embed;

TEST_CASE("f16 encodes known values with round-to-nearest-even", "[half]") {
  CHECK(f32_to_f16(1.0f) == 0x3C00);
  CHECK(f32_to_f16(-2.0f) == 0xC000);
  CHECK(f32_to_f16(0.0f) == 0x0000);
  CHECK(f32_to_f16(-0.0f) == 0x8000);
  CHECK(f32_to_f16(65504.0f) == 0x7BFF);               // largest finite
  CHECK(f32_to_f16(65519.0f) == 0x7BFF);               // still rounds down
  CHECK(f32_to_f16(65520.0f) == 0x7C00);               // rounds to infinity
  CHECK(f32_to_f16(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(f32_to_f16(std::ldexp(1.0f, -26)) == 0x0000);  // below half of it: zero
  CHECK(f32_to_f16(std::ldexp(3.0f, -26)) == 0x0001);  // 0.75 ulp rounds up
  CHECK(f32_to_f16(0.1f) == 0x2E66);
  CHECK(f32_to_f16(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);  // tie: to even
  CHECK(f32_to_f16(1.0f + std::ldexp(3.0f, -11)) == 0x3C02);  // tie: to even (up)
  CHECK((f32_to_f16(std::numeric_limits<float>::quiet_NaN()) & 0x7C00) == 0x7C00);
}

TEST_CASE("every finite f16 survives f16 -> f32 -> f16", "[half]") {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    if ((h & 0x7C00) == 0x7C00) continue;  // inf and NaN
    REQUIRE(f32_to_f16(f16_to_f32(h)) == h);
  }
}

TEST_CASE("bf16 keeps the top 16 bits, rounding to nearest even", "[half]") {
  CHECK(f32_to_bf16(1.0f) == 0x3F80);
  CHECK(bf16_to_f32(0x3F80) == 1.0f);
  CHECK(f32_to_bf16(std::bit_cast<float>(0x3F808000u)) == 0x3F80);  // tie to even (down)
  CHECK(f32_to_bf16(std::bit_cast<float>(0x3F818000u)) == 0x3F82);  // tie to even (up)
  CHECK(f32_to_bf16(std::bit_cast<float>(0x3F808001u)) == 0x3F81);
  CHECK(std::isnan(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    if ((b & 0x7F80) == 0x7F80) continue;
    REQUIRE(f32_to_bf16(bf16_to_f32(b)) == b);
  }
}

TEST_CASE("bulk f16/bf16 conversion equals the scalar one for all 65536 values", "[half]") {
  std::vector<std::uint16_t> all(65536 + 5);  // + 5: a tail shorter than one vector
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
  std::vector<float> f16(all.size()), bf16(all.size());
  f16_to_f32_array(all.data(), f16.data(), all.size());
  bf16_to_f32_array(all.data(), bf16.data(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const float scalar = f16_to_f32(all[i]);
    if (std::isnan(scalar)) {
      CHECK(std::isnan(f16[i]));  // hardware may quieten signalling NaNs
    } else {
      CHECK(std::memcmp(&scalar, &f16[i], 4) == 0);
    }
    const float b = bf16_to_f32(all[i]);
    CHECK(std::memcmp(&b, &bf16[i], 4) == 0);
  }
}

TEST_CASE("bulk f32 -> f16/bf16 conversion equals the scalar one, ties, subnormals and overflow included", "[half]") {
  // Every f32 whose top 16 bits are any of the 65536 patterns, with low bits that round
  // down, tie and round up (for bf16 at bit 15, for f16 at bit 12 and below), then a
  // tail shorter than one vector.
  std::vector<float> values;
  for (std::uint32_t top = 0; top < 0x10000; ++top) {
    for (std::uint32_t low : {0x0000u, 0x0FFFu, 0x1000u, 0x1001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu}) {
      const std::uint32_t bits = top << 16 | low;
      float v;
      std::memcpy(&v, &bits, 4);
      values.push_back(v);
    }
  }
  for (int i = 0; i < 5; ++i) values.push_back(0.1f * static_cast<float>(i));
  std::vector<std::uint16_t> f16(values.size()), bf16(values.size());
  f32_to_f16_array(values.data(), f16.data(), values.size());
  f32_to_bf16_array(values.data(), bf16.data(), values.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      // A NaN stays a NaN (hardware keeps more of its payload than the scalar code).
      mismatches += (f16[i] & 0x7C00) != 0x7C00 || (f16[i] & 0x03FF) == 0;
      mismatches += (bf16[i] & 0x7F80) != 0x7F80 || (bf16[i] & 0x007F) == 0;
      continue;
    }
    mismatches += f16[i] != f32_to_f16(values[i]);
    mismatches += bf16[i] != f32_to_bf16(values[i]);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("adding an f16 change into f32 and f16 rows equals widening, adding and rounding once", "[half]") {
  // Every finite f16 as the held value, beside changes drawn from every finite f16 (small
  // and large, so that sums round, tie, go subnormal and overflow), then a tail shorter
  // than one vector.
  std::vector<std::uint16_t> finite;
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7C00) != 0x7C00) finite.push_back(static_cast<std::uint16_t>(bits));
  }
  const std::size_t count = finite.size() + 5;
  std::vector<std::uint16_t> held(count), now(count), before(count);
  std::uint64_t state = 12345;
  auto draw = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return finite[(state >> 33) % finite.size()];
  };
  for (std::size_t i = 0; i < count; ++i) {
    held[i] = finite[i % finite.size()];
    before[i] = draw();
    // Half the changes small against the row (a training step), half anything.
    now[i] = i % 2 == 0 ? f32_to_f16(f16_to_f32(before[i]) + 1e-3f * f16_to_f32(draw())) : draw();
  }
  std::vector<float> held_f32(count);
  for (std::size_t i = 0; i < count; ++i) held_f32[i] = f16_to_f32(held[i]) * 0.37f;
  std::vector<std::uint16_t> into_f16 = held;
  std::vector<float> into_f32 = held_f32;
  add_f16_change(into_f16.data(), now.data(), before.data(), count);
  add_f16_change(into_f32.data(), now.data(), before.data(), count);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const float change = f16_to_f32(now[i]) - f16_to_f32(before[i]);
    mismatches += into_f16[i] != f32_to_f16(f16_to_f32(held[i]) + change);
    const float sum = held_f32[i] + change;
    mismatches += std::memcmp(&sum, &into_f32[i], 4) != 0;
  }
  CHECK(mismatches == 0);
}
