#include "train/glove/glove_setup.h"

#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cluster/cluster.h"
#include "core/error.h"
#include "core/progress.h"
#include "train/corpus/logged_corpus.h"
#include "train/glove/cooc_counter.h"
#include "train/glove/cooc_on_ranks.h"
#include "train/glove/cooc_runs.h"
#include "train/glove/record_shuffler.h"

namespace embed {
namespace {

std::string bytes_text(std::uint64_t bytes) { return human_bytes(static_cast<double>(bytes)); }
// A --memory value of at least `bytes`, as one would type it: "10M" (mebibytes, rounded up).
std::string memory_option(std::uint64_t bytes) { return fmt::format("{}M", (bytes + (1u << 20) - 1) >> 20); }

std::uint64_t table_bytes(const TrainSettings& s, std::uint64_t rows) {
  return 2 * rows * GloveLayout(s.dim, s.optimizer, s.hyper).width * sizeof(float);
}
std::uint64_t streaming_bytes(const TrainSettings& s) {
  return std::uint64_t{s.threads} * kStreamedReadRecords * sizeof(GloveRecord);
}

// Training needs at least the two tables and the buffers that stream records from disk.
void check_tables_fit(const TrainingInput& input, const TrainSettings& s, std::uint64_t rows) {
  const std::uint64_t tables = table_bytes(s, rows), streaming = streaming_bytes(s);
  if (tables + streaming > input.memory) {
    fail(
        "--memory {} is too small to train: the two tables of {} rows take {} (and {} threads reading records {}); "
        "give at least --memory {}, or shrink the vocabulary with --min-count or --max-vocab",
        memory_option(input.memory), rows, bytes_text(tables), s.threads, bytes_text(streaming),
        memory_option(tables + streaming));
  }
}

// What the tables leave of --memory for records in memory, less the share that the
// readers of counting's disk merge hold while the records come.
std::uint64_t records_budget(const TrainingInput& input, const TrainSettings& s, std::uint64_t rows) {
  const std::uint64_t taken = table_bytes(s, rows) + input.memory / 20;
  return input.memory > taken ? input.memory - taken : 0;
}

// This rank's records file: under mpirun each rank keeps its own (they may share a folder).
std::string rank_records_path(const std::string& output) {
  const Cluster& job = this_job();
  const std::string path = glove_records_path(output);
  return job.size() > 1 ? fmt::format("{}.rank-{}", path, job.rank()) : path;
}

// Merged counts in, the run's shuffled records file out (and the records in memory
// when they fit its budget).
class RecordsMaker {
 public:
  RecordsMaker(const TrainingInput& input, const TrainingRun& run, std::uint64_t rows)
      : spool_(std::make_shared<SpoolFile>(rank_records_path(run.output.output))),
        shuffler_(spool_->path(), rows, run.settings.seed, records_budget(input, run.settings, rows)),
        x_max_(run.settings.x_max),
        alpha_(run.settings.alpha) {}
  void expect(std::uint64_t at_most) { shuffler_.expect(at_most); }
  void add(const CoocEntry& e) { shuffler_.add(glove_record(e, x_max_, alpha_)); }
  void finish(TrainingRun& run) {
    const auto start = std::chrono::steady_clock::now();
    GloveRecords& records = run.records;
    const RecordShuffler::Result result = shuffler_.finish(records.memory);
    records.file = result.file;
    records.in_memory = result.in_memory;
    records.spool = spool_;
    // Under mpirun the schedule's epoch is every rank's records.
    std::uint64_t job_records[1] = {records.size()};
    this_job().sum(job_records);
    records.job_records = job_records[0];
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (records.in_memory) {
      spdlog::info(
          "{} co-occurrence records ({}) shuffled in memory and written to {} in {:.2f} s; training reads them "
          "from memory",
          records.size(), bytes_text(records.size() * sizeof(GloveRecord)), records.file.path, seconds);
    } else {
      spdlog::info(
          "{} co-occurrence records ({}) shuffled on disk into {} ({} pieces) in {:.2f} s; they do not fit "
          "--memory beside the tables, so every epoch streams them from there, reordered in blocks",
          records.size(), bytes_text(records.size() * sizeof(GloveRecord)), records.file.path, result.buckets, seconds);
    }
  }

 private:
  std::shared_ptr<SpoolFile> spool_;  // removes the file if the run fails before it is handed over
  RecordShuffler shuffler_;
  double x_max_, alpha_;
};

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
  CoocFileReader counts(input.cooc);
  const CoocInfo& m = counts.info();
  if (counts.entries() == 0) fail("{}: the co-occurrence file holds no counts", input.cooc);
  spdlog::info("{}: {} co-occurrences over {} words (window {}, {}, min-count {}) counted from {}", input.cooc, counts.entries(),
               m.vocab.size(), m.window, m.symmetric ? "symmetric" : "left only", m.min_count, m.corpus);
  if (cooc_out) save_cooc(*cooc_out, m, counts.entries(), *counts.read());
  if (make_records) {
    check_tables_fit(input, run.settings, m.vocab.size());
    RecordsMaker maker(input, run, m.vocab.size());
    maker.expect(counts.entries());
    const auto entries = counts.read();
    // Under mpirun every rank reads the file and keeps the rows it owns (cooc_on_ranks.h).
    const Cluster& job = this_job();
    for (CoocEntry e; entries->next(e);) {
      if (cooc_row_owner(e.row, job.size()) == job.rank()) maker.add(e);
    }
    maker.finish(run);
  }
  adopt_counts_info(std::move(counts.info()), run);
}

void count_corpus(const TrainingInput& input, TrainingRun& run, AtomicOutput* cooc_out, bool make_records) {
  // Spools go beside the output, or beside the counts of a count-only run.
  const std::string spool_prefix = run.output.output.empty() ? input.save_cooc : run.output.output;
  Corpus corpus = read_logged_corpus(input.corpus, run.output, spool_prefix, run.settings.threads);
  // The corpus streams from disk while it is counted: the counting has all of --memory.
  const std::uint64_t needed = min_cooc_memory(corpus.vocab.size());
  if (input.memory < needed) {
    fail("--memory {} is too small to count co-occurrences over {} words; give at least --memory {}", memory_option(input.memory),
         corpus.vocab.size(), memory_option(needed));
  }
  std::optional<RecordsMaker> records;
  if (make_records) {
    check_tables_fit(input, run.settings, corpus.vocab.size());
    records.emplace(input, run, corpus.vocab.size());
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
  const auto expect = [&](std::uint64_t at_most) {
    if (records) records->expect(at_most);
  };
  const auto keep = [&](const CoocEntry& e) {
    if (records) records->add(e);
    if (counts_on_disk) counts_on_disk->add(e);
  };
  Cluster& job = this_job();
  const std::uint64_t rank_merged = job.size() > 1 ? count_cooccurrences_on_ranks(corpus, options, stats, job, expect, keep)
                                                   : count_cooccurrences(corpus, options, stats, expect, keep);
  std::uint64_t job_merged[1] = {rank_merged};
  job.sum(job_merged);  // one process: as it is
  const std::uint64_t merged = job_merged[0];
  spdlog::info(
      "counted {} (word, context) pairs in {:.2f} s ({:.1f}% in a dense table of {} cells{}), merged them into "
      "{} co-occurrences in {:.2f} s{}",
      stats.pairs, stats.counting_seconds,
      stats.pairs > 0 ? 100.0 * static_cast<double>(stats.dense_pairs) / static_cast<double>(stats.pairs) : 0.0,
      stats.dense_cells, stats.spilled_runs > 0 ? fmt::format(", {} sorted runs spilled to disk", stats.spilled_runs) : "",
      merged, stats.merging_seconds,
      job.size() > 1 ? fmt::format(" on {} ranks (the pairs: rank 0's share of the corpus); each rank trains the "
                                   "co-occurrences of its rows, rank 0 {}",
                                   job.size(), rank_merged)
                     : "");
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
  if (records) records->finish(run);
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

std::string glove_records_path(const std::string& output) { return output + ".glove-records"; }

GloveRecord glove_record(const CoocEntry& e, double x_max, double alpha) {
  return {e.row, e.column, static_cast<float>(std::log(static_cast<double>(e.count))), glove_weight(e.count, x_max, alpha)};
}

std::vector<GloveRecord> glove_records(std::span<const CoocEntry> entries, double x_max, double alpha) {
  std::vector<GloveRecord> records(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) records[i] = glove_record(entries[i], x_max, alpha);
  return records;
}

void start_glove_run(TrainingRun& run) {
  const TrainSettings& s = run.settings;
  const GloveLayout layout(s.dim, s.optimizer, s.hyper);
  const std::uint64_t rows = run.corpus.vocab.size();
  run.input = make_glove_table(rows, layout, s.seed, 0, s.threads);
  run.output_table = make_glove_table(rows, layout, s.seed, 1, s.threads);
  // Under mpirun each rank walks its own records, with random streams numbered apart.
  run.state = TrainState::start(s.threads, s.seed, run.records.size(), this_job().rank() * s.threads);
}

}  // namespace embed
