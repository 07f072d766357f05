// A training corpus read once and kept as word ids.
//
// The text is tokenized on ASCII whitespace (any line length: text8 is one 100 MB
// line), counted, and stored as 4-byte ids in the same pass, so every epoch reads
// memory, not text, and standard input needs no second read. Words that do not make
// the vocabulary are dropped from the id stream, as word2vec and gensim drop them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "train/vocabulary.h"

namespace embed {

struct CorpusOptions {
  std::uint64_t min_count = 5;
  std::uint64_t max_vocab = 0;         // 0: no limit
  std::size_t max_token_bytes = 100;   // longer tokens are cut (at a character boundary), as word2vec does
};

struct Corpus {
  Vocabulary vocab;
  std::vector<std::uint32_t> ids;        // the vocabulary words of the corpus, in order
  std::vector<std::uint64_t> line_ends;  // ascending positions in ids where an input line ended
  std::uint64_t tokens = 0;              // tokens read, kept or not: what words/s counts
  std::uint64_t distinct_words = 0;      // before min-count and max-vocab
  std::uint64_t truncated_tokens = 0;
  std::uint64_t invalid_utf8_words = 0;  // distinct words dropped for not being UTF-8
  std::string name;                      // the corpus files, for messages ("a.txt, b.txt.gz")
};

// A token longer than `max_token_bytes` cut to that many bytes, backed up to the start
// of a UTF-8 character so that the cut word stays valid (word2vec cuts at 100 bytes).
std::string_view cut_token(std::string_view token, std::size_t max_token_bytes);

// Reads `paths` ("-" is standard input) in order as one corpus. Throws embed::Error
// for an unreadable file, an empty corpus, or a vocabulary that min-count empties.
Corpus read_corpus(const std::vector<std::string>& paths, const CorpusOptions& options);

// Builds the vocabulary and id stream from already-tokenized text (the tests' way in).
Corpus corpus_from_text(const std::string& text, const CorpusOptions& options);

}  // namespace embed
