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

// Scores rounded to what float32 can tell apart, as plain numbers.
double rounded(float score) { return std::stod(fmt::format("{:.6g}", score)); }

}  // namespace

OutputFormat parse_output_format(std::string_view name) {
  if (name == "tsv") return OutputFormat::tsv;
  if (name == "json") return OutputFormat::json;
  return OutputFormat::text;
}

void AnswerWriter::neighbours(const ParsedQuery& query, const std::vector<Hit>& hits) {
  switch (format_) {
    case OutputFormat::text: {
      std::size_t width = 0;
      for (const Hit& hit : hits) width = std::max(width, space_.word(hit.row).size());
      std::string block = query.text + "\n";
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
      out_ << json_line({{"query", query.text}, {"type", type}, {"results", std::move(results)}});
      break;
    }
  }
}

void AnswerWriter::similarity(const ParsedQuery& query, float score) {
  const std::string& a = query.words[0].word;
  const std::string& b = query.words[1].word;
  switch (format_) {
    case OutputFormat::text:
      out_ << fmt::format("{} {} {:.4f}\n", a, b, score);
      break;
    case OutputFormat::tsv:
      out_ << fmt::format("{}\t{}\t{:.6f}\n", a, b, score);
      break;
    case OutputFormat::json:
      out_ << json_line({{"query", query.text}, {"type", "similarity"}, {"words", {a, b}}, {"score", rounded(score)}});
      break;
  }
}

void AnswerWriter::failure(std::string_view query_text, const std::string& message) {
  if (format_ == OutputFormat::json) out_ << json_line({{"query", query_text}, {"error", message}});
}

}  // namespace embed
