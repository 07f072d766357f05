// The trainer's input side: counting, vocabulary order and limits, spooling, the
// workers' byte ranges and the sentences read from them, and the two samplers.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>

#include <unistd.h>
#include <map>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ascii_space.h"
#include "core/parallel_sort.h"
#include "test_util.h"
#include "train/corpus/corpus.h"
#include "train/corpus/corpus_reader.h"
#include "train/corpus/corpus_shards.h"
#include "train/corpus/merged_counts.h"
#include "train/corpus/word_counter.h"
#include "train/engine/epoch_loop.h"
#include "train/engine/optimizer.h"
#include "train/glove/cooc_counter.h"
#include "train/word2vec/sampling.h"
#include "train_fixtures.h"

using namespace embed;

TEST_CASE("WordCounter counts words and numbers them in order of first appearance", "[train]") {
  WordCounter counter;
  std::map<std::string, std::uint64_t> expected;
  for (int i = 0; i < 200000; ++i) {  // enough distinct words to force several rehashes
    const std::string word = "w" + std::to_string(i % 70001);
    const std::uint32_t id = counter.add(word);
    REQUIRE(counter.word(id) == word);
    ++expected[word];
  }
  REQUIRE(counter.size() == 70001);
  REQUIRE(counter.word(0) == "w0");
  REQUIRE(counter.word(70000) == "w70000");
  for (std::uint32_t id = 0; id < counter.size(); ++id) REQUIRE(counter.count(id) == expected[std::string(counter.word(id))]);
}

namespace {

// How many of `expected`'s ids `counts` (a WordCounter or MergedCounts) gives another
// word or count.
template <typename Counts>
std::size_t ids_unlike(const Counts& counts, const WordCounter& expected) {
  std::size_t unlike = 0;
  for (std::uint32_t id = 0; id < expected.size(); ++id) {
    unlike += counts.word(id) != expected.word(id) || counts.count(id) != expected.count(id);
  }
  return unlike;
}

}  // namespace

TEST_CASE("WordCounter::add_all counts as add() one word at a time does", "[train]") {
  // Batches long and short, repeated words inside a batch, the table growing mid-batch.
  std::mt19937_64 random(11);
  WordCounter batched, single;
  std::vector<std::string> words;
  for (int batch = 0; batch < 40; ++batch) {
    words.clear();
    const std::size_t n = batch % 7 == 0 ? 3 : 5000;
    for (std::size_t i = 0; i < n; ++i) words.push_back("w" + std::to_string(random() % (batch < 20 ? 1000 : 300000)));
    for (const std::string& word : words) single.add(word);
    const std::vector<std::string_view> views(words.begin(), words.end());
    batched.add_all(views);
  }
  REQUIRE(batched.size() == single.size());
  REQUIRE(ids_unlike(batched, single) == 0);
}

TEST_CASE("parts' counts merged on threads equal one counter fed the parts in order", "[train]") {
  // MergedCounts: the same words, counts and order of first appearance as adding each
  // part's words to one counter, part after part. Parts of Zipf-drawn words share the
  // frequent ones and not the rare ones; one part is empty.
  std::mt19937_64 random(7);
  std::vector<WordCounter> parts(6);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (p == 3) continue;
    for (int i = 0; i < 40000; ++i) {
      const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random);
      parts[p].add("w" + std::to_string(static_cast<std::uint64_t>(std::exp(u * std::log(200000.0)))));
    }
  }
  WordCounter one;
  for (const WordCounter& part : parts) {
    for (std::uint32_t id = 0; id < part.size(); ++id) one.add(part.word(id), part.count(id));
  }
  for (unsigned threads : {1u, 2u, 3u, 7u, 16u}) {
    INFO(threads << " threads");
    std::vector<WordCounter> copies = parts;
    const MergedCounts merged(copies, threads);
    REQUIRE(copies.empty());
    REQUIRE(merged.size() == one.size());
    REQUIRE(ids_unlike(merged, one) == 0);
  }
}

TEST_CASE("corpus: vocabulary by falling count, ties in order of first appearance; rare words dropped", "[train]") {
  CorpusOptions options;
  options.min_count = 2;
  const Corpus c = corpus_from_text("b a c a\nd b a e\n\n  c\tx y\r\nb", options);
  // counts: a 3, b 3, c 2, d 1, e 1, x 1, y 1; b appeared before a.
  REQUIRE(c.vocab.words == std::vector<std::string>{"b", "a", "c"});
  REQUIRE(c.vocab.counts == std::vector<std::int64_t>{3, 3, 2});
  REQUIRE(c.vocab.total_count() == 8);
  REQUIRE(c.tokens == 12);
  REQUIRE(c.distinct_words == 7);
  REQUIRE(c.words == 8);
  // The epochs read vocabulary words only; each line end ends a sentence.
  REQUIRE(test::corpus_sentences(c) == std::vector<std::vector<std::uint32_t>>{{0, 1, 2, 1}, {0, 1}, {2}, {0}});
}

TEST_CASE("corpus: --max-vocab keeps the most frequent words", "[train]") {
  CorpusOptions options;
  options.min_count = 1;
  options.max_vocab = 2;
  const Corpus c = corpus_from_text("x y y z z z", options);
  REQUIRE(c.vocab.words == std::vector<std::string>{"z", "y"});
  REQUIRE(test::corpus_rows(c) == std::vector<std::uint32_t>{1, 1, 0, 0, 0});
}

TEST_CASE("corpus: long tokens are cut at a character boundary, invalid UTF-8 words left out", "[train]") {
  CorpusOptions options;
  options.min_count = 1;
  options.max_token_bytes = 5;
  // "aaaa" + "é" (2 bytes) straddles byte 5: the cut backs up to 4 bytes.
  const Corpus c = corpus_from_text("aaaa\xC3\xA9 bbbbbbbb ok \xFF\xFE", options);
  REQUIRE(c.vocab.words == std::vector<std::string>{"aaaa", "bbbbb", "ok"});
  REQUIRE(c.truncated_tokens == 2);
  REQUIRE(c.invalid_utf8_words == 1);
}

TEST_CASE("corpus: an empty corpus and an emptied vocabulary are errors", "[train]") {
  CorpusOptions options;
  REQUIRE_ERROR_CONTAINS(corpus_from_text(" \n\t\n", options), "the corpus has no words");
  options.min_count = 3;
  REQUIRE_ERROR_CONTAINS(corpus_from_text("a b a c", options),
                         "no word occurs at least 3 times (the most frequent, \"a\", occurs 2 times); lower --min-count");
}

TEST_CASE("corpus: files are read in order, gzip detected, each file ending a line", "[train]") {
  test::TempDir dir;
  test::write_file(dir.file("a.txt"), "one two two");
  // "three two" gzip-compressed (python3 -c 'import gzip; ...').
  const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x2b, 0xc9, 0x28, 0x4a, 0x4d,
                              0x55, 0x28, 0x29, 0xcf, 0x07, 0x00, 0xe5, 0x66, 0xed, 0x74, 0x09, 0x00, 0x00, 0x00};
  test::write_file(dir.file("b.gz"), std::string(reinterpret_cast<const char*>(gz), sizeof gz));
  CorpusOptions options;
  options.min_count = 1;
  options.spool_prefix = dir.file("out.emb");
  std::string spool;
  {
    const Corpus c = read_corpus({dir.file("a.txt"), dir.file("b.gz")}, options);
    REQUIRE(c.vocab.words == std::vector<std::string>{"two", "one", "three"});
    REQUIRE(test::corpus_sentences(c) == std::vector<std::vector<std::uint32_t>>{{1, 0, 0}, {2, 0}});
    // The plain file is read in place; the gzip file was spooled, decompressed, beside the output.
    REQUIRE(c.files.size() == 2);
    REQUIRE(c.files[0].path == dir.file("a.txt"));
    REQUIRE_FALSE(c.files[0].spooled);
    spool = c.files[1].path;
    REQUIRE(spool == dir.file("out.emb.corpus-1.txt"));
    REQUIRE(c.files[1].spooled);
    REQUIRE(test::read_file(spool) == "three two");
  }
  REQUIRE_FALSE(std::filesystem::exists(spool));  // removed with the corpus
  {
    Corpus c = read_corpus({dir.file("b.gz")}, options);
    c.keep_spools();  // a checkpoint names it
  }
  REQUIRE(std::filesystem::exists(dir.file("out.emb.corpus-0.txt")));
  REQUIRE_ERROR_CONTAINS(read_corpus({dir.file("missing.txt")}, options), "missing.txt");
}

TEST_CASE("NegativeSampler draws from count^0.75", "[train]") {
  const std::vector<std::int64_t> counts = {1000, 300, 300, 20, 7, 1};
  const NegativeSampler sampler(counts, 0.75);
  double sum = 0;
  for (auto c : counts) sum += std::pow(static_cast<double>(c), 0.75);
  std::vector<int> drawn(counts.size(), 0);
  Random random(7, 0);
  constexpr int kDraws = 600000;
  for (int i = 0; i < kDraws; ++i) ++drawn[sampler.draw(random)];
  for (std::uint32_t row = 0; row < counts.size(); ++row) {
    const double p = std::pow(static_cast<double>(counts[row]), 0.75) / sum;
    REQUIRE(sampler.probability(row) == Approx(p).epsilon(1e-6));
    // Within 5 standard deviations of the expected count.
    const double mean = p * kDraws, sd = std::sqrt(kDraws * p * (1 - p));
    REQUIRE(std::abs(drawn[row] - mean) < 5 * sd + 1);
  }
}

TEST_CASE("keep_thresholds follows word2vec's subsampling formula", "[train]") {
  const std::vector<std::int64_t> counts = {100000, 1000, 10};
  const auto thresholds = keep_thresholds(counts, 1e-3);
  const double total = 101010, t = 1e-3 * total;
  const double keep0 = (std::sqrt(100000 / t) + 1) * t / 100000;
  REQUIRE(static_cast<double>(thresholds[0]) / 4294967296.0 == Approx(keep0).epsilon(1e-7));
  const double keep1 = (std::sqrt(1000 / t) + 1) * t / 1000;
  REQUIRE(static_cast<double>(thresholds[1]) / 4294967296.0 == Approx(keep1).epsilon(1e-7));
  REQUIRE(thresholds[2] == kAlwaysKeep);  // keep probability above 1
  REQUIRE(keep_thresholds(counts, 0) == std::vector<std::uint32_t>(3, kAlwaysKeep));
}

namespace {

// The file's tokens, split as the corpus reader splits them.
std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_ascii_space(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !is_ascii_space(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) tokens.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return tokens;
}

}  // namespace

TEST_CASE("byte ranges cut at token boundaries and cover every token once, for 1 to 16 workers", "[train]") {
  test::TempDir dir;
  // Tokens of 1 to 12 bytes (some UTF-8), one of 300,000 bytes, separated by runs of
  // every kind of whitespace, with whitespace at both ends.
  std::mt19937 random(7);
  const std::string separators = " \n\t\r\v\f";
  std::string text = "\n  ";
  for (int t = 0; t < 20000; ++t) {
    if (t == 9000) {
      text += std::string(300000, 'x');
    } else {
      const int length = 1 + static_cast<int>(random() % 12);
      for (int c = 0; c < length; ++c)
        text += random() % 9 == 0 ? "\xc3\xa9" : std::string(1, static_cast<char>('a' + random() % 26));
    }
    const int run = 1 + static_cast<int>(random() % 3);
    for (int s = 0; s < run; ++s) text += separators[random() % separators.size()];
  }
  const std::string path = dir.file("corpus.txt");
  test::write_file(path, text);
  const std::vector<std::string> all = tokens_of(text);
  for (unsigned workers = 1; workers <= 16; ++workers) {
    const std::vector<ByteRange> ranges = token_aligned_ranges({describe_corpus_file(path)}, workers);
    INFO(workers << " workers");
    REQUIRE(ranges.size() == workers);
    REQUIRE(ranges.front().begin == 0);
    REQUIRE(ranges.back().end == text.size());
    std::vector<std::string> joined;
    for (std::size_t r = 0; r < ranges.size(); ++r) {
      REQUIRE(ranges[r].begin <= ranges[r].end);
      if (r > 0) REQUIRE(ranges[r].begin == ranges[r - 1].end);
      // A cut lies on whitespace or at the end.
      if (ranges[r].end < text.size()) REQUIRE(is_ascii_space(static_cast<unsigned char>(text[ranges[r].end])));
      const auto part = tokens_of(std::string_view(text).substr(ranges[r].begin, ranges[r].end - ranges[r].begin));
      joined.insert(joined.end(), part.begin(), part.end());
    }
    REQUIRE(joined == all);
  }
  // The long token leaves the ranges nominally inside it empty; a file without
  // whitespace is one range; an empty file gives empty ranges.
  const auto ranges = token_aligned_ranges({describe_corpus_file(path)}, 16);
  REQUIRE(std::count_if(ranges.begin(), ranges.end(), [](const ByteRange& r) { return r.begin == r.end; }) > 0);
  // Several files: a cut never goes past the end of the file it falls in.
  test::write_file(dir.file("b.txt"), "oneword");
  test::write_file(dir.file("c.txt"), "x yy");
  const std::vector<CorpusFile> files = {describe_corpus_file(dir.file("b.txt")), describe_corpus_file(dir.file("c.txt"))};
  REQUIRE(token_aligned_ranges(files, 2) == std::vector<ByteRange>{{0, 7}, {7, 11}});
  REQUIRE(token_aligned_ranges(files, 4) == std::vector<ByteRange>{{0, 7}, {7, 7}, {7, 8}, {8, 11}});
  REQUIRE(token_aligned_ranges({files[0]}, 3) == std::vector<ByteRange>{{0, 7}, {7, 7}, {7, 7}});
  test::write_file(path, "");
  REQUIRE(token_aligned_ranges({describe_corpus_file(path)}, 2) == std::vector<ByteRange>{{0, 0}, {0, 0}});
  CorpusFile missing = files[0];
  missing.path = dir.file("missing.txt");
  REQUIRE_ERROR_CONTAINS(token_aligned_ranges({missing}, 2), "missing.txt: cannot open");
  REQUIRE_ERROR_CONTAINS(describe_corpus_file(dir.file("missing.txt")), "missing.txt: cannot read");
}

TEST_CASE("counts above 2^32: sampling, the schedule and the workers' shards", "[train]") {
  // A Wikipedia-sized corpus: billions of tokens. Only proportions may matter.
  const std::vector<std::int64_t> huge{6000000000, 3000000000, 1000000000, 7};
  const std::vector<std::int64_t> small{6000000, 3000000, 1000000, 0};
  const NegativeSampler big_sampler(huge, 0.75), small_sampler(small, 0.75);
  for (std::uint32_t row = 0; row < 3; ++row) {
    CHECK(big_sampler.probability(row) == Approx(small_sampler.probability(row)).epsilon(1e-6));
  }
  const auto big_keep = keep_thresholds(huge, 1e-4), small_keep = keep_thresholds(small, 1e-4);
  for (std::size_t row = 0; row < 3; ++row) CHECK(big_keep[row] == Approx(small_keep[row]).epsilon(1e-6));
  CHECK(big_keep[3] == kAlwaysKeep);  // a rare word survives
  // Half of 10^10 words done: half the learning rate.
  CHECK(linear_decay_learning_rate(0.025f, 5e9, 1e10) == Approx(0.0125f));
  // 10^10 items over 16 workers: contiguous shards of 625M each, the last ending at the end.
  const std::uint64_t items = 10000000000ull;
  std::uint64_t expected_first = 0;
  for (unsigned w = 0; w < 16; ++w) {
    const auto [first, last] = shard_bounds(items, w, 16);
    CHECK(first == expected_first);
    CHECK(last - first == items / 16);
    expected_first = last;
  }
  CHECK(expected_first == items);
}

TEST_CASE("the byte ranges read as sentences give the corpus's words once, in order, for 1 to 16 workers", "[train]") {
  test::TempDir dir;
  // Lines of Zipf-ish words (some under --min-count, some cut at 100 bytes, some UTF-8),
  // empty lines, and every kind of whitespace, over three files.
  std::mt19937 random(11);
  std::string text = "\n";
  for (int line = 0; line < 400; ++line) {
    const int words = static_cast<int>(random() % 40);
    for (int w = 0; w < words; ++w) {
      const auto pick = random() % 100;
      if (pick == 0) {
        text += std::string(99, 'l') + "\xc3\xa9\xc3\xa9";  // cut at 100 bytes, inside the first é
      } else {
        text += "w" + std::to_string(static_cast<int>(std::sqrt(static_cast<double>(random() % 10000))));
      }
      text += " \t \r\v\f"[random() % 5];
    }
    text += random() % 7 == 0 ? "\n\n" : "\n";
  }
  text += "last words without a newline";
  // Files cut at line ends, so that they hold the lines the text does.
  const std::size_t cut1 = text.find('\n', text.size() / 3), cut2 = text.find('\n', 2 * text.size() / 3);
  const std::vector<std::string> parts = {text.substr(0, cut1), text.substr(cut1, cut2 - cut1), text.substr(cut2)};
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    paths.push_back(dir.file("part" + std::to_string(i) + ".txt"));
    test::write_file(paths.back(), parts[i]);
  }
  CorpusOptions options;
  options.min_count = 3;
  const Corpus corpus = read_corpus(paths, options);
  REQUIRE(corpus.truncated_tokens > 0);
  const RowLookup lookup(corpus.vocab);

  // What the sentences must be: each line's vocabulary words, cut every 37.
  std::vector<std::vector<std::uint32_t>> expected;
  std::size_t line_start = 0;
  while (line_start <= text.size()) {
    const std::size_t line_end = std::min(text.find('\n', line_start), text.size());
    std::vector<std::uint32_t> rows;
    for (const auto& token : tokens_of(std::string_view(text).substr(line_start, line_end - line_start))) {
      if (const auto row = lookup.row(cut_token(token, options.max_token_bytes))) rows.push_back(*row);
    }
    for (std::size_t first = 0; first < rows.size(); first += 37) {
      expected.emplace_back(rows.begin() + static_cast<std::ptrdiff_t>(first),
                            rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), first + 37)));
    }
    line_start = line_end + 1;
  }
  std::vector<std::uint32_t> expected_rows;
  for (const auto& sentence : expected) expected_rows.insert(expected_rows.end(), sentence.begin(), sentence.end());
  REQUIRE(expected_rows.size() == corpus.words);

  // Counted on 2 to 16 threads, each its byte range, the parts merged in order: the same
  // vocabulary, with ties in count (there are some) in the same order of first appearance.
  REQUIRE(std::adjacent_find(corpus.vocab.counts.begin(), corpus.vocab.counts.end()) != corpus.vocab.counts.end());
  for (unsigned threads = 2; threads <= 16; ++threads) {
    INFO(threads << " counting threads");
    CorpusOptions parallel = options;
    parallel.threads = threads;
    const Corpus counted = read_corpus(paths, parallel);
    REQUIRE(counted.vocab.words == corpus.vocab.words);
    REQUIRE(counted.vocab.counts == corpus.vocab.counts);
    REQUIRE(counted.tokens == corpus.tokens);
    REQUIRE(counted.words == corpus.words);
    REQUIRE(counted.distinct_words == corpus.distinct_words);
    REQUIRE(counted.truncated_tokens == corpus.truncated_tokens);
    REQUIRE(counted.invalid_utf8_words == corpus.invalid_utf8_words);
    REQUIRE(counted.files.size() == corpus.files.size());
    REQUIRE(counted.files[2].size == corpus.files[2].size);
  }

  for (unsigned workers = 1; workers <= 16; ++workers) {
    INFO(workers << " workers");
    std::vector<std::vector<std::uint32_t>> sentences;
    std::vector<std::uint32_t> rows_read;
    const auto ranges = token_aligned_ranges(corpus.files, workers);
    for (const ByteRange& range : ranges) {
      // Every other sentence comes from a new reader made at the last one's position,
      // as a resumed run makes it: the same sentences either way.
      auto reader = std::make_unique<CorpusReader>(corpus.files, range, lookup, options.max_token_bytes);
      std::vector<std::uint32_t> rows;
      for (int n = 0; reader->next_sentence(37, rows); ++n) {
        REQUIRE(!rows.empty());
        sentences.push_back(rows);
        rows_read.insert(rows_read.end(), rows.begin(), rows.end());
        if (n % 2 == 1) {
          reader = std::make_unique<CorpusReader>(corpus.files, ByteRange{reader->position(), range.end}, lookup,
                                                  options.max_token_bytes);
        }
      }
      REQUIRE(reader->position() == range.end);
    }
    REQUIRE(rows_read == expected_rows);
    if (workers == 1) REQUIRE(sentences == expected);
  }
  // A corpus cut short after its ranges were laid out fails with the file and byte.
  const auto ranges = token_aligned_ranges(corpus.files, 2);
  test::write_file(paths[2], parts[2].substr(0, parts[2].size() / 2));
  CorpusReader reader(corpus.files, ranges[1], lookup, options.max_token_bytes);
  std::vector<std::uint32_t> rows;
  const auto read_all = [&] {
    while (reader.next_sentence(1000000, rows)) {}
  };
  REQUIRE_ERROR_CONTAINS(read_all(), "part2.txt: ends at byte");
  ::unlink(paths[1].c_str());
  REQUIRE_ERROR_CONTAINS(check_corpus_unchanged(corpus.files), "part1.txt: the corpus file is gone");
  REQUIRE_ERROR_CONTAINS(check_corpus_unchanged({corpus.files[2]}), "part2.txt: the corpus changed since the checkpoint");
}

TEST_CASE("GloVe counts from a streamed corpus do not depend on where its long lines are cut", "[train]") {
  CorpusOptions options;
  options.min_count = 1;
  std::string text;
  Random random(3, 3);
  for (int w = 0; w < 3000; ++w) {
    text += "w" + std::to_string(random.below(50)) + (w % 1000 == 999 ? "\n" : " ");  // three long lines
  }
  const Corpus corpus = corpus_from_text(text, options);
  for (bool symmetric : {true, false}) {
    CoocOptions whole;
    whole.window = 5;
    whole.symmetric = symmetric;
    CoocOptions pieces = whole;
    pieces.words_per_piece = 7;  // more words than the window
    CoocOptions tiny = whole;
    tiny.words_per_piece = 2;  // fewer: the carried context spans several pieces
    CoocStats whole_stats, pieces_stats, tiny_stats;
    const auto expected = count_cooccurrences(corpus, whole, whole_stats);
    // Windows do not cross lines: 3 lines of 1000 words.
    REQUIRE(whole_stats.pairs == (symmetric ? 2 : 1) * 3 * (1000 * 5 - 15));
    const auto same = [&](const std::vector<CoocEntry>& counts) {
      return std::equal(
          counts.begin(), counts.end(), expected.begin(), expected.end(),
          [](const CoocEntry& a, const CoocEntry& b) { return a.row == b.row && a.column == b.column && a.count == b.count; });
    };
    REQUIRE(same(count_cooccurrences(corpus, pieces, pieces_stats)));
    REQUIRE(same(count_cooccurrences(corpus, tiny, tiny_stats)));
    REQUIRE(pieces_stats.pairs == whole_stats.pairs);
  }
}

TEST_CASE("parallel_sort gives std::sort's order on any number of threads", "[train]") {
  // Parts of 65,536 and more: 300,001 values make 4 parts on 4 threads (and 4 on 8: no
  // part under the smallest), an odd part count on 3, a merge tree with a part left over.
  std::vector<std::uint64_t> values(300001);
  std::uint64_t x = 88172645463325252ull;
  for (auto& v : values) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = x % 1000003;  // many equal values: the order of equals is the comparator's
  }
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed;  // (value, index): a strict total order
  for (std::uint32_t i = 0; i < values.size(); ++i) keyed.emplace_back(values[i], i);
  auto expected = keyed;
  std::sort(expected.begin(), expected.end());
  for (unsigned threads : {1u, 2u, 3u, 4u, 8u}) {
    auto sorted = keyed;
    parallel_sort(sorted, threads, std::less<>());
    INFO(threads << " threads");
    CHECK(sorted == expected);
  }
  std::vector<int> small{3, 1, 2};  // one part
  parallel_sort(small, 8, std::less<>());
  CHECK(small == std::vector<int>{1, 2, 3});
}
