#include "eval/analogy_eval.h"

#include <array>
#include <sstream>

#include <fmt/format.h>

#include "core/byte_source.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/utf8.h"

namespace embed {
namespace {

// gensim asks most_similar for 5 answers and takes the first not spelled like a question word.
constexpr std::size_t kCandidates = 5;

struct Question {
  std::size_t section;
  std::array<std::string, 4> words;  // upper case
  std::array<std::uint64_t, 4> rows;
};

std::vector<std::string> split_whitespace(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> words;
  for (std::string w; stream >> w;) words.push_back(std::move(w));
  return words;
}

}  // namespace

AnalogyResult evaluate_analogies(const VectorSpace& space, const CaseInsensitiveVocab& vocab, const std::string& path,
                                 const AnalogyEvalOptions& options) {
  Searcher searcher(space, options.device, kCandidates, vocab.rows());
  InputStream in = InputStream::open(path);
  const std::vector<std::string> lines = in.read_lines();
  AnalogyResult result;
  std::vector<Question> questions;

  for (std::size_t line_number = 1; line_number <= lines.size(); ++line_number) {
    const std::string& line = lines[line_number - 1];
    if (line.rfind(": ", 0) == 0) {
      std::string name = line.substr(2);
      while (!name.empty() && (name.back() == '\r' || name.back() == ' ' || name.back() == '\t')) name.pop_back();
      while (!name.empty() && (name.front() == ' ' || name.front() == ':')) name.erase(0, 1);
      result.sections.push_back({name});
      continue;
    }
    const std::vector<std::string> words = split_whitespace(line);
    if (words.size() != 4) {
      ++result.skipped_lines;
      continue;
    }
    if (result.sections.empty()) fail_at(in.name(), line_number, "question before the first \": section\" line");
    ++result.questions;
    Question q{result.sections.size() - 1, {}, {}};
    bool known = true;
    for (std::size_t w = 0; w < 4 && known; ++w) {
      q.words[w] = utf8_upper(words[w]);
      const auto row = vocab.find(q.words[w]);
      known = row.has_value();
      if (known) q.rows[w] = *row;
    }
    if (known) questions.push_back(std::move(q));
  }

  // All questions in one batch: b - a + c, excluding a, b and c themselves.
  std::vector<SearchQuery> searches;
  searches.reserve(questions.size());
  for (const Question& q : questions) {
    searches.push_back({{{q.rows[1], 1.0f}, {q.rows[2], 1.0f}, {q.rows[0], -1.0f}}, options.method});
  }
  SearchOptions search_options;
  search_options.k = kCandidates;
  search_options.restrict_rows = vocab.rows();
  search_options.threads = options.threads;
  Progress progress(fmt::format("{}: answering", in.name()), searches.size(), "questions");
  search_options.on_progress = [&](std::size_t done) { progress.update(done); };
  const std::vector<std::vector<Hit>> answers = searcher.search(searches, search_options);
  progress.finish();

  for (std::size_t i = 0; i < questions.size(); ++i) {
    const Question& q = questions[i];
    std::string predicted;
    for (const Hit& hit : answers[i]) {
      predicted = utf8_upper(space.word(hit.row));
      if (predicted != q.words[0] && predicted != q.words[1] && predicted != q.words[2]) break;
    }
    AnalogySection& section = result.sections[q.section];
    const bool correct = predicted == q.words[3];
    section.answered += 1;
    section.correct += correct ? 1 : 0;
    result.total.answered += 1;
    result.total.correct += correct ? 1 : 0;
  }
  return result;
}

}  // namespace embed
