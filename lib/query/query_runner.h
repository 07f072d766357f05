// Answering a batch of parsed queries in input order: words are looked up, every
// neighbour and expression query of the batch goes through one search (one pass of
// blocked GEMM over the matrix, on the CPU or the GPU: search/searcher.h), similarities
// are computed directly, and a query that names an unknown word fails alone, with a
// message on stderr, while the rest are answered. With a fastText model's n-gram buckets
// (VectorSpace::subwords) an unknown word is answered from its subword vector instead,
// and the answer says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "query/answer_writer.h"
#include "query/query_parse.h"
#include "search/exact_search.h"
#include "search/searcher.h"
#include "search/vector_space.h"

namespace embed {

struct QueryOptions {
  std::size_t k = 10;
  std::uint64_t restrict_rows = 0;
  Combination method = Combination::add;  // for expressions; single words use plain cosine
  OutputFormat format = OutputFormat::text;
  unsigned threads = 1;
  DeviceOptions device;  // where batches are searched
};

// One question: parsed, or the reason it could not be.
struct QueryInput {
  std::string where;  // "<stdin>:12" for messages; empty for command-line queries
  std::string text;   // the line as given, echoed when it fails
  ParsedQuery query;
  std::string parse_error;  // non-empty: the line was not a query
};

// Parses `line` into a QueryInput, keeping a parse error instead of throwing.
QueryInput make_query_input(std::string where, std::string_view line);

class QueryRunner {
 public:
  // With --device cuda, throws embed::Error when no GPU is usable (see Searcher).
  QueryRunner(const VectorSpace& space, QueryOptions options, std::ostream& out)
      : space_(space),
        options_(options),
        writer_(out, options.format, space),
        searcher_(space, options.device, options.k, options.restrict_rows) {}

  // Answers `inputs` in order and returns how many failed.
  std::size_t answer(const std::vector<QueryInput>& inputs);

 private:
  // A word the vocabulary lacks: its subword vector into `vector` (when the vectors have
  // fastText's n-gram buckets), or the error that fails its query.
  std::optional<std::string> outside_vocabulary(std::string_view word, std::vector<float>& vector) const;

  const VectorSpace& space_;
  QueryOptions options_;
  AnswerWriter writer_;
  Searcher searcher_;
};

}  // namespace embed
