// Accuracy on analogy questions in the Google format ("questions-words.txt"):
// ": section" lines, then "a b c expected" lines meaning a : b :: c : expected.
// Computed as gensim's KeyedVectors.evaluate_word_analogies (4.x) does, so the numbers
// can be compared: words upper-cased, only the words `vocab` knows (the first N),
// questions with an unknown word skipped (counted as not covered), the answer the best
// of the top 5 for b - a + c whose upper-case form is not one of the question's words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/case_insensitive_vocab.h"
#include "search/exact_search.h"
#include "search/searcher.h"
#include "search/vector_space.h"

namespace embed {

struct AnalogySection {
  std::string name;
  std::uint64_t correct = 0;
  std::uint64_t answered = 0;  // questions whose four words are all known
};

struct AnalogyResult {
  std::vector<AnalogySection> sections;  // in file order
  AnalogySection total{"total"};
  std::uint64_t questions = 0;  // every well-formed question, known words or not
  std::uint64_t skipped_lines = 0;  // lines without exactly four words
};

struct AnalogyEvalOptions {
  Combination method = Combination::add;
  unsigned threads = 1;
  DeviceOptions device;  // where the questions are searched
};

// Throws embed::Error naming the file and line for a question before any section header,
// and, before reading the file, when options.device asks for a GPU there is none of.
// `vocab` holds the words known (its restriction is also the search's).
AnalogyResult evaluate_analogies(const VectorSpace& space, const CaseInsensitiveVocab& vocab, const std::string& path,
                                 const AnalogyEvalOptions& options);

}  // namespace embed
