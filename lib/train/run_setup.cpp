#include "train/run_setup.h"

#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/progress.h"
#include "train/cooc_counter.h"
#include "train/cooc_runs.h"
#include "train/glove_trainer.h"
#include "train/train_command.h"

namespace embed {
namespace {

Corpus read_logged_corpus(const TrainCommand& command) {
  CorpusOptions options;
  options.min_count = command.output.min_count;
  options.max_vocab = command.output.max_vocab;
  Corpus c = read_corpus(command.corpus, options);
  spdlog::info("{}: {} words, {} distinct; vocabulary {} words (min-count {}{}), {:.1f}% of the text", c.name, c.tokens,
               c.distinct_words, c.vocab.size(), options.min_count,
               options.max_vocab > 0 ? fmt::format(", max-vocab {}", options.max_vocab) : "",
               100.0 * static_cast<double>(c.ids.size()) / static_cast<double>(c.tokens));
  if (c.truncated_tokens > 0) spdlog::info("{}: {} tokens longer than 100 bytes were cut", c.name, c.truncated_tokens);
  if (c.invalid_utf8_words > 0) spdlog::warn("{}: left out {} words that are not valid UTF-8", c.name, c.invalid_utf8_words);
  if (c.ids.size() < 2) fail("{}: too few words to train on ({} in the vocabulary)", c.name, c.ids.size());
  return c;
}

std::string bytes_text(std::uint64_t bytes) { return human_bytes(static_cast<double>(bytes)); }
// A --memory value of at least `bytes`, as one would type it: "10M" (mebibytes, rounded up).
std::string memory_option(std::uint64_t bytes) { return fmt::format("{}M", (bytes + (1u << 20) - 1) >> 20); }

}  // namespace

void start_word2vec_run(const TrainCommand& command, TrainingRun& run) {
  run.corpus = read_logged_corpus(command);
  const Corpus& c = run.corpus;
  run.input = RowMatrix(c.vocab.size(), run.settings.dim);
  run.output_table = RowMatrix(c.vocab.size(), run.settings.dim);
  init_uniform(run.input, run.settings.seed, run.settings.threads);
  run.state = TrainState::start(run.settings.threads, run.settings.seed, c.ids.size());
}

namespace {

void check_training_memory(const TrainCommand& command, const TrainingRun& run, std::uint64_t records,
                           std::uint64_t other_bytes) {
  const TrainSettings& s = run.settings;
  const GloveLayout layout(s.dim, s.optimizer, s.adagrad);
  const std::uint64_t tables = 2 * run.corpus.vocab.size() * layout.width * sizeof(float);
  const std::uint64_t record_bytes = records * sizeof(GloveRecord);
  if (tables + record_bytes + other_bytes > command.memory) {
    fail("--memory {} is too small to train: {} co-occurrence records take {}{} and the two tables of {} rows {}; "
         "give at least --memory {}, or shrink the vocabulary with --min-count or --max-vocab",
         memory_option(command.memory), records, bytes_text(record_bytes),
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

void load_counts(const TrainCommand& command, TrainingRun& run, AtomicOutput* cooc_out, bool make_records) {
  CoocMatrix m = load_cooc(command.cooc);
  if (m.entries.empty()) fail("{}: the co-occurrence file holds no counts", command.cooc);
  spdlog::info("{}: {} co-occurrences over {} words (window {}, {}, min-count {}) counted from {}", command.cooc,
               m.entries.size(), m.vocab.size(), m.window, m.symmetric ? "symmetric" : "left only", m.min_count, m.corpus);
  if (cooc_out) save_cooc(*cooc_out, m);
  std::vector<CoocEntry> entries = std::move(m.entries);
  adopt_counts_info(std::move(m), run);
  if (make_records) {
    check_training_memory(command, run, entries.size(), entries.size() * sizeof(CoocEntry));
    run.records = glove_records(entries, run.settings.x_max, run.settings.alpha);
  }
}

void count_corpus(const TrainCommand& command, TrainingRun& run, AtomicOutput* cooc_out, bool make_records) {
  Corpus corpus = read_logged_corpus(command);
  const std::uint64_t corpus_bytes = corpus.ids.size() * sizeof(std::uint32_t) + corpus.line_ends.size() * sizeof(std::uint64_t);
  const std::uint64_t needed = corpus_bytes + min_cooc_memory(corpus.vocab.size());
  if (command.memory < needed) {
    fail("--memory {} is too small: the corpus's word ids take {} and counting co-occurrences needs {} more; give at least "
         "--memory {}",
         memory_option(command.memory), bytes_text(corpus_bytes), bytes_text(needed - corpus_bytes), memory_option(needed));
  }
  CoocOptions options;
  options.window = run.settings.window;
  options.symmetric = run.settings.symmetric;
  options.memory_bytes = command.memory - corpus_bytes;
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
  info.min_count = command.output.min_count;
  info.max_vocab = command.output.max_vocab;
  info.corpus = corpus.name;
  info.corpus_tokens = corpus.tokens;
  info.corpus_distinct_words = corpus.distinct_words;
  info.vocab = std::move(corpus.vocab);
  corpus = Corpus{};  // the word ids are spent
  if (counts_on_disk) {
    const SpillRun run_on_disk = counts_on_disk->finish();
    save_cooc(*cooc_out, info, merged, *run_on_disk.reader(1 << 16));
    spdlog::info("wrote {} ({} co-occurrences over {} words)", cooc_out->path(), merged, info.vocab.size());
  }
  adopt_counts_info(std::move(info), run);
}

}  // namespace

void glove_cooccurrences(const TrainCommand& command, TrainingRun& run, AtomicOutput* cooc_out, bool make_records) {
  if (command.cooc.empty()) {
    count_corpus(command, run, cooc_out, make_records);
  } else {
    load_counts(command, run, cooc_out, make_records);
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

void start_glove_run(const TrainCommand& command, TrainingRun& run) {
  const TrainSettings& s = run.settings;
  check_training_memory(command, run, run.records.size(), 0);
  const GloveLayout layout(s.dim, s.optimizer, s.adagrad);
  const std::uint64_t rows = run.corpus.vocab.size();
  run.input = make_glove_table(rows, layout, s.optimizer, s.seed, 0, s.threads);
  run.output_table = make_glove_table(rows, layout, s.optimizer, s.seed, 1, s.threads);
  shuffle_records(run.records, s.seed, 0);
  run.state = TrainState::start(s.threads, s.seed, run.records.size());
}

}  // namespace embed
