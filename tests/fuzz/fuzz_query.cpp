// What embed-query reads from its user: query lines (neighbours, analogies,
// expressions), and evaluation files (analogy questions, word pairs) against a small
// vector space. The first byte chooses which.
#include "core/error.h"
#include "eval/analogy_eval.h"
#include "eval/case_insensitive_vocab.h"
#include "eval/word_pairs_eval.h"
#include "format/embedding_table.h"
#include "fuzz_util.h"
#include "query/query_parse.h"
#include "search/vector_space.h"

namespace {

const embed::VectorSpace& space() {
  static const embed::VectorSpace vectors = [] {
    embed::EmbeddingTable table;
    table.dim = 3;
    const char* words[] = {"a", "b", "c", "d", "paris", "france", "Italy", "rome"};
    float v = 0.1f;
    for (const char* w : words) {
      const float row[3] = {v, 1.0f - v, v * v};
      table.add_row(w, row, 1);
      v += 0.1f;
    }
    return embed::VectorSpace::from_table(std::move(table), "fuzz", 1);
  }();
  return vectors;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0:
        embed::parse_query_line(text);
        break;
      case 1: {
        const embed::CaseInsensitiveVocab vocab(space(), 1000);
        embed::evaluate_analogies(space(), vocab, embed::fuzz::scratch_file(text, ".questions"), embed::AnalogyEvalOptions{});
        break;
      }
      default: {
        const embed::CaseInsensitiveVocab vocab(space(), 1000);
        embed::evaluate_word_pairs(space(), vocab, embed::fuzz::scratch_file(text, ".pairs"));
      }
    }
  } catch (const embed::Error&) {
  }
  return 0;
}
