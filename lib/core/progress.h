// A progress line on stderr ("reading vectors.txt: 42% 480 MB of 1.1 GB, 610 MB/s, ETA 1s"),
// shown only when stderr is a terminal and logging is at info level or more verbose,
// refreshed at most a few times a second and erased when done.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace embed {

class Progress {
 public:
  // total: the amount expected, in bytes, or 0 when unknown.
  Progress(std::string label, std::uint64_t total);
  ~Progress();
  void update(std::uint64_t done);
  void finish();

 private:
  std::string label_;
  std::uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "1.1 GB", "480 MB", "12 kB": for messages.
std::string human_bytes(double bytes);

}  // namespace embed
