#include "train/corpus/corpus.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <optional>
#include <span>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cluster/cluster.h"
#include "core/ascii_space.h"
#include "core/atomic_output.h"
#include "core/byte_source.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/parallel.h"
#include "core/parallel_sort.h"
#include "core/progress.h"
#include "core/utf8.h"
#include "text/fasttext_model.h"
#include "text/format_detect.h"
#include "train/corpus/corpus_shards.h"
#include "train/corpus/merged_counts.h"
#include "train/corpus/word_counter.h"

namespace embed {

std::uint64_t Vocabulary::total_count() const {
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0},
                         [](std::uint64_t sum, std::int64_t c) { return sum + static_cast<std::uint64_t>(c); });
}

PackedWords pack_words(std::span<const std::string> words) {
  PackedWords packed;
  packed.offsets.reserve(words.size() + 1);
  for (const auto& word : words) {
    packed.bytes += word;
    packed.offsets.push_back(static_cast<std::int64_t>(packed.bytes.size()));
  }
  return packed;
}

std::string_view cut_token(std::string_view token, std::size_t max_token_bytes) {
  if (token.size() <= max_token_bytes) return token;
  std::size_t cut = max_token_bytes;
  while (cut > 0 && (static_cast<unsigned char>(token[cut]) & 0xC0) == 0x80) --cut;
  return token.substr(0, cut == 0 ? max_token_bytes : cut);
}

namespace {

// Tokenizes a stream of text blocks and counts its words (tokens are cut as the
// epochs will cut them, so that counts and the epochs' words agree).
class Tokenizer {
 public:
  Tokenizer(WordCounter& counter, Corpus& corpus, std::size_t max_token_bytes)
      : counter_(counter), corpus_(corpus), max_token_bytes_(max_token_bytes) {}

  void feed(const char* data, std::size_t size) {
    std::size_t i = 0;
    while (i < size) {
      if (is_ascii_space(static_cast<unsigned char>(data[i]))) {
        end_token();
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < size && !is_ascii_space(static_cast<unsigned char>(data[j]))) ++j;
      if (partial_.empty() && j < size) {
        pend_token(std::string_view(data + i, j - i));  // the common case: no copy
      } else {
        // The token may continue in the next block. Past max_token_bytes_ + 1 bytes its
        // cut is decided (cut_token looks no further), so a token without whitespace for
        // gigabytes takes no more memory than a long word.
        const std::size_t room = max_token_bytes_ + 1 - std::min(partial_.size(), max_token_bytes_ + 1);
        partial_.append(data + i, std::min(j - i, room));
      }
      i = j;
    }
    count_pending();  // they point into `data`
  }
  void end_input() { end_token(); }

 private:
  void end_token() {
    if (partial_.empty()) return;
    count_pending();  // first: the counter numbers words in order of first appearance
    counter_.add(cut(partial_));
    partial_.clear();
  }
  // A token as the epochs will read it, counted in the corpus's totals.
  std::string_view cut(std::string_view token) {
    const std::string_view cut = cut_token(token, max_token_bytes_);
    if (cut.size() < token.size()) ++corpus_.truncated_tokens;
    ++corpus_.tokens;
    return cut;
  }
  // Tokens within a block are counted a few thousand at a time (WordCounter::add_all
  // fetches ahead; a whole block's would be megabytes of views).
  void pend_token(std::string_view token) {
    pending_.push_back(cut(token));
    if (pending_.size() == kPendingTokens) count_pending();
  }
  void count_pending() {
    counter_.add_all(pending_);
    pending_.clear();
  }

  WordCounter& counter_;
  Corpus& corpus_;
  std::size_t max_token_bytes_;
  std::string partial_;
  static constexpr std::size_t kPendingTokens = 4096;
  std::vector<std::string_view> pending_;  // this block's tokens, not yet counted
};

// Orders the counted words and applies min-count and max-vocab. `Counts`: a WordCounter,
// or MergedCounts.
template <typename Counts>
void finish_corpus(const Counts& counter, const CorpusOptions& options, Corpus& corpus) {
  corpus.distinct_words = counter.size();
  if (corpus.tokens == 0) fail("{}: the corpus has no words", corpus.name);

  // Each kept word's count beside its id (ids number the words in order of first
  // appearance), so that sorting reads no counter.
  struct Kept {
    std::uint64_t count;
    std::uint32_t id;
  };
  std::vector<Kept> order;
  std::uint32_t most_frequent = 0;
  for (std::uint32_t id = 0; id < counter.size(); ++id) {
    const std::uint64_t count = counter.count(id);
    if (count > counter.count(most_frequent)) most_frequent = id;
    if (count < options.min_count) continue;
    if (!is_valid_utf8(counter.word(id))) {
      ++corpus.invalid_utf8_words;
      continue;
    }
    order.push_back({count, id});
  }
  // Most frequent first; ties keep the order of first appearance, so the vocabulary
  // does not depend on anything but the text (or on the threads that sort it).
  parallel_sort(order, options.threads,
                [](const Kept& a, const Kept& b) { return a.count != b.count ? a.count > b.count : a.id < b.id; });
  if (options.max_vocab > 0 && order.size() > options.max_vocab) order.resize(options.max_vocab);
  if (order.empty()) {
    fail("{}: no word occurs at least {} times (the most frequent, \"{}\", occurs {} times); lower --min-count", corpus.name,
         options.min_count, counter.word(most_frequent), counter.count(most_frequent));
  }
  corpus.vocab.words.reserve(order.size());
  corpus.vocab.counts.reserve(order.size());
  for (const Kept& kept : order) {
    corpus.vocab.words.emplace_back(counter.word(kept.id));
    corpus.vocab.counts.push_back(static_cast<std::int64_t>(kept.count));
  }
  corpus.words = corpus.vocab.total_count();
  corpus.max_token_bytes = options.max_token_bytes;
}

// The corpus files, for messages: "a.txt, b.txt.gz" ("<stdin>" for -).
std::string corpus_name(const std::vector<std::string>& paths) {
  std::string name;
  for (const auto& path : paths) name += (name.empty() ? "" : ", ") + (path == "-" ? "<stdin>" : path);
  return name;
}

std::string spool_path(const std::string& prefix, std::size_t input) { return fmt::format("{}.corpus-{}.txt", prefix, input); }

// A spool in the temporary directory for corpus_from_text: "<tmp>/embed-corpus-XXXXXX".
std::string temporary_prefix() {
  std::string path = (std::filesystem::temp_directory_path() / "embed-corpus-XXXXXX").string();
  const int fd = ::mkstemp(path.data());
  if (fd < 0) fail("{}: cannot create: {}", path, std::strerror(errno));
  ::close(fd);
  return path;  // the spool goes beside this placeholder, removed with it
}

// Tokenizes `range` of `files` (laid end to end, as token_aligned_ranges cuts them) into
// `tokenizer`, each file's end ending a line. Where `read_bytes` is given (threads counting
// ranges side by side), adds the bytes it reads to it and, where `progress` is given too,
// shows that total.
void tokenize_range(const std::vector<CorpusFile>& files, ByteRange range, Tokenizer& tokenizer,
                    std::atomic<std::uint64_t>* read_bytes, Progress* progress) {
  std::vector<char> block(1 << 20);
  std::uint64_t file_start = 0;
  for (const CorpusFile& file : files) {
    const std::uint64_t begin = std::max(range.begin, file_start), end = std::min(range.end, file_start + file.size);
    if (begin < end) {
      const int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) fail("{}: cannot read: {}", file.path, std::strerror(errno));
      try {
        for (std::uint64_t at = begin; at < end;) {
          const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), end - at));
          const std::size_t got = read_at(fd, block.data(), want, at - file_start, file.path);
          if (got == 0) fail("{}: shorter than when it was described ({} bytes)", file.path, file.size);
          tokenizer.feed(block.data(), got);
          at += got;
          if (read_bytes != nullptr) {
            const std::uint64_t total = *read_bytes += got;
            if (progress != nullptr) progress->update(total);
          }
        }
      } catch (...) {
        ::close(fd);
        throw;
      }
      ::close(fd);
      // A file ends a line, and its last token, whether or not it ends with whitespace.
      if (end == file_start + file.size) tokenizer.end_input();
    }
    file_start += file.size;
  }
  tokenizer.end_input();
}

// A corpus is text: vectors or a model given as --corpus by mistake (an easy slip beside
// --init and -o) would otherwise be trained on as words of raw bytes.
void refuse_binary_corpus(InputStream& in) {
  const std::string_view head = in.peek(4096);
  const char* what = is_safetensors(head)       ? "an .emb (safetensors) file of vectors"
                     : is_fasttext_model(head)  ? "a fastText model"
                     : is_w2v_bin(head)         ? "word2vec binary vectors"
                     : head.find('\0') != std::string_view::npos ? "binary data (it has NUL bytes)"
                                                                  : nullptr;
  if (what) fail("{}: not a text corpus: it looks like {}; --corpus reads plain or gzip-compressed text", in.name(), what);
}

// Whether every path is a file read in place (not standard input, gzip or a pipe). Only a
// regular file is opened to look for gzip's magic bytes: a FIFO or a process substitution
// (`<(zcat c.gz)`) can be read once only, and closing it after a peek would lose those
// bytes, kill its writer with SIGPIPE, and leave the next open waiting for a writer forever.
bool is_regular_file(const std::string& path) {
  struct stat st {};
  return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool all_in_place(const std::vector<std::string>& paths) {
  return std::all_of(paths.begin(), paths.end(),
                     [](const std::string& path) { return is_regular_file(path) && InputStream::open(path).mappable(); });
}

// read_corpus for plain files on options.threads threads: each counts its token-aligned
// byte range, and the parts' counts are merged as one pass would have counted them
// (merged_counts.h).
Corpus read_corpus_in_parallel(const std::vector<std::string>& paths, const CorpusOptions& options) {
  Corpus corpus;
  corpus.name = corpus_name(paths);
  for (const auto& path : paths) corpus.files.push_back(describe_corpus_file(path));
  const std::vector<ByteRange> ranges = token_aligned_ranges(corpus.files, options.threads);
  std::vector<WordCounter> counters(ranges.size());
  std::vector<Corpus> parts(ranges.size());
  std::atomic<std::uint64_t> read_bytes{0};
  Progress progress("reading " + corpus.name, corpus_bytes(corpus.files));
  // Worker 0 is this thread: the only one that draws the progress line.
  parallel_for_workers(ranges.size(), options.threads, [&](std::size_t i, unsigned worker) {
    Tokenizer tokenizer(counters[i], parts[i], options.max_token_bytes);
    tokenize_range(corpus.files, ranges[i], tokenizer, &read_bytes, worker == 0 ? &progress : nullptr);
  });
  progress.finish();
  for (const Corpus& part : parts) {
    corpus.tokens += part.tokens;
    corpus.truncated_tokens += part.truncated_tokens;
  }
  finish_corpus(MergedCounts(counters, options.threads), options, corpus);
  return corpus;
}

}  // namespace

void Corpus::keep_spools() const {
  for (const auto& spool : spools) spool->keep();
}

void Corpus::release_spools() const {
  for (const auto& spool : spools) spool->release();
}

CorpusFile describe_corpus_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail("{}: cannot read: {}", path, std::strerror(errno));
  CorpusFile file;
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  file.path = error ? path : absolute.lexically_normal().string();
  file.size = static_cast<std::uint64_t>(st.st_size);
  file.mtime_ns = mtime_ns(st);
  return file;
}

void check_corpus_unchanged(const std::vector<CorpusFile>& files) {
  for (const CorpusFile& file : files) {
    struct stat st {};
    if (::stat(file.path.c_str(), &st) != 0) {
      fail("{}: the corpus file is gone ({}){}", file.path, std::strerror(errno),
           file.spooled ? "; it was a spooled copy, removed once the run completed" : "");
    }
    if (static_cast<std::uint64_t>(st.st_size) != file.size || mtime_ns(st) != file.mtime_ns) {
      fail(
          "{}: the corpus changed since the checkpoint was written (size {} then, {} now; modified since): a resumed "
          "run must read the same corpus",
          file.path, file.size, st.st_size);
    }
  }
}

Corpus read_corpus(const std::vector<std::string>& paths, const CorpusOptions& options) {
  if (options.threads > 1 && all_in_place(paths)) {
    for (const std::string& path : paths) {
      InputStream in = InputStream::open(path);
      refuse_binary_corpus(in);
    }
    return read_corpus_in_parallel(paths, options);
  }
  Corpus corpus;
  corpus.name = corpus_name(paths);
  WordCounter counter;
  Tokenizer tokenizer(counter, corpus, options.max_token_bytes);
  std::vector<char> block(1 << 20);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    InputStream in = InputStream::open(paths[i]);
    refuse_binary_corpus(in);
    // The epochs read each file again, from the middle: what cannot be (standard input,
    // gzip, a pipe) is copied, decompressed, beside the output while it is counted.
    std::optional<AtomicOutput> spool;
    if (!in.mappable()) {
      EMBED_ASSERT(!options.spool_prefix.empty());
      spool.emplace(spool_path(options.spool_prefix, i));
      spdlog::info("{}: {}; copying it to {}, which training reads instead (removed when it completes)", in.name(),
                   paths[i] == "-"   ? "standard input is read once"
                   : in.compressed() ? "gzip cannot be read from the middle"
                                     : "not a regular file",
                   spool->path());
    }
    Progress progress("reading " + in.name(), in.raw_size().value_or(0));
    while (std::size_t n = in.read(block.data(), block.size())) {
      tokenizer.feed(block.data(), n);
      if (spool) spool->write(block.data(), n);
      progress.update(in.raw_bytes_read());
    }
    tokenizer.end_input();  // a file ends a line, whether or not it ends with "\n"
    if (spool) {
      spool->commit();
      corpus.spools.push_back(std::make_shared<SpoolFile>(spool->path()));
      corpus.files.push_back(describe_corpus_file(spool->path()));
      corpus.files.back().spooled = true;
    } else {
      corpus.files.push_back(describe_corpus_file(paths[i]));
    }
  }
  finish_corpus(counter, options, corpus);
  return corpus;
}

namespace {

// One rank's counts, as all_gather carries them: how many parts (the rank's threads'
// byte ranges, in order), then each part's corpus-level tallies, its word count, the
// bytes its words take (so that a reader can find the next part without reading them)
// and its words (in its order of first appearance), each as its length, its hash
// (WordCounter::hash, which picks its share in MergedCounts), its bytes and its count.
std::vector<char> serialize_counts(std::span<const WordCounter> counters, std::span<const Corpus> parts) {
  std::vector<char> out;
  auto put = [&](auto v) {
    const char* p = reinterpret_cast<const char*>(&v);
    out.insert(out.end(), p, p + sizeof v);
  };
  put(std::uint64_t{counters.size()});
  for (std::size_t i = 0; i < counters.size(); ++i) {
    const WordCounter& counter = counters[i];
    put(std::uint64_t{parts[i].tokens});
    put(std::uint64_t{parts[i].truncated_tokens});
    put(std::uint64_t{counter.size()});
    const std::size_t length_at = out.size();
    put(std::uint64_t{0});  // the words' bytes, written once known
    for (std::uint32_t id = 0; id < counter.size(); ++id) {
      const std::string_view word = counter.word(id);
      put(static_cast<std::uint32_t>(word.size()));
      put(counter.hash(id));
      out.insert(out.end(), word.begin(), word.end());
      put(std::uint64_t{counter.count(id)});
    }
    const std::uint64_t length = out.size() - length_at - sizeof(std::uint64_t);
    std::memcpy(out.data() + length_at, &length, sizeof length);
  }
  return out;
}

// Reads serialize_counts' bytes in order.
class CountsReader {
 public:
  CountsReader(const std::vector<char>& bytes, std::size_t at) : bytes_(bytes), at_(at) {}
  template <typename T>
  T number() {
    EMBED_ASSERT(at_ + sizeof(T) <= bytes_.size());
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  // The next word: calls fn(word, count, hash).
  template <typename Fn>
  void word(const Fn& fn) {
    const auto size = number<std::uint32_t>();
    const auto hash = number<std::uint32_t>();
    EMBED_ASSERT(at_ + size <= bytes_.size());
    const std::string_view word(bytes_.data() + at_, size);
    at_ += size;
    fn(word, number<std::uint64_t>(), hash);
  }
  std::size_t at() const { return at_; }
  void skip(std::uint64_t bytes) {
    EMBED_ASSERT(at_ + bytes <= bytes_.size());
    at_ += bytes;
  }

 private:
  const std::vector<char>& bytes_;
  std::size_t at_;
};

// A part of some rank's serialize_counts: its bytes, where its words start, how many.
struct SerializedPart {
  const std::vector<char>* bytes = nullptr;
  std::size_t words_at = 0;
  std::uint64_t words = 0;
};

// Every rank's parts in the corpus's order (rank after rank, each rank's in order), from
// all_gather's serialize_counts; their tallies added to `corpus`.
std::vector<SerializedPart> serialized_parts(const std::vector<std::vector<char>>& ranks, Corpus& corpus) {
  std::vector<SerializedPart> parts;
  for (const std::vector<char>& bytes : ranks) {
    CountsReader in(bytes, 0);
    const auto count = in.number<std::uint64_t>();
    for (std::uint64_t i = 0; i < count; ++i) {
      corpus.tokens += in.number<std::uint64_t>();
      corpus.truncated_tokens += in.number<std::uint64_t>();
      SerializedPart part{&bytes, 0, in.number<std::uint64_t>()};
      const auto length = in.number<std::uint64_t>();
      part.words_at = in.at();
      in.skip(length);
      parts.push_back(part);
    }
  }
  return parts;
}

}  // namespace

Corpus read_corpus_on_ranks(const std::vector<std::string>& paths, const CorpusOptions& options, Cluster& job) {
  Corpus corpus;
  corpus.name = corpus_name(paths);
  for (const auto& path : paths) {
    if (path == "-") fail("under mpirun the corpus must be files every rank can read; - (standard input) is read once");
    // (A pipe is refused before it is opened: its open would wait for a writer.)
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) fail("{}: cannot open: {}", path, std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
      fail("{}: under mpirun the corpus must be plain files every rank can read from the middle (not a regular file)",
           path);
    }
    InputStream in = InputStream::open(path);
    refuse_binary_corpus(in);
    if (!in.mappable()) {
      fail(
          "{}: under mpirun the corpus must be plain files every rank can read from the middle (gzip cannot be); "
          "decompress it first",
          path);
    }
    corpus.files.push_back(describe_corpus_file(path));
  }
  // Every rank must see the same bytes: the ranges are cut from the sizes. The smallest
  // size any rank sees is the largest complement.
  std::vector<std::uint64_t> low{corpus_bytes(corpus.files)}, high{low[0]};
  for (auto& v : low) v = ~v;
  job.max(low);
  job.max(high);
  if (~low[0] != high[0]) {
    fail("{}: the ranks see corpora of different sizes ({} and {} bytes); every rank must read the same files", corpus.name,
         ~low[0], high[0]);
  }

  // This rank's share, on options.threads threads: the corpus cut into ranks x per_rank
  // token-aligned ranges (the cuts fall on whitespace), this rank's the per_rank of them
  // from rank x per_rank on, each tokenized exactly as read_corpus would. Every rank must
  // cut alike, so per_rank is the most threads any rank has (ranks on other machines may
  // have other core counts, --threads' default).
  const unsigned threads = std::max(1u, options.threads);
  std::vector<std::uint64_t> most{threads};
  job.max(most);
  const auto per_rank = static_cast<unsigned>(most[0]);
  const std::vector<ByteRange> ranges = token_aligned_ranges(corpus.files, job.size() * per_rank);
  EMBED_ASSERT(ranges.size() == std::size_t{job.size()} * per_rank);
  const std::size_t first = std::size_t{job.rank()} * per_rank;
  std::vector<WordCounter> counters(per_rank);
  std::vector<Corpus> parts(per_rank);
  parallel_for_workers(per_rank, threads, [&](std::size_t i, unsigned) {
    Tokenizer tokenizer(counters[i], parts[i], options.max_token_bytes);
    tokenize_range(corpus.files, ranges[first + i], tokenizer, nullptr, nullptr);
  });

  // Every rank's parts, in rank order, which is the corpus's order, merged as
  // read_corpus_in_parallel merges its threads' (merged_counts.h): the same counts, and
  // words first seen earlier in the corpus first, so ties in frequency fall as in one
  // process's count.
  const std::vector<std::vector<char>> all = job.all_gather(serialize_counts(counters, parts));
  counters.clear();
  const std::vector<SerializedPart> serialized = serialized_parts(all, corpus);
  const MergedCounts merged(
      serialized.size(),
      [&serialized](std::size_t i, const auto& fn) {
        CountsReader in(*serialized[i].bytes, serialized[i].words_at);
        for (std::uint32_t id = 0; id < serialized[i].words; ++id) {
          in.word([&](std::string_view word, std::uint64_t count, std::uint32_t hash) { fn(id, word, count, hash); });
        }
      },
      threads);
  finish_corpus(merged, options, corpus);
  return corpus;
}

Corpus corpus_from_text(const std::string& text, const CorpusOptions& options) {
  const std::string prefix = temporary_prefix();
  auto placeholder = std::make_shared<SpoolFile>(prefix);
  Corpus corpus;
  corpus.name = "<text>";
  WordCounter counter;
  Tokenizer tokenizer(counter, corpus, options.max_token_bytes);
  tokenizer.feed(text.data(), text.size());
  tokenizer.end_input();
  {
    AtomicOutput out(spool_path(prefix, 0));
    out.write(text);
    out.commit();
    corpus.spools = {std::make_shared<SpoolFile>(out.path()), std::move(placeholder)};
    corpus.files.push_back(describe_corpus_file(out.path()));
    corpus.files.back().spooled = true;
  }
  finish_corpus(counter, options, corpus);
  return corpus;
}

}  // namespace embed
