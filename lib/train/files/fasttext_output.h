// --fasttext-bin: a trained skip-gram or CBOW model written as fastText's .bin (format
// 12, text/fasttext_writer.h), which `fasttext` and gensim's load_facebook_model load and
// which --init continues: the words' vectors (each word's own row rebuilt so that fastText's
// average of it and its n-grams' rows gives the vector), the n-gram buckets' rows, and the
// output matrix (the context rows).
#pragma once

#include "core/atomic_output.h"
#include "text/fasttext_writer.h"
#include "text/subword_table.h"
#include "train/corpus/vocabulary.h"
#include "train/files/vectors_output.h"

namespace embed {

// Writes and commits `out`: `vocab`'s words with their counts, `vectors` and `context`
// (dim values of each row), and `subwords` (or none: a model without n-grams).
void write_fasttext_output(AtomicOutput& out, const Vocabulary& vocab, std::size_t dim, const RowReader& vectors,
                           const RowReader& context, const SubwordTable* subwords, const FastTextWriteArgs& args);

}  // namespace embed
