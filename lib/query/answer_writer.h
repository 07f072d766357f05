// Printing embed-query's answers in one of three shapes:
//   text  for people:   the query, then one indented "word  score" line per neighbour
//   tsv   for awk/cut:  "query<TAB>rank<TAB>word<TAB>score" per neighbour,
//                       "word<TAB>word<TAB>score" per similarity
//   json  for scripts:  one object per query and line (JSON lines), failures included
//                       as {"query": ..., "error": ...} so that answers stay aligned with questions
// A word outside the vocabulary answered from its fastText subword vector is marked
// "[oov: WORD]" after the query (text) or by "oov": true and "oov_words" (JSON); TSV keeps
// its columns.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "query/query_parse.h"
#include "search/top_k.h"
#include "search/vector_space.h"

namespace embed {

enum class OutputFormat { text, tsv, json };
OutputFormat parse_output_format(std::string_view name);  // CLI11 checks the spelling first

class AnswerWriter {
 public:
  AnswerWriter(std::ostream& out, OutputFormat format, const VectorSpace& space)
      : out_(out), format_(format), space_(space) {}

  // `oov` lists the query's words that are outside the vocabulary, answered from their
  // subword vectors: text marks the query line, JSON adds "oov": true and "oov_words".
  void neighbours(const ParsedQuery& query, const std::vector<Hit>& hits, const std::vector<std::string>& oov = {});
  void similarity(const ParsedQuery& query, float score, const std::vector<std::string>& oov = {});
  // Only JSON puts failures on stdout; the message itself goes to stderr in every format.
  void failure(std::string_view query_text, const std::string& message);

 private:
  std::ostream& out_;
  OutputFormat format_;
  const VectorSpace& space_;
};

}  // namespace embed
