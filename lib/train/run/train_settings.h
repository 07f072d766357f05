// Everything that defines a training run, for every model; stored in checkpoints and
// (the part that shapes the vectors) in the .emb metadata.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "train/engine/optimizer.h"

namespace embed {

// The models of the registry (training_model.h, model_registry.cpp).
enum class Model { skipgram, cbow, glove };

// The command-line and metadata spelling: "skipgram", "cbow" or "glove", from the registry.
std::string_view model_name(Model model);
std::optional<Model> parse_model_name(std::string_view name);

// GloVe's output: the word vectors W alone, or W + W̃ (Stanford GloVe's -model 2).
enum class GloveVectors { word, word_plus_context };
std::string_view glove_vectors_name(GloveVectors vectors);  // "w" | "w+c"
std::optional<GloveVectors> parse_glove_vectors(std::string_view name);
std::vector<std::string> glove_vectors_names();

struct TrainSettings {
  Model model = Model::skipgram;
  std::size_t dim = 100;
  std::size_t window = 5;
  unsigned epochs = 5;
  float lr = 0.025f;
  std::uint64_t seed = 1;
  unsigned threads = 1;
  Optimizer optimizer = Optimizer::sgd;
  OptimizerParams hyper;  // the optimizer's hyper-parameters: those it takes, resolved
  // skip-gram and CBOW
  std::size_t negative = 5;
  double sample = 1e-4;
  // skip-gram: `negative` negatives for every (context, centre) pair, as word2vec.c and
  // gensim draw them, instead of `negative` per window shared by its context words.
  bool pair_negatives = false;
  // skip-gram and CBOW with fastText's subwords (--subwords): a word's input vector is the
  // average of its row and its character n-grams' rows, the n-grams of minn..maxn
  // characters hashed into `buckets` rows (fastText's -minn -maxn -bucket and defaults).
  bool subwords = false;
  std::uint32_t minn = 3;
  std::uint32_t maxn = 6;
  std::uint64_t buckets = 2000000;
  // GloVe
  double x_max = 100;
  double alpha = 0.75;
  bool symmetric = true;  // count context words on both sides (false: left only)
  GloveVectors vectors = GloveVectors::word_plus_context;
};

// The ranges embed-train accepts, on its command line and in what it reads back
// (checkpoints, counts files), so that a file cannot ask for what a flag may not.
struct SettingRange {
  double low, high;
};
inline constexpr SettingRange kDimRange{1, 10000};
inline constexpr SettingRange kWindowRange{1, 100};
inline constexpr SettingRange kEpochsRange{1, 100000};
inline constexpr SettingRange kLearningRateRange{1e-9, 10.0};
inline constexpr SettingRange kThreadsRange{1, 1024};
inline constexpr SettingRange kNegativeRange{1, 60};
inline constexpr SettingRange kSampleRange{0.0, 1.0};
inline constexpr SettingRange kNgramLengthRange{1, 1024};  // kMaxNgramLength
// Bucket rows follow the vocabulary's in the input table, whose rows are 32-bit ids.
inline constexpr SettingRange kBucketsRange{1, 1u << 30};
inline constexpr SettingRange kXMaxRange{1e-6, 1e12};
inline constexpr SettingRange kAlphaRange{0.0, 10.0};

// What is out of range in `settings` ("dim 1073741824 is out of range 1..10000"), or
// empty when every setting is within its range.
std::string settings_out_of_range(const TrainSettings& settings);

// The settings that shape the vectors, as metadata strings: "model", "window",
// "epochs", "lr", "seed", "optimizer" and its hyper-parameters ("beta1", ...), and per
// model "negative" and "sample", or "x_max", "alpha", "symmetric" and "vectors". Written
// into every .emb and every checkpoint.
std::map<std::string, std::string> settings_metadata(const TrainSettings& settings);

}  // namespace embed
