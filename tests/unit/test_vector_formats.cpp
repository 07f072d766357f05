// The vector-format registry (lib/vectors/vector_formats.h): one entry per format, its
// spellings unambiguous, what it says it can do backed by a reader or writer, and the
// detection its entries' hooks make up.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "core/atomic_output.h"
#include "core/byte_source.h"
#include "format/emb_writer.h"
#include "test_util.h"
#include "text/fasttext_model.h"
#include "text/word2vec_binary.h"
#include "vectors/vector_formats.h"

using namespace embed;

namespace {

// A float whose bytes are "1", a newline and the top of 1.0f: raw bytes that look like
// the end of a text row of one number.
float float_with_newline() {
  const unsigned char bytes[4] = {'1', 0x0A, 0x80, 0x3F};
  float value = 0;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

EmbeddingTable small_table() {
  EmbeddingTable table;
  table.dim = 4;
  table.add_row("hello", std::vector<float>{float_with_newline(), -2.0f, 0.25f, 3.0f}, 2);
  table.add_row("world", std::vector<float>{0.5f, float_with_newline(), 1e-30f, -1.0f}, 1);
  return table;
}

// What detect_format says of a file holding `bytes`.
VectorFormat detected(const test::TempDir& dir, const std::string& bytes) {
  const std::string path = dir.file("sample");
  test::write_file(path, bytes);
  InputStream in = InputStream::open(path);
  return detect_format(in);
}

// A small input of each format that has a detect hook, written by its own writer where
// there is one.
std::map<VectorFormat, std::string> detection_samples(const test::TempDir& dir) {
  std::map<VectorFormat, std::string> samples;
  EmbeddingTable table = small_table();
  {
    AtomicOutput out(dir.file("v.emb"));
    write_emb(table, EmbWriteOptions{}, out);
    out.commit();
  }
  samples[VectorFormat::emb] = test::read_file(dir.file("v.emb"));
  {
    AtomicOutput out(dir.file("v.bin"));
    write_word2vec_binary(table, out);
    out.commit();
  }
  samples[VectorFormat::w2v_bin] = test::read_file(dir.file("v.bin"));
  samples[VectorFormat::w2v_text] = "2 4\nhello 1.5 -2 0.25 3\nworld 0.5 1 1e-30 -1\n";
  // A fastText model's magic number and format version, then its settings (dim 4, ws 5, ...).
  const std::int32_t model[] = {kFastTextMagic, kFastTextVersion, 4, 5, 5, 1, 5, 1, 2, 2, 2000000, 3, 6, 100};
  samples[VectorFormat::fasttext_bin].assign(reinterpret_cast<const char*>(model), sizeof model);
  return samples;
}

}  // namespace

TEST_CASE("every format has one registry entry, and every spelling names one format", "[formats]") {
  std::set<std::string> spellings;
  for (const VectorFormatSpec& spec : vector_formats()) {
    CHECK(&format_spec(spec.format) == &spec);
    CHECK(parse_format_name(spec.name) == spec.format);
    CHECK(spellings.insert(std::string(spec.name)).second);
    for (std::string_view alias : spec.aliases) {
      CHECK(parse_format_name(alias) == spec.format);
      CHECK(spellings.insert(std::string(alias)).second);
    }
    for (std::string_view extension : spec.extensions) CHECK(format_from_extension("x" + std::string(extension)) == spec.format);
    CHECK(!spec.description.empty());
  }
  for (VectorFormat f : {VectorFormat::glove, VectorFormat::w2v_text, VectorFormat::w2v_bin, VectorFormat::emb,
                         VectorFormat::fasttext_bin, VectorFormat::projector}) {
    CHECK(format_spec(f).format == f);
  }
  CHECK_FALSE(parse_format_name("npy"));
  CHECK_FALSE(format_from_extension("x.npy"));
}

TEST_CASE("the formats offered for reading have a reader, those for writing a way to be written", "[formats]") {
  for (const std::string& name : format_spellings(FormatUse::read)) CHECK(format_spec(*parse_format_name(name)).read);
  for (const std::string& name : format_spellings(FormatUse::write)) {
    const VectorFormatSpec& spec = format_spec(*parse_format_name(name));
    // emb, fasttext-bin and projector are written by convert itself (their outputs hold
    // more than rows).
    CHECK((spec.write || spec.format == VectorFormat::emb || spec.format == VectorFormat::fasttext_bin ||
           spec.format == VectorFormat::projector));
  }
  const auto readable = format_spellings(FormatUse::read), writable = format_spellings(FormatUse::write);
  CHECK(std::find(readable.begin(), readable.end(), "projector") == readable.end());
  CHECK(std::find(writable.begin(), writable.end(), "fasttext-bin") != writable.end());
}

TEST_CASE("the help lists every alias and output extension", "[formats]") {
  const std::string aliases = format_aliases_help();
  CHECK(aliases.starts_with("; also "));
  for (const char* alias : {"word2vec", "vec", "fasttext", "word2vec-bin", "bin", "txt", "safetensors"}) {
    CHECK(aliases.find(alias) != std::string::npos);
  }
  CHECK(format_extensions_help() == ".emb/.txt/.vec/.bin, a trailing / for projector");
}

TEST_CASE("each format's detect hook claims a sample of its own, and no other hook of its stage does", "[formats][detect]") {
  test::TempDir dir;
  const auto samples = detection_samples(dir);
  std::size_t hooks = 0;
  for (const VectorFormatSpec& spec : vector_formats()) {
    INFO(spec.name);
    if (!spec.read) CHECK(spec.detect == nullptr);  // a format only written is never an input
    if (!spec.detect) continue;
    ++hooks;
    const auto sample = samples.find(spec.format);
    REQUIRE(sample != samples.end());  // a format with a hook needs a sample above
    CHECK(spec.detect(sample->second));
    for (const VectorFormatSpec& other : vector_formats()) {
      if (&other == &spec || !other.detect || other.detect_stage != spec.detect_stage) continue;
      INFO("also asked: " << other.name);
      CHECK_FALSE(other.detect(sample->second));
    }
    CHECK(detected(dir, sample->second) == spec.format);
  }
  CHECK(hooks == samples.size());
  // GloVe text is what no hook claims.
  CHECK(format_spec(VectorFormat::glove).detect == nullptr);
  CHECK(detected(dir, "hello 1.5 -2 0.25 3\nworld 0.5 1 1e-30 -1\n") == VectorFormat::glove);
}

TEST_CASE("detect_format: the registry's hooks give what the one hand-written chain gave", "[formats][detect]") {
  test::TempDir dir;
  const auto samples = detection_samples(dir);
  const std::string& bin = samples.at(VectorFormat::w2v_bin);
  // The binary rows' first 0x0A byte comes after "1": one number-like field, fewer than
  // half of the header's 4, so still binary.
  REQUIRE(bin.find("hello 1\n") != std::string::npos);
  CHECK(detected(dir, bin) == VectorFormat::w2v_bin);
  // gensim's binary rows, with no newline after each.
  const EmbeddingTable table = small_table();
  std::string gensim = "2 4\nhello ";
  gensim.append(reinterpret_cast<const char*>(table.row(0).data()), 16);
  gensim += "world ";
  gensim.append(reinterpret_cast<const char*>(table.row(1).data()), 16);
  CHECK(detected(dir, gensim) == VectorFormat::w2v_bin);

  // Text after a UTF-8 byte-order mark; a text row of the wrong length is still text (its
  // error then says so); a first row cut short, or longer than the detection reads.
  CHECK(detected(dir, "\xEF\xBB\xBF" + samples.at(VectorFormat::w2v_text)) == VectorFormat::w2v_text);
  CHECK(detected(dir, "2 4\nhello 1.5 -2\n") == VectorFormat::w2v_text);
  CHECK(detected(dir, "1 3\nhello") == VectorFormat::w2v_text);
  std::string long_row = "1 20000\nword";
  for (int i = 0; i < 20000; ++i) long_row += " 0.5";
  CHECK(detected(dir, long_row) == VectorFormat::w2v_text);
  long_row[100] = '\x01';
  CHECK(detected(dir, long_row) == VectorFormat::w2v_bin);

  // What no hook claims is GloVe text: no header, a header of three fields, one line.
  CHECK(detected(dir, "\xEF\xBB\xBFhello 1 2\n") == VectorFormat::glove);
  CHECK(detected(dir, "2 3 4\nhello 1 2 3\n") == VectorFormat::glove);
  CHECK(detected(dir, "2 3") == VectorFormat::glove);
  CHECK(detected(dir, "") == VectorFormat::glove);

  // A pickle is refused after the signatures (a safetensors header of 640 bytes starts with
  // the same two bytes, and is emb) and before the text formats.
  std::string safetensors("\x80\x02\x00\x00\x00\x00\x00\x00{", 9);
  safetensors.append(639, ' ');
  CHECK(detected(dir, safetensors) == VectorFormat::emb);
  REQUIRE_ERROR_CONTAINS(detected(dir, std::string("\x80\x03"
                                                   "2 3\nhello 1 2 3\n")),
                         "sample: looks like a pickled gensim KeyedVectors file (.kv or .model: a Python pickle, protocol 3)");
}
