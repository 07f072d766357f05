// Host placement with --subwords: which rows of the two tables stay in GPU memory.
// Without subwords the hot rows are both tables' first rows, the count-sorted
// vocabulary's most frequent words, as many of each. With them the tables differ: the
// input table holds the n-gram buckets' rows after the words', and a bucket is touched by
// every word that lists it ("<th" by "the", "that", "this", ...), while only the words'
// rows that a batch's words list are ever touched (text8-head's 15,440 words list 93,089
// of 2M buckets). So the plan's hot rows (as many rows as 2 x plan.hot_rows) go to the
// rows of either table that batches touch most often, estimated from the counts:
//  - an input row, once per occurrence of each word that lists it (skip-gram: as a
//    centre; CBOW: in each of the window + 1 bags, on average, that hold it);
//  - an output row, once per occurrence as a context (skip-gram: window + 1 times on
//    average) or a centre (CBOW), and as a negative, drawn by count^0.75.
// A batch copies a row once however often it touches it, so the most touched rows are
// those a batch almost always copies; and they are the rows that copies in flight at
// once would fight over (gpu_plan.h). The words' rows among them are always each table's
// first rows, as a word's rate only grows with its count.
//
// Measured with bench-host-rows --subwords 2000000 --corpus text8-head (bench/RESULTS.md):
// where the budget holds fewer hot rows than the vocabulary this saves 1 to 6% of the
// rows copied, a batch copying its most touched rows once whichever table they are in;
// where it holds more, the old hot rows stopped at the vocabulary, and every batch still
// copied its words' buckets (1.5 rows a word), while now they are hot too: with room for
// all 93,089 that text8-head's words list, nothing is copied (4 to 8 times the words/s).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "train/run/train_settings.h"
#include "train/word2vec/subword_rows.h"

namespace embed {

struct SubwordHotRows {
  std::size_t input_words = 0;               // the input table's first rows
  std::vector<std::uint32_t> input_buckets;  // and these bucket rows, ascending
  std::size_t output_rows = 0;               // the output table's first rows

  std::size_t inputs() const { return input_words + input_buckets.size(); }
  std::size_t rows() const { return inputs() + output_rows; }
};

// The rows skip-gram or CBOW (`model`) with `window` and `negative` touch most often,
// `rows` of them at most across both tables (rows with no touches never), by `counts`
// (the vocabulary's, most frequent first); ties go to the input table, then to the lower row.
SubwordHotRows subword_hot_rows(const SubwordRows& subwords, std::span<const std::int64_t> counts, Model model,
                                std::size_t window, std::size_t negative, std::size_t rows);

}  // namespace embed
