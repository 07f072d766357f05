// The co-occurrence file that --save-cooc writes and --cooc reads, so a Makefile can
// count once and train many times: a tensor file (format/tensor_file.h) holding the
// vocabulary and its counts, the merged co-occurrence counts sorted by (row, column),
// and in __metadata__ how they were counted (window, symmetric, min-count, corpus).
//
// Tensors: "cooc" U32 [n, 3] (row, column, X as f32 bits), "counts" I64 [V],
// "vocab.offsets" I64 [V+1], "vocab.bytes" U8: word i is bytes[offsets[i], offsets[i+1]).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/atomic_output.h"
#include "train/corpus/vocabulary.h"
#include "train/glove/cooc.h"
#include "train/glove/cooc_runs.h"

namespace embed {

class TensorFileReader;

// What the counts are of and how they were made.
struct CoocInfo {
  Vocabulary vocab;
  std::size_t window = 10;
  bool symmetric = true;
  std::uint64_t min_count = 5;
  std::uint64_t max_vocab = 0;
  std::string corpus;  // the files counted ("a.txt, b.txt.gz")
  std::uint64_t corpus_tokens = 0;
  std::uint64_t corpus_distinct_words = 0;
};

struct CoocMatrix : CoocInfo {
  std::vector<CoocEntry> entries;  // sorted by (row, column), each pair once, counts > 0
};

// Writes the `count` entries `source` yields (in order) with `info` to `out`, and
// commits it; the entries stream through, so they need not fit in memory.
void save_cooc(AtomicOutput& out, const CoocInfo& info, std::uint64_t count, SortedEntries& source);
void save_cooc(AtomicOutput& out, const CoocMatrix& matrix);

// Reads a co-occurrence file without holding its entries: they stream from the
// mapped file, each checked as it comes (ids inside the vocabulary, counts positive
// and finite, entries in order), so that counts larger than memory can be trained on.
class CoocFileReader {
 public:
  // Throws embed::Error naming `path` for anything but an intact co-occurrence file of
  // a version this build reads.
  explicit CoocFileReader(const std::string& path);
  ~CoocFileReader();
  const CoocInfo& info() const { return info_; }
  CoocInfo& info() { return info_; }
  std::uint64_t entries() const { return entries_; }
  // The entries from the first, in order; throws embed::Error naming the file and the
  // entry that is malformed.
  std::unique_ptr<SortedEntries> read() const;

 private:
  std::unique_ptr<TensorFileReader> file_;
  CoocInfo info_;
  std::uint64_t entries_ = 0;
};

// The whole file in memory (tests, small counts), checked as CoocFileReader checks it.
CoocMatrix load_cooc(const std::string& path);

}  // namespace embed
