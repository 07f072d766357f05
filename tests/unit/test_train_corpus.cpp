// The trainer's input side: counting, vocabulary order and limits, the id stream,
// and the two samplers.
#include <cmath>
#include <map>

#include "test_util.h"
#include "train/corpus.h"
#include "train/word2vec/sampling.h"
#include "train/word_counter.h"

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
  // The id stream keeps vocabulary words only; each line end is a sentence boundary.
  REQUIRE(c.ids == std::vector<std::uint32_t>{0, 1, 2, 1, 0, 1, 2, 0});
  REQUIRE(c.line_ends == std::vector<std::uint64_t>{4, 6, 7, 8});
}

TEST_CASE("corpus: --max-vocab keeps the most frequent words", "[train]") {
  CorpusOptions options;
  options.min_count = 1;
  options.max_vocab = 2;
  const Corpus c = corpus_from_text("x y y z z z", options);
  REQUIRE(c.vocab.words == std::vector<std::string>{"z", "y"});
  REQUIRE(c.ids == std::vector<std::uint32_t>{1, 1, 0, 0, 0});
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
  const Corpus c = read_corpus({dir.file("a.txt"), dir.file("b.gz")}, options);
  REQUIRE(c.vocab.words == std::vector<std::string>{"two", "one", "three"});
  REQUIRE(c.ids == std::vector<std::uint32_t>{1, 0, 0, 2, 0});
  REQUIRE(c.line_ends == std::vector<std::uint64_t>{3, 5});
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
