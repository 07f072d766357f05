#include "train/glove/record_shuffler.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/file_io.h"
#include "core/progress.h"
#include "train/glove/record_order.h"

namespace embed {
namespace {

// Buckets are at most this many (one open file each, under the usual limit of 1024),
// and aim at this share of the budget each (their sizes vary a little around the mean).
constexpr std::uint64_t kMaxBuckets = 512;
constexpr double kBucketShare = 0.6;
// The buckets' write buffers share this part of the budget.
constexpr double kShuffleBufferShare = 0.1;

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

// A bucket file: anonymous, written through a buffer, read back whole.
struct RecordShuffler::Bucket {
  int fd = -1;
  std::uint64_t records = 0;  // written to the file
  std::vector<GloveRecord> buffer;
  ~Bucket() {
    if (fd >= 0) ::close(fd);
  }
};

RecordShuffler::RecordShuffler(std::string path, std::uint64_t rows, std::uint64_t seed, std::uint64_t memory_bytes)
    : path_(std::move(path)), rows_(rows), seed_(seed), memory_bytes_(memory_bytes), pick_(seed, 0x3200000000ull) {}

RecordShuffler::~RecordShuffler() = default;

void RecordShuffler::expect(std::uint64_t at_most) {
  at_most_ = at_most;
  // Address space only: pages are touched as records come.
  collected_.reserve(static_cast<std::size_t>(std::min(at_most, memory_bytes_ / sizeof(GloveRecord))));
}

void RecordShuffler::add(const GloveRecord& record) {
  if (buckets_.empty()) {
    if ((collected_.size() + 1) * sizeof(GloveRecord) <= memory_bytes_) {
      collected_.push_back(record);
      return;
    }
    scatter_collected();
  }
  Bucket& bucket = *buckets_[pick_.below(static_cast<std::uint32_t>(buckets_.size()))];
  bucket.buffer.push_back(record);
  if (bucket.buffer.size() == buffer_records_) flush(bucket);
}

void RecordShuffler::scatter_collected() {
  const std::uint64_t expected = std::max<std::uint64_t>(at_most_, 2 * collected_.size());
  const double bucket_bytes = kBucketShare * static_cast<double>(memory_bytes_);
  const auto wanted = static_cast<std::uint64_t>(static_cast<double>(expected * sizeof(GloveRecord)) / bucket_bytes) + 1;
  const std::uint64_t count = std::clamp<std::uint64_t>(wanted, 2, kMaxBuckets);
  buffer_records_ = std::clamp<std::size_t>(static_cast<std::size_t>(kShuffleBufferShare * static_cast<double>(memory_bytes_) /
                                                                     static_cast<double>(count * sizeof(GloveRecord))),
                                            256, 16384);
  spdlog::info("the co-occurrence records exceed the {} left for them: shuffling them on disk in {} pieces beside {}",
               human_bytes(static_cast<double>(memory_bytes_)), count, path_);
  const std::string directory = directory_of(path_);
  for (std::uint64_t b = 0; b < count; ++b) {
    auto bucket = std::make_unique<Bucket>();
    std::string name = directory + "/.embed-records-XXXXXX";
    bucket->fd = ::mkstemp(name.data());
    if (bucket->fd < 0) fail("{}: cannot create a temporary file to shuffle records in: {}", directory, std::strerror(errno));
    ::unlink(name.c_str());
    bucket->buffer.reserve(buffer_records_);
    buckets_.push_back(std::move(bucket));
  }
  std::vector<GloveRecord> collected = std::move(collected_);
  collected_ = {};
  for (const GloveRecord& record : collected) add(record);
}

void RecordShuffler::flush(Bucket& bucket) {
  write_all(bucket.fd, bucket.buffer.data(), bucket.buffer.size() * sizeof(GloveRecord), std::nullopt,
            directory_of(path_) + " (records to shuffle)");
  bucket.records += bucket.buffer.size();
  bucket.buffer.clear();
}

RecordShuffler::Result RecordShuffler::finish(std::vector<GloveRecord>& kept) {
  RecordFileWriter writer(path_, rows_);
  Result result;
  if (buckets_.empty()) {
    shuffle_records(collected_, seed_, 0);
    writer.append(collected_);
    result.file = writer.finish();
    result.in_memory = true;
    kept = std::move(collected_);
    collected_ = {};
    return result;
  }
  std::uint64_t total = 0, largest = 0;
  for (auto& bucket : buckets_) {
    flush(*bucket);
    bucket->buffer = {};
    total += bucket->records;
    largest = std::max(largest, bucket->records);
  }
  if (largest * sizeof(GloveRecord) > memory_bytes_) {
    spdlog::warn("a piece of the records to shuffle holds {}, more than the {} left for them",
                 human_bytes(static_cast<double>(largest * sizeof(GloveRecord))),
                 human_bytes(static_cast<double>(memory_bytes_)));
  }
  Progress progress("shuffling co-occurrence records", total, "records");
  std::vector<GloveRecord> piece(static_cast<std::size_t>(largest));
  std::uint64_t done = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = *buckets_[b];
    const std::span<GloveRecord> records(piece.data(), static_cast<std::size_t>(bucket.records));
    if (read_at(bucket.fd, records.data(), records.size_bytes(), 0, directory_of(path_)) != records.size_bytes()) {
      fail("{}: cannot read back records to shuffle: a piece is shorter than written", directory_of(path_));
    }
    Random random(seed_, 0x3300000000ull + b);
    shuffle_records(records, random);
    writer.append(records);
    buckets_[b].reset();  // its disk space goes now
    done += records.size();
    progress.update(done);
  }
  progress.finish();
  result.file = writer.finish();
  result.buckets = buckets_.size();
  buckets_.clear();
  return result;
}

}  // namespace embed
