// embed-query's pieces: top-k selection, correlations, upper-casing, query parsing,
// and search() against a brute-force computation in double precision.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/utf8.h"
#include "format/emb_writer.h"
#include "query/line_reader.h"
#include "query/query_parse.h"
#include "eval/rank_correlation.h"
#include "search/exact_search.h"
#include "search/query_matrix.h"
#include "search/top_k.h"
#include "search/vector_space.h"
#include "test_util.h"

using namespace embed;

TEST_CASE("TopK keeps the k best, ties by lower row, whatever the order of arrival") {
  std::mt19937 rng(7);
  std::vector<Hit> all;
  for (std::uint64_t r = 0; r < 2000; ++r) all.push_back({r, static_cast<float>(rng() % 50)});  // many ties
  std::vector<Hit> expected = all;
  std::sort(expected.begin(), expected.end(), better);
  expected.resize(25);
  std::shuffle(all.begin(), all.end(), rng);
  TopK left(25), right(25);
  for (std::size_t i = 0; i < all.size(); ++i) (i % 2 ? left : right).push(all[i]);
  left.merge(right);
  const std::vector<Hit> got = left.sorted();
  REQUIRE(got.size() == 25);
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].row == expected[i].row);
    CHECK(got[i].score == expected[i].score);
  }
  CHECK(left.threshold() == expected.back().score);
  CHECK(TopK(3).threshold() == -std::numeric_limits<float>::infinity());
}

TEST_CASE("Spearman and Pearson match scipy, ties averaged") {
  const std::vector<double> x{1, 2, 2, 3, 5, 5, 5, 0.5}, y{2, 1, 4, 3, 3, 9, 1, 0};
  // scipy.stats.spearmanr(x, y)[0] and pearsonr(x, y)[0]
  CHECK(spearman(x, y) == Approx(0.490768436777046).epsilon(1e-12));
  CHECK(pearson(x, y) == Approx(0.5057535089359381).epsilon(1e-12));
  CHECK(average_ranks(std::vector<double>{10, 20, 10, 30}) == std::vector<double>{1.5, 3, 1.5, 4});
  CHECK(std::isnan(pearson(std::vector<double>{1, 1, 1}, std::vector<double>{1, 2, 3})));
}

TEST_CASE("utf8_upper upper-cases as Python's str.upper for one-to-one letters") {
  CHECK(utf8_upper("Paris") == "PARIS");
  CHECK(utf8_upper("café") == "CAFÉ");
  CHECK(utf8_upper("мир") == "МИР");
  CHECK(utf8_upper("ωmega") == "ΩMEGA");
  CHECK(utf8_upper("a\xff" "b") == "A\xff" "B");  // invalid bytes kept
  CHECK(utf8_upper("") == "");
}

TEST_CASE("utf8_lower lower-cases letter by letter, invalid bytes kept", "[query]") {
  CHECK(utf8_lower("Paris") == "paris");
  CHECK(utf8_lower("CAFÉ") == "café");
  CHECK(utf8_lower("МИР") == "мир");
  CHECK(utf8_lower("A\xff" "B") == "a\xff" "b");
  CHECK(utf8_lower("") == "");
}

TEST_CASE("blank and # comment lines are not queries", "[query]") {
  CHECK(is_blank_or_comment(""));
  CHECK(is_blank_or_comment(" \t\r"));
  CHECK(is_blank_or_comment("# note"));
  CHECK(is_blank_or_comment("  #"));
  CHECK_FALSE(is_blank_or_comment("a # b"));
  CHECK_FALSE(is_blank_or_comment("frog"));
}

TEST_CASE("query lines: words, expressions, similarities, mistakes") {
  ParsedQuery q = parse_query_line("frog\r");
  CHECK(q.kind == QueryKind::neighbours);
  CHECK(q.text == "frog");
  q = parse_query_line("  king -   man + woman ");
  CHECK(q.kind == QueryKind::expression);
  CHECK(q.text == "king - man + woman");
  REQUIRE(q.words.size() == 3);
  CHECK(q.words[1].word == "man");
  CHECK(q.words[1].weight == -1.0f);
  CHECK(q.words[2].weight == 1.0f);
  q = parse_query_line("well-known c++");  // no operator tokens: a sum; '-' inside words is a letter
  CHECK(q.kind == QueryKind::expression);
  CHECK(q.text == "well-known + c++");
  q = parse_query_line("- frog");
  CHECK(q.kind == QueryKind::expression);
  CHECK(q.words[0].weight == -1.0f);
  q = parse_query_line("cat\tdog");
  CHECK(q.kind == QueryKind::similarity);
  CHECK(q.words[1].word == "dog");
  REQUIRE_ERROR_CONTAINS(parse_query_line(""), "empty query");
  REQUIRE_ERROR_CONTAINS(parse_query_line("king +"), "ends with an operator");
  REQUIRE_ERROR_CONTAINS(parse_query_line("king + - man"), "two operators");
  REQUIRE_ERROR_CONTAINS(parse_query_line("cat\tdog\tmouse"), "exactly two words");
  REQUIRE_ERROR_CONTAINS(parse_query_line("cat\t"), "exactly two words");
}

namespace {

EmbeddingTable random_table(std::size_t rows, std::size_t dim, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  EmbeddingTable table;
  table.dim = dim;
  std::vector<float> v(dim);
  for (std::size_t r = 0; r < rows; ++r) {
    for (float& x : v) x = r == 17 ? 0.0f : normal(rng);  // row 17 has zero length
    table.add_row("w" + std::to_string(r), v, r + 1);
  }
  return table;
}

// Brute force in double: the score of every row for a query, as gensim defines it.
std::vector<double> reference_scores(const VectorSpace& space, const SearchQuery& query, std::uint64_t rows) {
  const std::size_t dim = space.dim();
  auto unit = [&](std::uint64_t r) {
    std::vector<double> v(dim);
    const std::vector<float> f = space.row_f32(r);
    double n = 0;
    for (std::size_t i = 0; i < dim; ++i) n += double{f[i]} * f[i];
    for (std::size_t i = 0; i < dim; ++i) v[i] = n > 0 ? f[i] / std::sqrt(n) : 0.0;
    return v;
  };
  auto dot = [&](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < dim; ++i) s += a[i] * b[i];
    return s;
  };
  std::vector<double> scores(rows);
  std::vector<double> mean(dim, 0.0);
  for (const Term& t : query.terms) {
    const std::vector<double> u = unit(t.row);
    for (std::size_t i = 0; i < dim; ++i) mean[i] += t.weight * u[i];
  }
  const double mean_norm = std::sqrt(dot(mean, mean));
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::vector<double> u = unit(r);
    if (query.combination == Combination::add) {
      scores[r] = mean_norm > 0 ? dot(u, mean) / mean_norm : 0.0;
    } else {
      double positive = 1, negative = 1;
      for (const Term& t : query.terms) (t.weight > 0 ? positive : negative) *= (1 + dot(u, unit(t.row))) / 2;
      scores[r] = positive / (negative + 0.000001);
    }
  }
  return scores;
}

void check_against_brute_force(const VectorSpace& space, unsigned threads, std::uint64_t restrict_rows, double tolerance) {
  std::mt19937 rng(11);
  std::vector<SearchQuery> queries;
  for (int q = 0; q < 40; ++q) {
    SearchQuery query;
    const int terms = 1 + q % 4;
    for (int t = 0; t < terms; ++t) query.terms.push_back({rng() % space.rows(), t == 1 ? -1.0f : 1.0f});
    if (q == 5) query.terms = {{17, 1.0f}};  // the zero row as the query
    query.combination = q % 3 == 2 ? Combination::mul : Combination::add;
    queries.push_back(query);
  }
  SearchOptions options;
  options.k = 7;
  options.threads = threads;
  options.restrict_rows = restrict_rows;
  const std::vector<std::vector<Hit>> results = search(space, queries, options);
  const std::uint64_t rows = restrict_rows ? std::min(restrict_rows, space.rows()) : space.rows();
  REQUIRE(results.size() == queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::vector<double> scores = reference_scores(space, queries[q], rows);
    std::vector<std::uint64_t> order;
    for (std::uint64_t r = 0; r < rows; ++r) {
      bool excluded = false;
      for (const Term& t : queries[q].terms) excluded |= t.row == r;
      if (!excluded) order.push_back(r);
    }
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return scores[a] > scores[b]; });
    REQUIRE(results[q].size() == 7);
    for (std::size_t i = 0; i < 7; ++i) {
      const Hit& hit = results[q][i];
      INFO("query " << q << " rank " << i);
      CHECK(std::isfinite(hit.score));
      CHECK(std::abs(hit.score - scores[order[i]]) <= tolerance);
      CHECK(std::abs(scores[hit.row] - scores[order[i]]) <= tolerance);  // the right row, or one tied with it
      CHECK(hit.row < rows);
    }
  }
}

}  // namespace

TEST_CASE("search() finds what brute force in double finds, in memory and in .emb files of every dtype") {
  test::TempDir dir;
  const std::size_t rows = 2500, dim = 37;  // more than two SGEMM blocks; an odd dimension
  SECTION("in memory, 1 and 3 threads, restricted") {
    const VectorSpace space = VectorSpace::from_table(random_table(rows, dim, 1), "mem", 2);
    check_against_brute_force(space, 1, 0, 1e-5);
    check_against_brute_force(space, 3, 0, 1e-5);
    check_against_brute_force(space, 3, 1100, 1e-5);
  }
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    DYNAMIC_SECTION(".emb stored as " << dtype_name(dtype)) {
      EmbeddingTable table = random_table(rows, dim, 2);
      const std::string path = dir.file("v.emb");
      {
        AtomicOutput out(path);
        EmbWriteOptions options;
        options.dtype = dtype;
        write_emb(table, options, out);
        out.commit();
      }
      const VectorSpace space = VectorSpace::from_emb(EmbFile::open(path));
      check_against_brute_force(space, 2, 0, 1e-5);  // against the stored (rounded) values
    }
  }
}

TEST_CASE("search_vectors() ranks every row by cosine with vectors that are not rows, excluding none") {
  const std::size_t rows = 1500, dim = 19;
  const VectorSpace space = VectorSpace::from_table(random_table(rows, dim, 3), "mem", 2);
  // Three held-out points: a row's own direction (which must come back as that row,
  // cosine 1), a mixture of two rows, and a vector of no row.
  std::vector<float> points = space.row_f32(42);
  make_unit(points);
  std::vector<float> mixture = space.row_f32(5), other = space.row_f32(900);
  for (std::size_t x = 0; x < dim; ++x) mixture[x] += other[x];
  make_unit(mixture);
  std::vector<float> free_point(dim);
  for (std::size_t x = 0; x < dim; ++x) free_point[x] = std::sin(1.0f + static_cast<float>(x));
  make_unit(free_point);
  points.insert(points.end(), mixture.begin(), mixture.end());
  points.insert(points.end(), free_point.begin(), free_point.end());
  SearchOptions options;
  options.k = 5;
  options.threads = 2;
  const auto results = search_vectors(space, points, options);
  REQUIRE(results.size() == 3);
  CHECK(results[0][0].row == 42);
  CHECK(results[0][0].score == Approx(1.0).margin(1e-5));
  for (std::size_t q = 0; q < 3; ++q) {
    REQUIRE(results[q].size() == 5);
    const std::span<const float> point(points.data() + q * dim, dim);
    std::vector<double> scores(rows);
    for (std::uint64_t r = 0; r < rows; ++r) {
      const std::vector<float> v = space.row_f32(r);
      double dot = 0, norm = 0;
      for (std::size_t x = 0; x < dim; ++x) dot += double{point[x]} * v[x], norm += double{v[x]} * v[x];
      scores[r] = norm > 0 ? dot / std::sqrt(norm) : 0.0;
    }
    std::vector<double> sorted = scores;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    for (std::size_t i = 0; i < 5; ++i) {
      INFO("query " << q << " rank " << i);
      CHECK(results[q][i].score == Approx(sorted[i]).margin(1e-5));
      CHECK(scores[results[q][i].row] == Approx(sorted[i]).margin(1e-5));
    }
  }
}

TEST_CASE("an .emb without a norms tensor (another writer's) gets its norms computed at open") {
  test::TempDir dir;
  const std::string path = dir.file("v.emb");
  {
    EmbeddingTable table = random_table(9000, 5, 4);  // more than two blocks of the computation
    AtomicOutput out(path);
    EmbWriteOptions options;
    options.dtype = DType::f16;
    write_emb(table, options, out);
    out.commit();
  }
  const VectorSpace stored = VectorSpace::from_emb(EmbFile::open(path));
  std::string bytes = test::read_file(path);
  const std::size_t at = bytes.find("\"norms\"");
  REQUIRE(at != std::string::npos);
  bytes[at + 5] = 'z';  // the tensor is now "normz", which readers ignore
  test::write_file(dir.file("foreign.emb"), bytes);
  const VectorSpace computed = VectorSpace::from_emb(EmbFile::open(dir.file("foreign.emb")));
  REQUIRE(computed.norms().size() == 9000);
  for (std::size_t r = 0; r < 9000; ++r) CHECK(computed.norms()[r] == Approx(stored.norms()[r]).epsilon(1e-6));
  CHECK(computed.norms()[17] == 0.0f);
}

TEST_CASE("cosine of two rows; zero-length rows give 0") {
  const VectorSpace space = VectorSpace::from_table(random_table(30, 5, 3), "mem", 1);
  CHECK(cosine(space, 17, 3) == 0.0f);
  CHECK(cosine(space, 4, 4) == Approx(1.0f).epsilon(1e-6));
}

TEST_CASE("LineReader batches what has arrived and keeps a last line without a newline") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string text = "one\ntwo\r\n\nthree";
  REQUIRE(::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  LineReader reader(fds[0]);
  const std::vector<std::string> lines = reader.next_batch(100);
  CHECK(lines == std::vector<std::string>{"one", "two\r", "", "three"});
  CHECK(reader.next_batch(100).empty());
  CHECK(reader.lines_read() == 4);
  ::close(fds[0]);
}
