#include "train/glove/cooc_counter.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <new>

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/progress.h"
#include "train/corpus/corpus.h"
#include "train/corpus/corpus_reader.h"
#include "train/corpus/corpus_shards.h"

namespace embed {
namespace {

// Shares of the budget: the dense table, the pair buffer (with the radix sort's
// scratch), and the readers of a disk merge. The rest is headroom for the merged list.
constexpr double kDenseShare = 0.35;
constexpr double kBufferShare = 0.35;
constexpr double kReaderShare = 0.05;
constexpr std::size_t kMinBufferEntries = 1 << 16;
constexpr std::size_t kMaxFanIn = 64;
// Pair occurrences per dense cell at most. On text8-head (window 10) a table of one cell
// per 16 occurrences (1.3M cells) takes 74% of them; counting took 0.18 s with it,
// 0.45 s with one cell per occurrence (22M cells, 92%) and 0.19 s with none.
constexpr std::uint64_t kPairsPerDenseCell = 16;  // runs merged at once; more take extra passes

// Cells of a dense table holding the pairs (a+1)(b+1) <= product, for `vocab` words.
std::uint64_t dense_cells_for(std::uint64_t product, std::uint64_t vocab) {
  std::uint64_t cells = 0;
  for (std::uint64_t a = 1; a <= vocab; ++a) {
    const std::uint64_t cols = std::min(vocab, product / a);
    if (cols == 0) break;
    cells += cols;
  }
  return cells;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class DenseSource final : public SortedEntries {
 public:
  DenseSource(const double* cells, std::span<const std::uint64_t> row_start, std::span<const std::uint32_t> cols)
      : cells_(cells), row_start_(row_start), cols_(cols) {}
  bool next(CoocEntry& entry) override {
    for (; row_ < cols_.size() && cols_[row_] > 0; ++row_, col_ = 0) {
      const double* row = cells_ + row_start_[row_];
      for (; col_ < cols_[row_]; ++col_) {
        if (row[col_] != 0) {
          entry = {static_cast<std::uint32_t>(row_), col_, static_cast<float>(row[col_])};
          ++col_;
          return true;
        }
      }
    }
    return false;
  }

 private:
  const double* cells_;
  std::span<const std::uint64_t> row_start_;
  std::span<const std::uint32_t> cols_;
  std::size_t row_ = 0;
  std::uint32_t col_ = 0;
};

}  // namespace

std::uint64_t min_cooc_memory(std::size_t vocab_size) {
  const auto buffer = static_cast<std::uint64_t>(kMinBufferEntries * 2 * sizeof(CoocEntry) / kBufferShare);
  return buffer + vocab_size * (sizeof(std::uint64_t) + sizeof(std::uint32_t));
}

CoocCounter::CoocCounter(std::size_t vocab_size, std::uint64_t corpus_words, const CoocOptions& options)
    : vocab_size_(vocab_size), options_(options) {
  EMBED_ASSERT(vocab_size > 0 && vocab_size <= 0xffffffffu && options.window > 0);
  if (options_.temporary_directory.empty()) options_.temporary_directory = temporary_directory();
  const std::uint64_t memory = options_.memory_bytes;
  if (memory < min_cooc_memory(vocab_size)) {
    fail("--memory {}: too little to count co-occurrences over {} words; give at least {}",
         human_bytes(static_cast<double>(memory)), vocab_size, human_bytes(static_cast<double>(min_cooc_memory(vocab_size))));
  }
  for (std::size_t d = 1; d <= options_.window; ++d) weights_.push_back(1.0f / static_cast<float>(d));

  // The dense table: as large as its share of the budget allows, but no larger than a
  // cell per 16 pair occurrences, so that it stays small enough to stay in cache.
  const std::uint64_t index_bytes = vocab_size * (sizeof(std::uint64_t) + sizeof(std::uint32_t));
  const auto share = [&](double fraction) {
    return static_cast<std::uint64_t>(static_cast<double>(memory - index_bytes) * fraction);
  };
  std::uint64_t max_cells = share(kDenseShare) / sizeof(double);
  if (corpus_words > 0)
    max_cells = std::min(max_cells, corpus_words * options_.window * (options_.symmetric ? 2 : 1) / kPairsPerDenseCell);
  std::uint64_t low = 0, high = std::uint64_t{vocab_size} * vocab_size;  // largest product that fits
  while (low < high) {
    const std::uint64_t mid = low + (high - low + 1) / 2;
    if (dense_cells_for(mid, vocab_size) <= max_cells) low = mid;
    else high = mid - 1;
  }
  dense_row_.resize(vocab_size + 1);
  dense_cols_.resize(vocab_size);
  for (std::uint64_t a = 0; a < vocab_size; ++a) {
    dense_cols_[a] = static_cast<std::uint32_t>(std::min<std::uint64_t>(vocab_size, low / (a + 1)));
    dense_row_[a + 1] = dense_row_[a] + dense_cols_[a];
  }
  stats_.dense_cells = dense_row_[vocab_size];
  dense_.reset(static_cast<double*>(std::calloc(std::max<std::uint64_t>(stats_.dense_cells, 1), sizeof(double))));
  if (!dense_) throw std::bad_alloc();

  const std::size_t entries = options_.buffer_entries > 0
                                  ? options_.buffer_entries
                                  : std::max<std::size_t>(kMinBufferEntries, share(kBufferShare) / (2 * sizeof(CoocEntry)));
  capacity_ = entries;
  buffer_.reset(static_cast<CoocEntry*>(std::malloc(entries * sizeof(CoocEntry))));
  scratch_.reset(static_cast<CoocEntry*>(std::malloc(entries * sizeof(CoocEntry))));
  if (!buffer_ || !scratch_) throw std::bad_alloc();
  spdlog::debug("co-occurrence counting: dense table {} cells ({}), pair buffer {} entries, budget {}", stats_.dense_cells,
                human_bytes(static_cast<double>(stats_.dense_cells * sizeof(double))), entries,
                human_bytes(static_cast<double>(memory)));
}

inline void CoocCounter::add(std::uint32_t a, std::uint32_t b, float weight) {
  if (b < dense_cols_[a]) {
    dense_[dense_row_[a] + b] += weight;
    ++stats_.dense_pairs;
    return;
  }
  buffer_[buffered_++] = {a, b, weight};
  if (buffered_ == capacity_) buffer_full();
}

void CoocCounter::add_words(std::span<const std::uint32_t> ids, std::size_t first, std::size_t last) {
  const std::size_t window = options_.window;
  for (std::size_t p = std::max<std::size_t>(first, 1); p < last; ++p) {
    const std::uint32_t word = ids[p];
    const std::size_t reach = std::min(window, p);
    for (std::size_t d = 1; d <= reach; ++d) {
      const std::uint32_t left = ids[p - d];
      add(word, left, weights_[d - 1]);  // `left` is a context of `word`
      if (options_.symmetric) add(left, word, weights_[d - 1]);
    }
    stats_.pairs += reach * (options_.symmetric ? 2 : 1);
  }
}

void CoocCounter::buffer_full() {
  // Summing the repeated pairs often frees most of the buffer; spill only when it does not.
  buffered_ = sort_and_combine(buffered(), std::span(scratch_.get(), capacity_), static_cast<std::uint32_t>(vocab_size_));
  if (buffered_ > capacity_ / 2) {
    spill(buffered());
    buffered_ = 0;
  }
}

void CoocCounter::spill(std::span<const CoocEntry> sorted) {
  SpillWriter writer(options_.temporary_directory);
  writer.add(sorted);
  runs_.push_back(writer.finish());
  ++stats_.spilled_runs;
}

std::uint64_t CoocCounter::dense_nonzeros() const {
  std::uint64_t n = 0;
  for (std::uint64_t i = 0; i < stats_.dense_cells; ++i) n += dense_[i] != 0;
  return n;
}

std::unique_ptr<SortedEntries> CoocCounter::dense_source() const {
  return std::make_unique<DenseSource>(dense_.get(), dense_row_, dense_cols_);
}

void CoocCounter::release_tables() {
  dense_.reset();
  buffer_.reset();
  scratch_.reset();
  capacity_ = buffered_ = 0;
}

std::uint64_t CoocCounter::finish(const std::function<void(std::uint64_t)>& begin,
                                  const std::function<void(const CoocEntry&)>& emit) {
  buffered_ = sort_and_combine(buffered(), std::span(scratch_.get(), capacity_), static_cast<std::uint32_t>(vocab_size_));
  scratch_.reset();
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t merged = 0;
  // In memory if the tables and what the caller keeps of the merged counts fit the
  // budget together; otherwise through the disk, freeing the tables first.
  const std::uint64_t in_memory_at_most = dense_nonzeros() + buffered_;
  const std::uint64_t tables = stats_.dense_cells * sizeof(double) + buffered_ * sizeof(CoocEntry);
  if (runs_.empty() && tables + in_memory_at_most * options_.bytes_per_merged_entry <= options_.memory_bytes) {
    std::vector<std::unique_ptr<SortedEntries>> sources;
    sources.push_back(dense_source());
    sources.push_back(entries_source(buffered()));
    merged = merge(std::move(sources), in_memory_at_most, begin, emit);
    release_tables();
  } else {
    // The rest joins the runs on disk, so that the tables' memory is free for the caller.
    if (buffered_ > 0) spill(buffered());
    SpillWriter dense(options_.temporary_directory);
    const auto source = dense_source();
    for (CoocEntry e; source->next(e);) dense.add(e);
    runs_.push_back(dense.finish());
    release_tables();
    std::uint64_t at_most = 0;
    auto sources = runs_to_merge(at_most);
    merged = merge(std::move(sources), at_most, begin, emit);
    runs_.clear();
  }
  stats_.merging_seconds = seconds_since(start);
  return merged;
}

std::uint64_t CoocCounter::merge(std::vector<std::unique_ptr<SortedEntries>> sources, std::uint64_t at_most,
                                 const std::function<void(std::uint64_t)>& begin,
                                 const std::function<void(const CoocEntry&)>& emit) {
  begin(at_most);
  Progress progress("merging co-occurrence counts", at_most, "pairs");  // at most: the bar may end early
  std::uint64_t merged = 0;
  merge_entries(std::move(sources), [&](const CoocEntry& e) {
    emit(e);
    if (++merged % (1 << 20) == 0) progress.update(merged);
  });
  progress.finish();
  return merged;
}

std::vector<std::unique_ptr<SortedEntries>> CoocCounter::runs_to_merge(std::uint64_t& at_most) {
  const auto reader_entries = [&](std::size_t readers) {
    const auto bytes = static_cast<std::uint64_t>(static_cast<double>(options_.memory_bytes) * kReaderShare);
    return std::max<std::size_t>(1024, bytes / sizeof(CoocEntry) / readers);
  };
  // Many runs: merge them a fan-in at a time into longer runs first.
  while (runs_.size() > kMaxFanIn) {
    std::vector<SpillRun> next;
    for (std::size_t first = 0; first < runs_.size(); first += kMaxFanIn) {
      const std::size_t last = std::min(runs_.size(), first + kMaxFanIn);
      std::vector<std::unique_ptr<SortedEntries>> sources;
      for (std::size_t r = first; r < last; ++r) sources.push_back(runs_[r].reader(reader_entries(last - first)));
      SpillWriter writer(options_.temporary_directory);
      merge_entries(std::move(sources), [&](const CoocEntry& e) { writer.add(e); });
      next.push_back(writer.finish());
    }
    runs_ = std::move(next);
    ++stats_.merge_passes;
  }
  at_most = 0;
  std::vector<std::unique_ptr<SortedEntries>> sources;
  for (const auto& run : runs_) {
    at_most += run.entries();
    sources.push_back(run.reader(reader_entries(runs_.size())));
  }
  return sources;
}

std::uint64_t count_cooccurrences(const Corpus& corpus, const CoocOptions& options, CoocStats& stats,
                                  const std::function<void(std::uint64_t)>& begin,
                                  const std::function<void(const CoocEntry&)>& emit) {
  // The corpus streams past a line at a time, in pieces of at most words_per_piece
  // words; a piece that goes on with a line brings the line's last `window` words along
  // as context, so that the counts do not depend on where the pieces are cut.
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t bytes = corpus_bytes(corpus.files);
  const ByteRange part{options.first_byte, options.end_byte > 0 ? options.end_byte : bytes};
  // A part's words, as far as its share of the bytes tells (for the dense table's size and the progress).
  const auto words_in_part =
      static_cast<std::uint64_t>(static_cast<double>(corpus.words) * static_cast<double>(part.end - part.begin) /
                                 static_cast<double>(std::max<std::uint64_t>(bytes, 1)));
  CoocCounter counter(corpus.vocab.size(), words_in_part, options);
  Progress progress("counting co-occurrences", words_in_part, "words");
  const RowLookup lookup(corpus.vocab);
  CorpusReader reader(corpus.files, part, lookup, corpus.max_token_bytes);
  std::vector<std::uint32_t> sentence;
  std::vector<std::uint32_t> piece;  // the context carried over, then the sentence
  std::uint64_t words = 0;
  while (reader.next_sentence(options.words_per_piece, sentence)) {
    const std::size_t carried = reader.sentence_starts_line() ? 0 : std::min(piece.size(), options.window);
    piece.erase(piece.begin(), piece.end() - static_cast<std::ptrdiff_t>(carried));
    piece.insert(piece.end(), sentence.begin(), sentence.end());
    counter.add_words(piece, carried, piece.size());
    words += sentence.size();
    progress.update(words);
  }
  progress.finish();
  const double counting = seconds_since(start);
  const std::uint64_t merged = counter.finish(begin, emit);
  stats = counter.stats();
  stats.counting_seconds = counting;
  return merged;
}

std::vector<CoocEntry> count_cooccurrences(const Corpus& corpus, const CoocOptions& options, CoocStats& stats) {
  std::vector<CoocEntry> entries;
  count_cooccurrences(
      corpus, options, stats, [&](std::uint64_t at_most) { entries.reserve(at_most); },
      [&](const CoocEntry& e) { entries.push_back(e); });
  return entries;
}

}  // namespace embed
