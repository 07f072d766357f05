// bench-host-rows: the CPU's share of training with the tables in host memory (issue 36),
// on one thread or several. With --table host a GPU worker thread, per batch of skip-gram windows,
// remaps the batch to the rows it touches (RowRemapper), gathers the rows that are not
// hot (resident on the GPU) of both tables into its staging copy (gather_rows), and, once
// the GPU has trained them, adds their changes back under the rows' stripe locks
// (scatter_deltas). This times those three stages on batches shaped as the trainer makes
// them, so that their words/s bound says whether they, rather than the bus or the GPU,
// limit host placement.
//
//   bench-host-rows [--rows 3056312] [--dim 300] [--hot 380000] [--words 2000000]
//                   [--batch 20000] [--window 5] [--negative 5] [--zipf 1.0] [--seed 1]
//                   [--storage f32|f16|bf16 [--half-tables]] [--threads 1] [--subwords BUCKETS] [--first-rows]
//                   [--corpus FILE [--min-count 5]] [--write-back auto|whole|add] [--in-flight N]
//                   [--transfer gather|mapped] [--slots 2]
//
// --subwords BUCKETS: fastText's skip-gram (issue 41) instead, its input table the
// vocabulary's rows then BUCKETS n-gram rows: each batch's centres become local words
// whose lists of rows (their own and their n-grams' of 3 to 6 characters, hashed as
// fastText does) are remapped (RowRemapper::remap_subwords), and each pair draws its own
// negatives. The words are made-up strings, the frequent ones short (made_up_words), so
// their lists are about as long as real ones.
//
// The 2 x --hot hot rows are shared out between the two tables as embed-train does
// (hot_rows.h), to the rows batches touch most often (with --subwords, n-gram buckets
// among them); --first-rows keeps both tables' first --hot rows, as before.
//
// --threads N runs N such workers at once on the same two tables and stripe locks, each
// with its own remapper and staging copies for two batches in flight, the batches dealt
// out in turn (as embed-train's GPU workers and their two slots are): their words/s together against one thread's says whether
// the host side scales with cores or is bound by the machine's memory, whose traffic it estimates (what each gathered row costs
// in bytes read and written: see traffic_per_row).
//
// --storage is the type of the staged copies (embed-train's --dtype on the GPU): f16 and
// bf16 halve the bytes staged and sent, at a conversion per value in both directions.
// --half-tables (with --storage f16) keeps the host tables in f16 too, as embed-train
// does with --table host --dtype f16 (row_matrix.h): gathers copy the rows as they are.
//
// --write-back whole stores a row that no other batch wrote between its gather and its
// scatter as the trained copy (row_versions.h), as embed-train does for f16 host tables;
// --write-back add adds every row's change, as it does for f32 ones (auto: the same).
//
// --transfer mapped times what mapped transfers leave to the CPU instead (host_tables.h):
// the remap, the claims (under one lock, their counts asked for first: rows_in_flight.h),
// and, once a batch is done, the changes of the rows another batch in flight held, added
// from their staged copies, and the release of its rows. The kernels' gather, store and
// staging are the GPU's (the staging is done here untimed, as is the stand-in training).
// The "gather" line is then the claims. --slots S holds S batches in flight per worker
// rather than 2, so that 2 threads hold as many as the GPU machines' 16 workers (32).
//
// --in-flight N also counts, untimed, what mapped transfers leave to the CPU: with N
// batches in flight in turn (embed-train holds two per GPU worker, claimed in order), the
// share of a batch's copied rows that another in flight holds when it claims them
// (rows_in_flight.h). The write-back kernel stores the others whole; these the worker
// adds as gather transfers add every row.
//
// --corpus FILE batches a real text's words instead (its words of --min-count occurrences,
// most frequent first, cycled to --words; --rows and --zipf are then the text's): with
// --subwords, real words share n-grams ("<th", "ing>") as made-up ones do not.
//
// Otherwise word ids follow a Zipf law over the rows (rank r drawn with weight 1/(r+1)^zipf, the
// most frequent first, as a vocabulary sorted by count is), negatives the same law to the
// power 0.75 (word2vec's unigram table). A window's inputs are the words within a reduced
// window drawn in [1, window] on each side, as word2vec's. The GPU's work in between is a
// stand-in (every staged value changes), not timed. Prints one line per stage, its
// seconds and words/s, then what the batches looked like (the share of row touches that
// hit hot rows and the bytes per word gathered), to set beside big_table.sh's figures.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "format/dtype.h"
#include "train/engine/row_matrix.h"
#include "train/gpu/hot_rows.h"
#include "train/gpu/row_locks.h"
#include "train/gpu/row_remap.h"
#include "train/gpu/rows_in_flight.h"
#include "train/word2vec/subword_rows.h"
#include "train/word2vec/window_batch.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Draws ranks 0..n-1 by weight, by binary search in the cumulative weights.
class WeightedDraw {
 public:
  explicit WeightedDraw(const std::vector<double>& weights) : cumulative_(weights.size()) {
    double sum = 0;
    for (std::size_t r = 0; r < weights.size(); ++r) cumulative_[r] = sum += weights[r];
  }
  std::uint32_t operator()(std::mt19937_64& random) const {
    const double x = std::uniform_real_distribution<double>(0, cumulative_.back())(random);
    return static_cast<std::uint32_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), x) - cumulative_.begin());
  }

 private:
  std::vector<double> cumulative_;
};

// `rows` made-up words, rank r of length 2 + log2(r + 1) / 2 (at most 14: 30.1 rows listed
// per word of a 71,290-word vocabulary, where text8-head's 15,440 words of count 5 or more
// list 23.9), letters drawn from the rank, so that words share n-grams only by chance.
embed::Vocabulary made_up_words(std::size_t rows) {
  embed::Vocabulary vocab;
  vocab.words.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t length = std::min<std::size_t>(14, 2 + static_cast<std::size_t>(std::log2(static_cast<double>(r + 1)) / 2));
    std::string word;
    std::uint64_t x = r * 0x9e3779b97f4a7c15ull + 1;
    for (std::size_t i = 0; i < length; ++i, x = x * 6364136223846793005ull + 1442695040888963407ull) {
      word.push_back(static_cast<char>('a' + (x >> 59) % 26));
    }
    vocab.words.push_back(std::move(word));
    vocab.counts.push_back(static_cast<std::int64_t>(rows - r));
  }
  return vocab;
}

// Rank r's weight 1/(r+1)^power for r < n, or with `counts`, counts[r]^power.
std::vector<double> zipf_weights(std::size_t n, double power) {
  std::vector<double> weights(n);
  for (std::size_t r = 0; r < n; ++r) weights[r] = 1.0 / std::pow(static_cast<double>(r + 1), power);
  return weights;
}
std::vector<double> count_weights(const std::vector<std::int64_t>& counts, double power) {
  std::vector<double> weights(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) weights[r] = std::pow(static_cast<double>(counts[r]), power);
  return weights;
}

// --corpus: the file's words of `min_count` occurrences or more, most frequent first
// (ties in byte order), with their counts, and the file's words as their ranks.
embed::Vocabulary read_corpus(const std::string& path, std::size_t min_count, std::vector<std::uint32_t>& corpus) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench-host-rows: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::vector<std::string> tokens;
  std::unordered_map<std::string, std::int64_t> counts;
  for (std::string word; in >> word;) {
    ++counts[word];
    tokens.push_back(std::move(word));
  }
  std::vector<std::pair<std::string, std::int64_t>> kept;
  for (auto& [word, count] : counts) {
    if (count >= static_cast<std::int64_t>(min_count)) kept.emplace_back(word, count);
  }
  std::sort(kept.begin(), kept.end(),
            [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  embed::Vocabulary vocab;
  std::unordered_map<std::string, std::uint32_t> rank;
  for (auto& [word, count] : kept) {
    rank.emplace(word, static_cast<std::uint32_t>(vocab.words.size()));
    vocab.words.push_back(word);
    vocab.counts.push_back(count);
  }
  corpus.clear();
  for (const std::string& word : tokens) {
    if (const auto found = rank.find(word); found != rank.end()) corpus.push_back(found->second);
  }
  return vocab;
}

// What one worker's stages took, in seconds of its thread, and what its batches held.
struct WorkerTimes {
  double remap = 0, gather = 0, scatter = 0;
  std::uint64_t hot_touches = 0, touches = 0, gathered_rows = 0, gathered_inputs = 0, most_inputs = 0;
  std::uint64_t shared_rows = 0;  // --transfer mapped: rows another batch in flight held (the CPU adds them)
  std::uint64_t whole_rows = 0;   // set to the trained copy rather than added to
};

// Host memory bytes one gathered row moves through the path, for a row of `table_bytes`
// (the host tables') staged as `staged_bytes`: the gather reads the table row and writes
// the staged copy (its cache lines read first, as stores to them allocate); the copy goes
// to the GPU (read) and comes back (written); the scatter reads both staged copies and
// reads and writes the table row, or for a row set whole (row_versions.h, `whole` of
// them) reads the trained copy and writes the table row (read first, as above).
double traffic_per_row(double table_bytes, double staged_bytes, double whole) {
  const double gather = table_bytes + 2 * staged_bytes;
  const double transfers = 2 * staged_bytes;
  const double add = 2 * staged_bytes + 2 * table_bytes;
  const double set = staged_bytes + 2 * table_bytes;
  return gather + transfers + whole * set + (1 - whole) * add;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t rows = 3056312, dim = 300, hot = 380000, words = 2000000, batch_words = 20000, window = 5, negative = 5;
  double zipf = 1.0;
  std::uint64_t seed = 1;
  CLI::App app{"The host side of training with host-resident tables: remap, gather and scatter, on one thread."};
  app.add_option("--rows", rows, "rows of each table (the vocabulary)");
  app.add_option("--dim", dim, "vector dimensions");
  app.add_option("--hot", hot, "the most frequent rows, resident on the GPU: never gathered");
  app.add_option("--words", words, "corpus words to batch");
  app.add_option("--batch", batch_words, "words per batch (the GPU plan's, 20000 at most)");
  app.add_option("--window", window, "context words on each side, at most");
  app.add_option("--negative", negative, "negatives per window");
  app.add_option("--zipf", zipf, "the word frequencies' Zipf exponent");
  app.add_option("--seed", seed, "random seed");
  std::string storage_name = "f32";
  app.add_option("--storage", storage_name, "the staged copies' type (embed-train's --dtype)")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}));
  unsigned threads = 1;
  app.add_option("--threads", threads, "workers at once on the same tables (embed-train's GPU workers)")
      ->check(CLI::Range(1u, 256u));
  bool half_tables = false;
  app.add_flag("--half-tables", half_tables, "f16 host tables (embed-train's --table host --dtype f16); needs --storage f16");
  std::size_t buckets = 0;
  app.add_option("--subwords", buckets, "fastText's skip-gram with this many n-gram buckets (0: word2vec's)");
  std::string write_back = "auto";
  app.add_option("--write-back", write_back,
                 "whole: store a row no other batch wrote meanwhile whole (row_versions.h); add: add every row's change; "
                 "auto: as embed-train, whole for f16 host tables")
      ->check(CLI::IsMember({"auto", "whole", "add"}));
  bool first_rows = false;
  app.add_flag("--first-rows", first_rows, "both tables' first --hot rows hot, rather than the most touched");
  std::string corpus_path;
  std::size_t min_count = 5;
  app.add_option("--corpus", corpus_path, "batch this text's words (its vocabulary's, cycled to --words) instead of drawn ones");
  app.add_option("--min-count", min_count, "--corpus: the vocabulary's words occur at least this often");
  std::size_t slots_per_worker = 2;
  app.add_option("--slots", slots_per_worker,
                 "batches each worker holds in flight (embed-train's GPU workers: 2): with --transfer mapped, threads x "
                 "slots batches hold rows at once")
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
  std::string transfer = "gather";
  app.add_option("--transfer", transfer,
                 "gather: CPU threads copy every row both ways; mapped: the GPU moves them, the CPU adds the rows another "
                 "batch in flight holds")
      ->check(CLI::IsMember({"gather", "mapped"}));
  std::size_t in_flight = 0;
  app.add_option("--in-flight", in_flight,
                 "also count the share of copied rows another of this many batches in flight holds (mapped transfers: "
                 "the rows whose change the CPU adds)");
  CLI11_PARSE(app, argc, argv);
  if (half_tables && storage_name != "f16") {
    std::fprintf(stderr, "bench-host-rows: --half-tables needs --storage f16\n");
    return 2;
  }

  // The corpus: the file's words, or ranks drawn by a Zipf law over made-up words.
  std::vector<std::uint32_t> corpus(words);
  embed::Vocabulary vocab;
  std::mt19937_64 random(seed);
  if (!corpus_path.empty()) {
    std::vector<std::uint32_t> text;
    vocab = read_corpus(corpus_path, min_count, text);
    if (text.empty()) {
      std::fprintf(stderr, "bench-host-rows: %s has no word of %zu occurrences\n", corpus_path.c_str(), min_count);
      return 1;
    }
    rows = vocab.size();
    for (std::size_t i = 0; i < words; ++i) corpus[i] = text[i % text.size()];
  } else {
    if (buckets > 0) vocab = made_up_words(rows);
    // The counts the Zipf draw expects (most_touched_rows ranks rows by them).
    vocab.counts.assign(rows, 0);
    for (std::size_t r = 0; r < rows; ++r)
      vocab.counts[r] = static_cast<std::int64_t>(1e12 / std::pow(static_cast<double>(r + 1), zipf));
    const WeightedDraw word_draw(zipf_weights(rows, zipf));
    for (auto& id : corpus) id = word_draw(random);
  }
  // Negatives: word2vec's unigram table, counts to the power 0.75.
  const WeightedDraw negative_draw(count_weights(vocab.counts, 0.75));
  // --subwords shares 2 x --hot rows out between the tables, the input one having the buckets' rows too.
  hot = std::min(hot, buckets > 0 && !first_rows ? (2 * rows + buckets) / 2 : rows);

  const bool subword_model = buckets > 0;
  const embed::DType element = half_tables ? embed::DType::f16 : embed::DType::f32;
  std::fprintf(stderr, "bench-host-rows: tables of %zu and %zu x %zu %s (%.2f GB), drawing %zu words...\n", rows + buckets, rows,
               dim, half_tables ? "f16" : "f32",
               static_cast<double>((2 * rows + buckets) * embed::RowMatrix::stride_for(dim) * embed::dtype_size(element)) / 1e9,
               words);
  embed::RowMatrix input(rows + buckets, dim, element), output(rows, dim, element);
  {
    // Touch every page, as a trained table is.
    const std::vector<float> small(dim, 0.001f), zeros(dim, 0.0f);
    for (std::size_t r = 0; r < input.rows(); ++r) input.store_row(r, small.data(), dim);
    for (std::size_t r = 0; r < rows; ++r) output.store_row(r, zeros.data(), dim);
  }
  const embed::SubwordRows subwords =
      subword_model ? embed::SubwordRows(vocab, embed::SubwordSettings{3, 6, buckets}) : embed::SubwordRows();
  if (subword_model) {
    std::fprintf(stderr, "bench-host-rows: %.1f rows listed per word on average\n",
                 static_cast<double>(subwords.listed()) / static_cast<double>(rows));
  }
  const embed::HotRows hot_rows = first_rows ? embed::HotRows{hot, {}, hot}
                                             : embed::most_touched_rows(subword_model ? &subwords : nullptr, vocab.counts,
                                                                        embed::Model::skipgram, window, negative, 2 * hot);
  std::fprintf(stderr, "bench-host-rows: hot rows: %zu of the input table's (%zu of them n-gram buckets), %zu of the output's\n",
               hot_rows.inputs(), hot_rows.input_buckets.size(), hot_rows.output_rows);

  // The batches, made before any timing: targets, inputs and negatives as the trainer lays them.
  std::vector<embed::WindowBatch> batches;
  for (std::size_t start = 0; start < words; start += batch_words) {
    const std::size_t end = std::min(words, start + batch_words);
    embed::WindowBatch& b = batches.emplace_back();
    b.negatives_per_window = negative;
    b.negatives_per_input = subword_model;  // fastText's skip-gram: each (centre, context) pair its own
    for (std::size_t i = start; i < end; ++i) {
      const std::size_t reach = 1 + random() % window;
      const std::size_t first_input = b.inputs.size();
      for (std::size_t j = i >= reach ? i - reach : 0; j <= std::min(end - 1, i + reach); ++j) {
        if (j != i) b.inputs.push_back(corpus[j]);
      }
      b.input_offsets.push_back(static_cast<std::uint32_t>(b.inputs.size()));
      b.targets.push_back(corpus[i]);
      const std::size_t draws = negative * (subword_model ? b.inputs.size() - first_input : 1);
      for (std::size_t k = 0; k < draws; ++k) b.negatives.push_back(negative_draw(random));
    }
  }

  embed::RowLocks locks;
  embed::RowVersions input_versions(input.rows()), output_versions(output.rows());
  const bool whole_rows = write_back == "whole" || (write_back == "auto" && half_tables);
  const embed::DType storage = *embed::parse_vector_dtype(storage_name);
  const std::size_t stride = input.stride();
  const std::size_t row_bytes = stride * embed::dtype_size(storage);
  // One GPU worker's host side over batches worker, worker + threads, ...
  // A batch between its gather and its scatter: its rows, their staged copy (trained in
  // place) and the copy as gathered, and the counts its gather saw (row_versions.h).
  struct InFlight {
    embed::LocalBatch local;
    std::vector<std::uint8_t> staged, original;
    std::vector<std::uint16_t> seen;
    std::vector<std::uint8_t> shared;  // --transfer mapped: per copied row, 1 where another batch held it
    bool pending = false;
  };
  const bool mapped = transfer == "mapped";
  const embed::RowsInFlight input_claims(mapped ? input.rows() : 0), output_claims(mapped ? output.rows() : 0);
  std::mutex claim_order;  // embed-train's claims' lock (write_back_turns.h)
  // --transfer mapped, once the batch is done: the shared rows' changes added, every row let go.
  auto complete_mapped = [&](InFlight& batch, WorkerTimes& times) {
    const std::size_t in_rows = batch.local.input_rows.size();
    const auto t = Clock::now();
    // As HostTables::complete: the shared rows' indexes, their changes added, every row let go.
    auto add = [&](embed::RowMatrix& table, const std::vector<std::uint32_t>& ids, std::size_t first,
                   const embed::RowsInFlight& claims) {
      thread_local std::vector<std::uint32_t> shared_at;  // kept from batch to batch, as there
      shared_at.clear();
      for (std::size_t k = 0; k < ids.size(); ++k) {
        if (batch.shared[first + k]) shared_at.push_back(static_cast<std::uint32_t>(k));
      }
      const std::size_t at = first * row_bytes;
      embed::add_deltas_at(table, ids, shared_at, storage, batch.staged.data() + at, batch.original.data() + at, locks);
      for (const std::uint32_t row : ids) claims.release(row);
    };
    add(input, batch.local.input_rows, 0, input_claims);
    add(output, batch.local.output_rows, in_rows, output_claims);
    times.scatter += seconds_since(t);
    batch.pending = false;
  };
  auto scatter = [&](InFlight& batch, WorkerTimes& times) {
    const std::size_t in_rows = batch.local.input_rows.size();
    const auto t = Clock::now();
    embed::RowVersions* in_versions = whole_rows ? &input_versions : nullptr;
    embed::RowVersions* out_versions = whole_rows ? &output_versions : nullptr;
    times.whole_rows += embed::scatter_deltas(input, batch.local.input_rows, storage, batch.staged.data(), batch.original.data(),
                                              &locks, in_versions, batch.seen.data());
    times.whole_rows +=
        embed::scatter_deltas(output, batch.local.output_rows, storage, batch.staged.data() + in_rows * row_bytes,
                              batch.original.data() + in_rows * row_bytes, &locks, out_versions, batch.seen.data() + in_rows);
    times.scatter += seconds_since(t);
    batch.pending = false;
  };
  // One GPU worker's host side over batches worker, worker + threads, ... with two in
  // flight, as a worker's two slots hold them: batch i is gathered before batch i - 1's
  // changes come back.
  auto work = [&](unsigned worker, WorkerTimes& times) {
    embed::RowRemapper remapper(input.rows(), hot_rows);
    std::vector<InFlight> slots(slots_per_worker);
    std::size_t next = 0;
    for (std::size_t index = worker; index < batches.size(); index += threads) {
      const embed::WindowBatch& b = batches[index];
      InFlight& batch = slots[next];
      next = (next + 1) % slots.size();
      if (batch.pending) mapped ? complete_mapped(batch, times) : scatter(batch, times);
      embed::LocalBatch& local = batch.local;
      auto t = Clock::now();
      times.hot_touches +=
          subword_model ? remapper.remap_subwords(b, 0, b.windows(), subwords, true, local) : remapper.remap(b, local);
      times.remap += seconds_since(t);
      // A subword batch touches its words' listed rows (each word once) and its output ids.
      times.touches += subword_model ? local.words.rows.size() + b.inputs.size() + b.negatives.size()
                                     : b.inputs.size() + b.targets.size() + b.negatives.size();
      const std::size_t in_rows = local.input_rows.size(), out_rows = local.output_rows.size();
      times.gathered_rows += in_rows + out_rows;
      times.gathered_inputs += in_rows;
      times.most_inputs = std::max<std::uint64_t>(times.most_inputs, in_rows);
      batch.staged.resize((in_rows + out_rows) * row_bytes);
      if (mapped) {
        // The claims, timed as "gather": counts asked for, then claimed under the claims' lock.
        batch.shared.assign(in_rows + out_rows, 0);
        batch.original.resize(batch.staged.size());
        t = Clock::now();
        for (const std::uint32_t row : local.input_rows) input_claims.prefetch(row);
        for (const std::uint32_t row : local.output_rows) output_claims.prefetch(row);
        {
          const std::lock_guard<std::mutex> in_order(claim_order);
          for (std::size_t k = 0; k < in_rows; ++k) batch.shared[k] = !input_claims.claim(local.input_rows[k]);
          for (std::size_t k = 0; k < out_rows; ++k) batch.shared[in_rows + k] = !output_claims.claim(local.output_rows[k]);
        }
        times.gather += seconds_since(t);
        // The GPU's part, untimed: the shared rows staged as gathered and as trained (a
        // stand-in: every value changes).
        for (std::size_t k = 0; k < in_rows + out_rows; ++k) {
          if (!batch.shared[k]) continue;
          ++times.shared_rows;
          const bool is_input = k < in_rows;
          const std::uint32_t row = is_input ? local.input_rows[k] : local.output_rows[k - in_rows];
          std::uint8_t* at = batch.staged.data() + k * row_bytes;
          embed::gather_rows(is_input ? input : output, {&row, 1}, storage, at, nullptr, nullptr);
          std::memcpy(batch.original.data() + k * row_bytes, at, row_bytes);
          at[0] ^= 1;  // the lowest mantissa bit of the first value (f32 or f16 staging)
        }
        batch.pending = true;
        continue;
      }
      batch.seen.resize(in_rows + out_rows);
      t = Clock::now();
      embed::gather_rows(input, local.input_rows, storage, batch.staged.data(), whole_rows ? &input_versions : nullptr,
                         batch.seen.data());
      embed::gather_rows(output, local.output_rows, storage, batch.staged.data() + in_rows * row_bytes,
                         whole_rows ? &output_versions : nullptr, batch.seen.data() + in_rows);
      times.gather += seconds_since(t);
      batch.original = batch.staged;  // the GPU's copy as it was gathered
      // The GPU's training, a stand-in: every value changes a little.
      if (storage == embed::DType::f32) {
        for (std::size_t i = 0; i < batch.staged.size(); i += 4) {
          float v;
          std::memcpy(&v, &batch.staged[i], 4);
          v += 1e-6f;
          std::memcpy(&batch.staged[i], &v, 4);
        }
      } else {
        for (std::size_t i = 0; i < batch.staged.size(); i += 2) batch.staged[i] ^= 1;  // the lowest mantissa bit
      }
      batch.pending = true;
    }
    for (InFlight& batch : slots) {
      if (batch.pending) mapped ? complete_mapped(batch, times) : scatter(batch, times);
    }
  };
  std::vector<WorkerTimes> times(threads);
  const auto start = Clock::now();
  if (threads == 1) {
    work(0, times[0]);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t, std::ref(times[t]));
    for (std::thread& thread : pool) thread.join();
  }
  const double wall = seconds_since(start);
  WorkerTimes all;
  for (const WorkerTimes& t : times) {
    all.remap += t.remap;
    all.gather += t.gather;
    all.scatter += t.scatter;
    all.hot_touches += t.hot_touches;
    all.touches += t.touches;
    all.gathered_rows += t.gathered_rows;
    all.gathered_inputs += t.gathered_inputs;
    all.most_inputs = std::max(all.most_inputs, t.most_inputs);
    all.whole_rows += t.whole_rows;
    all.shared_rows += t.shared_rows;
  }
  const double w = static_cast<double>(words);
  // Per stage: seconds summed over the threads, and words/s per thread.
  std::printf("stage    seconds      words/s (per thread, %u thread%s, %s staging, %s tables)\n", threads,
              threads == 1 ? "" : "s", storage_name.c_str(), half_tables ? "f16" : "f32");
  std::printf("remap    %7.3f %12.0f\n", all.remap, w / all.remap);
  std::printf("%-7s  %7.3f %12.0f\n", mapped ? "claim" : "gather", all.gather, w / all.gather);
  std::printf("%-7s  %7.3f %12.0f\n", mapped ? "add" : "scatter", all.scatter, w / all.scatter);
  const double busy = all.remap + all.gather + all.scatter;
  std::printf("all      %7.3f %12.0f\n", busy, w / busy);
  const double gathered = static_cast<double>(all.gathered_rows);
  std::printf(
      "hot touches %.1f%%; rows gathered per word %.2f; bytes per word each way %.0f; gather %.1f GB/s, scatter %.1f GB/s "
      "per thread\n",
      100.0 * static_cast<double>(all.hot_touches) / static_cast<double>(all.touches), gathered / w,
      gathered * static_cast<double>(row_bytes) / w, gathered * static_cast<double>(row_bytes) / all.gather / 1e9,
      gathered * static_cast<double>(row_bytes) / all.scatter / 1e9);
  // The input table's rows a batch copies, per word of the batch (what a slot must hold:
  // gpu_plan.h's kCopiedSubwordRowsPerWord): on average, and in the batch that copied most.
  const double batch = static_cast<double>(std::min(batch_words, words));
  std::printf("input rows copied per word: %.2f on average, %.2f in the batch that copied most\n",
              static_cast<double>(all.gathered_inputs) / w, static_cast<double>(all.most_inputs) / batch);
  const double shared_rows = static_cast<double>(all.shared_rows);
  const double whole = gathered <= 0 ? 0.0 : mapped ? 1 - shared_rows / gathered : static_cast<double>(all.whole_rows) / gathered;
  std::printf("rows set whole on their way back (%s): %.1f%%\n",
              mapped ? "no other batch in flight held them, stored by the GPU" : "no other batch wrote them meanwhile",
              100.0 * whole);
  // Mapped: the DMA reads every row and stores the unshared ones; a shared one it stages
  // twice, and the CPU reads both copies and reads and writes the table's row.
  const double table_row = static_cast<double>(input.row_bytes()), staged_row = static_cast<double>(row_bytes);
  const double traffic =
      mapped ? gathered * table_row + (gathered - shared_rows) * table_row + shared_rows * (4 * staged_row + 2 * table_row)
             : gathered * traffic_per_row(table_row, staged_row, whole);
  std::printf("together: %u thread%s, %.3f s, %.0f words/s; host memory traffic about %.0f KB per word, %.1f GB/s\n", threads,
              threads == 1 ? "" : "s", wall, w / wall, traffic / w / 1e3, traffic / wall / 1e9);

  if (in_flight > 0) {
    // The batches claimed in order, each letting go of its rows `in_flight` batches later.
    embed::RowRemapper remapper(input.rows(), hot_rows);
    const embed::RowsInFlight input_holders(input.rows()), output_holders(output.rows());
    std::deque<embed::LocalBatch> held;
    std::uint64_t claimed = 0, shared = 0;
    double claim_seconds = 0, locked_seconds = 0;
    for (const embed::WindowBatch& b : batches) {
      if (held.size() == in_flight) {
        for (const std::uint32_t row : held.front().input_rows) input_holders.release(row);
        for (const std::uint32_t row : held.front().output_rows) output_holders.release(row);
        held.pop_front();
      }
      embed::LocalBatch& local = held.emplace_back();
      if (subword_model) {
        remapper.remap_subwords(b, 0, b.windows(), subwords, true, local);
      } else {
        remapper.remap(b, local);
      }
      // Timed as embed-train claims them: the counts asked for, then claimed (under the
      // lock every worker takes in turn there).
      const auto t = Clock::now();
      for (const std::uint32_t row : local.input_rows) input_holders.prefetch(row);
      for (const std::uint32_t row : local.output_rows) output_holders.prefetch(row);
      const auto locked = Clock::now();
      for (const std::uint32_t row : local.input_rows) shared += input_holders.claim(row) ? 0 : 1;
      for (const std::uint32_t row : local.output_rows) shared += output_holders.claim(row) ? 0 : 1;
      claim_seconds += seconds_since(t);
      locked_seconds += seconds_since(locked);
      claimed += local.input_rows.size() + local.output_rows.size();
    }
    std::printf(
        "mapped transfers, %zu batches in flight: %.1f%% of the copied rows held by another (the CPU adds their "
        "change), %.2f per word; claims %.1f ns per row, %.1f of them after the prefetch\n",
        in_flight, claimed > 0 ? 100.0 * static_cast<double>(shared) / static_cast<double>(claimed) : 0.0,
        static_cast<double>(shared) / w, 1e9 * claim_seconds / static_cast<double>(claimed),
        1e9 * locked_seconds / static_cast<double>(claimed));
  }
  return 0;
}
