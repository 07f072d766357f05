// A progress line on stderr ("reading vectors.txt: 42% 480 MB of 1.1 GB, 610 MB/s, ETA 1s"),
// shown only when stderr is a terminal and logging is at info level or more verbose,
// refreshed at most a few times a second and erased when done.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace embed {

class Progress {
 public:
  // total: the amount expected, or 0 when unknown; in bytes, or in `items` ("questions")
  // when given, shown as counts ("1200 of 19544 questions, 950/s").
  Progress(std::string label, std::uint64_t total, std::string items = "");
  ~Progress();
  // `detail` ("lr 0.0213, loss 2.41") is appended to the line.
  void update(std::uint64_t done, const std::string& detail = "");
  // Clears the line, for a log message; the next update draws it again.
  void erase();
  void finish();

 private:
  std::string amount(double value) const;
  std::string label_;
  std::uint64_t total_;
  std::string items_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "1.1 GB", "480 MB", "12 kB": for messages.
std::string human_bytes(double bytes);
// "950", "12.3k", "4.56M", "1.17G": counts and rates for messages.
std::string human_count(double count);
// "1 word", "2 words": `count` and `noun`, made plural by an "s" unless there is one.
std::string counted(std::uint64_t count, std::string_view noun);

}  // namespace embed
