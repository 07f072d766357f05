#include "train/shards/sharded_tables.h"

#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "core/atomic_output.h"
#include "core/error.h"
#include "format/tensor_file.h"

namespace embed {
namespace {

constexpr const char* kShardFormat = "embed-train checkpoint shard";
constexpr const char* kShardVersion = "1";
// Rows rank 0 asks for at a time while it writes the vectors: a few MB at dim 300.
constexpr std::uint64_t kBlockRows = 4096;

template <typename T>
std::vector<char> bytes_of_vector(const std::vector<T>& values) {
  std::vector<char> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> values_of_bytes(const std::vector<char>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// The element-wise loops of a round, over a table's row and a message's (never the same
// memory: restrict lets the compiler vectorise them).
void change_since(const float* __restrict now, float* __restrict then, std::size_t n) {
  for (std::size_t x = 0; x < n; ++x) then[x] = now[x] - then[x];
}
void add_to(float* __restrict row, const float* __restrict change, std::size_t n) {
  for (std::size_t x = 0; x < n; ++x) row[x] += change[x];
}
// Asks for a row's cache lines ahead of its use.
void prefetch_row(const float* row, std::size_t floats) {
  for (std::size_t x = 0; x < floats; x += 16) __builtin_prefetch(row + x);
}

}  // namespace

ShardedTables::ShardedTables(Cluster& job, std::uint64_t rows, const Word2vecLayout& layout, std::size_t hot_rows)
    : job_(job), rows_(rows), layout_(layout), width_(layout.width()), hot_(std::min<std::uint64_t>(hot_rows, rows)) {
  EMBED_ASSERT(rows > 0 && rows < kPending);
  if (tail_rows() > 0) {
    shards_.emplace(tail_rows(), job.size(), job.rank());
    share_ = shards_->share(job.rank());
  }
  // The round's rows are sized for the worst case, every row owned elsewhere, and cost
  // only the pages a round writes (RowMatrix::untouched).
  const std::uint64_t remote = tail_rows() - share_;
  for (int t = 0; t < 2; ++t) {
    tables_[t] = RowMatrix::untouched(hot_ + share_ + remote, width_);
    local_of_[t].assign(rows_, kNone);
    wanted_[t].resize(job.size());
    asked_[t].resize(job.size());
  }
}

std::uint64_t ShardedTables::held_bytes() const { return 2 * (hot_ + share_) * tables_[0].row_bytes(); }

void ShardedTables::init_fresh(std::uint64_t seed) {
  const OptimizerSpec& spec = optimizer_spec(layout_.optimizer);
  const std::size_t padded = layout_.padded();
  for (std::uint64_t local = 0; local < hot_ + share_; ++local) {
    const std::uint64_t g = local < hot_ ? local : hot_ + shards_->row_at(job_.rank(), local - hot_);
    init_uniform_row(tables_[0].row(local), layout_.dim, seed, g);
    std::fill_n(tables_[1].row(local), width_, 0.0f);
    if (layout_.state() > 0) {
      for (int t = 0; t < 2; ++t) spec.init_state(tables_[t].row(local) + padded, padded);
    }
  }
  share_hot_rows();
}

void ShardedTables::share_hot_rows() {
  // The vectors alone: the optimizer's state stays each rank's (a round's mean for the
  // rows owned elsewhere covers the others').
  hot_sums_.emplace(job_, std::vector<RowMatrix*>{&tables_[0], &tables_[1]}, hot_, SIZE_MAX, layout_.dim, hot_);
}

void ShardedTables::note_touched(int t, std::uint32_t g) {
  if (g < hot_ || local_of_[t][g] != kNone) return;
  touched_[t].push_back(g);
  const std::uint64_t tail = g - hot_;
  const unsigned owner = shards_->owner(tail);
  if (owner == job_.rank()) {
    local_of_[t][g] = static_cast<std::uint32_t>(hot_ + shards_->slot(tail) + 1);
  } else {
    local_of_[t][g] = kPending;
    wanted_[t][owner].push_back(g);
  }
}

void ShardedTables::fetch(std::span<WindowBatch* const> batches) {
  const unsigned ranks = job_.size();
  for (const WindowBatch* batch : batches) {
    for (std::uint32_t g : batch->inputs) note_touched(0, g);
    for (std::uint32_t g : batch->targets) note_touched(1, g);
    for (std::uint32_t g : batch->negatives) note_touched(1, g);
  }
  // The rows owned elsewhere take the round's rows in order of owner, then of first touch.
  std::vector<std::vector<char>> requests(ranks);
  for (int t = 0; t < 2; ++t) {
    std::uint64_t next = hot_ + share_;
    for (unsigned r = 0; r < ranks; ++r) {
      for (std::uint32_t g : wanted_[t][r]) local_of_[t][g] = static_cast<std::uint32_t>(++next);
    }
    traffic_.rows_touched += touched_[t].size();
    traffic_.rows_fetched += next - hot_ - share_;
  }
  // Each owner is asked for its rows: [input ids, output ids], the counts first.
  for (unsigned r = 0; r < ranks; ++r) {
    if (r == job_.rank()) continue;
    std::vector<std::uint32_t> ids = {static_cast<std::uint32_t>(wanted_[0][r].size()),
                                      static_cast<std::uint32_t>(wanted_[1][r].size())};
    ids.insert(ids.end(), wanted_[0][r].begin(), wanted_[0][r].end());
    ids.insert(ids.end(), wanted_[1][r].begin(), wanted_[1][r].end());
    requests[r] = bytes_of_vector(ids);
    traffic_.bytes_sent += requests[r].size();
  }
  const std::vector<std::vector<char>> asked = timed([&] { return job_.all_to_all(std::move(requests)); });
  // The rows asked for, from this rank's own.
  std::vector<std::vector<char>> replies(ranks);
  const std::size_t padded = layout_.padded(), state = width_ - padded;
  for (int t = 0; t < 2; ++t) {
    asked_at_[t].clear();
    sent_state_[t].clear();
  }
  for (unsigned r = 0; r < ranks; ++r) {
    asked_[0][r].clear();
    asked_[1][r].clear();
    if (r == job_.rank()) continue;
    const auto ids = values_of_bytes<std::uint32_t>(asked[r]);
    EMBED_ASSERT(ids.size() >= 2 && ids.size() == 2 + std::size_t{ids[0]} + ids[1]);
    asked_[0][r].assign(ids.begin() + 2, ids.begin() + 2 + ids[0]);
    asked_[1][r].assign(ids.begin() + 2 + ids[0], ids.end());
    std::vector<char>& reply = replies[r];
    reply.resize((asked_[0][r].size() + asked_[1][r].size()) * width_ * sizeof(float));
    char* at = reply.data();
    for (int t = 0; t < 2; ++t) {
      const std::vector<std::uint32_t>& rows = asked_[t][r];
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::uint32_t g = rows[i];
        EMBED_ASSERT(g >= hot_ && g < rows_ && shards_->owned(g - hot_));
        if (i + 1 < rows.size()) prefetch_row(tables_[t].row(hot_ + shards_->slot(rows[i + 1] - hot_)), width_);
        const float* row = tables_[t].row(hot_ + shards_->slot(g - hot_));
        std::memcpy(at, row, width_ * sizeof(float));
        at += width_ * sizeof(float);
        if (state > 0 && asked_at_[t].emplace(g, static_cast<std::uint32_t>(asked_at_[t].size())).second) {
          sent_state_[t].insert(sent_state_[t].end(), row + padded, row + width_);
        }
      }
    }
    traffic_.bytes_sent += reply.size();
  }
  // The rows as fetched stay in fetched_ (one buffer an owner) until push() turns them
  // into their changes, in place.
  fetched_ = timed([&] { return job_.all_to_all(std::move(replies)); });
  for (unsigned r = 0; r < ranks; ++r) {
    if (r == job_.rank()) continue;
    EMBED_ASSERT(fetched_[r].size() == (wanted_[0][r].size() + wanted_[1][r].size()) * width_ * sizeof(float));
    const char* at = fetched_[r].data();
    for (int t = 0; t < 2; ++t) {
      for (std::uint32_t g : wanted_[t][r]) {
        std::memcpy(tables_[t].row(local_of_[t][g] - 1), at, width_ * sizeof(float));
        at += width_ * sizeof(float);
      }
    }
  }
  // The batches in local rows.
  for (WindowBatch* batch : batches) {
    for (std::uint32_t& g : batch->inputs) g = local_row(0, g);
    for (std::uint32_t& g : batch->targets) g = local_row(1, g);
    for (std::uint32_t& g : batch->negatives) g = local_row(1, g);
  }
}

void ShardedTables::push() {
  const unsigned ranks = job_.size();
  // Each fetched row's change, to its owner, in the order it was fetched: written over
  // the row as fetched.
  for (unsigned r = 0; r < ranks; ++r) {
    if (r == job_.rank()) continue;
    auto* then = reinterpret_cast<float*>(fetched_[r].data());
    for (int t = 0; t < 2; ++t) {
      for (std::uint32_t g : wanted_[t][r]) {
        const float* now = tables_[t].row(local_of_[t][g] - 1);
        change_since(now, then, width_);
        then += width_;
      }
    }
    traffic_.bytes_sent += fetched_[r].size();
  }
  const std::vector<std::vector<char>> received = timed([&] { return job_.all_to_all(std::move(fetched_)); });
  fetched_.clear();
  // Added in rank order: the same sums on every run. The vectors' changes are added; the
  // states' are summed apart, for their mean below.
  const std::size_t padded = layout_.padded(), state = width_ - padded;
  for (int t = 0; t < 2; ++t) {
    state_changes_[t].assign(sent_state_[t].size(), 0.0f);
    changed_by_[t].assign(asked_at_[t].size(), 0);
  }
  for (unsigned r = 0; r < ranks; ++r) {
    if (r == job_.rank()) continue;
    EMBED_ASSERT(received[r].size() == (asked_[0][r].size() + asked_[1][r].size()) * width_ * sizeof(float));
    const auto* delta = reinterpret_cast<const float*>(received[r].data());
    for (int t = 0; t < 2; ++t) {
      const std::vector<std::uint32_t>& rows = asked_[t][r];
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::uint32_t g = rows[i];
        // The rows are scattered over the table: the next one's first lines are fetched
        // while this one is added (the loop waited on those loads most of its time).
        if (i + 1 < rows.size()) prefetch_row(tables_[t].row(hot_ + shards_->slot(rows[i + 1] - hot_)), width_);
        float* row = tables_[t].row(hot_ + shards_->slot(g - hot_));
        add_to(row, delta, padded);
        if (state > 0) {
          const std::uint32_t at = asked_at_[t].at(g);
          float* sum = state_changes_[t].data() + std::size_t{at} * state;
          for (std::size_t x = 0; x < state; ++x) sum[x] += delta[padded + x];
          ++changed_by_[t][at];
        }
        delta += width_;
      }
    }
  }
  // Each asked row's state: the mean of the changes of the ranks that trained it this
  // round, the owner among them when it did (its own change is in the row already); or
  // their sum where the state is a sum of steps (AdaGrad's), as the vectors are summed.
  const bool state_is_sum = optimizer_spec(layout_.optimizer).concurrent;
  for (int t = 0; t < 2; ++t) {
    for (const auto& [g, at] : asked_at_[t]) {
      float* row = tables_[t].row(hot_ + shards_->slot(g - hot_)) + padded;
      const float* sent = sent_state_[t].data() + std::size_t{at} * state;
      const float* sum = state_changes_[t].data() + std::size_t{at} * state;
      const bool owner_trained = local_of_[t][g] != kNone;
      const float trained = state_is_sum ? 1.0f : static_cast<float>(changed_by_[t][at] + (owner_trained ? 1 : 0));
      for (std::size_t x = 0; x < state; ++x) row[x] = sent[x] + (row[x] - sent[x] + sum[x]) / trained;
    }
  }
  for (int t = 0; t < 2; ++t) {
    for (std::uint32_t g : touched_[t]) local_of_[t][g] = kNone;
    touched_[t].clear();
    for (auto& rows : wanted_[t]) rows.clear();
  }
  sum_hot_rows();
  ++traffic_.rounds;
}

// As data-parallel ranks settle their rows (RankAveraging::all): each rank sends what its
// hot rows' vectors learned since they were last summed, and every rank adds everyone's to
// the same base. A GPU's copy of them is read before and set after (no worker runs).
void ShardedTables::sum_hot_rows() {
  if (hot_ == 0 || job_.size() == 1) return;  // one rank: its rows are the tables
  EMBED_ASSERT(hot_sums_.has_value());         // init_fresh or load_shard made it
  if (home_) {
    for (int t = 0; t < 2; ++t) home_->rows_to_host(tables_[t], 0, hot_);
  }
  timed([&] { hot_sums_->all(); });
  const std::uint64_t handed = 2 * std::uint64_t{hot_} * layout_.dim * sizeof(float);
  traffic_.bytes_sent += handed;
  traffic_.hot_bytes += handed;
  if (home_) {
    for (int t = 0; t < 2; ++t) home_->rows_from_host(tables_[t], 0, hot_);
  }
}

// Rank 0's request: [table, first row], table 2 ending the reading.
void ShardedTables::load_block(int t, std::uint64_t first) {
  const std::vector<std::uint64_t> request = {static_cast<std::uint64_t>(t), first};
  (void)job_.all_gather(bytes_of_vector(request));
  std::vector<std::vector<char>> nothing(job_.size());
  const std::vector<std::vector<char>> received = job_.all_to_all(std::move(nothing));
  const std::uint64_t end = std::min(rows_, first + kBlockRows);
  block_.resize((end - first) * width_);
  std::vector<std::size_t> read(job_.size(), 0);  // bytes of each rank's answer used
  for (std::uint64_t g = first; g < end; ++g) {
    float* out = block_.data() + (g - first) * width_;
    if (g < hot_) {
      std::copy_n(tables_[t].row(g), width_, out);
      continue;
    }
    const unsigned owner = shards_->owner(g - hot_);
    if (owner == job_.rank()) {
      std::copy_n(tables_[t].row(hot_ + shards_->slot(g - hot_)), width_, out);
      continue;
    }
    const std::size_t bytes = width_ * sizeof(float);
    EMBED_ASSERT(read[owner] + bytes <= received[owner].size());
    std::memcpy(out, received[owner].data() + read[owner], bytes);
    read[owner] += bytes;
  }
  block_table_ = t;
  block_first_ = first;
}

ShardedTables::RowReader ShardedTables::root_reader(bool input_table, std::size_t column, std::size_t dim) {
  EMBED_ASSERT(job_.is_root() && column + dim <= width_);
  const int t = input_table ? 0 : 1;
  return [this, t, column, dim](std::size_t row, float* out) {
    EMBED_ASSERT(row < rows_);
    if (block_table_ != t || row < block_first_ || row >= block_first_ + kBlockRows) load_block(t, row / kBlockRows * kBlockRows);
    std::copy_n(block_.data() + (row - block_first_) * width_ + column, dim, out);
  };
}

void ShardedTables::end_reading() {
  EMBED_ASSERT(job_.is_root());
  const std::vector<std::uint64_t> request = {2, 0};
  (void)job_.all_gather(bytes_of_vector(request));
  block_table_ = -1;
  block_.clear();
  block_.shrink_to_fit();
}

void ShardedTables::serve() {
  EMBED_ASSERT(!job_.is_root());
  for (;;) {
    const std::vector<std::vector<char>> requests = job_.all_gather({});
    const auto request = values_of_bytes<std::uint64_t>(requests[0]);
    EMBED_ASSERT(request.size() == 2 && request[0] <= 2);
    if (request[0] == 2) return;
    const auto t = static_cast<int>(request[0]);
    const std::uint64_t first = request[1], end = std::min(rows_, first + kBlockRows);
    std::vector<float> rows;
    for (std::uint64_t g = std::max<std::uint64_t>(first, hot_); g < end; ++g) {
      if (!shards_->owned(g - hot_)) continue;
      const float* row = tables_[t].row(hot_ + shards_->slot(g - hot_));
      rows.insert(rows.end(), row, row + width_);
    }
    std::vector<std::vector<char>> to_each(job_.size());
    to_each[0] = bytes_of_vector(rows);
    (void)job_.all_to_all(std::move(to_each));
  }
}

void ShardedTables::save_shard(const std::string& path, const std::string& id) const {
  const std::uint64_t held = hot_ + share_;
  std::vector<TensorBlob> blobs;
  for (int t = 0; t < 2; ++t) {
    const auto bytes = tables_[t].bytes().first(held * tables_[t].row_bytes());
    blobs.push_back({t == 0 ? "input" : "output", DType::f32, {held, width_}, bytes});
  }
  std::map<std::string, std::string> metadata = {
      {"checkpoint", id},
      {"rank", std::to_string(job_.rank())},
      {"ranks", std::to_string(job_.size())},
      {"rows", std::to_string(rows_)},
      {"hot_rows", std::to_string(hot_)},
  };
  AtomicOutput out(path);
  write_tensor_file(out, kShardFormat, kShardVersion, blobs, std::move(metadata));
}

void ShardedTables::load_shard(const std::string& path, const std::string& id) {
  const TensorFileReader r(path, kShardFormat, kShardVersion, "checkpoint shard");
  if (r.meta("checkpoint") != id) fail("{}: this shard belongs to another checkpoint than its manifest names", path);
  if (r.meta_uint("rank") != job_.rank() || r.meta_uint("ranks") != job_.size() || r.meta_uint("rows") != rows_ ||
      r.meta_uint("hot_rows") != hot_) {
    fail("{}: the shard is rank {} of {} with {} rows ({} hot), not rank {} of {} with {} ({})", path, r.meta("rank"),
         r.meta("ranks"), r.meta("rows"), r.meta("hot_rows"), job_.rank(), job_.size(), rows_, hot_);
  }
  const std::uint64_t held = hot_ + share_;
  for (int t = 0; t < 2; ++t) {
    const auto bytes = r.tensor(t == 0 ? "input" : "output", DType::f32, held * width_);
    for (std::uint64_t local = 0; local < held; ++local) {
      std::memcpy(tables_[t].row(local), bytes.data() + local * width_ * sizeof(float), width_ * sizeof(float));
    }
  }
  // The hot rows are equal on every rank when a checkpoint is taken: the base for the sums.
  share_hot_rows();
}

}  // namespace embed
