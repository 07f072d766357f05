#include "plot/map_command.h"

#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/ascii_space.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "plot/pca.h"
#include "plot/word_map.h"
#include "query/query_command.h"
#include "query/query_parse.h"
#include "search/exact_search.h"

namespace embed {
namespace {

// The words of standard input, one per line; blank lines, # comments (as embed-query's
// queries) and surrounding spaces ignored.
std::vector<std::string> read_stdin_words() {
  std::vector<std::string> words;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (is_blank_or_comment(line)) continue;
    std::size_t begin = 0, end = line.size();
    while (begin < end && is_ascii_space(static_cast<unsigned char>(line[begin]))) ++begin;
    while (end > begin && is_ascii_space(static_cast<unsigned char>(line[end - 1]))) --end;
    if (end > begin) words.push_back(line.substr(begin, end - begin));
  }
  return words;
}

// What the map shows: the known words, once each in the order given, then their
// neighbours (not already shown), each word's best first.
struct MapRows {
  std::vector<std::uint64_t> rows;
  std::vector<MapWord> words;
};

MapRows choose_rows(const VectorSpace& space, const MapCommand& command, const std::vector<std::string>& asked) {
  MapRows chosen;
  std::set<std::uint64_t> seen;
  std::vector<std::string> unknown;
  for (const std::string& word : asked) {
    const auto row = space.find(word);
    if (!row) {
      unknown.push_back(word);
      continue;
    }
    if (!seen.insert(*row).second) continue;
    chosen.rows.push_back(*row);
    chosen.words.push_back({std::string(space.word(*row)), false});
  }
  if (!unknown.empty()) {
    spdlog::warn("{}: not in the vocabulary, left out of the map: {}", space.name(), fmt::join(unknown, " "));
  }
  if (chosen.rows.size() < kMapMinWords) {
    fail("{}: {} of the words given {} in the vocabulary; a map needs at least {}", space.name(), chosen.rows.size(),
         chosen.rows.size() == 1 ? "is" : "are", kMapMinWords);
  }
  if (command.neighbours == 0) return chosen;
  std::vector<SearchQuery> queries;
  for (const std::uint64_t row : chosen.rows) queries.push_back({{{row, 1.0f}}});
  SearchOptions options;
  options.k = command.neighbours;
  options.threads = command.threads;
  for (const auto& hits : search(space, queries, options)) {
    for (const Hit& hit : hits) {
      if (!seen.insert(hit.row).second) continue;
      chosen.rows.push_back(hit.row);
      chosen.words.push_back({std::string(space.word(hit.row)), true});
    }
  }
  return chosen;
}

}  // namespace

int run_map_command(const MapCommand& command) {
  if (command.vectors == "-" && command.words.empty()) {
    fail("the vectors were read from stdin, so the words must be arguments");
  }
  // Created first, so that an unwritable destination fails before the vectors are read.
  AtomicOutput out(command.output, Streaming::allowed);
  const VectorSpace space = open_query_vectors(command.vectors, command.reading, command.threads);
  const MapRows chosen = choose_rows(space, command, command.words.empty() ? read_stdin_words() : command.words);

  const std::size_t n = chosen.rows.size(), dim = space.dim();
  std::vector<double> points(n * dim);
  std::vector<float> row(dim);
  // Unit vectors, so that the picture shows the geometry the cosine neighbours come from
  // (a frequent word's long vector would otherwise sit apart from its neighbours).
  for (std::size_t i = 0; i < n; ++i) {
    space.row_f32(chosen.rows[i], row.data());
    const double norm = space.norms()[chosen.rows[i]];
    for (std::size_t d = 0; d < dim; ++d) points[i * dim + d] = norm > 0 ? row[d] / norm : 0.0;
  }
  const Projection projection = pca_2d(points, n, dim);
  const std::string name = command.vectors == "-" ? space.name() : std::filesystem::path(command.vectors).filename().string();
  out.write(word_map_svg(chosen.words, projection, name));
  out.commit();
  if (!out.is_stdout()) spdlog::info("wrote {}: {} words", out.path(), n);
  return 0;
}

}  // namespace embed
