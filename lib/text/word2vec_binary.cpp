#include "text/word2vec_binary.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "core/buffered_reader.h"
#include "core/error.h"
#include "core/excerpt.h"
#include "core/progress.h"
#include "core/utf8.h"
#include "text/text_reader.h"

static_assert(std::endian::native == std::endian::little, "word2vec binary files hold little-endian floats");

namespace embed {

EmbeddingTable read_word2vec_binary(InputStream& in, std::uint64_t limit, const WordSet* keep,
                                    const WordDecoding& words) {
  const std::string& name = in.name();
  BufferedReader reader(in);
  std::string header;
  for (int c; (c = reader.get()) != '\n';) {
    if (c < 0 || header.size() > 200) fail_at(name, 1, "expected a header \"COUNT DIM\" followed by a newline");
    header.push_back(static_cast<char>(c));
  }
  const auto count_dim = parse_count_dim_header(header);
  if (!count_dim) fail_at(name, 1, "expected a header \"COUNT DIM\", found \"{}\"", excerpt(header));
  const auto [rows, dim] = *count_dim;
  if (dim == 0) fail_at(name, 1, "the header gives dimension 0");
  if (dim > kMaxVectorDimension) {
    fail_at(name, 1, "the header gives dimension {}, which is not plausible (at most {})", dim, kMaxVectorDimension);
  }

  EmbeddingTable table;
  table.dim = dim;
  table.origin_kind = "row";
  const std::uint64_t wanted = limit ? std::min(rows, limit) : rows;
  if (!keep && in.size_hint()) {
    // Trust the header only as far as the file could hold that many rows.
    const std::uint64_t plausible = std::min(wanted, *in.size_hint() / (4 * dim + 2));
    table.values.reserve(plausible * dim);
    table.word_offsets.reserve(plausible + 1);
  }
  Progress progress("reading " + name, in.raw_size().value_or(0));
  std::vector<float> vector(dim);
  std::string word;
  for (std::uint64_t row = 1; row <= rows && table.rows() < wanted; ++row) {
    word.clear();
    int c = reader.get();
    while (c == '\n' || c == '\r') c = reader.get();  // word2vec C ends each vector with a newline; gensim may not
    while (c != ' ' && c >= 0) {
      word.push_back(static_cast<char>(c));
      if (word.size() > (1u << 20)) fail("{}: row {}: a word over 1 MB long: not word2vec binary data?", name, row);
      c = reader.get();
    }
    if (c < 0) {
      fail("{}: row {} (byte {}): truncated: the header promises {} rows but the file ends{}", name, row,
           reader.offset(), rows, word.empty() ? "" : " inside a word");
    }
    if (word.empty()) fail("{}: row {} (byte {}): empty word", name, row, reader.offset());
    if (!reader.read_exact(reinterpret_cast<char*>(vector.data()), 4 * dim)) {
      fail("{}: row {} (\"{}\"): truncated: the file ends inside the vector of {} floats", name, row, word, dim);
    }
    if (needs_decoding(word, words)) {
      std::string decoded;
      if (const auto problem = decode_word(word, words, decoded)) fail("{}: row {}: {}", name, row, *problem);
      word = std::move(decoded);
    }
    for (std::size_t i = 0; i < dim; ++i) {
      if (!std::isfinite(vector[i])) fail("{}: row {} (\"{}\"): component {} is not a finite number", name, row, word, i + 1);
    }
    if (keep && !keep->contains(word)) continue;
    table.add_row(word, vector, row);
    if (row % 4096 == 0) progress.update(in.raw_bytes_read());
  }
  if (!limit && !keep) {
    // Anything but trailing whitespace after the promised rows means the header count is wrong.
    for (int c; (c = reader.get()) >= 0;) {
      if (c != '\n' && c != '\r' && c != ' ') {
        fail_at(name, 1, "the header says {} words but more data follows row {}", rows, rows);
      }
    }
  }
  return table;
}

void write_word2vec_binary(const EmbeddingTable& table, AtomicOutput& out) {
  out.write(fmt::format("{} {}\n", table.rows(), table.dim));
  for (std::size_t r = 0; r < table.rows(); ++r) {
    const std::string_view word = table.word(r);
    if (word.find_first_of(" \n") != std::string_view::npos) {
      fail("{}: row {}: the word \"{}\" contains a space or newline, which word2vec's binary format cannot hold",
           out.is_stdout() ? "<stdout>" : out.path(), r + 1, word);
    }
    out.write(word);
    out.write(" ", 1);
    out.write(table.row(r).data(), table.dim * sizeof(float));
    out.write("\n", 1);
  }
}

}  // namespace embed
