#include "query/query_runner.h"

#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/excerpt.h"

namespace embed {

QueryInput make_query_input(std::string where, std::string_view line) {
  QueryInput input;
  input.where = std::move(where);
  input.text = std::string(line);
  try {
    input.query = parse_query_line(line);
  } catch (const Error& e) {
    input.parse_error = e.what();
  }
  return input;
}

std::size_t QueryRunner::answer(const std::vector<QueryInput>& inputs) {
  // Look every word up first; failures are reported in order with the answers.
  std::vector<std::string> errors(inputs.size());
  std::vector<std::vector<std::uint64_t>> rows(inputs.size());
  std::vector<SearchQuery> searches;
  std::vector<std::size_t> search_of(inputs.size(), 0);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const QueryInput& input = inputs[i];
    if (!input.parse_error.empty()) {
      errors[i] = input.parse_error;
      continue;
    }
    for (const QueryWord& w : input.query.words) {
      const std::optional<std::uint64_t> row = space_.find(w.word);
      if (!row) {
        errors[i] = fmt::format("unknown word \"{}\" (not among the {} words of {})", excerpt(w.word), space_.rows(), space_.name());
        break;
      }
      rows[i].push_back(*row);
    }
    if (!errors[i].empty() || input.query.kind == QueryKind::similarity) continue;
    SearchQuery search;
    search.combination = input.query.kind == QueryKind::expression ? options_.method : Combination::add;
    for (std::size_t w = 0; w < rows[i].size(); ++w) search.terms.push_back({rows[i][w], input.query.words[w].weight});
    search_of[i] = searches.size();
    searches.push_back(std::move(search));
  }

  SearchOptions search_options;
  search_options.k = options_.k;
  search_options.restrict_rows = options_.restrict_rows;
  search_options.threads = options_.threads;
  const std::vector<std::vector<Hit>> results = searcher_.search(searches, search_options);

  std::size_t failed = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const QueryInput& input = inputs[i];
    if (!errors[i].empty()) {
      ++failed;
      if (input.where.empty()) spdlog::error("{}", errors[i]);
      else spdlog::error("{}: {}", input.where, errors[i]);
      writer_.failure(input.text, errors[i]);
    } else if (input.query.kind == QueryKind::similarity) {
      writer_.similarity(input.query, cosine(space_, rows[i][0], rows[i][1]));
    } else {
      writer_.neighbours(input.query, results[search_of[i]]);
    }
  }
  return failed;
}

}  // namespace embed
