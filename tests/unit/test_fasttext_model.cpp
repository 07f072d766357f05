// fastText models: the n-grams and hashes (against values the fastText 0.9.2 CLI gave,
// `fasttext print-ngrams` on a model trained with -minn 3 -maxn 6 -bucket 20000: each
// n-gram's row found among the bucket rows), the vectors of small models written here
// byte by byte in each layout (versions 12 and 11, the original one without a version)
// against gensim's load_facebook_vectors' rule, and the messages for models we refuse,
// files cut short and files that are not vectors at all (gensim's pickles).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/atomic_output.h"
#include "core/byte_source.h"
#include "search/vector_space.h"
#include "test_util.h"
#include "text/fasttext_model.h"
#include "text/fasttext_subwords.h"
#include "text/fasttext_writer.h"
#include "text/format_detect.h"
#include "vectors/load.h"
#include "vectors/vector_formats.h"

using namespace embed;

namespace {

std::vector<std::string> ngrams_of(std::string_view word, SubwordSettings settings) {
  std::vector<std::string> out;
  for_each_subword(word, settings, [&](std::string_view g) { out.emplace_back(g); });
  return out;
}

// A fastText model file, field by field (fasttext.cc, args.cc, dictionary.cc). Version 0
// writes the original layout: no magic number or version, no pruneidx_size, no
// quantization flags.
struct ModelSpec {
  std::int32_t version = 12, dim = 2, model = 2, bucket = 3, minn = 3, maxn = 4;
  std::int32_t nlabels = 0;
  std::int64_t pruneidx_size = -1;
  bool quantized = false;
  std::vector<std::pair<std::string, std::int64_t>> words = {{"ab", 5}, {"</s>", 3}, {"é", 2}};
  std::vector<std::string> labels;
};

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Input row r's components are r + 1 and -(r + 1) / 4: exact in f32, so averages are checkable.
std::string model_bytes(const ModelSpec& s) {
  std::string out;
  const bool versioned = s.version != 0;
  if (versioned) {
    put<std::int32_t>(out, kFastTextMagic);
    put<std::int32_t>(out, s.version);
  }
  const std::int32_t args[12] = {s.dim, 5, 1, 1, 5, 1, 2, s.model, s.bucket, s.minn, s.maxn, 100};
  for (std::int32_t a : args) put(out, a);
  put<double>(out, 1e-4);
  const auto nwords = static_cast<std::int32_t>(s.words.size());
  put<std::int32_t>(out, nwords + static_cast<std::int32_t>(s.labels.size()));
  put<std::int32_t>(out, nwords);
  put<std::int32_t>(out, static_cast<std::int32_t>(s.labels.size()));
  put<std::int64_t>(out, 100);
  if (versioned) put<std::int64_t>(out, s.pruneidx_size);
  for (const auto& [word, count] : s.words) {
    out += word;
    out += '\0';
    put<std::int64_t>(out, count);
    put<std::int8_t>(out, 0);
  }
  for (const std::string& label : s.labels) {
    out += label;
    out += '\0';
    put<std::int64_t>(out, 1);
    put<std::int8_t>(out, 1);
  }
  if (versioned) put<std::uint8_t>(out, s.quantized ? 1 : 0);
  const std::int64_t rows = nwords + s.bucket;
  put<std::int64_t>(out, rows);
  put<std::int64_t>(out, s.dim);
  for (std::int64_t r = 0; r < rows; ++r) {
    put<float>(out, static_cast<float>(r + 1));
    put<float>(out, -static_cast<float>(r + 1) / 4);
  }
  if (versioned) put<std::uint8_t>(out, 0);
  put<std::int64_t>(out, nwords);
  put<std::int64_t>(out, s.dim);
  for (std::int64_t i = 0; i < nwords * s.dim; ++i) put<float>(out, 0.5f);
  return out;
}

FastTextModel read_model(const test::TempDir& dir, const std::string& bytes, bool keep_subwords = true) {
  const std::string path = dir.file("model.bin");
  test::write_file(path, bytes);
  InputStream in = InputStream::open(path);
  FastTextReadOptions options;
  options.keep_subwords = keep_subwords;
  return read_fasttext_model(in, options);
}

// A model file is detected as fastText, and given as text it is named for what it is.
void check_detected_as_model(const std::string& path) {
  InputStream in = InputStream::open(path);
  CHECK(detect_format(in) == VectorFormat::fasttext_bin);
  TextReadOptions text;
  InputStream again = InputStream::open(path);
  REQUIRE_ERROR_CONTAINS(read_text_vectors(again, text), "a fastText model (.bin or .ftz), not a text vector file");
}

}  // namespace

TEST_CASE("fastText hash: FNV-1a over signed bytes, as fastText's buckets show", "[fasttext]") {
  CHECK(fasttext_hash("") == 2166136261u);
  // Buckets of fastText's own model for these n-grams (print-ngrams), and the full hashes.
  const std::pair<const char*, std::uint32_t> known[] = {{"<ca", 1066916747u},
                                                         {"caf", 4168369661u},
                                                         {"caf\xC3\xA9", 1970454601u},
                                                         {"caf\xC3\xA9>", 1520761685u},
                                                         {"af\xC3\xA9", 1196960362u},
                                                         {"f\xC3\xA9>", 3937609697u},
                                                         {"<\xE6\x97\xA5\xE6\x9C\xAC", 3018758587u},
                                                         {"<\xE6\x97\xA5\xE6\x9C\xAC>", 3315313759u}};
  const std::uint32_t buckets[] = {16747, 9661, 14601, 1685, 362, 9697, 18587, 13759};
  for (std::size_t i = 0; i < std::size(known); ++i) {
    CHECK(fasttext_hash(known[i].first) == known[i].second);
    CHECK(fasttext_hash(known[i].first) % 20000 == buckets[i]);
  }
  // Bytes >= 0x80 are sign-extended: textbook FNV-1a (unsigned bytes) differs.
  std::uint32_t unsigned_fnv = 2166136261u;
  for (unsigned char c : std::string("caf\xC3\xA9")) unsigned_fnv = (unsigned_fnv ^ c) * 16777619u;
  CHECK(unsigned_fnv != fasttext_hash("caf\xC3\xA9"));
}

TEST_CASE("fastText n-grams: by start, then length, whole characters, no lone < or >", "[fasttext]") {
  const SubwordSettings settings{3, 6, 20000};
  // `fasttext print-ngrams` for café (minn 3, maxn 6), in its order.
  CHECK(ngrams_of("caf\xC3\xA9", settings) == std::vector<std::string>{"<ca", "<caf", "<caf\xC3\xA9", "<caf\xC3\xA9>", "caf",
                                                                       "caf\xC3\xA9", "caf\xC3\xA9>", "af\xC3\xA9", "af\xC3\xA9>",
                                                                       "f\xC3\xA9>"});
  CHECK(ngrams_of("\xE6\x97\xA5\xE6\x9C\xAC", settings) ==
        std::vector<std::string>{"<\xE6\x97\xA5\xE6\x9C\xAC", "<\xE6\x97\xA5\xE6\x9C\xAC>", "\xE6\x97\xA5\xE6\x9C\xAC>"});
  CHECK(subword_buckets("caf\xC3\xA9", settings) ==
        std::vector<std::uint32_t>{16747, 11831, 14639, 17187, 9661, 14601, 1685, 362, 6012, 9697});
  // minn 1: single characters, but never "<" or ">" alone.
  CHECK(ngrams_of("a", {1, 2, 10}) == std::vector<std::string>{"<a", "a", "a>"});
  CHECK(ngrams_of("</s>", settings).empty());
  CHECK(ngrams_of("ab", {3, 0, 10}).empty());
  CHECK(subword_buckets("ab", {3, 6, 0}).empty());
}

TEST_CASE("fastText model: words as print-word-vectors computes them, counts, subwords", "[fasttext]") {
  test::TempDir dir;
  const FastTextModel model = read_model(dir, model_bytes({}));
  const EmbeddingTable& t = model.table;
  REQUIRE(t.rows() == 3);
  CHECK(t.word(0) == "ab");
  CHECK(t.counts == std::vector<std::int64_t>{5, 3, 2});
  const SubwordSettings settings{3, 4, 3};
  auto expected = [&](std::size_t row, std::string_view word) {
    std::vector<float> sum = {static_cast<float>(row + 1), -static_cast<float>(row + 1) / 4};
    const auto buckets = subword_buckets(word, settings);
    for (std::uint32_t b : buckets) {
      sum[0] += static_cast<float>(3 + b + 1);
      sum[1] += -static_cast<float>(3 + b + 1) / 4;
    }
    fasttext_average(sum, buckets.size() + 1);
    return sum;
  };
  CHECK(subword_buckets("ab", settings).size() == 3);  // <ab, <ab>, ab>
  for (std::size_t r = 0; r < 3; ++r) {
    const auto want = expected(r, t.word(r));
    CHECK(t.row(r)[0] == want[0]);
    CHECK(t.row(r)[1] == want[1]);
  }
  CHECK(t.row(1)[0] == 2.0f);  // </s>: its own row alone
  REQUIRE(model.subwords);
  std::vector<float> oov(2);
  CHECK(model.subwords->oov_vector("xyz", oov) == 5);  // <xy, <xyz, xyz, xyz>, yz>
  std::vector<float> sum(2, 0.0f);
  for (std::uint32_t b : subword_buckets("xyz", settings)) {
    sum[0] += static_cast<float>(3 + b + 1);
    sum[1] += -static_cast<float>(3 + b + 1) / 4;
  }
  fasttext_average(sum, 5);
  CHECK(oov == sum);
  CHECK(model.subwords->oov_vector("</s>", oov) == 0);
  CHECK(oov == std::vector<float>{0.0f, 0.0f});
  CHECK_FALSE(read_model(dir, model_bytes({}), false).subwords);
}

TEST_CASE("fastText model: detected, and read through load_vectors and VectorSpace", "[fasttext]") {
  test::TempDir dir;
  const std::string path = dir.file("m.bin");
  test::write_file(path, model_bytes({}));
  check_detected_as_model(path);
  CHECK(parse_format_name("fasttext-bin") == VectorFormat::fasttext_bin);
  LoadOptions options;
  options.limit = 2;
  const LoadedVectors loaded = load_vectors(path, options);
  CHECK(loaded.table.rows() == 2);
  CHECK_FALSE(loaded.subwords);
  const VectorSpace space = VectorSpace::open(path, {}, 1);
  REQUIRE(space.subwords() != nullptr);
  CHECK(space.subwords()->settings().buckets == 3);
}

TEST_CASE("fastText model: refused kinds and broken files say what they are", "[fasttext]") {
  test::TempDir dir;
  ModelSpec supervised;
  supervised.model = 3;
  supervised.labels = {"__label__yes", "__label__no"};
  REQUIRE_ERROR_CONTAINS(read_model(dir, model_bytes(supervised)),
                         "a supervised fastText model (labels such as \"__label__yes\", 2 labels)");
  ModelSpec quantized;
  quantized.quantized = true;
  REQUIRE_ERROR_CONTAINS(read_model(dir, model_bytes(quantized)), "model.bin: a quantized fastText model (.ftz)");
  quantized.model = 3;
  REQUIRE_ERROR_CONTAINS(read_model(dir, model_bytes(quantized)), "a quantized fastText model (.ftz), and a supervised one");
  ModelSpec other;
  other.version = 13;
  REQUIRE_ERROR_CONTAINS(read_model(dir, model_bytes(other)),
                         "model.bin: a fastText model of format version 13; this reader knows versions 11 and 12");
  other.version = 10;
  REQUIRE_ERROR_CONTAINS(read_model(dir, model_bytes(other)), "a fastText model of format version 10");
  ModelSpec pruned;
  pruned.pruneidx_size = 0;
  REQUIRE_ERROR_CONTAINS(read_model(dir, model_bytes(pruned)), "the dictionary is pruned");
  ModelSpec no_buckets;
  no_buckets.bucket = 0;
  REQUIRE_ERROR_CONTAINS(read_model(dir, model_bytes(no_buckets)), "no buckets for them (bucket 0)");

  const std::string good = model_bytes({});
  const std::pair<std::size_t, const char*> cuts[] = {{6, "the format version"},
                                                      {20, "the setting minCount"},
                                                      {66, "the dictionary's size"},
                                                      {100, "dictionary entry 1 of 3"},
                                                      {130, "the quantized-input flag"},
                                                      {142, "the input matrix's column count"},
                                                      {150, "the input row of word 1 (\"ab\")"},
                                                      {180, "the input rows of n-gram buckets 0 to 2"},
                                                      {good.size() - 1, "the output matrix"}};
  for (const auto& [size, what] : cuts) {
    INFO(size);
    REQUIRE_ERROR_CONTAINS(read_model(dir, good.substr(0, size)),
                           fmt::format("model.bin: truncated fastText model: the file ends at byte {}, inside {}", size, what));
  }
  std::string bad_type = good;
  bad_type[bad_type.find("ab") + 2 + 1 + 8] = 7;
  REQUIRE_ERROR_CONTAINS(read_model(dir, bad_type), "dictionary entry 1 of 3 (\"ab\") has type 7, expected 0 (word)");
  std::string bad_word = good;
  bad_word.replace(bad_word.find("ab"), 2, "\xFF\x01");
  REQUIRE_ERROR_CONTAINS(read_model(dir, bad_word), "entry 1: the word \"\\xFF\\x01\" is not valid UTF-8");
}

namespace {

// gensim's load_facebook_vectors (FastTextKeyedVectors.adjust_vectors): input row `row`
// plus the bucket rows of the word's n-grams (ft_ngram_hashes, which gives "</s>" its
// n-grams too), in order, divided by their number in f32. Rows as model_bytes writes them.
std::vector<float> gensim_vector(std::int64_t row, std::string_view word, std::int64_t nwords, SubwordSettings settings) {
  std::vector<float> v = {static_cast<float>(row + 1), -static_cast<float>(row + 1) / 4};
  const auto buckets = subword_buckets(word, settings, EosNgrams::computed);
  for (std::uint32_t b : buckets) {
    v[0] += static_cast<float>(nwords + b + 1);
    v[1] += -static_cast<float>(nwords + b + 1) / 4;
  }
  for (float& x : v) x /= static_cast<float>(buckets.size() + 1);
  return v;
}

// Equal to gensim's up to its division against our multiplication by 1/n (fastText's rule).
void check_row(const EmbeddingTable& t, std::size_t r, const std::vector<float>& want) {
  INFO(t.word(r));
  CHECK(t.row(r)[0] == Approx(want[0]).epsilon(1e-6));
  CHECK(t.row(r)[1] == Approx(want[1]).epsilon(1e-6));
}

}  // namespace

TEST_CASE("fastText model: version 11 and the original layout give gensim's vectors", "[fasttext]") {
  test::TempDir dir;
  const SubwordSettings settings{3, 4, 3};
  // Models before version 12 were trained with n-grams for "</s>", and gensim computes them.
  std::vector<std::string> eos_ngrams;
  for_each_subword(
      "</s>", settings, [&](std::string_view g) { eos_ngrams.emplace_back(g); }, EosNgrams::computed);
  CHECK(eos_ngrams == std::vector<std::string>{"<</", "<</s", "</s", "</s>", "/s>", "/s>>", "s>>"});
  for (const std::int32_t version : {11, 0}) {
    INFO("version " << version);
    ModelSpec spec;
    spec.version = version;
    const std::string bytes = model_bytes(spec);
    const FastTextModel model = read_model(dir, bytes);
    const EmbeddingTable& t = model.table;
    REQUIRE(t.rows() == 3);
    CHECK(t.word(0) == "ab");
    CHECK(t.word(1) == "</s>");
    CHECK(t.word(2) == "\xC3\xA9");
    CHECK(t.counts == std::vector<std::int64_t>{5, 3, 2});
    for (std::size_t r = 0; r < 3; ++r) check_row(t, r, gensim_vector(static_cast<std::int64_t>(r), t.word(r), 3, settings));
    CHECK(t.row(1)[0] != 2.0f);  // not "</s>"'s own row alone, as in version 12
    REQUIRE(model.subwords);
    std::vector<float> oov(2);
    CHECK(model.subwords->oov_vector("xyz", oov) == 5);

    // Detected as fastText from its first bytes, without a magic number too.
    const std::string path = dir.file("m.bin");
    test::write_file(path, bytes);
    check_detected_as_model(path);
    CHECK(load_vectors(path, {}).table.rows() == 3);
  }
}

TEST_CASE("fastText model: the original layout's fields, and files that are not models", "[fasttext]") {
  test::TempDir dir;
  ModelSpec spec;
  spec.version = 0;
  const std::string good = model_bytes(spec);
  CHECK(is_fasttext_model(good.substr(0, kFastTextHeadBytes)));
  CHECK(is_fasttext_model(good.substr(0, 30)));  // a file cut short is still named (and reported truncated)
  CHECK_FALSE(is_fasttext_model(good.substr(0, 7)));
  std::string bad_sizes = good;
  bad_sizes[60] = 9;  // nwords 9 of 3 entries
  CHECK_FALSE(is_fasttext_model(bad_sizes.substr(0, kFastTextHeadBytes)));
  CHECK_FALSE(is_fasttext_model("hello 0.1 0.2 0.3\nworld 0.4 0.5 0.6\nagain 0.7 0.8 0.9\nmore 1 2 3\n"));
  // Offsets: args 0..55, dictionary sizes 56..75, entries 76..113, then the input matrix's
  // header with no quantization flag before it.
  const std::pair<std::size_t, const char*> cuts[] = {{10, "the setting epoch"},
                                                      {62, "the dictionary's word count"},
                                                      {78, "dictionary entry 1 of 3"},
                                                      {120, "the input matrix's row count"},
                                                      {126, "the input matrix's column count"},
                                                      {good.size() - 1, "the output matrix"}};
  for (const auto& [size, what] : cuts) {
    INFO(size);
    REQUIRE_ERROR_CONTAINS(read_model(dir, good.substr(0, size)),
                           fmt::format("model.bin: truncated fastText model: the file ends at byte {}, inside {}", size, what));
  }
  REQUIRE_ERROR_CONTAINS(read_model(dir, "hello 0.1 0.2\nworld 0.3 0.4\n"),
                         "model.bin: not a fastText model: it starts with 1819043176, expected the magic number 793712314 or");
}

TEST_CASE("fastText model: an entry with an empty word is skipped, the others read", "[fasttext]") {
  test::TempDir dir;
  ModelSpec spec;
  spec.words = {{"ab", 5}, {"", 4}, {"</s>", 3}, {"\xC3\xA9", 2}};
  const FastTextModel model = read_model(dir, model_bytes(spec));
  const EmbeddingTable& t = model.table;
  // gensim keeps "" as a key (row 1); a row here needs a name, so the others shift up.
  REQUIRE(t.rows() == 3);
  CHECK(t.word(0) == "ab");
  CHECK(t.word(1) == "</s>");
  CHECK(t.word(2) == "\xC3\xA9");
  CHECK(t.counts == std::vector<std::int64_t>{5, 3, 2});
  const SubwordSettings settings{3, 4, 3};
  check_row(t, 0, gensim_vector(0, "ab", 4, settings));
  CHECK(t.row(1)[0] == 3.0f);  // version 12: "</s>" is its own row (input row 2), as fastText gives it
  CHECK(t.row(1)[1] == -0.75f);
  check_row(t, 2, gensim_vector(3, "\xC3\xA9", 4, settings));
  // --limit counts the words kept.
  const std::string path = dir.file("m.bin");
  test::write_file(path, model_bytes(spec));
  LoadOptions options;
  options.limit = 2;
  const LoadedVectors loaded = load_vectors(path, options);
  REQUIRE(loaded.table.rows() == 2);
  CHECK(loaded.table.word(1) == "</s>");
}

TEST_CASE("gensim's pickles (.kv, .model) are named, not read as text", "[fasttext]") {
  test::TempDir dir;
  const std::string path = dir.file("vectors.kv");
  // KeyedVectors.save: pickle protocol 4 (PROTO 4, FRAME ...), as gensim 4 writes it.
  static constexpr char kProtocol4[] = "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\x8c\x1agensim.models.keyedvectors";
  test::write_file(path, std::string(kProtocol4, sizeof kProtocol4 - 1));
  InputStream in = InputStream::open(path);
  REQUIRE_ERROR_CONTAINS(detect_format(in), "vectors.kv: looks like a pickled gensim KeyedVectors file");
  REQUIRE_ERROR_CONTAINS(load_vectors(path, {}), "model.wv.save_word2vec_format(");
  InputStream again = InputStream::open(path);
  REQUIRE_ERROR_CONTAINS(read_text_vectors(again, {}),
                         "vectors.kv: looks like a pickled gensim KeyedVectors file (.kv or .model: "
                         "a Python pickle, protocol 4)");
  // Protocol 2 (gensim 3): PROTO 2, then a GLOBAL opcode.
  test::write_file(path, std::string("\x80\x02"
                                     "cgensim.models.keyedvectors\nWord2VecKeyedVectors\n"));
  InputStream old = InputStream::open(path);
  REQUIRE_ERROR_CONTAINS(detect_format(old), "a Python pickle, protocol 2");
  // A safetensors header of 640 bytes starts with the same two bytes, and stays emb.
  std::string safetensors("\x80\x02\x00\x00\x00\x00\x00\x00{", 9);
  safetensors.append(639, ' ');
  test::write_file(path, safetensors);
  InputStream emb = InputStream::open(path);
  CHECK(detect_format(emb) == VectorFormat::emb);
}

namespace {

// Writes `table` (with `subwords`) as a fastText model into `dir` and reads it back.
FastTextModel write_and_read(const test::TempDir& dir, const EmbeddingTable& table, const SubwordTable* subwords) {
  const std::string path = dir.file("written.bin");
  AtomicOutput out(path);
  write_fasttext_model(table, subwords, {}, FastTextWriteArgs{}, out, path);
  out.commit();
  InputStream in = InputStream::open(path);
  CHECK(detect_format(in) == VectorFormat::fasttext_bin);
  FastTextReadOptions options;
  options.keep_subwords = true;
  return read_fasttext_model(in, options);
}

// Bucket rows of `settings` at `dim`, each value a different small number.
SubwordTable test_buckets(const SubwordSettings& settings, std::size_t dim) {
  FloatBuffer buckets(settings.buckets * dim);
  for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i] = 0.01f * static_cast<float>(i % 97) - 0.4f;
  return SubwordTable(settings, dim, std::move(buckets));
}

EmbeddingTable small_table(std::size_t dim) {
  EmbeddingTable table;
  table.dim = dim;
  const char* words[] = {"the", "of", "anarchism", "café", "日本"};
  for (std::size_t r = 0; r < 5; ++r) {
    std::vector<float> row(dim);
    for (std::size_t k = 0; k < dim; ++k) row[k] = 0.1f * static_cast<float>(r + 1) - 0.03f * static_cast<float>(k);
    table.add_row(words[r], row, r + 1);
    table.counts.push_back(static_cast<std::int64_t>(100 - r));
  }
  return table;
}

}  // namespace

TEST_CASE("a fastText model written from vectors and n-gram buckets reads back as the same vectors", "[fasttext]") {
  test::TempDir dir;
  const std::size_t dim = 7;
  const EmbeddingTable table = small_table(dim);
  const SubwordTable subwords = test_buckets({3, 5, 50}, dim);
  const FastTextModel model = write_and_read(dir, table, &subwords);
  REQUIRE(model.table.rows() == 5);
  CHECK(model.table.counts == table.counts);
  REQUIRE(model.subwords);
  CHECK(model.subwords->settings().minn == 3);
  CHECK(model.subwords->settings().maxn == 5);
  CHECK(model.subwords->settings().buckets == 50);
  double worst = 0;
  for (std::size_t r = 0; r < 5; ++r) {
    CHECK(model.table.word(r) == table.word(r));
    for (std::size_t k = 0; k < dim; ++k) worst = std::max(worst, double(std::abs(model.table.row(r)[k] - table.row(r)[k])));
  }
  // Each word's own row is rebuilt from its vector; fastText's average gives it back to
  // float rounding (its sum of 10-odd rows of about 0.5).
  CHECK(worst < 1e-6);
  std::vector<float> mine(dim), read(dim);
  CHECK(subwords.oov_vector("anarchy", mine) == model.subwords->oov_vector("anarchy", read));
  CHECK(mine == read);

  // Without n-grams: each word's row is its vector, bit for bit.
  const FastTextModel plain = write_and_read(dir, table, nullptr);
  CHECK_FALSE(plain.subwords);
  CHECK(std::equal(plain.table.values.begin(), plain.table.values.end(), table.values.begin()));
}

TEST_CASE("a fastText model's own rows and output matrix read back for --init", "[fasttext]") {
  test::TempDir dir;
  const std::size_t dim = 6;
  const EmbeddingTable table = small_table(dim);
  const SubwordSettings settings{3, 4, 40};
  const SubwordTable subwords = test_buckets(settings, dim);
  std::vector<float> output(table.rows() * dim);
  for (std::size_t i = 0; i < output.size(); ++i) output[i] = 0.5f - 0.01f * static_cast<float>(i);
  const std::string path = dir.file("rows.bin");
  AtomicOutput out(path);
  write_fasttext_model(table, &subwords, output, FastTextWriteArgs{}, out, path);
  out.commit();
  // The last two words only (--init reads what the vocabulary keeps): rows follow the table.
  const WordSet keep{"café", "日本"};
  FastTextReadOptions options;
  options.keep_subwords = true;
  options.keep_rows = true;
  options.keep = &keep;
  InputStream in = InputStream::open(path);
  const FastTextModel model = read_fasttext_model(in, options);
  REQUIRE(model.table.rows() == 2);
  REQUIRE(model.own_rows.size() == 2 * dim);
  REQUIRE(model.output_rows.size() == 2 * dim);
  for (std::size_t r = 0; r < 2; ++r) {
    // Output rows as written; own rows averaging with the n-grams' to the vector.
    CHECK(std::equal(output.begin() + (3 + r) * dim, output.begin() + (4 + r) * dim, model.output_rows.begin() + r * dim));
    const std::vector<std::uint32_t> grams = subword_buckets(model.table.word(r), settings);
    std::vector<float> sum(model.own_rows.begin() + r * dim, model.own_rows.begin() + (r + 1) * dim);
    model.subwords->add_rows(grams, sum);
    for (std::size_t k = 0; k < dim; ++k) {
      CHECK(sum[k] / static_cast<float>(grams.size() + 1) == Approx(table.row(3 + r)[k]).margin(1e-6));
    }
  }
  // Without keep_rows neither is read (the output matrix is skipped).
  InputStream again = InputStream::open(path);
  const FastTextModel plain = read_fasttext_model(again, {});
  CHECK(plain.own_rows.empty());
  CHECK(plain.output_rows.empty());
}

TEST_CASE("what a fastText model cannot hold is refused", "[fasttext]") {
  test::TempDir dir;
  EmbeddingTable spaced = small_table(4);
  spaced.word_bytes[0] = ' ';  // "the" -> " he"
  AtomicOutput out(dir.file("x.bin"));
  REQUIRE_ERROR_CONTAINS(write_fasttext_model(spaced, nullptr, {}, FastTextWriteArgs{}, out, "x.bin"),
                         "row 1: \" he\" cannot be a fastText word");
  EmbeddingTable uncounted = small_table(4);
  uncounted.counts[2] = 0;
  REQUIRE_ERROR_CONTAINS(write_fasttext_model(uncounted, nullptr, {}, FastTextWriteArgs{}, out, "x.bin"),
                         "row 3: \"anarchism\" has count 0");
}
