#include <cstring>
#include <random>

#include <bit>

#include <fast_float/fast_float.h>
#include <zlib.h>

#include <catch2/catch.hpp>

#include "core/progress.h"
#include "test_util.h"
#include "text/text_reader.h"
#include "text/word2vec_binary.h"
#include "vectors/load.h"

using namespace embed;
using embed::test::TempDir;

namespace {

EmbeddingTable read_text(const std::string& content, bool header, unsigned threads = 1, std::size_t chunk = 32u << 20,
                         std::uint64_t limit = 0, const WordSet* keep = nullptr) {
  TempDir dir;
  const std::string path = dir.file("v.txt");
  test::write_file(path, content);
  InputStream in = InputStream::open(path);
  TextReadOptions options;
  options.has_header = header;
  options.threads = threads;
  options.chunk_bytes = chunk;
  options.limit = limit;
  options.keep = keep;
  return read_text_vectors(in, options);
}

// Reads and also builds the index, which is where duplicates are caught.
void read_and_index(const std::string& content, bool header = false) { index_words(read_text(content, header), "v.txt"); }

}  // namespace

TEST_CASE("GloVe text: words, numbers and the file's quirks", "[text]") {
  const auto t = read_text("the 0.1 -2 3e-2\r\nnew york 1 2 3 \n\n+1 4 5 6\n", false);
  REQUIRE(t.rows() == 3);
  CHECK(t.dim == 3);
  CHECK(t.word(0) == "the");
  CHECK(t.word(1) == "new york");  // everything before the last D fields is the word
  CHECK(t.word(2) == "+1");
  CHECK(t.row(0)[0] == 0.1f);
  CHECK(t.row(0)[1] == -2.0f);
  CHECK(t.row(0)[2] == 0.03f);
  CHECK(t.origins == std::vector<std::uint64_t>{1, 2, 4});
}

TEST_CASE("word2vec text: header gives count and dimension", "[text]") {
  const auto t = read_text("2 2\na 1 2\nb 3 4\n", true);
  REQUIRE(t.rows() == 2);
  CHECK(t.word(1) == "b");
  CHECK(t.row(1)[1] == 4.0f);
  CHECK(t.origins == std::vector<std::uint64_t>{2, 3});
}

TEST_CASE("bad rows are named by file, line and what was expected", "[text]") {
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\nb 1\n", false), "v.txt:2: ragged row: 1 number after the word \"b\", expected 2 (as on line 1)");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\nb\n", false), "v.txt:2: expected a word followed by 2 numbers (as on line 1), found the word \"b\" alone");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2 3\nb c 1\n", false), "v.txt:2: expected a word followed by 3 numbers (as on line 1), found 3 fields");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\nb 1 x\n", false), "v.txt:2: field 3: \"x\" is not a number");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\nb 1 nan\n", false), "v.txt:2: field 3: \"nan\" is not a finite number");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\nb inf 1\n", false), "v.txt:2: field 2: \"inf\" is not a finite number");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\nb 1e999 1\n", false), "not a finite number");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\nb 1 2 3\n", false), "v.txt:2: ragged row: 3 numbers");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\n 1 2\n", false), "v.txt:2: empty word");
  REQUIRE_ERROR_CONTAINS(read_text("a 1 2\nb\xff 1 2\n", false), "v.txt:2: the word \"b\\xFF\" is not valid UTF-8");
  REQUIRE_ERROR_CONTAINS(read_and_index("a 1 2\nb 1 2\na 3 4\n"), "v.txt:3: duplicate word \"a\" (also on line 1)");
  REQUIRE_ERROR_CONTAINS(read_text("3 2\na 1 2\nb 3 4\n", true), "v.txt:1: the header says 3 words but the file has 2 rows");
  REQUIRE_ERROR_CONTAINS(read_text("2 3\na 1 2\nb 3 4\n", true),
                         "v.txt:2: ragged row: 2 numbers after the word \"a\", expected 3 (the header's dimension)");
  REQUIRE_ERROR_CONTAINS(read_text("x y z\n", true), "v.txt:1: expected a header");
  REQUIRE_ERROR_CONTAINS(read_text("lonely\n", false), "v.txt:1: expected a word followed by numbers");
  REQUIRE_ERROR_CONTAINS(read_text("", false), "v.txt: empty input (no vectors)");
  REQUIRE_ERROR_CONTAINS(read_text("", true), "v.txt: empty input (no vectors)");
  REQUIRE_ERROR_CONTAINS(read_text("\n", false), "v.txt:1: expected a word followed by numbers, found an empty line");
  // A byte-order mark is not part of the first word (nor of a header).
  REQUIRE(read_text("\xEF\xBB\xBF"
                    "a 1 2\n",
                    false)
              .word(0) == "a");
  REQUIRE(read_text("\xEF\xBB\xBF"
                    "1 2\na 1 2\n",
                    true)
              .rows() == 1);
  REQUIRE(counted(1, "row") == "1 row");
  REQUIRE(counted(0, "row") == "0 rows");
}

TEST_CASE("parallel chunked parsing equals a single pass, errors included", "[text]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1, 1);
  std::string text;
  for (int r = 0; r < 3000; ++r) {
    text += "w" + std::to_string(r);
    for (int i = 0; i < 5; ++i) text += fmt::format(" {:.6f}", value(rng));
    text += r % 97 == 0 ? "\r\n" : "\n";
  }
  const auto one = read_text(text, false, 1);
  for (unsigned threads : {2u, 3u}) {
    for (std::size_t chunk : {std::size_t{64}, std::size_t{1000}, std::size_t{1} << 20}) {
      const auto many = read_text(text, false, threads, chunk);
      REQUIRE(many.rows() == one.rows());
      REQUIRE(many.word_bytes == one.word_bytes);
      REQUIRE(many.values == one.values);
      REQUIRE(many.origins == one.origins);
    }
  }
  std::string broken = text;
  broken.insert(broken.find("w2500 "), "oops 1\n");
  REQUIRE_ERROR_CONTAINS(read_text(broken, false, 2, 1000), "v.txt:2501:");
}

TEST_CASE("a row limit and a word filter keep a subset", "[text]") {
  const std::string text = "a 1 2\nb 3 4\nc 5 6\nnew york 7 8\n";
  const auto first_two = read_text(text, false, 2, 32u << 20, 2);
  REQUIRE(first_two.rows() == 2);
  CHECK(first_two.word(1) == "b");
  const WordSet keep = {"c", "new york", "zzz"};
  const auto subset = read_text(text, false, 1, 32u << 20, 0, &keep);
  REQUIRE(subset.rows() == 2);
  CHECK(subset.word(0) == "c");
  CHECK(subset.word(1) == "new york");
  CHECK(subset.row(1)[1] == 8.0f);
}

TEST_CASE("gzip input is detected from its bytes and decompressed", "[text]") {
  TempDir dir;
  const std::string path = dir.file("v.txt.gz");
  gzFile gz = gzopen(path.c_str(), "wb");
  const std::string text = "2 2\na 1 2\nb 3 4\n";
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  const auto loaded = load_vectors(path, {});
  CHECK(loaded.format == VectorFormat::w2v_text);
  REQUIRE(loaded.table.rows() == 2);
  CHECK(loaded.table.row(1)[0] == 3.0f);

  // A truncated gzip stream is an error, not a short file.
  const std::string whole = test::read_file(path);
  test::write_file(path, whole.substr(0, whole.size() - 12));
  REQUIRE_ERROR_CONTAINS(load_vectors(path, {}), "gzip");
}

TEST_CASE("word2vec binary: read, write, detect, truncation", "[binary]") {
  TempDir dir;
  const std::string path = dir.file("v.bin");
  EmbeddingTable table;
  table.dim = 3;
  table.add_row("hello", std::vector<float>{1.5f, -2.0f, 0.25f}, 1);
  table.add_row("wörld", std::vector<float>{0.0f, 1e-30f, 3.0f}, 2);
  {
    AtomicOutput out(path);
    write_word2vec_binary(table, out);
    out.commit();
  }
  const auto loaded = load_vectors(path, {});
  CHECK(loaded.format == VectorFormat::w2v_bin);
  REQUIRE(loaded.table.rows() == 2);
  CHECK(loaded.table.word(1) == "wörld");
  CHECK(loaded.table.values == table.values);

  // gensim writes no newline after each vector; both must read.
  std::string gensim_style = "2 3\nhello ";
  gensim_style.append(reinterpret_cast<const char*>(table.row(0).data()), 12);
  gensim_style += "wörld ";
  gensim_style.append(reinterpret_cast<const char*>(table.row(1).data()), 12);
  test::write_file(path, gensim_style);
  CHECK(load_vectors(path, {}).table.values == table.values);

  test::write_file(path, gensim_style.substr(0, gensim_style.size() - 5));
  REQUIRE_ERROR_CONTAINS(load_vectors(path, {}), "row 2 (\"wörld\"): truncated");
  test::write_file(path, "3 3\n" + gensim_style.substr(4));
  REQUIRE_ERROR_CONTAINS(load_vectors(path, {}), "row 3");
}

TEST_CASE("the plain-decimal fast path rounds exactly like fast_float", "[text]") {
  std::mt19937_64 rng(42);
  char text[64];
  int fast = 0;
  for (int i = 0; i < 2'000'000; ++i) {
    const int whole_digits = static_cast<int>(rng() % 8);
    const int decimals = static_cast<int>(rng() % 8);
    std::string number = (rng() % 2) ? "-" : "";
    for (int d = 0; d < whole_digits; ++d) number += static_cast<char>('0' + rng() % 10);
    if (decimals > 0 || whole_digits == 0) number += '.';
    for (int d = 0; d < decimals; ++d) number += static_cast<char>('0' + rng() % 10);
    std::memset(text, ' ', sizeof text);
    std::memcpy(text, number.data(), number.size());
    float ours = 0;
    float reference = 0;
    const char* end = text + number.size();
    const char* stop = parse_plain_decimal(text, end, ours);
    if (stop == nullptr) continue;  // handed to fast_float in real use
    ++fast;
    fast_float::from_chars(text, end, reference);
    REQUIRE(stop == end);
    if (std::bit_cast<std::uint32_t>(ours) != std::bit_cast<std::uint32_t>(reference)) FAIL(number);
  }
  CHECK(fast > 1'000'000);
}
