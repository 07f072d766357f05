#include "train/word2vec/word2vec_trainer.h"

#include <algorithm>
#include <memory>

#include "core/error.h"
#include "train/corpus/corpus_shards.h"
#include "train/shards/sharded_rounds.h"

namespace embed {
Word2vecTrainer::Word2vecTrainer(const TrainSettings& settings, const Corpus& corpus, Word2vecBackend& backend)
    : settings_(settings),
      corpus_(corpus),
      backend_(backend),
      lookup_(corpus.vocab),
      // word2vec draws negatives from the counts to the 3/4 power; fastText's model (--subwords)
      // from their square root (its NegativeSamplingLoss).
      negatives_(corpus.vocab.counts, settings.subwords ? 0.5 : 0.75),
      keep_(keep_thresholds(corpus.vocab.counts, settings.sample)) {}

float Word2vecTrainer::learning_rate(std::uint64_t words_done) const {
  return linear_decay_learning_rate(settings_.lr, static_cast<double>(words_done),
                                    static_cast<double>(corpus_.words) * settings_.epochs);
}

TrainState Word2vecTrainer::start_state(const Corpus& corpus, unsigned workers, std::uint64_t seed, unsigned rank,
                                        unsigned ranks) {
  const std::vector<ByteRange> all = token_aligned_ranges(corpus.files, workers * ranks);
  std::vector<ByteRange> mine(all.begin() + rank * workers, all.begin() + (rank + 1) * workers);
  return TrainState::start(std::move(mine), seed, rank * workers);
}

void Word2vecTrainer::plan_batch(std::span<const std::uint32_t> sentence, float learning_rate, Random& random, WindowBatch& batch,
                                 std::vector<std::uint32_t>& kept) const {
  start_batch(learning_rate, batch);
  add_sentence(sentence, random, batch, kept);
}

void Word2vecTrainer::start_batch(float learning_rate, WindowBatch& batch) const {
  batch.clear();
  batch.learning_rate = learning_rate;
  batch.negatives_per_window = settings_.negative;
  batch.negatives_per_input = settings_.pair_negatives && settings_.model == Model::skipgram;
}

void Word2vecTrainer::add_sentence(std::span<const std::uint32_t> sentence, Random& random, WindowBatch& batch,
                                   std::vector<std::uint32_t>& kept) const {
  kept.clear();
  for (const std::uint32_t row : sentence) {
    if (keep_[row] == kAlwaysKeep || random.next32() < keep_[row]) kept.push_back(row);
  }
  const std::size_t n = kept.size();
  const auto window = static_cast<std::uint32_t>(settings_.window);
  for (std::size_t i = 0; i < n; ++i) {
    // word2vec's reduced window: a reach drawn uniformly from 1 .. window.
    const std::size_t reach = window - random.below(window);
    const std::size_t begin = i >= reach ? i - reach : 0;
    const std::size_t end = std::min(n, i + reach + 1);
    if (end - begin < 2) continue;  // a one-word sentence has no context
    for (std::size_t j = begin; j < end; ++j) {
      if (j != i) batch.inputs.push_back(kept[j]);
    }
    batch.input_offsets.push_back(static_cast<std::uint32_t>(batch.inputs.size()));
    batch.targets.push_back(kept[i]);
    const std::size_t draws = settings_.negative * (batch.negatives_per_input ? end - begin - 1 : 1);
    for (std::size_t k = 0; k < draws; ++k) batch.negatives.push_back(negatives_.draw(random));
  }
}

bool Word2vecTrainer::run(TrainState& state, const std::atomic<bool>& stop,
                          const std::function<void(const TrainProgress&)>& on_epoch,
                          const std::function<void(const TrainProgress&)>& on_progress) {
  // Per worker: its reader, the sentence it read, the words subsampling kept and the
  // batch it plans, reused sentence after sentence. A cache line or more each: vectors
  // side by side would share lines their push_backs write (measured on 16 threads: reading
  // and planning scaled to 2.4M words/s per thread instead of 8.7M).
  struct alignas(64) Worker {
    std::unique_ptr<CorpusReader> reader;
    std::vector<std::uint32_t> sentence;
    std::vector<std::uint32_t> kept;
    WindowBatch batch;
  };
  std::vector<Worker> workers(settings_.threads);
  EpochTask task;
  task.epochs = settings_.epochs;
  task.train_chunk = [&](unsigned worker, std::uint64_t first, std::uint64_t shard_end, float lr, Random& random,
                         BatchLoss& loss) {
    Worker& w = workers[worker];
    // A reader goes on where the last chunk ended; a new epoch or a resumed run makes one.
    if (!w.reader || w.reader->position() != first) {
      w.reader = std::make_unique<CorpusReader>(corpus_.files, ByteRange{first, shard_end}, lookup_, corpus_.max_token_bytes);
    }
    // A batch takes sentences until it holds the backend's batch of words (gensim's jobs do
    // the same): a corpus of one short sentence per line would otherwise hand a GPU a
    // batch of twenty words at a time (measured on an H200: 100k words/s at dim 300, where
    // text8's long lines train at 41M). The sentence that fills the batch is cut there and
    // goes on in the next one, as a line longer than a batch always has been.
    const std::size_t batch_words = round_batch_words_ > 0 ? round_batch_words_ : backend_.max_batch_words();
    std::size_t words = 0;
    bool read = false;
    start_batch(lr, w.batch);
    while (words < batch_words && w.reader->next_sentence(batch_words - words, w.sentence)) {
      read = true;
      words += w.sentence.size();
      add_sentence(w.sentence, random, w.batch, w.kept);
    }
    if (!read) return ChunkDone{shard_end, 0};
    if (rounds_) {
      rounds_->hand_over(worker, w.batch, words);
    } else {
      backend_.train(w.batch, worker, loss);
    }
    return ChunkDone{w.reader->position(), words};
  };
  task.learning_rate = [this](std::uint64_t words_done) { return learning_rate(words_done); };
  task.finish_shard = [this](unsigned worker, BatchLoss& loss) { backend_.finish(worker, loss); };
  task.after_workers = [this] { backend_.copy_tables_to_host(); };
  task.sync_ranks = sync_ranks_;
  task.sync_seconds = sync_seconds_;
  task.sync_items = sync_words_;
  if (rounds_) {
    // The workers never see the stop: the ranks agree on it at a round, which ends the
    // workers there (and the rounds' batches are those of an uninterrupted run).
    static const std::atomic<bool> never{false};
    task.sync_ranks = [this, &stop](const RankReport& report) { return rounds_->round(report, stop.load()); };
    task.sync_seconds = 1e9;  // by words alone
    task.round_loss = [this] { return rounds_->loss(); };
    return run_epochs(task, state, never, on_epoch, on_progress);
  }
  return run_epochs(task, state, stop, on_epoch, on_progress);
}

}  // namespace embed
