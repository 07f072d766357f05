#include <filesystem>

#include <catch2/catch.hpp>

#include "text/projector_writer.h"
#include "test_util.h"

using namespace embed;
namespace fs = std::filesystem;

TEST_CASE("projector labels escape what the projector's parser would split on", "[projector]") {
  CHECK(projector_label("king") == "king");
  CHECK(projector_label("new york") == "new york");  // spaces are data, not separators
  CHECK(projector_label("café") == "café");
  CHECK(projector_label("a\tb") == "a\\tb");
  CHECK(projector_label("a\nb") == "a\\nb");
  CHECK(projector_label("a\rb") == "a\\rb");
  CHECK(projector_label("a\\b") == "a\\\\b");
  // A backslash before a letter stays distinguishable from an escape: "\t" (two characters) is not a tab.
  CHECK(projector_label("\\t") == "\\\\t");
  CHECK(projector_label("\\\t") == "\\\\\\t");
  // Lines blank once trimmed are skipped by the projector: such words are written as \uXXXX.
  CHECK(projector_label(" ") == "\\u0020");
  CHECK(projector_label("\t\n") == "\\u0009\\u000A");
  CHECK(projector_label("\xE3\x80\x80") == "\\u3000");        // U+3000 IDEOGRAPHIC SPACE
  CHECK(projector_label("\xC2\xA0 ") == "\\u00A0\\u0020");   // NO-BREAK SPACE, space
  CHECK(projector_label(" x ") == " x ");                     // not blank: kept as it is
}

TEST_CASE("the tensor name is the input's file name without its extensions", "[projector]") {
  CHECK(projector_tensor_name("data/glove.6B.100d.txt") == "glove.6B.100d");
  CHECK(projector_tensor_name("/x/wiki.en.vec.gz") == "wiki.en");
  CHECK(projector_tensor_name("model.emb") == "model");
  CHECK(projector_tensor_name("vectors") == "vectors");
  CHECK(projector_tensor_name("-") == "stdin");
}

TEST_CASE("the projector files are written whole, with a header only beside counts", "[projector]") {
  test::TempDir dir;
  const std::string out_dir = dir.file("proj");
  EmbeddingTable table;
  table.dim = 2;
  const float first[] = {0.1f, -2.0f}, second[] = {1e-7f, 3.0f};
  table.add_row("a\tb", first, 1);
  table.add_row("c", second, 2);
  {
    ProjectorOutput out(out_dir);
    CHECK(fs::is_directory(out_dir));
    out.write(table, "my \"vectors\"", 1);
    CHECK_FALSE(fs::exists(out_dir + "/vectors.tsv"));  // not before commit
    out.commit();
  }
  CHECK(test::read_file(out_dir + "/vectors.tsv") == "0.1\t-2\n1e-07\t3\n");
  CHECK(test::read_file(out_dir + "/metadata.tsv") == "a\\tb\nc\n");
  CHECK(test::read_file(out_dir + "/projector_config.pbtxt") ==
        "embeddings {\n  tensor_name: \"my \\\"vectors\\\"\"\n  tensor_path: \"vectors.tsv\"\n"
        "  metadata_path: \"metadata.tsv\"\n  tensor_shape: 2\n  tensor_shape: 2\n}\n");
  table.counts = {7, 5};
  {
    ProjectorOutput out(out_dir);  // an existing directory: the files are replaced
    out.write(table, "t", 1);
    out.commit();
  }
  CHECK(test::read_file(out_dir + "/metadata.tsv") == "word\tcount\na\\tb\t7\nc\t5\n");
  CHECK(std::distance(fs::directory_iterator(out_dir), fs::directory_iterator()) == 3);
}

TEST_CASE("an uncommitted projector output leaves no directory it made", "[projector]") {
  test::TempDir dir;
  const std::string out_dir = dir.file("proj");
  {
    ProjectorOutput out(out_dir);
  }
  CHECK_FALSE(fs::exists(out_dir));
  test::write_file(dir.file("plain"), "x");
  REQUIRE_ERROR_CONTAINS(ProjectorOutput(dir.file("plain")), "plain: exists and is not a directory");
  EmbeddingTable narrow;
  narrow.dim = 1;
  const float value[] = {1.0f};
  narrow.add_row("a", value, 1);
  ProjectorOutput out(out_dir);
  REQUIRE_ERROR_CONTAINS(out.write(narrow, "t", 1), "the projector needs vectors of 2 or more dimensions; these have 1");
}
