#include "train/report/metrics_log.h"

#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"

namespace embed {
namespace {

// JSON has no NaN or infinity: a diverged loss is written as null.
std::string number(double value) { return std::isfinite(value) ? fmt::format("{}", value) : "null"; }

}  // namespace

MetricsLog::MetricsLog(const std::string& path, unsigned epochs, std::string_view unit)
    : path_(path), epochs_(epochs), unit_(unit), file_(std::fopen(path.c_str(), "w")) {
  if (!file_) fail("--metrics: cannot write {}: {}", path, std::strerror(errno));
}

MetricsLog::~MetricsLog() { std::fclose(file_); }

void MetricsLog::progress(const TrainProgress& p, double per_second) {
  if (last_tick_ >= 0 && p.seconds - last_tick_ < 1.0) return;
  last_tick_ = p.seconds;
  write("progress", p, per_second);
}

void MetricsLog::epoch(const TrainProgress& p, double per_second, std::uint64_t peak_rss, const EpochTraffic* gpu) {
  std::string more = fmt::format(",\"peak_rss\":{}", peak_rss);
  if (gpu) {
    more += fmt::format(
        ",\"resident_share\":{},\"to_gpu_per_item\":{},\"from_gpu_per_item\":{},\"gpu_memory\":{},"
        "\"gpu_wait_share\":{},\"row_copy_share\":{},\"kernel_share\":{},\"batch_in_s\":{},\"batch_queued_s\":{},"
        "\"batch_kernel_s\":{},\"batch_out_s\":{}",
        number(gpu->resident_share), number(gpu->to_gpu_per_item), number(gpu->from_gpu_per_item), gpu->gpu_bytes,
        number(gpu->gpu_wait_share), number(gpu->row_copy_share), number(gpu->kernel_share), number(gpu->batch_in_s),
        number(gpu->batch_queued_s), number(gpu->batch_kernel_s), number(gpu->batch_out_s));
  }
  write("epoch", p, per_second, more);
}

void MetricsLog::write(std::string_view event, const TrainProgress& p, double per_second, std::string_view more) {
  const std::string line = fmt::format(
      "{{\"event\":\"{}\",\"time\":{:.3f},\"epoch\":{},\"epochs\":{},\"unit\":\"{}\",\"done\":{},\"per_second\":{},"
      "\"lr\":{},\"loss\":{},\"examples\":{}{}}}\n",
      event, p.seconds, p.epoch + 1, epochs_, unit_, p.items_this_run, number(per_second), number(p.learning_rate),
      number(p.loss), p.examples, more);
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0) {
    fail("--metrics: cannot write {}: {}", path_, std::strerror(errno));
  }
}

}  // namespace embed
