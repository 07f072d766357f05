#include "query/answer_writer.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "core/enum_names.h"

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

// A TSV field from free text: tabs and line breaks would add columns or rows.
std::string tsv_field(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  std::string field(text);
  std::replace_if(
      field.begin(), field.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return field;
}

// How JSON names a query: its text, or a similarity's two words.
nlohmann::ordered_json json_query(const ParsedQuery& query) {
  if (query.kind == QueryKind::similarity) return {query.words[0].word, query.words[1].word};
  return query.text;
}

constexpr EnumName<OutputFormat> kOutputFormatNames[] = {
    {OutputFormat::text, "text"}, {OutputFormat::tsv, "tsv"}, {OutputFormat::json, "json"}};

// Scores rounded to what float32 can tell apart, as plain numbers.
double rounded(float score) { return std::stod(fmt::format("{:.6g}", score)); }

}  // namespace

OutputFormat parse_output_format(std::string_view name) {
  return parse_in(kOutputFormatNames, name).value_or(OutputFormat::text);
}
std::vector<std::string> output_format_names() { return names_in(kOutputFormatNames); }

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
    case OutputFormat::text: out_ << fmt::format("{} {} {:.4f}{}\n", a, b, score, oov_marker(oov)); break;
    case OutputFormat::tsv: out_ << fmt::format("{}\t{}\t{:.6f}\n", a, b, score); break;
    case OutputFormat::json:
      nlohmann::ordered_json answer = {{"query", json_query(query)}, {"type", "similarity"}, {"words", {a, b}}};
      add_oov(answer, oov);
      answer["score"] = rounded(score);
      out_ << json_line(answer);
      break;
  }
}

void AnswerWriter::failure(std::string_view text, const ParsedQuery* query, const std::string& message) {
  switch (format_) {
    case OutputFormat::text: break;
    case OutputFormat::tsv: {
      // The columns a success would begin with, then "error" in the rank or score column.
      std::string start = tsv_field(query ? query->text : text);
      if (query && query->kind == QueryKind::similarity) {
        start = tsv_field(query->words[0].word) + "\t" + tsv_field(query->words[1].word);
      }
      out_ << fmt::format("{}\terror\t{}\n", start, tsv_field(message));
      break;
    }
    case OutputFormat::json: {
      const nlohmann::ordered_json name = query ? json_query(*query) : nlohmann::ordered_json(std::string(text));
      out_ << json_line({{"query", name}, {"error", message}});
      break;
    }
  }
}

}  // namespace embed
