#include "core/progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace embed {

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 4) {
    bytes /= 1000;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} {}", bytes, units[unit]) : fmt::format("{:.3g} {}", bytes, units[unit]);
}

std::string counted(std::uint64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

std::string human_count(double count) {
  if (count < 10000) return fmt::format("{:.0f}", count);
  if (count < 1e6) return fmt::format("{:.1f}k", count / 1e3);
  return count < 1e9 ? fmt::format("{:.2f}M", count / 1e6) : fmt::format("{:.2f}G", count / 1e9);
}

Progress::Progress(std::string label, std::uint64_t total, std::string items)
    : label_(std::move(label)),
      total_(total),
      items_(std::move(items)),
      enabled_(::isatty(STDERR_FILENO) && spdlog::default_logger()->should_log(spdlog::level::info)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { finish(); }

std::string Progress::amount(double value) const {
  return items_.empty() ? human_bytes(value) : human_count(value);
}

void Progress::update(std::uint64_t done, const std::string& detail) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(250)) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  std::string line;
  if (total_ > 0 && done <= total_) {
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    line = fmt::format("{}: {:.0f}% {} of {}{}, {}/s, ETA {:.0f}s", label_,
                       100.0 * static_cast<double>(done) / static_cast<double>(total_), amount(static_cast<double>(done)),
                       amount(static_cast<double>(total_)), items_.empty() ? "" : " " + items_, amount(rate), eta);
  } else {
    line = fmt::format("{}: {}{}, {}/s", label_, amount(static_cast<double>(done)), items_.empty() ? "" : " " + items_,
                       amount(rate));
  }
  if (!detail.empty()) line += ", " + detail;
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::erase() {
  if (drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

void Progress::finish() {
  erase();
  enabled_ = false;
}

}  // namespace embed
