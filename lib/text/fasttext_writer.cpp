#include "text/fasttext_writer.h"

#include <limits>
#include <vector>

#include "core/error.h"
#include "text/fasttext_model.h"

namespace embed {
namespace {

// Little-endian values, as fastText writes them (the machines we build for are).
template <typename T>
void put(std::vector<char>& bytes, T value) {
  const auto* p = reinterpret_cast<const char*>(&value);
  bytes.insert(bytes.end(), p, p + sizeof(T));
}

// A matrix's header (densematrix.cc: int64 rows, int64 cols), after its quantized flag.
void put_matrix_header(std::vector<char>& bytes, std::uint64_t rows, std::size_t dim) {
  put<std::uint8_t>(bytes, 0);  // not quantized
  put<std::int64_t>(bytes, static_cast<std::int64_t>(rows));
  put<std::int64_t>(bytes, static_cast<std::int64_t>(dim));
}

}  // namespace

void write_fasttext_model(const EmbeddingTable& table, const SubwordTable* subwords, std::span<const float> output,
                          const FastTextWriteArgs& args, AtomicOutput& out, const std::string& name) {
  const std::size_t rows = table.rows(), dim = table.dim;
  const SubwordSettings settings = subwords ? subwords->settings() : SubwordSettings{};
  if (subwords && subwords->dim() != dim) fail("{}: the n-gram buckets have {} dims, the vectors {}", name, subwords->dim(), dim);
  if (rows > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    fail("{}: {} words: a fastText model holds at most 2147483647", name, rows);
  }
  if (!output.empty() && output.size() != rows * dim) fail("{}: the context vectors are not one row per word", name);

  std::vector<char> head;
  put<std::int32_t>(head, kFastTextMagic);
  put<std::int32_t>(head, kFastTextVersion);
  // args.cc, Args::save: dim, ws, epoch, minCount, neg, wordNgrams, loss (2: negative
  // sampling), model (1 cbow, 2 skipgram), bucket, minn, maxn, lrUpdateRate, then t.
  for (std::int32_t value : {static_cast<std::int32_t>(dim), args.ws, args.epoch, args.min_count, args.neg, 1, 2,
                             args.cbow ? 1 : 2, static_cast<std::int32_t>(settings.buckets),
                             static_cast<std::int32_t>(settings.minn), static_cast<std::int32_t>(settings.maxn), 100}) {
    put<std::int32_t>(head, value);
  }
  put<double>(head, args.t);
  // dictionary.cc, Dictionary::save: size, nwords, nlabels, ntokens, pruneidx_size (-1:
  // not pruned), then each entry: the word and a NUL, int64 count, int8 type (0: word).
  std::int64_t tokens = 0;
  for (std::size_t r = 0; r < rows; ++r) tokens += table.counts.empty() ? 1 : table.counts[r];
  put<std::int32_t>(head, static_cast<std::int32_t>(rows));
  put<std::int32_t>(head, static_cast<std::int32_t>(rows));
  put<std::int32_t>(head, 0);
  put<std::int64_t>(head, tokens);
  put<std::int64_t>(head, -1);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::string_view word = table.word(r);
    if (word.empty() || word.find_first_of(std::string_view(" \t\n\v\f\r\0", 7)) != std::string_view::npos) {
      fail("{}: row {}: \"{}\" cannot be a fastText word (fastText splits words at whitespace)", name, r + 1, word);
    }
    const std::int64_t count = table.counts.empty() ? 1 : table.counts[r];
    if (count < 1) fail("{}: row {}: \"{}\" has count {}; a fastText word is counted at least once", name, r + 1, word, count);
    head.insert(head.end(), word.begin(), word.end());
    head.push_back('\0');
    put<std::int64_t>(head, count);
    put<std::int8_t>(head, 0);
  }
  // The input matrix: the words' rows, then the buckets'.
  put_matrix_header(head, rows + settings.buckets, dim);
  out.write(head.data(), head.size());

  // Word row = n × vector - Σ its n-grams' rows (n: the row and its n-grams), in double,
  // so that fastText's average of them gives the vector back.
  std::vector<float> row(dim);
  std::vector<float> ngram_sum(dim);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::span<const float> vector = table.row(r);
    std::vector<std::uint32_t> buckets;
    if (subwords && settings.maxn > 0) buckets = subword_buckets(table.word(r), settings);
    std::fill(ngram_sum.begin(), ngram_sum.end(), 0.0f);
    if (!buckets.empty()) subwords->add_rows(buckets, ngram_sum);
    const double n = static_cast<double>(1 + buckets.size());
    for (std::size_t k = 0; k < dim; ++k) row[k] = static_cast<float>(n * vector[k] - ngram_sum[k]);
    out.write(row.data(), dim * sizeof(float));
  }
  for (std::uint64_t b = 0; b < settings.buckets; ++b) {
    subwords->row(static_cast<std::uint32_t>(b), row);
    out.write(row.data(), dim * sizeof(float));
  }
  // The output matrix: the context vectors, or zeros.
  std::vector<char> tail;
  put_matrix_header(tail, rows, dim);
  out.write(tail.data(), tail.size());
  if (!output.empty()) {
    out.write(output.data(), output.size_bytes());
  } else {
    std::fill(row.begin(), row.end(), 0.0f);
    for (std::size_t r = 0; r < rows; ++r) out.write(row.data(), dim * sizeof(float));
  }
}

}  // namespace embed
