// Compressed .emb files (format version 2): int8 and pq rows written, read back, decoded,
// searched, and refused when damaged or from a newer writer.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/atomic_output.h"
#include "format/emb_file.h"
#include "format/emb_writer.h"
#include "format/quantized_rows.h"
#include "quant/int8_rows.h"
#include "search/compressed_scan.h"
#include "search/exact_search.h"
#include "search/vector_space.h"
#include "test_util.h"

using namespace embed;
using embed::test::TempDir;

namespace {

// Gaussian rows around a few directions (so that neighbours mean something), one row of zeros.
EmbeddingTable clustered_table(std::size_t rows, std::size_t dim, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::vector<float>> centres(8, std::vector<float>(dim));
  for (auto& c : centres) {
    for (float& x : c) x = normal(gen);
  }
  EmbeddingTable table;
  table.dim = dim;
  std::vector<float> v(dim);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < dim; ++i) v[i] = r == 5 ? 0.0f : centres[r % 8][i] + 0.6f * normal(gen) * (1.0f + static_cast<float>(r % 3));
    table.add_row("w" + std::to_string(r), v, r + 1);
  }
  return table;
}

void write_compressed(EmbeddingTable table, const std::string& path, QuantizeSpec spec) {
  const QuantizedRows rows = QuantizedRows::encode(table.values, table.dim, spec);
  EmbWriteOptions options;
  options.source = "unit test";
  options.creator = "test";
  rows.add_to_emb(options);
  AtomicOutput out(path);
  write_emb(table, options, out);
  out.commit();
}

QuantizeSpec int8_spec() {
  QuantizeSpec spec;
  spec.storage = RowStorage::int8;
  return spec;
}

QuantizeSpec pq_spec(std::size_t m, unsigned threads = 1, std::uint64_t seed = 1, bool opq = false) {
  QuantizeSpec spec;
  spec.opq = opq;
  spec.opq_training.rounds = 3;
  spec.storage = RowStorage::pq;
  spec.pq.m = m;
  spec.pq.iterations = 6;
  spec.pq.seed = seed;
  spec.threads = threads;
  return spec;
}

double norm_of(const std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += double{x} * x;
  return std::sqrt(sum);
}

// Rewrites one __metadata__ value of the file in place (same length, so offsets hold).
void patch(const std::string& path, const std::string& from, const std::string& to) {
  REQUIRE(from.size() == to.size());
  std::string bytes = test::read_file(path);
  const auto at = bytes.find(from);
  REQUIRE(at != std::string::npos);
  bytes.replace(at, from.size(), to);
  test::write_file(path, bytes);
}

}  // namespace

TEST_CASE("int8 rows: written as version 2, decoded within a step (half for rounding, the rest the norm), with the exact norms", "[quant][emb]") {
  TempDir dir;
  const EmbeddingTable table = clustered_table(300, 37, 1);
  write_compressed(table, dir.file("i8.emb"), int8_spec());
  const EmbFile file = EmbFile::open(dir.file("i8.emb"));
  file.verify();
  CHECK(file.storage() == RowStorage::int8);
  CHECK(file.dtype() == DType::i8);
  CHECK(file.metadata().at("format_version") == "2");
  CHECK(file.rows() == 300);
  CHECK(file.dim() == 37);
  CHECK(file.row_bytes() == 37);
  CHECK(file.word(7) == "w7");
  std::vector<float> decoded(37);
  for (std::uint64_t r = 0; r < file.rows(); ++r) {
    file.row_as_f32(r, decoded.data());
    const auto original = table.row(r);
    const double norm = norm_of({original.begin(), original.end()});
    CHECK(file.norms()[r] == Approx(norm).epsilon(1e-6));
    CHECK(norm_of(decoded) == Approx(norm).epsilon(1e-5).margin(1e-12));  // the scale keeps the exact norm
    float largest = 0;
    for (float x : original) largest = std::max(largest, std::fabs(x));
    for (std::size_t i = 0; i < 37; ++i) CHECK(std::fabs(decoded[i] - original[i]) <= largest / 127 + 1e-6f);
  }
}

TEST_CASE("pq rows: the same bytes for any threads, decoded to the exact norms; another seed, other codes",
          "[quant][emb]") {
  TempDir dir;
  const EmbeddingTable table = clustered_table(700, 24, 2);
  write_compressed(table, dir.file("one.emb"), pq_spec(6, 1));
  write_compressed(table, dir.file("two.emb"), pq_spec(6, 2));
  write_compressed(table, dir.file("seed.emb"), pq_spec(6, 2, 9));
  CHECK(test::read_file(dir.file("one.emb")) == test::read_file(dir.file("two.emb")));
  CHECK(test::read_file(dir.file("one.emb")) != test::read_file(dir.file("seed.emb")));
  const EmbFile file = EmbFile::open(dir.file("one.emb"));
  file.verify();
  CHECK(file.storage() == RowStorage::pq);
  CHECK(file.row_bytes() == 6);
  REQUIRE(file.pq_codebooks() != nullptr);
  CHECK(file.pq_codebooks()->m == 6);
  CHECK(file.metadata().at("pq.m") == "6");
  CHECK(file.metadata().at("quant.seed") == "1");
  std::vector<float> decoded(24);
  double cosine_sum = 0;
  for (std::uint64_t r = 0; r < file.rows(); ++r) {
    file.row_as_f32(r, decoded.data());
    const auto original = table.row(r);
    const double norm = norm_of({original.begin(), original.end()});
    CHECK(norm_of(decoded) == Approx(norm).epsilon(1e-5).margin(1e-12));
    if (norm == 0) continue;
    double dot = 0;
    for (std::size_t i = 0; i < 24; ++i) dot += double{decoded[i]} * original[i];
    cosine_sum += dot / (norm * norm);
  }
  CHECK(cosine_sum / 699 > 0.8);  // 4 dims a byte on clustered rows: close, not exact
}

TEST_CASE("compressed rows: the scan's products are the decodings' (pq exactly, int8 up to the query's rounding)",
          "[quant][query]") {
  TempDir dir;
  const EmbeddingTable table = clustered_table(500, 40, 3);
  write_compressed(table, dir.file("pq.emb"), pq_spec(10));
  write_compressed(table, dir.file("opq.emb"), pq_spec(10, 2, 1, true));
  write_compressed(table, dir.file("i8.emb"), int8_spec());
  for (const char* name : {"pq.emb", "opq.emb", "i8.emb"}) {
    const EmbFile file = EmbFile::open(dir.file(name));
    if (!CompressedScan::takes(file)) continue;  // int8 without VNNI: decoded, searched as f32
    // 3 query rows: int8 reads the stored rows as they are; 12: it transposes them first.
    for (std::size_t query_rows : {3u, 12u}) {
      std::vector<float> queries(query_rows * 40);
      for (std::size_t t = 0; t < query_rows; ++t) {
        file.row_as_f32(t * 17 + 1, queries.data() + t * 40);
        if (t % 2 == 1) queries[t * 40 + 3] += 0.5f;  // not a stored row: int8 rounds it
        const double n = norm_of({queries.begin() + t * 40, queries.begin() + (t + 1) * 40});
        for (std::size_t i = 0; i < 40; ++i) queries[t * 40 + i] = static_cast<float>(queries[t * 40 + i] / n);
      }
      const CompressedScan scan(file, queries.data(), query_rows, 2);
      std::vector<float> products(query_rows * 130);
      scan.products(70, 130, products.data());
      if (file.storage() == RowStorage::int8) {
        // Exactly the integer dot of the query as rounded to int8 with the stored values, scaled.
        std::vector<std::int8_t> q8(query_rows * 40);
        std::vector<float> q_scales(query_rows);
        quantize_int8_rows(queries.data(), query_rows, 40, q8.data(), q_scales.data());
        const auto* values = reinterpret_cast<const std::int8_t*>(file.vector_bytes());
        for (std::size_t j = 0; j < 130; ++j) {
          for (std::size_t t = 0; t < query_rows; ++t) {
            const std::int32_t dot = int8_dot(q8.data() + t * 40, values + (70 + j) * 40, 40);
            CHECK(products[t * 130 + j] == static_cast<float>(dot) * q_scales[t] * file.row_scales()[70 + j]);
          }
        }
      }
      std::vector<float> row(40);
      for (std::size_t j = 0; j < 130; ++j) {
        file.row_as_f32(70 + j, row.data());
        for (std::size_t t = 0; t < query_rows; ++t) {
          double dot = 0;
          for (std::size_t i = 0; i < 40; ++i) dot += double{queries[t * 40 + i]} * row[i];
          const double tolerance = file.storage() == RowStorage::pq ? 1e-4 : 0.02;
          CHECK(products[t * 130 + j] == Approx(dot).margin(tolerance * (1 + file.norms()[70 + j])));
        }
      }
    }
  }
}

TEST_CASE("compressed rows: exact search finds what a search of the decoded rows finds", "[quant][query]") {
  TempDir dir;
  const EmbeddingTable table = clustered_table(400, 32, 4);
  for (const QuantizeSpec& spec : {pq_spec(8), pq_spec(8, 2, 1, true), int8_spec()}) {
    write_compressed(table, dir.file("c.emb"), spec);
    const VectorSpace compressed = VectorSpace::from_emb(EmbFile::open(dir.file("c.emb")));
    CHECK(compressed.compressed());
    // The same rows, decoded, as a dense table.
    EmbeddingTable decoded = table;
    for (std::uint64_t r = 0; r < 400; ++r) compressed.row_f32(r, decoded.row(r).data());
    const VectorSpace dense = VectorSpace::from_table(std::move(decoded), "decoded", 1);
    std::vector<SearchQuery> queries;
    for (std::uint64_t r : {1, 9, 77, 300}) queries.push_back({{{r, 1.0f}}, Combination::add, {}});
    queries.push_back({{{10, 1.0f}, {20, -1.0f}, {31, 1.0f}}, Combination::mul, {}});
    SearchOptions options;
    options.k = 5;
    options.threads = 2;
    const auto got = search(compressed, queries, options);
    const auto want = search(dense, queries, options);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      REQUIRE(got[q].size() == 5);
      CHECK(got[q][0].row == want[q][0].row);
      CHECK(got[q][0].score == Approx(want[q][0].score).margin(spec.storage == RowStorage::pq ? 1e-4 : 0.01));
    }
  }
}

TEST_CASE("pq rows with OPQ: a rotation tensor, decodings of the exact norms, the same bytes for any threads",
          "[quant][emb]") {
  TempDir dir;
  const EmbeddingTable table = clustered_table(600, 24, 8);
  write_compressed(table, dir.file("one.emb"), pq_spec(6, 1, 1, true));
  write_compressed(table, dir.file("two.emb"), pq_spec(6, 2, 1, true));
  CHECK(test::read_file(dir.file("one.emb")) == test::read_file(dir.file("two.emb")));
  const EmbFile file = EmbFile::open(dir.file("one.emb"));
  file.verify();
  REQUIRE(file.pq_rotation().size() == 24 * 24);
  CHECK(file.metadata().at("pq.opq_rounds") == "3");
  std::vector<float> decoded(24);
  for (std::uint64_t r = 0; r < file.rows(); ++r) {
    file.row_as_f32(r, decoded.data());
    const auto original = table.row(r);
    CHECK(norm_of(decoded) == Approx(norm_of({original.begin(), original.end()})).epsilon(1e-4).margin(1e-12));
  }
  SECTION("a rotation of another shape is refused") {
    patch(dir.file("one.emb"), "\"pq.rotation\":{\"dtype\":\"F32\",\"shape\":[24,24]", "\"pq.rotation\":{\"dtype\":\"F32\",\"shape\":[48,12]");
    REQUIRE_ERROR_CONTAINS(EmbFile::open(dir.file("one.emb")), "tensor \"pq.rotation\" is F32 [48, 12], expected F32 [24, 24]");
  }
}

TEST_CASE("compressed files: damage and newer writers are refused by name", "[quant][emb]") {
  TempDir dir;
  const EmbeddingTable table = clustered_table(300, 16, 5);
  write_compressed(table, dir.file("pq.emb"), pq_spec(4));
  SECTION("an unknown storage") {
    patch(dir.file("pq.emb"), "\"storage\":\"pq\"", "\"storage\":\"zz\"");
    REQUIRE_ERROR_CONTAINS(EmbFile::open(dir.file("pq.emb")), "\"storage\" is \"zz\", which this tool does not read");
  }
  SECTION("a newer format version") {
    patch(dir.file("pq.emb"), "\"format_version\":\"2\"", "\"format_version\":\"3\"");
    REQUIRE_ERROR_CONTAINS(EmbFile::open(dir.file("pq.emb")), "format version 3 is newer than this tool reads (2)");
  }
  SECTION("compressed rows in a version 1 file") {
    patch(dir.file("pq.emb"), "\"format_version\":\"2\"", "\"format_version\":\"1\"");
    REQUIRE_ERROR_CONTAINS(EmbFile::open(dir.file("pq.emb")), "pq rows need format_version 2");
  }
  SECTION("pq.m disagreeing with the codes") {
    patch(dir.file("pq.emb"), "\"pq.m\":\"4\"", "\"pq.m\":\"8\"");
    REQUIRE_ERROR_CONTAINS(EmbFile::open(dir.file("pq.emb")), "tensor \"pq.codes\" is U8 [300, 4], expected U8 [300, 8]");
  }
  SECTION("dtype disagreeing with the storage") {
    patch(dir.file("pq.emb"), "\"dtype\":\"pq\"", "\"dtype\":\"f3\"");
    REQUIRE_ERROR_CONTAINS(EmbFile::open(dir.file("pq.emb")), "__metadata__ \"dtype\" is \"f3\", expected \"pq\"");
  }
  SECTION("m not dividing dim is refused before any work") {
    REQUIRE_ERROR_CONTAINS(QuantizedRows::encode(table.values, 16, pq_spec(5)), "must divide the 16 dimensions");
  }
  SECTION("a value that is not finite") {
    EmbeddingTable bad = table;
    bad.values[3 * 16 + 2] = std::nanf("");
    REQUIRE_ERROR_CONTAINS(QuantizedRows::encode(bad.values, 16, int8_spec()), "row 4 holds a value that is not finite");
  }
}

TEST_CASE("dense files stay version 1, which older readers read", "[emb]") {
  TempDir dir;
  EmbeddingTable table = clustered_table(50, 8, 6);
  AtomicOutput out(dir.file("f32.emb"));
  write_emb(table, EmbWriteOptions{}, out);
  out.commit();
  const EmbFile file = EmbFile::open(dir.file("f32.emb"));
  CHECK(file.metadata().at("format_version") == "1");
  CHECK(file.storage() == RowStorage::dense);
  CHECK(file.metadata().count("storage") == 0);
}
