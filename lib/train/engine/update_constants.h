// The constants of the update rules that the CPU backends and the CUDA kernels share.
// Plain constexpr values with no includes, valid C++17, so that the .cu files (compiled
// as C++17 by nvcc) include this header instead of copying the numbers by hand.
#pragma once

namespace embed {

// GloVe's gradient clip, as Stanford GloVe's (a gradient beyond ±100 is cut to it).
inline constexpr float kGloveGradientClip = 100.0f;
// AdaGrad's accumulators start at 1, as Stanford GloVe's do (update_rules.h says why the
// tables hold the sum without it).
inline constexpr float kAdagradStart = 1.0f;

}  // namespace embed
