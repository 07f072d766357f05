// GloVe's records on disk: the shuffler's file holds every record once, in a random
// order, shuffled in memory or through bucket files alike; an epoch's order from memory
// equals the same epoch streamed from disk; a damaged, changed or foreign records file
// is refused with its name.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "test_util.h"
#include "train/glove/record_file.h"
#include "train/glove/record_order.h"
#include "train/glove/record_shuffler.h"
#include "train/glove/record_source.h"

using namespace embed;

namespace {

// Records numbered by their row (and column, past 2^16), sorted as the merge gives them.
std::vector<GloveRecord> numbered(std::size_t n) {
  std::vector<GloveRecord> records(n);
  for (std::size_t i = 0; i < n; ++i) {
    records[i] = {static_cast<std::uint32_t>(i % 1000), static_cast<std::uint32_t>(i / 1000), static_cast<float>(i), 1};
  }
  return records;
}

std::uint64_t number(const GloveRecord& r) { return static_cast<std::uint64_t>(r.log_count); }

RecordShuffler::Result shuffle(const std::string& path, const std::vector<GloveRecord>& records, std::uint64_t budget,
                               std::vector<GloveRecord>& kept, std::uint64_t seed = 7) {
  RecordShuffler shuffler(path, 1000, seed, budget);
  shuffler.expect(records.size());
  for (const GloveRecord& r : records) shuffler.add(r);
  return shuffler.finish(kept);
}

std::vector<GloveRecord> read_all(const RecordFileInfo& info) {
  const RecordFileReader reader(info, 1000);
  std::vector<GloveRecord> out(reader.records());
  reader.read(0, out);
  return out;
}

std::vector<std::uint64_t> numbers(std::span<const GloveRecord> records) {
  std::vector<std::uint64_t> out;
  for (const GloveRecord& r : records) out.push_back(number(r));
  return out;
}

// Every record of 0..n-1 exactly once.
bool is_permutation_of_n(std::vector<std::uint64_t> numbers) {
  std::sort(numbers.begin(), numbers.end());
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    if (numbers[i] != i) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("records that fit the budget are shuffled in memory, kept, and written in the same order", "[glove]") {
  test::TempDir dir;
  const auto records = numbered(200000);
  std::vector<GloveRecord> kept;
  const auto result = shuffle(dir.file("r"), records, 1ull << 30, kept);
  REQUIRE(result.in_memory);
  CHECK(result.buckets == 0);
  CHECK(result.file.records == records.size());
  CHECK(result.file.size == kRecordFileHeaderBytes + records.size() * sizeof(GloveRecord));
  std::vector<GloveRecord> expected = records;
  shuffle_records(expected, 7, 0);  // the order counted records always took
  CHECK(numbers(kept) == numbers(expected));
  CHECK(numbers(read_all(result.file)) == numbers(expected));
}

TEST_CASE("records beyond the budget are shuffled through bucket files into one uniform order", "[glove]") {
  test::TempDir dir;
  const std::size_t n = 300000;  // 4.8 MB of records in 400 KB
  const auto records = numbered(n);
  std::vector<GloveRecord> kept;
  const auto result = shuffle(dir.file("r"), records, 400000, kept);
  REQUIRE_FALSE(result.in_memory);
  CHECK(kept.empty());
  CHECK(result.buckets >= 12);
  const auto order = numbers(read_all(result.file));
  REQUIRE(order.size() == n);
  CHECK(is_permutation_of_n(order));
  // Random, not blocks of the input: records next to each other in the file came from
  // far apart, and each tenth of the file draws from the whole input.
  std::size_t neighbours = 0;
  for (std::size_t i = 1; i < n; ++i) neighbours += (order[i] == order[i - 1] + 1);
  CHECK(neighbours < 100);
  for (std::size_t part = 0; part < 10; ++part) {
    double mean = 0;
    for (std::size_t i = part * n / 10; i < (part + 1) * n / 10; ++i) mean += static_cast<double>(order[i]);
    mean /= static_cast<double>(n / 10);
    CHECK(std::abs(mean - n / 2.0) < 0.02 * n);
  }
  // The same seed, the same file; the bucket files are gone (anonymous).
  std::vector<GloveRecord> kept_again;
  const auto again = shuffle(dir.file("r2"), records, 400000, kept_again);
  CHECK(numbers(read_all(again.file)) == order);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 2);
}

TEST_CASE("an epoch's records are the same in memory and streamed from disk, in blocks that change with the epoch",
          "[glove]") {
  test::TempDir dir;
  const std::size_t n = 3 * kShuffleBlockRecords + 5000;
  std::vector<GloveRecord> kept;
  const auto result = shuffle(dir.file("r"), numbered(n), 1ull << 30, kept);
  const RecordFileReader file(result.file, 1000);
  const std::vector<GloveRecord> file_order = kept;
  auto memory = memory_records(kept, RecordShuffle::blocks, 7, &file);
  auto streamed = streamed_records(file, 7, 2, 7777);
  // Reads the whole epoch in pieces of odd sizes that cross block boundaries.
  auto walk = [&](RecordSource& source, unsigned worker) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t at = 0; at < n;) {
      const auto piece = source.read(worker, at, std::min<std::uint64_t>(n, at + 10007));
      REQUIRE_FALSE(piece.empty());
      for (const GloveRecord& r : piece) out.push_back(number(r));
      at += piece.size();
    }
    return out;
  };
  std::vector<std::vector<std::uint64_t>> epochs;
  for (unsigned epoch : {0u, 1u, 2u}) {
    memory->order_for(epoch);
    streamed->order_for(epoch);
    const auto from_memory = walk(*memory, 0);
    CHECK(from_memory == walk(*streamed, 1));
    CHECK(is_permutation_of_n(from_memory));
    epochs.push_back(from_memory);
  }
  CHECK(epochs[0] == numbers(file_order));
  CHECK(epochs[1] != epochs[0]);
  CHECK(epochs[2] != epochs[1]);

  // A full shuffle of epoch e is drawn from the file's order, whatever came before.
  std::vector<GloveRecord> empty;
  auto full = memory_records(empty, RecordShuffle::full, 7, &file);
  full->order_for(0);
  CHECK(walk(*full, 0) == numbers(file_order));
  full->order_for(1);
  full->order_for(2);
  std::vector<GloveRecord> expected = file_order;
  shuffle_records(expected, 7, 2);
  CHECK(walk(*full, 0) == numbers(expected));
}

TEST_CASE("a records file that is missing, changed, foreign or damaged is refused with its name", "[glove]") {
  test::TempDir dir;
  std::vector<GloveRecord> kept;
  const auto result = shuffle(dir.file("r"), numbered(5000), 1ull << 30, kept);
  const RecordFileInfo info = result.file;
  CHECK_NOTHROW(RecordFileReader(info, 1000));
  REQUIRE_ERROR_CONTAINS(RecordFileReader(info, 999), "not the shuffled co-occurrence records of this run");
  RecordFileInfo other = info;
  other.path = dir.file("none");
  REQUIRE_ERROR_CONTAINS(RecordFileReader(other, 1000), "none: cannot read");
  other = info;
  other.records = 4999;
  REQUIRE_ERROR_CONTAINS(RecordFileReader(other, 1000), "not the shuffled co-occurrence records");
  // A record naming a word past the vocabulary (a flipped byte), in a file of the right size and time.
  {
    std::fstream f(info.path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(kRecordFileHeaderBytes + 100 * sizeof(GloveRecord) + 3));
    f.put('\x7f');
  }
  // Its time moves on (a write within the clock's tick might not move it).
  std::filesystem::last_write_time(info.path, std::filesystem::last_write_time(info.path) + std::chrono::seconds(1));
  REQUIRE_ERROR_CONTAINS(RecordFileReader(info, 1000), "changed since they were written");
  // Read through a reader that accepts the new time: the damaged record is named.
  struct stat st {};
  REQUIRE(::stat(info.path.c_str(), &st) == 0);
  RecordFileInfo touched = info;
  touched.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  const RecordFileReader reader(touched, 1000);
  std::vector<GloveRecord> out(200);
  REQUIRE_ERROR_CONTAINS(reader.read(0, out), "record 100 names word");
}
