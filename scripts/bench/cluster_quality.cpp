// bench-cluster-quality: how well vectors trained on a bench-gen-clusters corpus recover
// its planted clusters: the share of a word's k nearest neighbours (cosine, the word
// itself excluded, over all rows) that lie in its own cluster (cluster_tokens.h).
//
//   bench-cluster-quality VECTORS.emb --cluster-size S [--sample 300] [--k 10] [--seed 1]
//                         [--threads T]
//
// The sample: rows are in frequency order, and quality differs between frequent and rare
// words, so the sample is three equal parts, each spread evenly over one range of ranks:
//   head    the first 1% of rows, at least the first 100;
//   tail    the last third of rows;
//   middle  the rows between the two.
// Within a part, rank i of n is first + floor((i + u) * length / n), where the phase u in
// [0, 1) comes from --seed (one per part): deterministic, and another seed another sample.
//
// The neighbours come from embed-query's exact search (search/exact_search.h): blocked
// SGEMM of the normalised sample rows against the table on --threads threads, each row's
// stored norm applied on the fly, a top-k heap per query; f16 and bf16 files are
// converted block by block. Every row's word must be of the form w<base36>.
//
// Output on stdout, one "key value" line each, for awk:
//   cluster_share_at_K MEAN          over the whole sample
//   head H middle M tail T           the mean of each part (nan for an empty part)
//   chance C                         the mean share random neighbours would have: for each
//                                    sampled word (its cluster's other rows) / (rows - 1)
//   sample N rows V dim D seconds S  S: from opening the file to the answer
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>

#include "cluster_tokens.h"
#include "core/error.h"
#include "core/parallel.h"
#include "search/exact_search.h"
#include "search/vector_space.h"
#include "train/engine/random.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct Options {
  std::string vectors;
  std::uint64_t cluster_size = 0;
  std::size_t sample = 300;
  std::size_t k = 10;
  std::uint64_t seed = 1;
  unsigned threads = embed::default_thread_count();
};

struct Part {
  const char* name;
  std::uint64_t first, end;  // ranks [first, end)
  std::size_t count;         // sampled rows
};

// The head, middle and tail ranges and how many rows each gives (see the top comment).
// A part never asks for more rows than it has.
std::vector<Part> split_sample(std::uint64_t rows, std::size_t sample) {
  const std::uint64_t head_end = std::min<std::uint64_t>(rows, std::max<std::uint64_t>(100, (rows + 99) / 100));
  const std::uint64_t tail_first = std::max(head_end, rows - rows / 3);
  std::vector<Part> parts = {{"head", 0, head_end, 0}, {"middle", head_end, tail_first, 0}, {"tail", tail_first, rows, 0}};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::size_t share = sample / 3 + (i < sample % 3 ? 1 : 0);
    parts[i].count = static_cast<std::size_t>(std::min<std::uint64_t>(share, parts[i].end - parts[i].first));
  }
  return parts;
}

double mean(const std::vector<double>& values, std::size_t first, std::size_t end) {
  if (first == end) return std::nan("");
  double sum = 0;
  for (std::size_t i = first; i < end; ++i) sum += values[i];
  return sum / static_cast<double>(end - first);
}

int run(const Options& opt) {
  const auto start = std::chrono::steady_clock::now();
  const embed::VectorSpace space = embed::VectorSpace::open(opt.vectors, {}, opt.threads);
  const std::uint64_t rows = space.rows();
  if (rows < 2) embed::fail("{}: {} rows: nothing to compare", space.name(), rows);

  // Every row's cluster, and how many rows each cluster has (for the chance level: a
  // trainer's --min-count may have dropped some of a cluster's words).
  std::vector<std::uint64_t> cluster(rows);
  std::unordered_map<std::uint64_t, std::uint64_t> members;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::string_view word = space.word(r);
    const std::optional<std::uint64_t> id = bench::parse_token(word);
    if (!id) embed::fail("{}: row {}: '{}' is not a bench-gen-clusters token (w<base36>)", space.name(), r, word);
    cluster[r] = bench::cluster_of(*id, opt.cluster_size);
    ++members[cluster[r]];
  }

  const std::vector<Part> parts = split_sample(rows, opt.sample);
  std::vector<embed::SearchQuery> queries;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const Part& part = parts[p];
    const double phase = embed::Random(opt.seed, p).uniform();
    const std::uint64_t length = part.end - part.first;
    for (std::size_t i = 0; i < part.count; ++i) {
      const auto offset = static_cast<std::uint64_t>((static_cast<double>(i) + phase) * static_cast<double>(length) /
                                                     static_cast<double>(part.count));
      const std::uint64_t row = part.first + std::min(offset, length - 1);
      queries.push_back({{{row, 1.0f}}});  // a query's own row is never among its answers
    }
  }

  embed::SearchOptions options;
  options.k = opt.k;
  options.threads = opt.threads;
  const std::vector<std::vector<embed::Hit>> answers = embed::search(space, queries, options);

  std::vector<double> share(queries.size());
  double chance = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::uint64_t own = cluster[queries[q].terms[0].row];
    std::size_t same = 0;
    for (const embed::Hit& hit : answers[q]) same += cluster[hit.row] == own ? 1 : 0;
    share[q] = answers[q].empty() ? 0.0 : static_cast<double>(same) / static_cast<double>(answers[q].size());
    chance += static_cast<double>(members[own] - 1) / static_cast<double>(rows - 1);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("cluster_share_at_%zu %.4f\n", opt.k, mean(share, 0, share.size()));
  std::size_t first = 0;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    std::printf("%s%s %.4f", p ? " " : "", parts[p].name, mean(share, first, first + parts[p].count));
    first += parts[p].count;
  }
  std::printf("\nchance %.6f\n", queries.empty() ? 0.0 : chance / static_cast<double>(queries.size()));
  std::printf("sample %zu rows %llu dim %zu seconds %.3f\n", queries.size(), static_cast<unsigned long long>(rows), space.dim(),
              seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app(std::string("bench-cluster-quality: the share of each sampled word's k nearest neighbours that lie in\n"
                           "its own cluster, for vectors trained on a bench-gen-clusters corpus.\n") +
               bench::kClusterMapping +
               "\nSample: equal parts spread evenly over the head (first 1% of rows, at least 100), the middle\n"
               "and the tail (last third) of the frequency ranks. Exit status: 0 done, 1 failure, 2 bad usage.");
  app.add_option("VECTORS", opt.vectors, "the vectors (.emb, or any format embed-query reads)")->required();
  app.add_option("--cluster-size", opt.cluster_size, "S: the --cluster-size the corpus was made with")->required();
  app.add_option("--sample", opt.sample, "words to score")->capture_default_str();
  app.add_option("--k", opt.k, "neighbours per word")->capture_default_str();
  app.add_option("--seed", opt.seed, "picks the sample's phase within each part")->capture_default_str();
  app.add_option("--threads", opt.threads, "search threads (default: all cores)");
  try {
    app.parse(argc, argv);
    if (opt.cluster_size == 0) throw CLI::ValidationError("--cluster-size must be at least 1");
    if (opt.sample == 0) throw CLI::ValidationError("--sample must be at least 1");
    if (opt.k == 0 || opt.k > 10000) throw CLI::ValidationError("--k must be in [1, 10000]");
    if (opt.threads == 0) throw CLI::ValidationError("--threads must be at least 1");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "bench-cluster-quality: error: %s; see --help\n", e.what());
    return kExitUsage;
  }
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-cluster-quality: error: %s\n", e.what());
    return kExitFailure;
  }
}
