// bench-host-rows: the CPU's share of training with the tables in host memory (issue 36),
// on one thread. With --table host a GPU worker thread, per batch of skip-gram windows,
// remaps the batch to the rows it touches (RowRemapper), gathers the rows that are not
// hot (resident on the GPU) of both tables into its staging copy (gather_rows), and, once
// the GPU has trained them, adds their changes back under the rows' stripe locks
// (scatter_deltas). This times those three stages on batches shaped as the trainer makes
// them, so that their words/s bound says whether they, rather than the bus or the GPU,
// limit host placement.
//
//   bench-host-rows [--rows 3056312] [--dim 300] [--hot 380000] [--words 2000000]
//                   [--batch 20000] [--window 5] [--negative 5] [--zipf 1.0] [--seed 1]
//                   [--storage f32|f16|bf16]
//
// --storage is the type of the staged copies (embed-train's --dtype on the GPU): f16 and
// bf16 halve the bytes staged and sent, at a conversion per value in both directions.
//
// Word ids follow a Zipf law over the rows (rank r drawn with weight 1/(r+1)^zipf, the
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
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "format/dtype.h"
#include "train/engine/row_matrix.h"
#include "train/gpu/row_locks.h"
#include "train/gpu/row_remap.h"
#include "train/word2vec/window_batch.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Draws ranks 0..n-1 with weight 1/(r+1)^power, by binary search in the cumulative weights.
class ZipfDraw {
 public:
  ZipfDraw(std::size_t n, double power) : cumulative_(n) {
    double sum = 0;
    for (std::size_t r = 0; r < n; ++r) cumulative_[r] = sum += 1.0 / std::pow(static_cast<double>(r + 1), power);
  }
  std::uint32_t operator()(std::mt19937_64& random) const {
    const double x = std::uniform_real_distribution<double>(0, cumulative_.back())(random);
    return static_cast<std::uint32_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), x) - cumulative_.begin());
  }

 private:
  std::vector<double> cumulative_;
};

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
  CLI11_PARSE(app, argc, argv);
  hot = std::min(hot, rows);

  std::fprintf(stderr, "bench-host-rows: two tables of %zu x %zu f32 (%.2f GB), drawing %zu words...\n", rows, dim,
               2.0 * static_cast<double>(rows * embed::RowMatrix::stride_for(dim) * sizeof(float)) / 1e9, words);
  embed::RowMatrix input(rows, dim), output(rows, dim);
  for (std::size_t r = 0; r < rows; ++r) {  // touch every page, as a trained table is
    std::fill_n(input.row(r), dim, 0.001f);
    std::fill_n(output.row(r), dim, 0.0f);
  }
  std::mt19937_64 random(seed);
  const ZipfDraw word_draw(rows, zipf), negative_draw(rows, 0.75 * zipf);
  std::vector<std::uint32_t> corpus(words);
  for (auto& id : corpus) id = word_draw(random);

  // The batches, made before any timing: targets, inputs and negatives as the trainer lays them.
  std::vector<embed::WindowBatch> batches;
  for (std::size_t start = 0; start < words; start += batch_words) {
    const std::size_t end = std::min(words, start + batch_words);
    embed::WindowBatch& b = batches.emplace_back();
    b.negatives_per_window = negative;
    for (std::size_t i = start; i < end; ++i) {
      const std::size_t reach = 1 + random() % window;
      for (std::size_t j = i >= reach ? i - reach : 0; j <= std::min(end - 1, i + reach); ++j) {
        if (j != i) b.inputs.push_back(corpus[j]);
      }
      b.input_offsets.push_back(static_cast<std::uint32_t>(b.inputs.size()));
      b.targets.push_back(corpus[i]);
      for (std::size_t k = 0; k < negative; ++k) b.negatives.push_back(negative_draw(random));
    }
  }

  embed::RowRemapper remapper(rows, hot);
  embed::RowLocks locks;
  embed::LocalBatch local;
  const embed::DType storage = *embed::parse_vector_dtype(storage_name);
  std::vector<std::uint8_t> staged, original;
  const std::size_t stride = input.stride();
  const std::size_t row_bytes = stride * embed::dtype_size(storage);
  double remap_s = 0, gather_s = 0, scatter_s = 0;
  std::uint64_t hot_touches = 0, touches = 0, gathered_rows = 0;
  for (const embed::WindowBatch& b : batches) {
    auto t = Clock::now();
    hot_touches += remapper.remap(b, local);
    remap_s += seconds_since(t);
    touches += b.inputs.size() + b.targets.size() + b.negatives.size();
    const std::size_t in_rows = local.input_rows.size(), out_rows = local.output_rows.size();
    gathered_rows += in_rows + out_rows;
    staged.resize((in_rows + out_rows) * row_bytes);
    t = Clock::now();
    embed::gather_rows(input, local.input_rows, storage, staged.data());
    embed::gather_rows(output, local.output_rows, storage, staged.data() + in_rows * row_bytes);
    gather_s += seconds_since(t);
    original = staged;  // the GPU's copy as it was gathered
    // The GPU's training, a stand-in: every value changes a little.
    if (storage == embed::DType::f32) {
      for (std::size_t i = 0; i < staged.size(); i += 4) {
        float v;
        std::memcpy(&v, &staged[i], 4);
        v += 1e-6f;
        std::memcpy(&staged[i], &v, 4);
      }
    } else {
      for (std::size_t i = 0; i < staged.size(); i += 2) staged[i] ^= 1;  // the lowest mantissa bit
    }
    t = Clock::now();
    embed::scatter_deltas(input, local.input_rows, storage, staged.data(), original.data(), &locks);
    embed::scatter_deltas(output, local.output_rows, storage, staged.data() + in_rows * row_bytes,
                          original.data() + in_rows * row_bytes, &locks);
    scatter_s += seconds_since(t);
  }
  const double w = static_cast<double>(words);
  std::printf("stage    seconds      words/s (one thread, %s staging)\n", storage_name.c_str());
  std::printf("remap    %7.3f %12.0f\n", remap_s, w / remap_s);
  std::printf("gather   %7.3f %12.0f\n", gather_s, w / gather_s);
  std::printf("scatter  %7.3f %12.0f\n", scatter_s, w / scatter_s);
  std::printf("all      %7.3f %12.0f\n", remap_s + gather_s + scatter_s, w / (remap_s + gather_s + scatter_s));
  std::printf(
      "hot touches %.1f%%; rows gathered per word %.2f; bytes per word each way %.0f; gather %.1f GB/s, scatter %.1f GB/s\n",
      100.0 * static_cast<double>(hot_touches) / static_cast<double>(touches), static_cast<double>(gathered_rows) / w,
      static_cast<double>(gathered_rows * row_bytes) / w, static_cast<double>(gathered_rows * row_bytes) / gather_s / 1e9,
      static_cast<double>(gathered_rows * row_bytes) / scatter_s / 1e9);
  return 0;
}
