#include "train/ranks/rank_averaging.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"
#include "core/progress.h"

namespace embed {

std::vector<RowSpan> rows_of_round(std::uint64_t round, std::size_t rows, std::size_t hot_rows) {
  std::vector<RowSpan> spans;
  hot_rows = std::max<std::size_t>(hot_rows, 1);
  std::size_t end = std::min(rows, hot_rows);
  spans.push_back({0, end});
  for (std::uint64_t period = 2; end < rows; period *= 2) {
    const std::size_t band_end = std::min(rows, end * 2);
    if (round % period == 0) {
      if (spans.back().end == end) {
        spans.back().end = band_end;  // adjoining: one range
      } else {
        spans.push_back({end, band_end});
      }
    }
    end = band_end;
  }
  return spans;
}

RankAgreement agree(Cluster& job, const RankReport& report) {
  std::uint64_t counters[3] = {report.workers_done ? 0u : 1u, report.stop ? 1u : 0u, report.epoch_items};
  // A rank whose workers are done waits here for the others' next round, asleep.
  job.sum_round(counters, report.workers_done);
  RankAgreement agreed;
  agreed.all_done = counters[0] == 0;
  agreed.stop = counters[1] > 0;
  agreed.epoch_items = counters[2];
  return agreed;
}

std::function<RankAgreement(const RankReport&)> rank_sync(Cluster& job, RankAveraging& averaging) {
  return [&job, &averaging](const RankReport& report) {
    const RankAgreement agreed = agree(job, report);
    if (agreed.all_done) {
      averaging.all();
    } else {
      averaging.round();
    }
    return agreed;
  };
}

RankAveraging::RankAveraging(Cluster& job, std::vector<RowMatrix*> tables, std::size_t hot_rows, std::size_t first_settled_only,
                             std::size_t shared_floats, std::size_t shared_rows)
    : job_(job),
      tables_(std::move(tables)),
      hot_rows_(hot_rows),
      first_settled_only_(first_settled_only),
      shared_floats_(shared_floats > 0 ? shared_floats : tables_.at(0)->dim()),
      shared_rows_(shared_rows) {
  EMBED_ASSERT(shared_floats_ <= tables_[0]->dim());
  EMBED_ASSERT(!tables_.empty());
  for (const RowMatrix* t : tables_) {
    EMBED_ASSERT(t->dim() == tables_[0]->dim());
    bases_.emplace_back(std::min(t->rows(), shared_rows_), t->dim());
    std::memcpy(bases_.back().data(), t->data(), bases_.back().span().size_bytes());
  }
}

std::size_t RankAveraging::most_rows() const {
  std::size_t rows = 0;
  for (const RowMatrix* t : tables_) rows = std::max(rows, t->rows());
  return std::min(rows, shared_rows_);
}

void RankAveraging::round() {
  ++round_;
  for (const RowSpan& span : rows_of_round(round_, most_rows(), hot_rows_)) average(span.first, span.end, false);
}

void RankAveraging::all() { average(0, most_rows(), true); }

void RankAveraging::average(std::size_t first, std::size_t end, bool settled) {
  if (job_.size() < 2 || first >= end) return;
  const auto start = std::chrono::steady_clock::now();
  const std::size_t dim = shared_floats_;
  const std::size_t tables = settled ? tables_.size() : std::min(tables_.size(), first_settled_only_);
  // Each table's rows of [first, end), and where they go in the buffers: the tables may
  // differ in rows (--subwords' input table has the buckets' after the vocabulary's).
  std::vector<std::size_t> ends(tables), at(tables + 1, 0);
  for (std::size_t t = 0; t < tables; ++t) {
    ends[t] = std::max(first, std::min(end, bases_[t].rows()));
    at[t + 1] = at[t] + (ends[t] - first) * dim;
  }
  if (home_) {
    for (std::size_t t = 0; t < tables; ++t) {
      if (ends[t] > first) home_->rows_to_host(*tables_[t], first, ends[t]);
    }
  }
  // What this rank learned since the rows were last shared: row - base.
  sent_.resize(at[tables]);
  for (std::size_t t = 0; t < tables; ++t) {
    for (std::size_t r = first; r < ends[t]; ++r) {
      const float* row = tables_[t]->row(r);
      const float* base = bases_[t].row(r);
      float* mine = sent_.data() + at[t] + (r - first) * dim;
      for (std::size_t x = 0; x < dim; ++x) mine[x] = row[x] - base[x];
    }
  }
  summed_ = sent_;
  job_.sum(summed_);
  for (std::size_t t = 0; t < tables; ++t) {
    if (ends[t] == first) continue;
    const std::size_t stride = tables_[t]->stride();
    if (home_ && !settled) added_.assign((ends[t] - first) * stride, 0.0f);
    for (std::size_t r = first; r < ends[t]; ++r) {
      float* row = tables_[t]->row(r);
      float* base = bases_[t].row(r);
      const float* mine = sent_.data() + at[t] + (r - first) * dim;
      const float* sum = summed_.data() + at[t] + (r - first) * dim;
      float* added = home_ && !settled ? added_.data() + (r - first) * stride : nullptr;
      for (std::size_t x = 0; x < dim; ++x) {
        base[x] += sum[x];  // the same bits on every rank
        // Settled, the row is the new base; while workers run, this rank's updates made
        // during the exchange stay on top of it.
        row[x] = settled ? base[x] : row[x] + (sum[x] - mine[x]);
        if (added) added[x] = sum[x] - mine[x];
      }
    }
    // The rows' other home gets the other ranks' updates on top of its own (while workers
    // run), or the settled rows.
    if (home_ && !settled) home_->add_to_rows(*tables_[t], first, ends[t], added_);
    if (home_ && settled) home_->rows_from_host(*tables_[t], first, ends[t]);
  }
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string RankAveraging::summary() const {
  return fmt::format("{} rounds between the ranks ({:.2f} s of sharing), {} sent by this rank ({} bytes)", round_, seconds_,
                     human_bytes(static_cast<double>(job_.bytes_sent())), job_.bytes_sent());
}

}  // namespace embed
