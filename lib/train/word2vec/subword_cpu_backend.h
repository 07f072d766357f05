// The CPU backend of fastText's model (--subwords): skip-gram and CBOW whose input
// vector is the average of a word's own row and its n-grams' (subword_rows.h).
#pragma once

#include <memory>

#include "train/word2vec/subword_rows.h"
#include "train/word2vec/word2vec_backend.h"
#include "train/word2vec/word2vec_layout.h"

namespace embed {

// `input` holds the vocabulary's rows then the buckets' (subwords.words() + buckets rows),
// `output` the vocabulary's; both in `layout`'s rows. `subwords` must outlive the backend.
std::unique_ptr<Word2vecBackend> make_subword_cpu_backend(Model model, RowMatrix& input, RowMatrix& output,
                                                          const Word2vecLayout& layout, const SubwordRows& subwords,
                                                          unsigned workers);

}  // namespace embed
