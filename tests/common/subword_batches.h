// Batches for fastText's model (--subwords) that the CPU's unit tests check against a
// reference and the GPU tests against the CPU: a small vocabulary whose words share
// n-grams, and one batch per model.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "train/corpus/vocabulary.h"
#include "train/word2vec/subword_rows.h"
#include "train/word2vec/window_batch.h"

namespace embed::test {

inline Vocabulary vocabulary(std::vector<std::string> words) {
  Vocabulary v;
  v.words = std::move(words);
  for (std::size_t i = 0; i < v.words.size(); ++i) v.counts.push_back(static_cast<std::int64_t>(100 - i));
  return v;
}

inline const Vocabulary kSubwordWords =
    vocabulary({"cat", "cats", "catalog", "dog", "dogs", "aaaa", "bird", "birds", "fish", "ox"});

// The first `count` bucket rows (past the vocabulary's) that kSubwordWords' word `word`
// lists, ascending, each once: hot buckets for the host placement tests.
inline std::vector<std::uint32_t> listed_buckets(const SubwordRows& subwords, std::uint32_t word, std::size_t count) {
  const auto listed = subwords.of(word);
  std::set<std::uint32_t> buckets;
  for (std::uint32_t row : listed) {
    if (row >= kSubwordWords.size()) buckets.insert(row);
  }
  REQUIRE(buckets.size() >= count);
  return {buckets.begin(), std::next(buckets.begin(), static_cast<std::ptrdiff_t>(count))};
}

// Skip-gram, each pair its own negatives (among them the context word itself, skipped, and a
// repeat): centre 1 with contexts 0, 2, 5; centre 5 ("aaaa", a row listed twice: gain 7/5)
// with 5 (itself), 9; centre 8 with 3. With few buckets, rows repeat across words.
inline WindowBatch subword_skipgram_batch() {
  WindowBatch batch;
  batch.learning_rate = 0.05f;
  batch.negatives_per_window = 3;
  batch.negatives_per_input = true;
  batch.targets = {1, 5, 8};
  batch.inputs = {0, 2, 5, 5, 9, 3};
  batch.input_offsets = {0, 3, 5, 6};
  batch.negatives = {4, 6, 0, 7, 7, 1, 2, 3, 9, 8, 5, 5, 1, 5, 6, 0, 2, 4};
  return batch;
}

// CBOW: "ox" stays for two windows, "dog" leaves after one, "aaaa" comes twice in one window.
// With buckets enough (require_no_shared_rows), no row is shared within a window, the
// premise of the CPU's cached word sums.
inline WindowBatch subword_cbow_batch() {
  WindowBatch batch;
  batch.learning_rate = 0.05f;
  batch.negatives_per_window = 3;
  batch.targets = {1, 6, 0, 7};
  batch.inputs = {3, 9, 9, 5, 5, 8, 8, 3};
  batch.input_offsets = {0, 2, 5, 6, 8};
  batch.negatives = {4, 6, 1, 7, 6, 2, 3, 9, 0, 2, 8, 4};
  return batch;
}

// No row listed by two different context words of one window.
inline void require_no_shared_rows(const WindowBatch& batch, const SubwordRows& subwords) {
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    const auto contexts = batch.window_inputs(w);
    std::set<std::uint32_t> seen;
    for (std::uint32_t word : std::set<std::uint32_t>(contexts.begin(), contexts.end())) {
      const auto listed = subwords.of(word);
      for (std::uint32_t r : std::set<std::uint32_t>(listed.begin(), listed.end())) REQUIRE(seen.insert(r).second);
    }
  }
}

}  // namespace embed::test
