#include "query/answer_writer.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace embed {
namespace {

// Invalid UTF-8 in a word becomes U+FFFD in JSON rather than an exception.
std::string json_line(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// The text marker after a query some of whose words come from subword vectors.
std::string oov_marker(const std::vector<std::string>& oov) {
  return oov.empty() ? "" : fmt::format("  [oov: {}]", fmt::join(oov, ", "));
}

// JSON's fields for the same.
void add_oov(nlohmann::ordered_json& answer, const std::vector<std::string>& oov) {
  if (oov.empty()) return;
  answer["oov"] = true;
  answer["oov_words"] = oov;
}

// Scores rounded to what float32 can tell apart, as plain numbers.
double rounded(float score) { return std::stod(fmt::format("{:.6g}", score)); }

}  // namespace

OutputFormat parse_output_format(std::string_view name) {
  if (name == "tsv") return OutputFormat::tsv;
  if (name == "json") return OutputFormat::json;
  return OutputFormat::text;
}

void AnswerWriter::neighbours(const ParsedQuery& query, const std::vector<Hit>& hits, const std::vector<std::string>& oov) {
  switch (format_) {
    case OutputFormat::text: {
      std::size_t width = 0;
      for (const Hit& hit : hits) width = std::max(width, space_.word(hit.row).size());
      std::string block = query.text + oov_marker(oov) + "\n";
      for (const Hit& hit : hits) block += fmt::format("  {:<{}}  {:.4f}\n", space_.word(hit.row), width, hit.score);
      out_ << block;
      break;
    }
    case OutputFormat::tsv: {
      std::string block;
      for (std::size_t i = 0; i < hits.size(); ++i) {
        block += fmt::format("{}\t{}\t{}\t{:.6f}\n", query.text, i + 1, space_.word(hits[i].row), hits[i].score);
      }
      out_ << block;
      break;
    }
    case OutputFormat::json: {
      nlohmann::ordered_json results = nlohmann::ordered_json::array();
      for (const Hit& hit : hits) results.push_back({{"word", space_.word(hit.row)}, {"score", rounded(hit.score)}});
      const char* type = query.kind == QueryKind::neighbours ? "neighbours" : "expression";
      nlohmann::ordered_json answer = {{"query", query.text}, {"type", type}};
      add_oov(answer, oov);
      answer["results"] = std::move(results);
      out_ << json_line(answer);
      break;
    }
  }
}

void AnswerWriter::similarity(const ParsedQuery& query, float score, const std::vector<std::string>& oov) {
  const std::string& a = query.words[0].word;
  const std::string& b = query.words[1].word;
  switch (format_) {
    case OutputFormat::text:
      out_ << fmt::format("{} {} {:.4f}{}\n", a, b, score, oov_marker(oov));
      break;
    case OutputFormat::tsv:
      out_ << fmt::format("{}\t{}\t{:.6f}\n", a, b, score);
      break;
    case OutputFormat::json:
      nlohmann::ordered_json answer = {{"query", query.text}, {"type", "similarity"}, {"words", {a, b}}};
      add_oov(answer, oov);
      answer["score"] = rounded(score);
      out_ << json_line(answer);
      break;
  }
}

void AnswerWriter::failure(std::string_view query_text, const std::string& message) {
  if (format_ == OutputFormat::json) out_ << json_line({{"query", query_text}, {"error", message}});
}

}  // namespace embed
