#include "train/glove/record_source.h"

#include <algorithm>
#include <optional>

#include "core/error.h"

namespace embed {
namespace {

class MemoryRecords final : public RecordSource {
 public:
  MemoryRecords(std::vector<GloveRecord>& records, RecordShuffle shuffle, std::uint64_t seed, const RecordFileReader* file)
      : records_(records), shuffle_(shuffle), seed_(seed), file_(file) {
    if (!file_ && shuffle_ == RecordShuffle::full) epoch0_ = records_;
  }
  std::uint64_t size() const override { return file_ ? file_->records() : records_.size(); }

  void order_for(unsigned epoch) override {
    if (!loaded_) {
      if (records_.empty() && file_) load_epoch0();
      loaded_ = true;
    }
    if (epoch == epoch_) return;
    if (shuffle_ == RecordShuffle::blocks) {
      reorder_record_blocks(records_, seed_, epoch_, epoch);
    } else {
      load_epoch0();
      if (epoch > 0) shuffle_records(records_, seed_, epoch);
    }
    epoch_ = epoch;
  }

  std::span<const GloveRecord> read(unsigned, std::uint64_t first, std::uint64_t end) override {
    return std::span<const GloveRecord>(records_).subspan(first, end - first);
  }

 private:
  void load_epoch0() {
    if (file_) {
      records_.resize(file_->records());
      file_->read(0, records_);
    } else {
      records_ = *epoch0_;
    }
  }

  std::vector<GloveRecord>& records_;
  RecordShuffle shuffle_;
  std::uint64_t seed_;
  const RecordFileReader* file_;
  std::optional<std::vector<GloveRecord>> epoch0_;  // without a file, for full shuffles
  unsigned epoch_ = 0;                              // the order records_ holds
  bool loaded_ = false;
};

class StreamedRecords final : public RecordSource {
 public:
  StreamedRecords(const RecordFileReader& file, std::uint64_t seed, unsigned workers, std::size_t max_read)
      : file_(file), seed_(seed), max_read_(std::max<std::size_t>(max_read, 1)), buffers_(workers) {}
  std::uint64_t size() const override { return file_.records(); }
  void order_for(unsigned epoch) override { order_ = block_order(file_.records(), seed_, epoch); }

  std::span<const GloveRecord> read(unsigned worker, std::uint64_t first, std::uint64_t end) override {
    std::vector<GloveRecord>& buffer = buffers_[worker];
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end - first, max_read_));
    if (buffer.size() < n) buffer.resize(max_read_);
    const std::uint64_t in_blocks = order_.size() * kShuffleBlockRecords;  // the partial last block stays last
    for (std::size_t filled = 0; filled < n;) {
      const std::uint64_t at = first + filled;
      std::uint64_t from = at;
      std::size_t length = n - filled;
      if (at < in_blocks) {
        const std::uint64_t inside = at % kShuffleBlockRecords;
        from = order_[at / kShuffleBlockRecords] * kShuffleBlockRecords + inside;
        length = static_cast<std::size_t>(std::min<std::uint64_t>(length, kShuffleBlockRecords - inside));
      }
      file_.read(from, std::span(buffer).subspan(filled, length));
      filled += length;
    }
    return std::span<const GloveRecord>(buffer).first(n);
  }

 private:
  const RecordFileReader& file_;
  std::uint64_t seed_;
  std::size_t max_read_;
  std::vector<std::vector<GloveRecord>> buffers_;  // per worker
  std::vector<std::uint64_t> order_;               // the epoch's block order
};

}  // namespace

std::unique_ptr<RecordSource> memory_records(std::vector<GloveRecord>& records, RecordShuffle shuffle, std::uint64_t seed,
                                             const RecordFileReader* file) {
  return std::make_unique<MemoryRecords>(records, shuffle, seed, file);
}

std::unique_ptr<RecordSource> streamed_records(const RecordFileReader& file, std::uint64_t seed, unsigned workers,
                                               std::size_t max_read) {
  return std::make_unique<StreamedRecords>(file, seed, workers, max_read);
}

}  // namespace embed
