// bench-feed: how fast the CPU can feed a GPU word2vec batches (issue 36). With the tables
// in GPU memory the GPU trains what the worker threads hand it: each reads its byte range
// of the corpus (CorpusReader), looks its words up, subsamples them, draws reduced windows
// and negatives (Word2vecTrainer::add_sentence) and packs the batch into one buffer for
// the copy to the device (pack_batch), as the CUDA backend does before it queues the copy.
// This runs those steps with a backend that packs each batch and drops it, so its words/s
// is the most any GPU could train on this machine with these threads: device placement
// near it is bound by the CPU, far below it by the GPU (embed-train's epoch line says how
// long the workers waited for the GPU).
//
//   bench-feed --corpus FILE [--copies 1] [--threads T] [--model skipgram|cbow]
//              [--batch-words 20000] [--window 5] [--negative 5] [--sample 1e-4]
//              [--min-count 5] [--epochs 1]
//
// --copies N reads FILE N times over (a larger corpus without writing one); FILE may be
// gzip or - (standard input, with --copies 1), which are spooled to a temporary file. Counting is
// timed apart and left out of the words/s, as embed-train's epoch line leaves it out.
// Output: one line for counting, one per epoch ("epoch E: N words in S s, W words/s, P
// per thread, B batches of M windows on average") and the last epoch's words/s alone
// ("feed W").
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/error.h"
#include "core/parallel.h"
#include "train/corpus/corpus.h"
#include "train/gpu/packed_batch.h"
#include "train/run/train_settings.h"
#include "train/word2vec/word2vec_backend.h"
#include "train/word2vec/word2vec_trainer.h"

namespace {

using namespace embed;

// Packs every batch as the CUDA backend does for device placement, into the worker's
// buffer (pinned memory there), and counts what it packed.
class PackingBackend final : public Word2vecBackend {
 public:
  PackingBackend(unsigned workers, std::size_t batch_words, std::size_t window, std::size_t negative)
      : buffers_(workers), batch_words_(batch_words), window_(window), negative_(negative) {}
  std::string name() const override { return "packing"; }
  void train(const WindowBatch& batch, unsigned worker, BatchLoss&) override {
    std::vector<std::uint32_t>& buffer = buffers_.at(worker);
    buffer.resize(packed_words_bound(batch.windows(), 2 * window_, negative_, false, 0));
    const PackedBatchShape shape = pack_batch(batch, {}, {}, buffer.data());
    packed_words_.fetch_add(shape.size(), std::memory_order_relaxed);
    windows_.fetch_add(batch.windows(), std::memory_order_relaxed);
    batches_.fetch_add(1, std::memory_order_relaxed);
  }
  std::size_t max_batch_words() const override { return batch_words_; }

  std::uint64_t windows() const { return windows_.load(); }
  std::uint64_t batches() const { return batches_.load(); }

 private:
  std::vector<std::vector<std::uint32_t>> buffers_;
  std::size_t batch_words_, window_, negative_;
  std::atomic<std::uint64_t> packed_words_{0}, windows_{0}, batches_{0};
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_path, model = "skipgram";
  unsigned copies = 1, threads = default_thread_count(), epochs = 1;
  std::size_t batch_words = 20000, window = 5, negative = 5;
  std::uint64_t min_count = 5;
  double sample = 1e-4;
  CLI::App app{"bench-feed: the words/s at which the CPU plans and packs word2vec batches for a GPU"};
  app.add_option("--corpus", corpus_path, "the corpus text")->required();
  app.add_option("--copies", copies, "read the corpus this many times over")->check(CLI::Range(1u, 1000u))->capture_default_str();
  app.add_option("--threads", threads, "worker threads (default: all cores)")->check(CLI::Range(1u, 1024u));
  app.add_option("--model", model, "skipgram or cbow")->check(CLI::IsMember({"skipgram", "cbow"}))->capture_default_str();
  app.add_option("--batch-words", batch_words, "words per batch (the GPU's: 20000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24))
      ->capture_default_str();
  app.add_option("--window", window, "window")->check(CLI::Range(std::size_t{1}, std::size_t{100}))->capture_default_str();
  app.add_option("--negative", negative, "negatives")->check(CLI::Range(std::size_t{1}, std::size_t{60}))->capture_default_str();
  app.add_option("--sample", sample, "subsampling threshold")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  app.add_option("--min-count", min_count, "min-count")->capture_default_str();
  app.add_option("--epochs", epochs, "epochs")->check(CLI::Range(1u, 100u))->capture_default_str();
  try {
    app.parse(argc, argv);
    if (copies > 1 && corpus_path == "-") throw CLI::ValidationError("--copies: standard input is read once");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "bench-feed: error: %s; see --help\n", e.what());
    return 2;
  }

  try {
    CorpusOptions options;
    options.min_count = min_count;
    options.threads = threads;
    // Standard input or gzip is copied to a spool file the epochs read, removed at the end.
    options.spool_prefix = (std::filesystem::temp_directory_path() / ("bench-feed-" + std::to_string(::getpid()))).string();
    const auto counting = std::chrono::steady_clock::now();
    const Corpus corpus = read_corpus(std::vector<std::string>(copies, corpus_path), options);
    std::printf("counting: %.2f s, %llu words, vocabulary %zu\n", seconds_since(counting),
                static_cast<unsigned long long>(corpus.words), corpus.vocab.size());

    TrainSettings s;
    s.model = model == "cbow" ? Model::cbow : Model::skipgram;
    s.threads = threads;
    s.epochs = epochs;
    s.window = window;
    s.negative = negative;
    s.sample = sample;
    PackingBackend backend(threads, batch_words, window, negative);
    Word2vecTrainer trainer(s, corpus, backend);
    TrainState state = Word2vecTrainer::start_state(corpus, threads, s.seed);
    std::atomic<bool> stop{false};
    double last_rate = 0, epoch_start = 0;
    std::uint64_t done_before = 0, windows_before = 0, batches_before = 0;
    trainer.run(
        state, stop,
        [&](const TrainProgress& p) {
          const double seconds = p.seconds - epoch_start;
          const std::uint64_t words = p.items_done - done_before;
          const std::uint64_t batches = backend.batches() - batches_before;
          last_rate = seconds > 0 ? static_cast<double>(words) / seconds : 0;
          std::printf("epoch %u: %llu words in %.2f s, %.3g words/s, %.3g per thread, %llu batches of %.0f windows on average\n",
                      p.epoch + 1, static_cast<unsigned long long>(words), seconds, last_rate, last_rate / threads,
                      static_cast<unsigned long long>(batches),
                      batches ? static_cast<double>(backend.windows() - windows_before) / static_cast<double>(batches) : 0.0);
          epoch_start = p.seconds;
          done_before = p.items_done;
          windows_before = backend.windows();
          batches_before = backend.batches();
        },
        nullptr);
    std::printf("feed %.4g\n", last_rate);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench-feed: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
