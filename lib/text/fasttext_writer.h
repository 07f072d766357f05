// Word vectors written as a fastText model (.bin, format version 12: the layout
// fasttext_model.h describes), which `fasttext print-word-vectors`, `fasttext nn` and
// gensim's load_facebook_model load and which give the same vectors back: each word's
// own row is set so that the average of it and its n-grams' bucket rows (what fastText
// computes) is the word's vector, up to float rounding.
#pragma once

#include <cstdint>

#include "core/atomic_output.h"
#include "format/embedding_table.h"
#include "text/subword_table.h"

namespace embed {

// What the model's args say of its training (fastText's -ws, -epoch, ...: only read back
// by a tool that trains the model further). Defaults are fastText's.
struct FastTextWriteArgs {
  bool cbow = false;  // else skip-gram
  std::int32_t ws = 5;
  std::int32_t epoch = 5;
  std::int32_t min_count = 5;
  std::int32_t neg = 5;
  double t = 1e-4;
};

// Writes `table` (counts: its own, else 1 per word) with `subwords`' n-gram buckets (or
// none: minn = maxn = bucket = 0, each word's row its vector) and the output matrix
// `output` (rows × dim, the context vectors), or zeros when it is empty. Throws
// embed::Error for a table fastText cannot hold (a word with a space or a NUL byte, a
// count below 1, more than 2^31 - 1 rows) or a subword table of another dim.
void write_fasttext_model(const EmbeddingTable& table, const SubwordTable* subwords, std::span<const float> output,
                          const FastTextWriteArgs& args, AtomicOutput& out, const std::string& name);

}  // namespace embed
