// Host placement: which rows of the two tables stay in GPU memory (the hot rows,
// gpu_plan.h). The plan buys as many rows as 2 x plan.hot_rows; they go to the rows of
// either table that batches touch most often, estimated from the vocabulary's counts:
//  - an input row, per occurrence of each word whose average lists it: word2vec's
//    contexts and CBOW's bags, window + 1 words on average (a reduced window draws b in
//    [1, window] on each side); fastText's skip-gram averages its centres, one a word;
//  - an output row, per occurrence of its word as what is scored (word2vec's and CBOW's
//    centres, one a word; fastText's skip-gram scores the contexts), and as a negative,
//    drawn by count^0.75, `negative` per window (fastText's skip-gram: per pair).
// A batch copies a row once however often it touches it, so the most touched rows are
// those a batch almost always copies; and they are the rows that copies in flight at once
// would fight over (gpu_plan.h). Each table's words' rows among them are its first rows,
// as a word's rate only grows with its count.
//
// With --subwords the input table holds the n-gram buckets' rows after the words', and
// a bucket is touched by every word that lists it ("<th" by "the", "that", "this", ...);
// only the buckets a vocabulary's words list are ever touched (text8-head's 15,440 words
// list 93,089 of 2M), so the hot rows may be more than the vocabulary's: the plan allows
// half of the rows the words touch (GpuMemoryPlan::hot_row_limit).
//
// Measured with bench-host-rows (bench/RESULTS.md): where the budget holds fewer hot rows
// than the vocabulary, this saves 1 to 13% of the rows copied against both tables' first
// rows alike; where it holds more (--subwords), the old hot rows stopped at the
// vocabulary and every batch still copied its words' buckets (1.5 rows a word on
// text8-head), while now they are hot too: with room for all of them, nothing is copied
// (4 to 8 times the host side's words/s).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "train/run/train_settings.h"
#include "train/word2vec/subword_rows.h"

namespace embed {

struct HotRows {
  std::size_t input_words = 0;               // the input table's first rows
  std::vector<std::uint32_t> input_buckets;  // and these bucket rows (--subwords), ascending
  std::size_t output_rows = 0;               // the output table's first rows

  std::size_t inputs() const { return input_words + input_buckets.size(); }
  std::size_t rows() const { return inputs() + output_rows; }
};

// The rows skip-gram or CBOW (`model`) with `window` and `negative` touch most often,
// `rows` of them at most across both tables (rows with no touches never), by `counts`
// (the vocabulary's, most frequent first); with `subwords`, fastText's model, whose words
// list their rows. Ties go to the input table, then to the lower row.
HotRows most_touched_rows(const SubwordRows* subwords, std::span<const std::int64_t> counts, Model model, std::size_t window,
                          std::size_t negative, std::size_t rows);

}  // namespace embed
