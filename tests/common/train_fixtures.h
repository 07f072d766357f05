// Fixtures shared by the trainer's unit tests and the GPU tests: corpora with planted
// structure, table helpers and the measures they are judged by.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "train/corpus/corpus.h"
#include "train/corpus/corpus_reader.h"
#include "train/corpus/corpus_shards.h"
#include "train/engine/random.h"
#include "train/engine/row_matrix.h"
#include "train/glove/cooc_counter.h"
#include "train/glove/glove_layout.h"
#include "train/glove/glove_setup.h"

namespace embed::test {

// Two topics with disjoint vocabularies of `words_per_topic` words ("a0".., "b0"..);
// every line talks about one topic only. Without line breaks the lines run together
// into one, so only the batch size cuts the text.
inline Corpus topic_corpus(unsigned seed, int lines, int words_per_line, unsigned words_per_topic, bool line_breaks = true) {
  Random random(seed, 99);
  std::string text;
  for (int line = 0; line < lines; ++line) {
    const char topic = line % 2 == 0 ? 'a' : 'b';
    for (int w = 0; w < words_per_line; ++w) {
      text += std::string(1, topic) + std::to_string(random.below(words_per_topic)) + " ";
    }
    if (line_breaks) text += "\n";
  }
  CorpusOptions options;
  options.min_count = 1;
  return corpus_from_text(text, options);
}

// The corpus's sentences as one worker reads them from disk, at most `max_rows` words each.
inline std::vector<std::vector<std::uint32_t>> corpus_sentences(const Corpus& corpus, std::size_t max_rows = 10000) {
  const RowLookup lookup(corpus.vocab);
  CorpusReader reader(corpus.files, {0, corpus_bytes(corpus.files)}, lookup, corpus.max_token_bytes);
  std::vector<std::vector<std::uint32_t>> sentences;
  std::vector<std::uint32_t> rows;
  while (reader.next_sentence(max_rows, rows)) sentences.push_back(rows);
  return sentences;
}

// All the corpus's vocabulary words, in order: what the in-memory id stream used to be.
inline std::vector<std::uint32_t> corpus_rows(const Corpus& corpus) {
  std::vector<std::uint32_t> rows;
  for (const auto& sentence : corpus_sentences(corpus)) rows.insert(rows.end(), sentence.begin(), sentence.end());
  return rows;
}

// Of the rows' first `columns` elements (0: all of them).
inline double cosine(const RowMatrix& m, std::size_t a, std::size_t b, std::size_t columns = 0) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < (columns ? columns : m.dim()); ++i) {
    ab += m.row(a)[i] * m.row(b)[i];
    aa += m.row(a)[i] * m.row(a)[i];
    bb += m.row(b)[i] * m.row(b)[i];
  }
  return ab / std::sqrt(aa * bb);
}

// For a topic_corpus: the mean cosine of word pairs within a topic minus across topics.
// `columns`: the vectors' part of the rows (GloVe's rows go on with the bias and the
// optimizer's state, which would otherwise dominate the cosine: AdaGrad's accumulated
// squares make every row alike), 0 for all of them.
inline double topic_separation(const Corpus& corpus, const RowMatrix& input, std::size_t columns = 0) {
  double same = 0, cross = 0;
  long same_n = 0, cross_n = 0;
  for (std::size_t a = 0; a < corpus.vocab.size(); ++a) {
    for (std::size_t b = a + 1; b < corpus.vocab.size(); ++b) {
      const bool same_topic = corpus.vocab.words[a][0] == corpus.vocab.words[b][0];
      (same_topic ? same : cross) += cosine(input, a, b, columns);
      ++(same_topic ? same_n : cross_n);
    }
  }
  return same / static_cast<double>(same_n) - cross / static_cast<double>(cross_n);
}

// Every element uniform in [-half_width, half_width).
inline void fill_uniform(RowMatrix& m, std::uint64_t seed, float half_width) {
  Random random(seed, 1);
  for (std::size_t r = 0; r < m.rows(); ++r) {
    for (std::size_t e = 0; e < m.dim(); ++e) m.row(r)[e] = (random.uniform() - 0.5f) * 2 * half_width;
  }
}

inline RowMatrix copy_of(const RowMatrix& m) {
  RowMatrix c(m.rows(), m.dim());
  std::memcpy(c.data(), m.data(), m.span().size_bytes());
  return c;
}

// `m`'s rows rounded to an f16 table (row_matrix.h: a GPU's host tables with --dtype f16).
inline RowMatrix half_copy_of(const RowMatrix& m) {
  RowMatrix h(m.rows(), m.dim(), DType::f16);
  for (std::size_t r = 0; r < m.rows(); ++r) h.store_row(r, m.row(r), m.stride());
  return h;
}

// The largest |a - b| / max(|b|, floor) over the tables' elements.
inline double max_relative_error(const RowMatrix& a, const RowMatrix& b, double floor = 1e-3) {
  double worst = 0;
  for (std::size_t r = 0; r < a.rows(); ++r) {
    for (std::size_t e = 0; e < a.dim(); ++e) {
      const double x = a.row(r)[e], y = b.row(r)[e];
      worst = std::max(worst, std::abs(x - y) / std::max(floor, std::abs(y)));
    }
  }
  return worst;
}

// GloVe's training records for `corpus` (window 5, x_max 100, alpha 0.75), in count order.
inline std::vector<GloveRecord> glove_records_of(const Corpus& corpus, std::size_t window = 5) {
  CoocOptions options;
  options.window = window;
  CoocStats stats;
  return glove_records(count_cooccurrences(corpus, options, stats), 100, 0.75);
}

}  // namespace embed::test
