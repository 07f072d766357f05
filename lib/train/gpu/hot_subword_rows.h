// Host placement with --subwords: which rows of the input table stay in GPU memory.
// Without subwords the hot rows are the tables' first rows, the count-sorted
// vocabulary's most frequent words. With them, an n-gram's bucket row is touched by every
// word that lists it ("<th" by "the", "that", "this", ...), more often than most words'
// own rows. So the input table's hot rows are its most touched rows, words' and buckets'
// alike, where a row's touches are the corpus counts of the words that list it. A word's
// row is touched by its own occurrences only, so the words among them are always the
// first rows: hot rows [0, hot_rows - buckets) plus the buckets.
//
// What it saves is modest, because a batch copies a row once however often its words
// touch it, and the most touched rows are in every batch anyway: bench-host-rows
// --subwords 2000000 --corpus text8-head copied 5 to 6% fewer rows a word (2.08 to 1.95
// with 5,000 of its 15,440 words' rows hot, batches of 20,000 words; 4.36 to 4.15 with
// all 57,993 of its words and 7,000 hot). Longer batches save far more
// (kCopiedSubwordRowsPerWord).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "train/word2vec/subword_rows.h"

namespace embed {

// The bucket rows (input table row ids, ascending) among the `hot_rows` most touched rows
// of the input table, by `counts` (the vocabulary's, most frequent first); ties go to the
// lower row, and a bucket no word lists is never hot. The other hot rows are the words'
// rows [0, hot_rows - result.size()).
std::vector<std::uint32_t> hot_bucket_rows(const SubwordRows& subwords, std::span<const std::int64_t> counts,
                                           std::size_t hot_rows);

}  // namespace embed
