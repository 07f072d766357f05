// The vector-format registry (lib/vectors/vector_formats.h): one entry per format, its
// spellings unambiguous, and what it says it can do backed by a reader or writer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "vectors/vector_formats.h"

using namespace embed;

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
    // emb and projector are written by convert itself (their outputs hold more than rows).
    CHECK((spec.write || spec.format == VectorFormat::emb || spec.format == VectorFormat::projector));
  }
  const auto readable = format_spellings(FormatUse::read), writable = format_spellings(FormatUse::write);
  CHECK(std::find(readable.begin(), readable.end(), "projector") == readable.end());
  CHECK(std::find(writable.begin(), writable.end(), "fasttext-bin") == writable.end());
}

TEST_CASE("the help lists every alias and output extension", "[formats]") {
  const std::string aliases = format_aliases_help();
  CHECK(aliases.starts_with("; also "));
  for (const char* alias : {"word2vec", "vec", "fasttext", "word2vec-bin", "bin", "txt", "safetensors"}) {
    CHECK(aliases.find(alias) != std::string::npos);
  }
  CHECK(format_extensions_help() == ".emb/.txt/.vec/.bin, a trailing / for projector");
}
