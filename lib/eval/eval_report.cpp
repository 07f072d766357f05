#include "eval/eval_report.h"

#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace embed {
namespace {

double percent(std::uint64_t part, std::uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// NaN (a constant column) has no JSON spelling; null says "undefined".
nlohmann::ordered_json number_or_null(double value) { return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(); }

void write_text(std::ostream& out, const EvalReport& report) {
  std::string text;
  if (report.analogies) {
    const AnalogyResult& a = *report.analogies;
    text += fmt::format("analogies: {} ({}, restricted to the first {} words)\n", report.analogies_path, report.method,
                        report.restrict_rows);
    std::size_t width = 5;
    for (const AnalogySection& s : a.sections) width = std::max(width, s.name.size());
    for (const AnalogySection& s : a.sections) {
      if (s.answered == 0) {
        text += fmt::format("  {:<{}}  no question covered\n", s.name, width);
      } else {
        text += fmt::format("  {:<{}}  {:5.1f}% ({}/{})\n", s.name, width, percent(s.correct, s.answered), s.correct,
                            s.answered);
      }
    }
    text += fmt::format("  {:<{}}  {:5.2f}% ({}/{})\n", "total", width, percent(a.total.correct, a.total.answered),
                        a.total.correct, a.total.answered);
    text += fmt::format("  covered {} of {} questions ({:.1f}%); {:.1f}% had a word outside the vocabulary\n",
                        a.total.answered, a.questions, percent(a.total.answered, a.questions),
                        100.0 - percent(a.total.answered, a.questions));
  }
  if (report.word_pairs) {
    const WordPairsResult& w = *report.word_pairs;
    text += fmt::format("word pairs: {} (restricted to the first {} words)\n", report.word_pairs_path,
                        report.restrict_rows);
    text += fmt::format("  Spearman {:.4f}  Pearson {:.4f}  pairs {} of {}  OOV {:.1f}%\n", w.spearman, w.pearson,
                        w.usable_pairs(), w.pairs, w.oov_percent());
  }
  out << text;
}

void write_json(std::ostream& out, const EvalReport& report) {
  nlohmann::ordered_json json = {{"vectors", report.vectors}, {"restrict", report.restrict_rows}};
  if (report.analogies) {
    const AnalogyResult& a = *report.analogies;
    nlohmann::ordered_json sections = nlohmann::ordered_json::array();
    for (const AnalogySection& s : a.sections) {
      sections.push_back({{"section", s.name}, {"correct", s.correct}, {"answered", s.answered},
                          {"accuracy", s.answered ? nlohmann::ordered_json(percent(s.correct, s.answered)) : nlohmann::ordered_json()}});
    }
    json["analogies"] = {{"file", report.analogies_path},
                         {"method", report.method},
                         {"accuracy", percent(a.total.correct, a.total.answered)},
                         {"correct", a.total.correct},
                         {"answered", a.total.answered},
                         {"questions", a.questions},
                         {"coverage", percent(a.total.answered, a.questions)},
                         {"sections", std::move(sections)}};
  }
  if (report.word_pairs) {
    const WordPairsResult& w = *report.word_pairs;
    json["word_pairs"] = {{"file", report.word_pairs_path},       {"spearman", number_or_null(w.spearman)},
                          {"pearson", number_or_null(w.pearson)}, {"pairs", w.usable_pairs()},
                          {"pairs_in_file", w.pairs},             {"oov_pairs", w.oov_pairs},
                          {"oov_percent", w.oov_percent()}};
  }
  out << json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

// One row per figure, for awk and cut: KIND<TAB>NAME<TAB>VALUE<TAB>COUNT<TAB>OF.
//   analogies  SECTION|total  accuracy %  correct  answered   ("nan" where none was answered)
//   analogies  coverage       covered %   answered questions
//   word-pairs spearman|pearson  coefficient  pairs used  pairs in the file
void write_tsv(std::ostream& out, const EvalReport& report) {
  std::string text;
  auto row = [&](std::string_view kind, std::string_view name, double value, std::uint64_t count, std::uint64_t of) {
    text += fmt::format("{}\t{}\t{}\t{}\t{}\n", kind, name, std::isfinite(value) ? fmt::format("{:.6g}", value) : "nan",
                        count, of);
  };
  if (report.analogies) {
    const AnalogyResult& a = *report.analogies;
    for (const AnalogySection& s : a.sections) {
      row("analogies", s.name, s.answered ? percent(s.correct, s.answered) : NAN, s.correct, s.answered);
    }
    row("analogies", "total", a.total.answered ? percent(a.total.correct, a.total.answered) : NAN, a.total.correct,
        a.total.answered);
    row("analogies", "coverage", percent(a.total.answered, a.questions), a.total.answered, a.questions);
  }
  if (report.word_pairs) {
    const WordPairsResult& w = *report.word_pairs;
    row("word-pairs", "spearman", w.spearman, w.usable_pairs(), w.pairs);
    row("word-pairs", "pearson", w.pearson, w.usable_pairs(), w.pairs);
  }
  out << text;
}

}  // namespace

void write_eval_report(std::ostream& out, const EvalReport& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return write_json(out, report);
    case OutputFormat::tsv: return write_tsv(out, report);
    case OutputFormat::text: return write_text(out, report);
  }
}

}  // namespace embed
