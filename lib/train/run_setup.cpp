#include "train/run_setup.h"

#include <cmath>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/progress.h"
#include "train/cooc_counter.h"
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

}  // namespace

void start_word2vec_run(const TrainCommand& command, TrainingRun& run) {
  run.corpus = read_logged_corpus(command);
  const Corpus& c = run.corpus;
  run.input = RowMatrix(c.vocab.size(), run.settings.dim);
  run.output_table = RowMatrix(c.vocab.size(), run.settings.dim);
  init_uniform(run.input, run.settings.seed, run.settings.threads);
  run.state = TrainState::start(run.settings.threads, run.settings.seed, c.ids.size());
}

CoocMatrix glove_cooccurrences(const TrainCommand& command, TrainingRun& run) {
  CoocMatrix m;
  if (!command.cooc.empty()) {
    m = load_cooc(command.cooc);
    spdlog::info("{}: {} co-occurrences over {} words (window {}, {}, min-count {}) counted from {}", command.cooc,
                 m.entries.size(), m.vocab.size(), m.window, m.symmetric ? "symmetric" : "left only", m.min_count, m.corpus);
  } else {
    Corpus corpus = read_logged_corpus(command);
    const std::uint64_t corpus_bytes = corpus.ids.size() * sizeof(std::uint32_t) + corpus.line_ends.size() * sizeof(std::uint64_t);
    const std::uint64_t needed = corpus_bytes + min_cooc_memory(corpus.vocab.size());
    if (command.memory < needed) {
      fail("--memory {} is too small: the corpus's word ids take {} and counting co-occurrences needs {} more; give at least "
           "--memory {}",
           bytes_text(command.memory), bytes_text(corpus_bytes), bytes_text(needed - corpus_bytes), bytes_text(needed));
    }
    CoocOptions options;
    options.window = run.settings.window;
    options.symmetric = run.settings.symmetric;
    options.memory_bytes = command.memory - corpus_bytes;
    CoocStats stats;
    m.entries = count_cooccurrences(corpus, options, stats);
    spdlog::info("counted {} (word, context) pairs in {:.2f} s ({:.1f}% in a dense table of {} cells{}), merged them into "
                 "{} co-occurrences in {:.2f} s",
                 stats.pairs, stats.counting_seconds,
                 stats.pairs > 0 ? 100.0 * static_cast<double>(stats.dense_pairs) / static_cast<double>(stats.pairs) : 0.0,
                 stats.dense_cells,
                 stats.spilled_runs > 0 ? fmt::format(", {} sorted runs spilled to disk", stats.spilled_runs) : "",
                 m.entries.size(), stats.merging_seconds);
    m.vocab = std::move(corpus.vocab);
    m.window = run.settings.window;
    m.symmetric = run.settings.symmetric;
    m.min_count = command.output.min_count;
    m.max_vocab = command.output.max_vocab;
    m.corpus = corpus.name;
    m.corpus_tokens = corpus.tokens;
    m.corpus_distinct_words = corpus.distinct_words;
  }
  if (m.entries.empty()) fail("{}: no two vocabulary words occur within {} words of each other", m.corpus, m.window);
  // What the counts fixed, so the .emb metadata and checkpoints tell the truth.
  run.settings.window = m.window;
  run.settings.symmetric = m.symmetric;
  run.output.min_count = m.min_count;
  run.output.max_vocab = m.max_vocab;
  run.corpus.name = m.corpus;
  run.corpus.tokens = m.corpus_tokens;
  run.corpus.distinct_words = m.corpus_distinct_words;
  return m;
}

std::vector<GloveRecord> glove_records(std::span<const CoocEntry> entries, double x_max, double alpha) {
  std::vector<GloveRecord> records(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const CoocEntry& e = entries[i];
    records[i] = {e.row, e.column, static_cast<float>(std::log(static_cast<double>(e.count))), glove_weight(e.count, x_max, alpha)};
  }
  return records;
}

void start_glove_run(const TrainCommand& command, CoocMatrix&& counts, TrainingRun& run) {
  const TrainSettings& s = run.settings;
  const GloveLayout layout(s.dim, s.optimizer, s.adagrad);
  const std::uint64_t rows = counts.vocab.size();
  const std::uint64_t tables = 2 * rows * layout.width * sizeof(float);
  const std::uint64_t records = counts.entries.size() * sizeof(GloveRecord);
  const std::uint64_t counted = counts.entries.size() * sizeof(CoocEntry);
  if (tables + records + counted > command.memory) {
    fail("--memory {} is too small to train: {} co-occurrence records take {} (and {} while they are made) and the two "
         "tables of {} rows {}; raise --memory, or shrink the vocabulary with --min-count or --max-vocab",
         bytes_text(command.memory), counts.entries.size(), bytes_text(records), bytes_text(counted), rows, bytes_text(tables));
  }
  run.records = glove_records(counts.entries, s.x_max, s.alpha);
  std::vector<CoocEntry>().swap(counts.entries);
  run.corpus.vocab = std::move(counts.vocab);
  run.input = make_glove_table(rows, layout, s.optimizer, s.seed, 0, s.threads);
  run.output_table = make_glove_table(rows, layout, s.optimizer, s.seed, 1, s.threads);
  shuffle_records(run.records, s.seed, 0);
  run.state = TrainState::start(s.threads, s.seed, run.records.size());
}

}  // namespace embed
