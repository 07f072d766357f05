#include "query/query_runner.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/excerpt.h"
#include "core/utf8.h"

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

namespace {

// The bytes of the UTF-8 sequence that `text` starts with (1 for a byte that starts none).
std::size_t first_code_point_bytes(std::string_view text) {
  if (text.empty()) return 0;
  const auto lead = static_cast<unsigned char>(text[0]);
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return std::min(length, text.size());
}

// A vocabulary word spelled as `word` but for case ("three" for "Three"), to name in the
// error: lookups are exact. Three direct lookups (lower case, Capitalised, UPPER case)
// rather than a scan, and only once a word has failed.
std::optional<std::string> case_variant(const VectorSpace& space, std::string_view word) {
  const std::string lower = utf8_lower(word);
  const std::size_t first = first_code_point_bytes(lower);
  const std::string capitalised = utf8_upper(std::string_view(lower).substr(0, first)) + lower.substr(first);
  for (const std::string& candidate : {lower, capitalised, utf8_upper(word)}) {
    if (candidate != word && space.find(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> QueryRunner::outside_vocabulary(std::string_view word, std::vector<float>& vector) const {
  // The message, `detail` inside its parentheses; the case variant is looked for only here.
  auto unknown = [&](const std::string& detail) {
    const std::optional<std::string> variant = case_variant(space_, word);
    return fmt::format("unknown word \"{}\" (not among the {} words of {}{}{})", excerpt(word), space_.rows(),
                       space_.name(), detail,
                       variant ? fmt::format("; the vocabulary has \"{}\"", excerpt(*variant)) : std::string());
  };
  const SubwordTable* subwords = space_.subwords();
  if (subwords == nullptr) return unknown("");
  vector.resize(space_.dim());
  if (subwords->oov_vector(word, vector) == 0) {
    // fastText would give it a zero vector, which has no direction to compare.
    return unknown(fmt::format(", and it has no character n-grams of {} to {} characters for a subword vector",
                               subwords->settings().minn, subwords->settings().maxn));
  }
  return std::nullopt;
}

std::size_t QueryRunner::answer(const std::vector<QueryInput>& inputs) {
  // Look every word up first; failures are reported in order with the answers.
  std::vector<std::string> errors(inputs.size());
  std::vector<std::vector<std::uint64_t>> rows(inputs.size());  // kNoRow for a word outside the vocabulary
  std::vector<std::vector<float>> oov_vectors(inputs.size());   // those words' vectors, one after another
  std::vector<std::vector<std::string>> oov_words(inputs.size());
  std::vector<SearchQuery> searches;
  std::vector<std::size_t> search_of(inputs.size(), 0);
  std::vector<float> vector;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const QueryInput& input = inputs[i];
    if (!input.parse_error.empty()) {
      errors[i] = input.parse_error;
      continue;
    }
    for (const QueryWord& w : input.query.words) {
      if (const std::optional<std::uint64_t> row = space_.find(w.word)) {
        rows[i].push_back(*row);
        continue;
      }
      if (auto error = outside_vocabulary(w.word, vector)) {
        errors[i] = std::move(*error);
        break;
      }
      rows[i].push_back(kNoRow);
      oov_vectors[i].insert(oov_vectors[i].end(), vector.begin(), vector.end());
      oov_words[i].push_back(w.word);
    }
    if (!errors[i].empty() || input.query.kind == QueryKind::similarity) continue;
    SearchQuery search;
    search.combination = input.query.kind == QueryKind::expression ? options_.method : Combination::add;
    for (std::size_t w = 0; w < rows[i].size(); ++w) search.terms.push_back({rows[i][w], input.query.words[w].weight});
    search.vectors = oov_vectors[i];
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
      writer_.failure(input.text, input.parse_error.empty() ? &input.query : nullptr, errors[i]);
    } else if (input.query.kind == QueryKind::similarity) {
      std::size_t carried = 0;
      auto vector_of = [&](std::uint64_t row) {
        if (row != kNoRow) return space_.row_f32(row);
        const auto begin = oov_vectors[i].begin() + static_cast<std::ptrdiff_t>(space_.dim() * carried++);
        return std::vector<float>(begin, begin + static_cast<std::ptrdiff_t>(space_.dim()));
      };
      std::vector<float> a = vector_of(rows[i][0]);
      writer_.similarity(input.query, cosine(std::move(a), vector_of(rows[i][1])), oov_words[i]);
    } else {
      writer_.neighbours(input.query, results[search_of[i]], oov_words[i]);
    }
  }
  return failed;
}

}  // namespace embed
