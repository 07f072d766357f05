// The approximate index (search/ann/): an HNSW graph built by hnswlib, stored as tensors of
// an .emb, searched in place. Recall on clustered data, the round trip through the file,
// reachability, determinism, and damaged or foreign indexes.
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "test_util.h"
#include "core/atomic_output.h"
#include "format/emb_file.h"
#include "format/emb_writer.h"
#include "search/ann/ann_index.h"
#include "search/ann/ann_storage.h"
#include "search/ann/hnsw_build.h"
#include "search/exact_search.h"
#include "search/index_kinds.h"
#include "search/vector_space.h"

using namespace embed;
using embed::test::TempDir;

namespace {

// `rows` vectors of `dim` values around 20 random centres, and words w0, w1, ...
EmbeddingTable clustered(std::size_t rows, std::size_t dim, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> centres(20, std::vector<float>(dim));
  for (auto& c : centres) {
    for (float& x : c) x = normal(random);
  }
  EmbeddingTable table;
  table.dim = dim;
  std::vector<float> row(dim);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto& c = centres[random() % centres.size()];
    for (std::size_t x = 0; x < dim; ++x) row[x] = c[x] + 0.6f * normal(random);
    table.add_row("w" + std::to_string(r), row, r + 1);
  }
  return table;
}

// Writes `table` as an .emb with an index built with `build`; returns the path.
std::string write_indexed(const TempDir& dir, const std::string& name, EmbeddingTable table, HnswBuildOptions build,
                          DType dtype = DType::f32) {
  const HnswArrays arrays = build_hnsw(table.values, table.dim, build);
  EmbWriteOptions options;
  options.dtype = dtype;
  add_ann_to_emb(arrays, build, options);
  const std::string path = dir.file(name);
  AtomicOutput out(path);
  write_emb(table, options, out);
  out.commit();
  return path;
}

std::vector<SearchQuery> row_queries(std::uint64_t first, std::uint64_t count) {
  std::vector<SearchQuery> queries;
  for (std::uint64_t r = first; r < first + count; ++r) queries.push_back({{{r, 1.0f}}, Combination::add});
  return queries;
}

double recall(const std::vector<std::vector<Hit>>& found, const std::vector<std::vector<Hit>>& exact) {
  std::size_t hits = 0, total = 0;
  for (std::size_t q = 0; q < exact.size(); ++q) {
    std::set<std::uint64_t> truth;
    for (const Hit& h : exact[q]) truth.insert(h.row);
    for (const Hit& h : found[q]) hits += truth.count(h.row);
    total += truth.size();
  }
  return static_cast<double>(hits) / static_cast<double>(total);
}

}  // namespace

TEST_CASE("the index finds the exact neighbours of clustered vectors, with exact scores", "[ann]") {
  TempDir dir;
  const std::string path = write_indexed(dir, "c.emb", clustered(4000, 32, 7), {});
  const VectorSpace space = VectorSpace::from_emb(EmbFile::open(path));
  AnnIndex index(space, kDefaultEf);
  SearchOptions options;
  options.k = 10;
  const auto queries = row_queries(0, 300);
  const auto exact = search(space, queries, options);
  const auto found = index.search(queries, options);
  CHECK(recall(found, exact) >= 0.95);
  for (std::size_t q = 0; q < found.size(); ++q) {
    REQUIRE(found[q].size() == 10);
    for (const Hit& h : found[q]) {
      CHECK(h.row != q);  // a query's own word is never an answer
      CHECK(h.score == Approx(cosine(space, q, h.row)).epsilon(1e-5));
    }
  }
  // 3CosMul: ranked as the exact search ranks what it finds.
  std::vector<SearchQuery> mul = {{{{1, 1.0f}, {2, -1.0f}, {3, 1.0f}}, Combination::mul}};
  const auto mul_exact = search(space, mul, options);
  const auto mul_found = index.search(mul, options);
  CHECK(recall(mul_found, mul_exact) >= 0.8);
  CHECK(mul_found[0][0].score == Approx(mul_exact[0][0].score).epsilon(1e-5));
}

TEST_CASE("a wider beam never finds less, and --restrict filters what the graph finds", "[ann]") {
  TempDir dir;
  const std::string path = write_indexed(dir, "c.emb", clustered(3000, 16, 3), {});
  const VectorSpace space = VectorSpace::from_emb(EmbFile::open(path));
  SearchOptions options;
  options.k = 10;
  const auto queries = row_queries(100, 200);
  const auto exact = search(space, queries, options);
  AnnIndex narrow(space, 10), wide(space, 400);
  CHECK(recall(wide.search(queries, options), exact) >= recall(narrow.search(queries, options), exact));
  CHECK(recall(wide.search(queries, options), exact) >= 0.99);
  options.restrict_rows = 50;  // far fewer than the beam sees: it widens until k remain
  const auto restricted = narrow.search(queries, options);
  const auto restricted_exact = search(space, queries, options);
  for (const auto& hits : restricted) {
    REQUIRE(hits.size() == 10);
    for (const Hit& h : hits) CHECK(h.row < 50);
  }
  CHECK(recall(restricted, restricted_exact) >= 0.9);
}

TEST_CASE("the index round-trips through the file, f16 included, and every row is reachable", "[ann]") {
  TempDir dir;
  const EmbeddingTable table = clustered(2000, 24, 11);
  const HnswArrays arrays = build_hnsw(table.values, table.dim, {});
  for (DType dtype : {DType::f32, DType::f16}) {
    const std::string path = write_indexed(dir, "r.emb", table, {}, dtype);
    const EmbFile file = EmbFile::open(path);
    file.verify();  // the index's tensors have checksums like any other
    const HnswGraph stored = open_ann(file);
    CHECK(std::equal(stored.levels.begin(), stored.levels.end(), arrays.levels.begin(), arrays.levels.end()));
    CHECK(std::equal(stored.offsets.begin(), stored.offsets.end(), arrays.offsets.begin(), arrays.offsets.end()));
    CHECK(std::equal(stored.neighbors.begin(), stored.neighbors.end(), arrays.neighbors.begin(), arrays.neighbors.end()));
    CHECK(stored.entry_point == arrays.entry_point);
    CHECK(stored.max_level == arrays.max_level);
  }
  // Layer 0 from the entry point reaches every row.
  const HnswGraph graph = arrays.view();
  std::vector<bool> seen(graph.rows());
  std::vector<std::uint64_t> stack = {static_cast<std::uint64_t>(graph.entry_point)};
  seen[stack[0]] = true;
  std::size_t reached = 1;
  while (!stack.empty()) {
    const std::uint64_t row = stack.back();
    stack.pop_back();
    for (const std::uint32_t n : graph.neighbours(row, 0)) {
      if (n != kNoNeighbor && !seen[n]) {
        seen[n] = true;
        ++reached;
        stack.push_back(n);
      }
    }
  }
  CHECK(reached == graph.rows());
}

TEST_CASE("one thread and a seed build the same index; another seed does not", "[ann]") {
  const EmbeddingTable table = clustered(1500, 16, 5);
  HnswBuildOptions a;
  a.seed = 42;
  const HnswArrays first = build_hnsw(table.values, table.dim, a), again = build_hnsw(table.values, table.dim, a);
  CHECK(first.neighbors == again.neighbors);
  CHECK(first.levels == again.levels);
  a.seed = 43;
  CHECK(build_hnsw(table.values, table.dim, a).levels != first.levels);
}

TEST_CASE("a missing, foreign or damaged index is refused at open, and bad links are never followed", "[ann]") {
  TempDir dir;
  EmbeddingTable table = clustered(500, 8, 9);
  {
    AtomicOutput out(dir.file("plain.emb"));
    write_emb(table, EmbWriteOptions{}, out);
    out.commit();
  }
  const VectorSpace plain = VectorSpace::from_emb(EmbFile::open(dir.file("plain.emb")));
  REQUIRE_ERROR_CONTAINS(AnnIndex(plain, 10), "has no approximate index; add one with: glove-convert --index ann");

  // Another file's index: the vectors' checksum differs.
  const std::string path = write_indexed(dir, "i.emb", table, {});
  std::string bytes = test::read_file(path);
  const std::size_t at = bytes.find("\"ann.vectors\":\"crc32:");
  REQUIRE(at != std::string::npos);
  std::string foreign = bytes;
  foreign[at + 21] = foreign[at + 21] == '0' ? '1' : '0';
  test::write_file(dir.file("foreign.emb"), foreign);
  const VectorSpace foreign_space = VectorSpace::from_emb(EmbFile::open(dir.file("foreign.emb")));
  REQUIRE_ERROR_CONTAINS(AnnIndex(foreign_space, 10), "the approximate index was built for other vectors");

  const VectorSpace space = VectorSpace::from_emb(EmbFile::open(path));

  // Links to rows that do not exist, offsets out of order: skipped, never read.
  HnswArrays arrays = build_hnsw(table.values, table.dim, {});
  for (std::size_t i = 0; i < arrays.neighbors.size(); i += 3) arrays.neighbors[i] = 1 << 30;
  std::swap(arrays.offsets[10], arrays.offsets[11]);
  HnswGraph broken = arrays.view();
  std::vector<float> query(table.dim, 0.5f);
  RowScorer scorer(space, query);
  VisitedRows visited;
  const std::vector<Hit> found = hnsw_search(broken, scorer, 20, visited);
  CHECK(!found.empty());
  for (const Hit& h : found) CHECK(h.row < 500);
  broken.entry_point = 10000;
  CHECK(broken.shape_problem(500).find("entry point 10000 is not a row") != std::string::npos);
}

TEST_CASE("the stored kind is the registry's: an HNSW index is found by it, another kind refused by name", "[ann][index]") {
  TempDir dir;
  const EmbeddingTable table = clustered(200, 8, 5);
  const std::string path = write_indexed(dir, "i.emb", table, {});
  const EmbFile file = EmbFile::open(path);
  CHECK(file.metadata().at(kAnnKindKey) == kHnswKind);
  const IndexKindSpec* kind = stored_index_kind(file);
  REQUIRE(kind != nullptr);
  CHECK(kind == find_index_kind("ann"));
  CHECK(kind->stored_kind == kHnswKind);

  // The same file, its kind renamed (the header keeps its length).
  std::string bytes = test::read_file(path);
  const std::size_t at = bytes.find("\"ann.kind\":\"hnsw\"");
  REQUIRE(at != std::string::npos);
  bytes.replace(at + 12, 4, "ivfx");
  test::write_file(dir.file("ivf.emb"), bytes);
  const EmbFile other = EmbFile::open(dir.file("ivf.emb"));
  REQUIRE_ERROR_CONTAINS(stored_index_kind(other),
                         "ivf.emb: its index is of kind 'ivfx', which this build of embed does not know");
}
