// Random numbers for training: xoshiro256** streams seeded through SplitMix64.
// Small, fast, and with a state of four words that a checkpoint can store, so that a
// resumed run draws exactly the numbers an uninterrupted one would have.
#pragma once

#include <array>
#include <cstdint>

namespace embed {

// SplitMix64: turns (seed, stream) pairs into well-mixed starting states.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Random {
 public:
  using State = std::array<std::uint64_t, 4>;

  // Stream `stream` of seed `seed`: different streams are independent for our purposes.
  Random(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t mix = seed ^ (stream * 0xD1B54A32D192ED03ull);
    for (auto& word : state_) word = splitmix64(mix);
  }
  explicit Random(const State& state) : state_(state) {}

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  std::uint32_t next32() { return static_cast<std::uint32_t>(next() >> 32); }
  // Uniform in [0, bound) by Lemire's multiply-shift (bias below 2^-32 for our bounds).
  std::uint32_t below(std::uint32_t bound) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(next32()) * bound) >> 32);
  }
  // Uniform in [0, 1).
  float uniform() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }

  const State& state() const { return state_; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  State state_;
};

}  // namespace embed
