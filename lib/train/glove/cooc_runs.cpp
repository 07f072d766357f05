#include "train/glove/cooc_runs.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <utility>

#include "core/error.h"

namespace embed {
namespace {

class FileRunReader final : public SortedEntries {
 public:
  FileRunReader(std::FILE* file, std::uint64_t entries, std::size_t buffer_entries)
      : file_(file), left_(entries), buffer_(std::max<std::size_t>(buffer_entries, 1)) {
    if (std::fseek(file_, 0, SEEK_SET) != 0) fail("rewinding a co-occurrence spill file: {}", std::strerror(errno));
  }
  bool next(CoocEntry& entry) override {
    if (position_ == filled_) {
      if (left_ == 0) return false;
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left_, buffer_.size()));
      if (std::fread(buffer_.data(), sizeof(CoocEntry), want, file_) != want) {
        fail("reading a co-occurrence spill file: {}", std::ferror(file_) ? std::strerror(errno) : "it is shorter than written");
      }
      left_ -= want;
      filled_ = want;
      position_ = 0;
    }
    entry = buffer_[position_++];
    return true;
  }

 private:
  std::FILE* file_;
  std::uint64_t left_;
  std::vector<CoocEntry> buffer_;
  std::size_t filled_ = 0, position_ = 0;
};

class SpanSource final : public SortedEntries {
 public:
  explicit SpanSource(std::span<const CoocEntry> entries) : entries_(entries) {}
  bool next(CoocEntry& entry) override {
    if (position_ == entries_.size()) return false;
    entry = entries_[position_++];
    return true;
  }

 private:
  std::span<const CoocEntry> entries_;
  std::size_t position_ = 0;
};

}  // namespace

std::string temporary_directory() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

std::unique_ptr<SortedEntries> SpillRun::reader(std::size_t buffer_entries) const {
  return std::make_unique<FileRunReader>(file_.get(), entries_, buffer_entries);
}

SpillWriter::SpillWriter(const std::string& directory) : directory_(directory) {
  std::string path = directory + "/embed-cooc-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) fail("{}: cannot create a temporary file for co-occurrence counts: {}", directory, std::strerror(errno));
  ::unlink(path.c_str());
  file_.reset(::fdopen(fd, "w+b"));
  if (!file_) {
    ::close(fd);
    fail("{}: cannot open a temporary file: {}", directory, std::strerror(errno));
  }
}

void SpillWriter::add(const CoocEntry& entry) { add(std::span(&entry, 1)); }

void SpillWriter::add(std::span<const CoocEntry> entries) {
  if (std::fwrite(entries.data(), sizeof(CoocEntry), entries.size(), file_.get()) != entries.size()) {
    fail("{}: writing temporary co-occurrence counts: {}", directory_, std::strerror(errno));
  }
  entries_ += entries.size();
}

SpillRun SpillWriter::finish() {
  if (std::fflush(file_.get()) != 0) {
    fail("{}: writing temporary co-occurrence counts: {}", directory_, std::strerror(errno));
  }
  return SpillRun(file_.release(), entries_);
}

std::unique_ptr<SortedEntries> entries_source(std::span<const CoocEntry> sorted) { return std::make_unique<SpanSource>(sorted); }

void merge_entries(std::vector<std::unique_ptr<SortedEntries>> sources, const std::function<void(const CoocEntry&)>& emit) {
  struct Head {
    CoocEntry entry;
    std::size_t source;
  };
  auto later = [](const Head& a, const Head& b) {
    const auto ka = cooc_key(a.entry), kb = cooc_key(b.entry);
    return ka != kb ? ka > kb : a.source > b.source;  // ties by source: sums in a fixed order
  };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
  for (std::size_t s = 0; s < sources.size(); ++s) {
    CoocEntry e;
    if (sources[s]->next(e)) heads.push({e, s});
  }
  bool have = false;
  CoocEntry current{};
  double sum = 0;
  while (!heads.empty()) {
    const Head head = heads.top();
    heads.pop();
    if (have && cooc_key(head.entry) == cooc_key(current)) {
      sum += head.entry.count;
    } else {
      if (have) {
        current.count = static_cast<float>(sum);
        emit(current);
      }
      current = head.entry;
      sum = head.entry.count;
      have = true;
    }
    CoocEntry e;
    if (sources[head.source]->next(e)) heads.push({e, head.source});
  }
  if (have) {
    current.count = static_cast<float>(sum);
    emit(current);
  }
}

std::size_t sort_and_combine(std::span<CoocEntry> entries, std::span<CoocEntry> scratch, std::uint32_t id_limit) {
  EMBED_ASSERT(scratch.size() >= entries.size());
  const int id_bits = std::max(1, static_cast<int>(std::bit_width(id_limit - 1)));
  const int key_bits = 2 * id_bits;
  constexpr int kDigitBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  auto key = [id_bits](const CoocEntry& e) { return std::uint64_t{e.row} << id_bits | e.column; };
  CoocEntry* from = entries.data();
  CoocEntry* to = scratch.data();
  const std::size_t n = entries.size();
  std::vector<std::size_t> offsets(kBuckets);
  for (int shift = 0; shift < key_bits; shift += kDigitBits) {
    std::fill(offsets.begin(), offsets.end(), 0);
    for (std::size_t i = 0; i < n; ++i) ++offsets[(key(from[i]) >> shift) & (kBuckets - 1)];
    std::size_t total = 0;
    for (auto& o : offsets) total += std::exchange(o, total);
    for (std::size_t i = 0; i < n; ++i) to[offsets[(key(from[i]) >> shift) & (kBuckets - 1)]++] = from[i];
    std::swap(from, to);
  }
  if (from != entries.data()) std::copy_n(from, n, entries.data());
  // Sum runs of equal keys in place.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n;) {
    double sum = 0;
    std::size_t j = i;
    for (; j < n && entries[j].row == entries[i].row && entries[j].column == entries[i].column; ++j) sum += entries[j].count;
    entries[kept] = entries[i];
    entries[kept].count = static_cast<float>(sum);
    ++kept;
    i = j;
  }
  return kept;
}

}  // namespace embed
