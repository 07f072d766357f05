#include "train/report/epoch_reporter.h"

#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace embed {

EpochReporter::EpochReporter(const Run& run, MetricsLog* metrics, PlotRecorder* plot, const TableTraffic* gpu_traffic)
    : run_(run),
      progress_("training", run.items_left, run.items),
      metrics_(metrics),
      plot_(plot),
      gpu_traffic_(gpu_traffic),
      epoch_items_start_(run.items_done) {}

void EpochReporter::progress(const TrainProgress& p) {
  const double per_second = p.seconds > 0 ? static_cast<double>(p.items_this_run) / p.seconds : 0;
  progress_.update(p.items_this_run,
                   fmt::format("epoch {}/{}, {}/s per thread, lr {:.3g}, {} {:.4f}", p.epoch + 1, run_.epochs,
                               human_count(per_second / run_.threads), p.learning_rate, run_.loss_name, p.loss));
  if (metrics_) metrics_->progress(p, per_second);
  if (plot_) plot_->progress(p);
}

void EpochReporter::epoch(const TrainProgress& p) {
  const double seconds = p.seconds - epoch_started_;
  const std::uint64_t done = p.items_done - epoch_items_start_;
  const double per_second = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  progress_.erase();
  // On a GPU the epoch's traffic follows (table_traffic.h), so that a user can size
  // --gpu-memory by it; rank 0's own, under mpirun. None where the run found a GPU but
  // trained on the CPU (--device auto with tables it cannot take).
  std::optional<EpochTraffic> traffic;
  std::string traffic_note;
  const TableTraffic::Counts now = gpu_traffic_ ? gpu_traffic_->counts() : TableTraffic::Counts{};
  if (now.row_touches > 0) {
    traffic = EpochTraffic::of(now - traffic_at_epoch_start_, done / run_.ranks, gpu_traffic_->gpu_bytes.load(),
                               seconds * run_.threads / run_.ranks, seconds);  // this rank's workers
    traffic_at_epoch_start_ = now;
    traffic_note = "; " + traffic->describe(run_.items);
  }
  const std::uint64_t peak_rss = peak_rss_bytes();
  spdlog::info("epoch {}/{}: {} {:.4f}, lr {:.3g}, {} {} in {:.1f} s, {} {}/s ({}/s per thread){}", p.epoch + 1, run_.epochs,
               run_.loss_name, p.loss, p.learning_rate, done, run_.items, seconds, human_count(per_second), run_.items,
               human_count(per_second / run_.threads), traffic_note);
  if (metrics_) metrics_->epoch(p, per_second, peak_rss, traffic ? &*traffic : nullptr);
  if (plot_) plot_->epoch(p);
  epoch_started_ = p.seconds;
  epoch_items_start_ = p.items_done;
}

}  // namespace embed
