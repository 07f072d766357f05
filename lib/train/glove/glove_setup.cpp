#include "train/glove/glove_setup.h"

#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/progress.h"
#include "train/glove/cooc_counter.h"
#include "train/glove/cooc_runs.h"
#include "train/glove/glove_trainer.h"
#include "train/run_setup.h"

namespace embed {
namespace {

std::string bytes_text(std::uint64_t bytes) { return human_bytes(static_cast<double>(bytes)); }
// A --memory value of at least `bytes`, as one would type it: "10M" (mebibytes, rounded up).
std::string memory_option(std::uint64_t bytes) { return fmt::format("{}M", (bytes + (1u << 20) - 1) >> 20); }

void check_training_memory(const TrainingInput& input, const TrainingRun& run, std::uint64_t records,
                           std::uint64_t other_bytes) {
  const TrainSettings& s = run.settings;
  const GloveLayout layout(s.dim, s.optimizer, s.adagrad);
  const std::uint64_t tables = 2 * run.corpus.vocab.size() * layout.width * sizeof(float);
  const std::uint64_t record_bytes = records * sizeof(GloveRecord);
  if (tables + record_bytes + other_bytes > input.memory) {
    fail("--memory {} is too small to train: {} co-occurrence records take {}{} and the two tables of {} rows {}; "
         "give at least --memory {}, or shrink the vocabulary with --min-count or --max-vocab",
         memory_option(input.memory), records, bytes_text(record_bytes),
         other_bytes > 0 ? fmt::format(" (and {} while they are made)", bytes_text(other_bytes)) : "",
         run.corpus.vocab.size(), bytes_text(tables), memory_option(tables + record_bytes + other_bytes));
  }
}

// Takes what the counts fixed into the run, so the .emb metadata and checkpoints tell the truth.
void adopt_counts_info(CoocInfo&& info, TrainingRun& run) {
  run.settings.window = info.window;
  run.settings.symmetric = info.symmetric;
  run.output.min_count = info.min_count;
  run.output.max_vocab = info.max_vocab;
  run.corpus.name = info.corpus;
  run.corpus.tokens = info.corpus_tokens;
  run.corpus.distinct_words = info.corpus_distinct_words;
  run.corpus.vocab = std::move(info.vocab);
}

void load_counts(const TrainingInput& input, TrainingRun& run, AtomicOutput* cooc_out, bool make_records) {
  CoocMatrix m = load_cooc(input.cooc);
  if (m.entries.empty()) fail("{}: the co-occurrence file holds no counts", input.cooc);
  spdlog::info("{}: {} co-occurrences over {} words (window {}, {}, min-count {}) counted from {}", input.cooc,
               m.entries.size(), m.vocab.size(), m.window, m.symmetric ? "symmetric" : "left only", m.min_count, m.corpus);
  if (cooc_out) save_cooc(*cooc_out, m);
  std::vector<CoocEntry> entries = std::move(m.entries);
  adopt_counts_info(std::move(m), run);
  if (make_records) {
    check_training_memory(input, run, entries.size(), entries.size() * sizeof(CoocEntry));
    run.records = glove_records(entries, run.settings.x_max, run.settings.alpha);
  }
}

void count_corpus(const TrainingInput& input, TrainingRun& run, AtomicOutput* cooc_out, bool make_records) {
  // Spools go beside the output, or beside the counts of a count-only run.
  const std::string spool_prefix = run.output.output.empty() ? input.save_cooc : run.output.output;
  Corpus corpus = read_logged_corpus(input.corpus, run.output, spool_prefix);
  // The corpus streams from disk while it is counted: the counting has all of --memory.
  const std::uint64_t needed = min_cooc_memory(corpus.vocab.size());
  if (input.memory < needed) {
    fail("--memory {} is too small to count co-occurrences over {} words; give at least --memory {}",
         memory_option(input.memory), corpus.vocab.size(), memory_option(needed));
  }
  CoocOptions options;
  options.window = run.settings.window;
  options.symmetric = run.settings.symmetric;
  options.memory_bytes = input.memory;
  options.bytes_per_merged_entry = make_records ? sizeof(GloveRecord) : 0;
  // The merged counts go straight into training records, and to disk for the counts file.
  std::optional<SpillWriter> counts_on_disk;
  if (cooc_out) counts_on_disk.emplace(temporary_directory());
  const TrainSettings& s = run.settings;
  CoocStats stats;
  const std::uint64_t merged = count_cooccurrences(
      corpus, options, stats,
      [&](std::uint64_t at_most) {
        if (make_records) run.records.reserve(at_most);  // address space only: pages are touched as records come
      },
      [&](const CoocEntry& e) {
        if (make_records) run.records.push_back(glove_record(e, s.x_max, s.alpha));
        if (counts_on_disk) counts_on_disk->add(e);
      });
  spdlog::info("counted {} (word, context) pairs in {:.2f} s ({:.1f}% in a dense table of {} cells{}), merged them into "
               "{} co-occurrences in {:.2f} s",
               stats.pairs, stats.counting_seconds,
               stats.pairs > 0 ? 100.0 * static_cast<double>(stats.dense_pairs) / static_cast<double>(stats.pairs) : 0.0,
               stats.dense_cells,
               stats.spilled_runs > 0 ? fmt::format(", {} sorted runs spilled to disk", stats.spilled_runs) : "", merged,
               stats.merging_seconds);
  if (merged == 0) fail("{}: no two vocabulary words occur within {} words of each other", corpus.name, s.window);
  CoocInfo info;
  info.window = s.window;
  info.symmetric = s.symmetric;
  info.min_count = run.output.min_count;
  info.max_vocab = run.output.max_vocab;
  info.corpus = corpus.name;
  info.corpus_tokens = corpus.tokens;
  info.corpus_distinct_words = corpus.distinct_words;
  info.vocab = std::move(corpus.vocab);
  corpus = Corpus{};  // the text is spent (its spools go): GloVe trains on the records
  if (counts_on_disk) {
    const SpillRun run_on_disk = counts_on_disk->finish();
    save_cooc(*cooc_out, info, merged, *run_on_disk.reader(1 << 16));
    spdlog::info("wrote {} ({} co-occurrences over {} words)", cooc_out->path(), merged, info.vocab.size());
  }
  adopt_counts_info(std::move(info), run);
}

}  // namespace

void glove_cooccurrences(const TrainingInput& input, TrainingRun& run, AtomicOutput* cooc_out, bool make_records) {
  if (input.cooc.empty()) {
    count_corpus(input, run, cooc_out, make_records);
  } else {
    load_counts(input, run, cooc_out, make_records);
  }
}

GloveRecord glove_record(const CoocEntry& e, double x_max, double alpha) {
  return {e.row, e.column, static_cast<float>(std::log(static_cast<double>(e.count))), glove_weight(e.count, x_max, alpha)};
}

std::vector<GloveRecord> glove_records(std::span<const CoocEntry> entries, double x_max, double alpha) {
  std::vector<GloveRecord> records(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) records[i] = glove_record(entries[i], x_max, alpha);
  return records;
}

void start_glove_run(const TrainingInput& input, TrainingRun& run) {
  const TrainSettings& s = run.settings;
  check_training_memory(input, run, run.records.size(), 0);
  const GloveLayout layout(s.dim, s.optimizer, s.adagrad);
  const std::uint64_t rows = run.corpus.vocab.size();
  run.input = make_glove_table(rows, layout, s.optimizer, s.seed, 0, s.threads);
  run.output_table = make_glove_table(rows, layout, s.optimizer, s.seed, 1, s.threads);
  shuffle_records(run.records, s.seed, 0);
  run.state = TrainState::start(s.threads, s.seed, run.records.size());
}

}  // namespace embed
