#include "eval/eval_command.h"

#include <iostream>

#include "eval/case_insensitive_vocab.h"
#include "eval/eval_report.h"
#include "query/query_command.h"

namespace embed {

int run_eval_command(const EvalCommand& command) {
  const VectorSpace space = open_query_vectors(command.vectors, command.reading, command.options.threads);
  const CaseInsensitiveVocab vocab(space, command.restrict_rows);
  EvalReport report;
  report.vectors = space.name();
  report.restrict_rows = vocab.rows();
  report.method = command.method;
  if (!command.analogies.empty()) {
    const AnalogyEvalOptions analogy_options{command.options.method, command.options.threads, command.options.device};
    report.analogies_path = command.analogies;
    report.analogies = evaluate_analogies(space, vocab, command.analogies, analogy_options);
  }
  if (!command.word_pairs.empty()) {
    report.word_pairs_path = command.word_pairs;
    report.word_pairs = evaluate_word_pairs(space, vocab, command.word_pairs);
  }
  write_eval_report(std::cout, report, command.format);
  return 0;
}

}  // namespace embed
