// What embed-train reads from its user: a corpus (counted by read_corpus, then read by
// the epochs' CorpusReader over token-aligned shards) and a --vocab style word list. The
// first byte chooses the token limit, the sentence length, the number of shards, and
// whether the rest is a word list instead. Beyond not crashing, the shards must give
// back exactly the words that were counted: a mismatch aborts, as a finding.
#include <cstdlib>

#include "core/error.h"
#include "fuzz_util.h"
#include "text/word_set.h"
#include "train/corpus/corpus.h"
#include "train/corpus/corpus_reader.h"
#include "train/corpus/corpus_shards.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string path = embed::fuzz::scratch_file(text, ".txt");
  try {
    if ((mode & 0x80) != 0) {
      embed::read_word_list(path);
      return 0;
    }
    embed::CorpusOptions options;
    options.min_count = 1;
    options.max_token_bytes = 4 + (mode & 7);  // short, so long tokens are common
    options.spool_prefix = path;
    const embed::Corpus corpus = embed::read_corpus({path}, options);
    const embed::RowLookup lookup(corpus.vocab);
    const std::size_t max_rows = 1 + ((mode >> 3) & 3);
    const unsigned shards = 1 + ((mode >> 5) & 3);
    std::uint64_t words = 0;
    std::vector<std::uint32_t> rows;
    for (const embed::ByteRange& range : embed::token_aligned_ranges(corpus.files, shards)) {
      embed::CorpusReader reader(corpus.files, range, lookup, corpus.max_token_bytes);
      while (reader.next_sentence(max_rows, rows)) {
        if (rows.empty() || rows.size() > max_rows) std::abort();
        for (const std::uint32_t row : rows) {
          if (row >= corpus.vocab.size()) std::abort();
        }
        words += rows.size();
      }
      if (reader.position() != range.end) std::abort();
    }
    if (words != corpus.words) std::abort();  // the epochs read what was counted
  } catch (const embed::Error&) {}
  return 0;
}
