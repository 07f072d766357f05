#include "train/corpus.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/ascii_space.h"
#include "core/byte_source.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/utf8.h"
#include "train/word_counter.h"

namespace embed {

std::uint64_t Vocabulary::total_count() const {
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0},
                         [](std::uint64_t sum, std::int64_t c) { return sum + static_cast<std::uint64_t>(c); });
}

PackedWords pack_words(const Vocabulary& vocab) {
  PackedWords packed;
  packed.offsets.reserve(vocab.size() + 1);
  for (const auto& word : vocab.words) {
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

// Records that a line ended at `position` of the id stream, unless the line was empty
// (no words since the last end, or none at all yet).
void end_line_at(std::vector<std::uint64_t>& line_ends, std::uint64_t position) {
  if (line_ends.empty() ? position > 0 : line_ends.back() != position) line_ends.push_back(position);
}

// Tokenizes a stream of text blocks into provisional ids (order of first appearance)
// and line ends, counting as it goes.
class Tokenizer {
 public:
  Tokenizer(WordCounter& counter, Corpus& corpus, std::size_t max_token_bytes)
      : counter_(counter), corpus_(corpus), max_token_bytes_(max_token_bytes) {}

  void feed(const char* data, std::size_t size) {
    std::size_t i = 0;
    while (i < size) {
      if (is_ascii_space(static_cast<unsigned char>(data[i]))) {
        end_token();
        if (data[i] == '\n') end_line();
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < size && !is_ascii_space(static_cast<unsigned char>(data[j]))) ++j;
      if (partial_.empty() && j < size) {
        add_token(std::string_view(data + i, j - i));  // the common case: no copy
      } else {
        partial_.append(data + i, j - i);  // the token may continue in the next block
      }
      i = j;
    }
  }
  void end_input() {
    end_token();
    end_line();
  }

 private:
  void end_token() {
    if (partial_.empty()) return;
    add_token(partial_);
    partial_.clear();
  }
  void end_line() { end_line_at(corpus_.line_ends, corpus_.ids.size()); }
  void add_token(std::string_view token) {
    const std::string_view cut = cut_token(token, max_token_bytes_);
    if (cut.size() < token.size()) ++corpus_.truncated_tokens;
    corpus_.ids.push_back(counter_.add(cut));
    ++corpus_.tokens;
  }

  WordCounter& counter_;
  Corpus& corpus_;
  std::size_t max_token_bytes_;
  std::string partial_;
};

// Orders the counted words, applies min-count and max-vocab, and rewrites the
// provisional ids in `corpus` as vocabulary rows, dropping the rest.
void finish_corpus(const WordCounter& counter, const CorpusOptions& options, Corpus& corpus) {
  corpus.distinct_words = counter.size();
  if (corpus.tokens == 0) fail("{}: the corpus has no words", corpus.name);

  std::vector<std::uint32_t> order;
  std::uint32_t most_frequent = 0;
  for (std::uint32_t id = 0; id < counter.size(); ++id) {
    if (counter.count(id) > counter.count(most_frequent)) most_frequent = id;
    if (counter.count(id) < options.min_count) continue;
    if (!is_valid_utf8(counter.word(id))) {
      ++corpus.invalid_utf8_words;
      continue;
    }
    order.push_back(id);
  }
  // Most frequent first; ties keep the order of first appearance, so the vocabulary
  // does not depend on anything but the text.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return counter.count(a) > counter.count(b); });
  if (options.max_vocab > 0 && order.size() > options.max_vocab) order.resize(options.max_vocab);
  if (order.empty()) {
    fail("{}: no word occurs at least {} times (the most frequent, \"{}\", occurs {} times); lower --min-count",
         corpus.name, options.min_count, counter.word(most_frequent), counter.count(most_frequent));
  }

  constexpr std::uint32_t kDropped = 0xFFFFFFFFu;
  std::vector<std::uint32_t> row_of(counter.size(), kDropped);
  corpus.vocab.words.reserve(order.size());
  corpus.vocab.counts.reserve(order.size());
  for (std::uint32_t row = 0; row < order.size(); ++row) {
    row_of[order[row]] = row;
    corpus.vocab.words.emplace_back(counter.word(order[row]));
    corpus.vocab.counts.push_back(static_cast<std::int64_t>(counter.count(order[row])));
  }

  // Compact the id stream in place, moving the line ends with it.
  std::size_t kept = 0, line = 0;
  std::vector<std::uint64_t> line_ends;
  for (std::size_t i = 0; i < corpus.ids.size(); ++i) {
    while (line < corpus.line_ends.size() && corpus.line_ends[line] == i) {
      end_line_at(line_ends, kept);
      ++line;
    }
    const std::uint32_t row = row_of[corpus.ids[i]];
    if (row != kDropped) corpus.ids[kept++] = row;
  }
  end_line_at(line_ends, kept);
  corpus.ids.resize(kept);
  corpus.ids.shrink_to_fit();
  corpus.line_ends = std::move(line_ends);
}

}  // namespace

Corpus read_corpus(const std::vector<std::string>& paths, const CorpusOptions& options) {
  Corpus corpus;
  for (const auto& path : paths) corpus.name += (corpus.name.empty() ? "" : ", ") + (path == "-" ? "<stdin>" : path);
  WordCounter counter;
  Tokenizer tokenizer(counter, corpus, options.max_token_bytes);
  std::vector<char> block(1 << 20);
  for (const auto& path : paths) {
    InputStream in = InputStream::open(path);
    if (path == "-") spdlog::info("reading the corpus from standard input once; its words are kept in memory for the epochs");
    Progress progress("reading " + in.name(), in.raw_size().value_or(0));
    while (std::size_t n = in.read(block.data(), block.size())) {
      tokenizer.feed(block.data(), n);
      progress.update(in.raw_bytes_read());
    }
    tokenizer.end_input();  // a file ends a line, whether or not it ends with "\n"
  }
  finish_corpus(counter, options, corpus);
  return corpus;
}

Corpus corpus_from_text(const std::string& text, const CorpusOptions& options) {
  Corpus corpus;
  corpus.name = "<text>";
  WordCounter counter;
  Tokenizer tokenizer(counter, corpus, options.max_token_bytes);
  tokenizer.feed(text.data(), text.size());
  tokenizer.end_input();
  finish_corpus(counter, options, corpus);
  return corpus;
}

}  // namespace embed
