// embed-train --init: continuing from earlier vectors learns like training on both
// corpora at once, --lock-init leaves the file's rows bit-identical (in both CPU
// backends), and what a run keeps of --init survives its checkpoint.
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "test_util.h"
#include "train/files/checkpoint.h"
#include "train/glove/glove_cpu_backend.h"
#include "train/run/option_rules.h"
#include "train/run/train_command.h"
#include "train/word2vec/word2vec_backend.h"
#include "train/word2vec/word2vec_trainer.h"
#include "train_fixtures.h"
#include "vectors/load.h"

using namespace embed;

namespace {

// Lines about one of two topics each ("a0".."a{a_words-1}" or "b0".."b{b_words-1}"), as
// topic_corpus makes them, as text.
std::string topic_text(unsigned seed, int lines, unsigned a_words, unsigned b_words) {
  Random random(seed, 7);
  std::string text;
  for (int line = 0; line < lines; ++line) {
    const bool a = line % 2 == 0;
    for (int w = 0; w < 12; ++w) text += (a ? "a" : "b") + std::to_string(random.below(a ? a_words : b_words)) + " ";
    text += "\n";
  }
  return text;
}

struct RunOptions {
  InitRequest init;
  Model model = Model::skipgram;
  bool save_context = false;
  std::string checkpoint;  // --checkpoint: kept after every epoch
};

RunOptions init_from(const std::string& file) {
  RunOptions options;
  options.init.file = file;
  return options;
}

// Trains on `corpus` into `output`, the way embed-train's command line does.
void train_file(const std::string& corpus, const std::string& output, RunOptions options = {}) {
  TrainCommand command;
  command.input.corpus = {corpus};
  command.output.output = output;
  command.output.min_count = 1;
  command.output.save_context = options.save_context;
  command.checkpoint = options.checkpoint;
  command.settings.model = options.model;
  command.settings.dim = 16;
  command.settings.threads = 1;
  command.settings.sample = 0;
  command.settings.epochs = 3;
  command.init = std::move(options.init);
  resolve_train_command(command, {"--dim", "--epochs"});
  const auto level = spdlog::get_level();
  spdlog::set_level(spdlog::level::warn);  // the runs' progress lines would bury Catch's report
  const int status = run_train_command(std::move(command));
  spdlog::set_level(level);
  REQUIRE(status == 0);
}

// The mean cosine of word pairs within a topic minus across topics, over the words of
// `path` whose first letter names a topic.
double separation(const std::string& path) {
  const EmbeddingTable t = load_vectors(path, LoadOptions{}).table;
  double same = 0, cross = 0;
  long same_n = 0, cross_n = 0;
  for (std::size_t a = 0; a < t.rows(); ++a) {
    for (std::size_t b = a + 1; b < t.rows(); ++b) {
      double ab = 0, aa = 0, bb = 0;
      for (std::size_t i = 0; i < t.dim; ++i) {
        ab += t.row(a)[i] * t.row(b)[i];
        aa += t.row(a)[i] * t.row(a)[i];
        bb += t.row(b)[i] * t.row(b)[i];
      }
      const double c = aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0;
      const bool same_topic = t.word(a)[0] == t.word(b)[0];
      (same_topic ? same : cross) += c;
      ++(same_topic ? same_n : cross_n);
    }
  }
  return same / static_cast<double>(same_n) - cross / static_cast<double>(cross_n);
}

std::map<std::string, std::vector<float>> rows_by_word(const std::string& path) {
  const EmbeddingTable t = load_vectors(path, LoadOptions{}).table;
  std::map<std::string, std::vector<float>> rows;
  for (std::size_t r = 0; r < t.rows(); ++r) rows[std::string(t.word(r))].assign(t.row(r).begin(), t.row(r).end());
  return rows;
}

}  // namespace

TEST_CASE("starting corpus B from vectors trained on A learns as well as training on A + B", "[train][init]") {
  test::TempDir dir;
  // A holds most of the evidence; B alone is too little to separate the topics well.
  const std::string a = topic_text(1, 600, 20, 20), b = topic_text(2, 30, 20, 20);
  test::write_file(dir.file("a.txt"), a);
  test::write_file(dir.file("b.txt"), b);
  test::write_file(dir.file("ab.txt"), a + b);
  // A's vectors with their context vectors (a.context.emb), and its checkpoint.
  RunOptions a_options;
  a_options.save_context = true;
  a_options.checkpoint = dir.file("a.ckpt");
  train_file(dir.file("a.txt"), dir.file("a.emb"), a_options);
  train_file(dir.file("b.txt"), dir.file("b.emb"));
  train_file(dir.file("ab.txt"), dir.file("ab.emb"));
  train_file(dir.file("b.txt"), dir.file("ab-init.emb"), init_from(dir.file("a.emb")));
  const double alone = separation(dir.file("b.emb")), both = separation(dir.file("ab.emb")),
               continued = separation(dir.file("ab-init.emb"));
  INFO("separation: B alone " << alone << ", A + B " << both << ", A then --init B " << continued);
  // Measured (2026-11-26, seeds 1 to 4): B alone 0.003 to 0.007, A + B 0.864 to 0.869,
  // A then --init B 0.854 to 0.860 (0.009 to 0.011 below A + B). Broken: an --init that
  // is ignored gives B alone's 0.003 to 0.007, which fails the second and third checks; a
  // model that learns nothing gives about 0, which fails the first.
  REQUIRE(both > 0.5);
  REQUIRE(continued > alone + 0.3);            // the file's vectors were used
  REQUIRE(std::abs(continued - both) < 0.05);  // and they learn as one run on both would

  // A checkpoint holds the same tables as the vectors and context vectors written with it.
  train_file(dir.file("b.txt"), dir.file("ckpt-init.emb"), init_from(dir.file("a.ckpt")));
  REQUIRE(load_vectors(dir.file("ckpt-init.emb"), {}).table.values == load_vectors(dir.file("ab-init.emb"), {}).table.values);
}

TEST_CASE("locked rows from the file stay bit-identical, new words train, kept words follow", "[train][init]") {
  test::TempDir dir;
  // A's words a0..a19, b0..b19; B brings new words a20..a29 and lacks b15..b19.
  test::write_file(dir.file("a.txt"), topic_text(1, 200, 20, 20));
  test::write_file(dir.file("b.txt"), topic_text(2, 100, 30, 15));
  for (const Model model : {Model::skipgram, Model::cbow, Model::glove}) {
    CAPTURE(model_name(model));
    RunOptions options;
    options.model = model;
    train_file(dir.file("a.txt"), dir.file("a.emb"), options);
    options.init = {dir.file("a.emb"), true, true, false};  // --init-keep --lock-init
    train_file(dir.file("b.txt"), dir.file("b.emb"), options);
    const auto before = rows_by_word(dir.file("a.emb"));
    const auto after = rows_by_word(dir.file("b.emb"));
    std::size_t locked = 0, changed_new = 0;
    for (const auto& [word, row] : after) {
      const auto was = before.find(word);
      if (was == before.end()) {
        changed_new += 1;
        continue;
      }
      // GloVe's output is W + W̃: its W rows are locked, its context rows train.
      if (model != Model::glove) REQUIRE(std::memcmp(row.data(), was->second.data(), row.size() * sizeof(float)) == 0);
      ++locked;
    }
    REQUIRE(locked == before.size());  // every word of A: trained rows and kept ones
    REQUIRE(changed_new == 10);        // a20..a29
    const EmbeddingTable t = load_vectors(dir.file("b.emb"), LoadOptions{}).table;
    // The kept words (b15..b19, absent from B) come last, with count 0.
    for (std::size_t r = t.rows() - 5; r < t.rows(); ++r) {
      REQUIRE(t.word(r)[0] == 'b');
      REQUIRE(t.counts[r] == 0);
    }
    REQUIRE(t.counts[t.rows() - 6] > 0);
  }
}

TEST_CASE("the CPU backends never write a locked row", "[train][init]") {
  const Corpus corpus = test::topic_corpus(5, 200, 10, 10);
  const std::size_t rows = corpus.vocab.size();
  std::vector<std::uint8_t> locked(rows, 0);
  for (std::size_t r = 0; r < rows; r += 2) locked[r] = 1;
  SECTION("word2vec") {
    for (const Model model : {Model::skipgram, Model::cbow}) {
      TrainSettings s;
      s.model = model;
      s.dim = 16;
      s.epochs = 1;
      s.sample = 0;
      RowMatrix input(rows, s.dim), output(rows, s.dim);
      init_uniform(input, 1, 1);
      const RowMatrix before = test::copy_of(input);
      auto backend = make_word2vec_cpu_backend(model, input, output, 1, locked);
      Word2vecTrainer trainer(s, corpus, *backend);
      TrainState state = Word2vecTrainer::start_state(corpus, 1, s.seed);
      std::atomic<bool> stop{false};
      REQUIRE(trainer.run(state, stop, nullptr, nullptr));
      for (std::size_t r = 0; r < rows; ++r) {
        const bool same = std::memcmp(input.row(r), before.row(r), input.stride() * sizeof(float)) == 0;
        REQUIRE(same == (locked[r] == 1));
      }
    }
  }
  SECTION("glove") {
    for (const Optimizer optimizer : {Optimizer::adagrad, Optimizer::adam, Optimizer::sgd}) {
      const GloveLayout layout(16, optimizer);
      RowMatrix words = make_glove_table(rows, layout, 1, 0, 1);
      RowMatrix contexts = make_glove_table(rows, layout, 1, 1, 1);
      const RowMatrix words_before = test::copy_of(words), contexts_before = test::copy_of(contexts);
      BatchLoss loss;
      train_glove_records(test::glove_records_of(corpus), words, contexts, layout, 0.05f, loss, locked);
      for (std::size_t r = 0; r < rows; ++r) {
        const bool same = std::memcmp(words.row(r), words_before.row(r), layout.width * sizeof(float)) == 0;
        REQUIRE(same == (locked[r] == 1));
        REQUIRE(std::memcmp(contexts.row(r), contexts_before.row(r), layout.width * sizeof(float)) != 0);
      }
    }
  }
}

TEST_CASE("a checkpoint keeps what --init gave the run", "[train][init]") {
  test::TempDir dir;
  const Corpus corpus = test::topic_corpus(3, 100, 10, 10);
  TrainSettings s;
  s.dim = 4;
  TrainingRun run{s,
                  OutputSettings{},
                  corpus,
                  RowMatrix(corpus.vocab.size(), s.dim),
                  RowMatrix(corpus.vocab.size(), s.dim),
                  Word2vecTrainer::start_state(corpus, 1, s.seed),
                  {}};
  run.init.file = "earlier.emb";
  run.init.checksum = "crc32:0badcafe";
  run.init.rows_from_file = 3;
  run.init.locked.assign(corpus.vocab.size(), 0);
  run.init.locked[1] = 1;
  run.init.keep = true;
  run.init.kept_words = {"older", "wörds"};
  run.init.kept_vectors = {1, 2, 3, 4, 5, 6, 7, 8};
  run.init.kept_context = {0, 0, 0, 0, -1, -2, -3, -4};
  save_checkpoint(dir.file("c.ckpt"), run);
  const TrainingRun back = load_checkpoint(dir.file("c.ckpt"));
  REQUIRE(back.init.file == "earlier.emb");
  REQUIRE(back.init.checksum == "crc32:0badcafe");
  REQUIRE(back.init.rows_from_file == 3);
  REQUIRE(back.init.locked == run.init.locked);
  REQUIRE(back.init.keep);
  REQUIRE(back.init.kept_words == run.init.kept_words);
  REQUIRE(back.init.kept_vectors == run.init.kept_vectors);
  REQUIRE(back.init.kept_context == run.init.kept_context);
  // A run without --init stays without.
  run.init = InitVectors{};
  save_checkpoint(dir.file("plain.ckpt"), run);
  REQUIRE_FALSE(load_checkpoint(dir.file("plain.ckpt")).init.active());
}

TEST_CASE("files --init cannot start from are refused, naming them", "[train][init]") {
  test::TempDir dir;
  test::write_file(dir.file("twice.txt"), "the 1 2\nof 3 4\nthe 5 6\n");
  REQUIRE_ERROR_CONTAINS(read_init_source(dir.file("twice.txt"), 1), "the word \"the\" is in rows 1 and 3");
  REQUIRE_ERROR_CONTAINS(read_init_source("-", 1), "not standard input");
  test::write_file(dir.file("two.txt"), "the 1 2\nof 3 4\n");
  const InitSource source = read_init_source(dir.file("two.txt"), 1);
  TrainSettings s;
  s.dim = 100;
  REQUIRE_ERROR_CONTAINS(settle_init_settings(source, {dir.file("two.txt"), false, false, true}, s),
                         "its vectors have 2 dimensions, and --dim asks for 100");
  settle_init_settings(source, {dir.file("two.txt"), false, false, false}, s);
  REQUIRE(s.dim == 2);
}
