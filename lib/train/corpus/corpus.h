// A training corpus: its vocabulary, counted in one pass, and the files the epochs read
// again from disk (corpus_reader.h), so that memory does not grow with the corpus.
//
// The text is tokenized on ASCII whitespace (any line length: text8 is one 100 MB
// line). Words that do not make the vocabulary are dropped when the epochs read the
// text, as word2vec and gensim drop them. Input that cannot be read twice or from the
// middle (standard input, gzip, a pipe) is copied, decompressed, to a spool file during
// the counting pass, and the epochs read that instead.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/spool_file.h"
#include "train/corpus/vocabulary.h"

namespace embed {

// The longest a token may be kept (CorpusOptions::max_token_bytes; a checkpoint that
// says more is refused).
inline constexpr std::size_t kMaxTokenBytes = 1 << 16;

struct CorpusOptions {
  std::uint64_t min_count = 5;
  std::uint64_t max_vocab = 0;        // 0: no limit
  std::size_t max_token_bytes = 100;  // longer tokens are cut (at a character boundary), as word2vec does
  // Spool files for input that cannot be read again are "<spool_prefix>.corpus-<i>.txt"
  // (i: the input's place among the corpus files); embed-train puts them beside its output.
  std::string spool_prefix;
  // Threads that count a corpus of plain files, each its token-aligned byte range
  // (token_aligned_ranges), merged in the corpus's order: the same counts and the same
  // order of first appearance as one thread. Standard input and gzip are counted by one
  // thread as they stream.
  unsigned threads = 1;
};

// A file the epochs read, as it was when the corpus was counted: a resumed run checks
// that it is still the same.
struct CorpusFile {
  std::string path;  // absolute
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  bool spooled = false;  // a copy made by read_corpus, removed when the run completes
};

struct Corpus {
  Vocabulary vocab;
  std::vector<CorpusFile> files;     // what the epochs read, in order; each file ends a line
  std::uint64_t words = 0;           // vocabulary words in the text: what an epoch trains on
  std::uint64_t tokens = 0;          // tokens read, kept or not
  std::uint64_t distinct_words = 0;  // before min-count and max-vocab
  std::uint64_t truncated_tokens = 0;
  std::uint64_t invalid_utf8_words = 0;            // distinct words dropped for not being UTF-8
  std::size_t max_token_bytes = 100;               // as counted (CorpusOptions): the epochs cut tokens alike
  std::string name;                                // the corpus files, for messages ("a.txt, b.txt.gz")
  std::vector<std::shared_ptr<SpoolFile>> spools;  // the spooled files this process owns

  // Keeps the spool files past this process (a checkpoint names them), or removes them
  // when the corpus goes (the run completed).
  void keep_spools() const;
  void release_spools() const;
};

// A token longer than `max_token_bytes` cut to that many bytes, backed up to the start
// of a UTF-8 character so that the cut word stays valid (word2vec cuts at 100 bytes).
std::string_view cut_token(std::string_view token, std::size_t max_token_bytes);

// Counts `paths` ("-" is standard input) in order as one corpus, spooling what cannot
// be read again; plain files on options.threads threads. Throws embed::Error for an unreadable file, an empty corpus, or a
// vocabulary that min-count empties.
Corpus read_corpus(const std::vector<std::string>& paths, const CorpusOptions& options);

class Cluster;

// read_corpus over the ranks of `job` (mpirun): each rank counts its token-aligned byte
// range of the files (token_aligned_ranges over the ranks), the ranks exchange their
// counts, and every rank merges them in rank order, so that each holds the vocabulary
// read_corpus gives for the whole corpus. The files must be plain files every rank can
// read (no standard input, no gzip) and of the same sizes on every rank.
Corpus read_corpus_on_ranks(const std::vector<std::string>& paths, const CorpusOptions& options, Cluster& job);

// The same for text in memory (the tests' way in): the text goes to a spool file in the
// temporary directory, removed with the corpus.
Corpus corpus_from_text(const std::string& text, const CorpusOptions& options);

// Describes a file as read_corpus records it (absolute path, size, modification time).
CorpusFile describe_corpus_file(const std::string& path);

// Throws embed::Error naming the file when one of `files` is gone or changed since it
// was described: a resumed run must read the corpus it started on.
void check_corpus_unchanged(const std::vector<CorpusFile>& files);

}  // namespace embed
