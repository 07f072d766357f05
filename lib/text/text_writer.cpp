#include "text/text_writer.h"

#include <charconv>

#include "core/error.h"
#include "core/parallel.h"

#include <spdlog/spdlog.h>

namespace embed {

void append_values(std::string& text, std::span<const float> values, char separator) {
  char number[32];
  for (std::size_t i = 0; i < values.size(); ++i) {
    char* begin = number;
    if (i > 0) *begin++ = separator;
    auto result = std::to_chars(begin, number + sizeof number, values[i]);
    text.append(number, result.ptr);
  }
}

void write_row_blocks(std::size_t rows, unsigned threads, AtomicOutput& out,
                      const std::function<void(std::size_t row, std::string& text)>& format_row) {
  constexpr std::size_t kRowsPerBlock = 2048;
  const std::size_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  const std::size_t blocks_per_round = std::max(1u, threads) * 4;
  std::vector<std::string> texts(blocks_per_round);
  for (std::size_t first = 0; first < blocks; first += blocks_per_round) {
    const std::size_t count = std::min(blocks_per_round, blocks - first);
    parallel_for(count, threads, [&](std::size_t i) {
      std::string& text = texts[i];
      text.clear();
      const std::size_t begin = (first + i) * kRowsPerBlock;
      const std::size_t end = std::min(rows, begin + kRowsPerBlock);
      for (std::size_t r = begin; r < end; ++r) format_row(r, text);
    });
    for (std::size_t i = 0; i < count; ++i) out.write(texts[i]);
  }
}

void write_text_vectors(const EmbeddingTable& table, bool with_header, unsigned threads, AtomicOutput& out) {
  for (std::size_t r = 0; r < table.rows(); ++r) {
    if (table.word(r).find_first_of("\n\r") != std::string_view::npos) {
      fail("{}: row {}: the word contains a line break, which a text vector file cannot hold",
           out.is_stdout() ? "<stdout>" : out.path(), r + 1);
    }
  }
  if (!with_header && table.rows() > 0 && table.word(0).find_first_of(" \t") != std::string_view::npos) {
    spdlog::warn("the first word, \"{}\", contains a space: GloVe readers (this one included) take the dimension from "
                 "the first row and will misread it; word2vec text (--to w2v-text) has a header and reads back", table.word(0));
  }
  if (with_header) out.write(fmt::format("{} {}\n", table.rows(), table.dim));
  write_row_blocks(table.rows(), threads, out, [&](std::size_t r, std::string& text) {
    text.append(table.word(r));
    text.push_back(' ');
    append_values(text, table.row(r), ' ');
    text.push_back('\n');
  });
}

}  // namespace embed
