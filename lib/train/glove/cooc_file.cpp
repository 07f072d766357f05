#include "train/glove/cooc_file.h"

#include <cmath>

#include "core/error.h"
#include "format/tensor_file.h"

namespace embed {
namespace {
constexpr const char* kFormat = "embed-train cooc";
constexpr const char* kVersion = "1";
}  // namespace

void save_cooc(AtomicOutput& out, const CoocMatrix& m) {
  const auto source = entries_source(m.entries);
  save_cooc(out, m, m.entries.size(), *source);
}

void save_cooc(AtomicOutput& out, const CoocInfo& m, std::uint64_t count, SortedEntries& source) {
  const PackedWords words = pack_words(m.vocab);
  const std::uint64_t rows = m.vocab.size();
  auto stream_entries = [&](const TensorBlob::Put& put) {
    constexpr std::size_t kBlock = 1 << 16;
    std::vector<CoocEntry> block;
    block.reserve(kBlock);
    for (std::uint64_t i = 0; i < count; ++i) {
      CoocEntry e;
      if (!source.next(e)) fail("{}: the co-occurrence counts ended early", out.path());
      block.push_back(e);
      if (block.size() == kBlock || i + 1 == count) {
        put(std::as_bytes(std::span(block)));
        block.clear();
      }
    }
  };
  const std::vector<TensorBlob> blobs = {
      {"cooc", DType::u32, {count, 3}, {}, stream_entries},
      {"counts", DType::i64, {rows}, std::as_bytes(std::span(m.vocab.counts))},
      {"vocab.offsets", DType::i64, {rows + 1}, std::as_bytes(std::span(words.offsets))},
      {"vocab.bytes", DType::u8, {words.bytes.size()}, std::as_bytes(std::span(words.bytes))},
  };
  std::map<std::string, std::string> metadata = {
      {"window", std::to_string(m.window)},
      {"symmetric", m.symmetric ? "1" : "0"},
      {"weighting", "1/distance"},
      {"min_count", std::to_string(m.min_count)},
      {"max_vocab", std::to_string(m.max_vocab)},
      {"corpus", m.corpus},
      {"corpus_tokens", std::to_string(m.corpus_tokens)},
      {"corpus_distinct_words", std::to_string(m.corpus_distinct_words)},
      {"creator", "embed-train " EMBED_VERSION},
  };
  write_tensor_file(out, kFormat, kVersion, blobs, std::move(metadata));
}

CoocMatrix load_cooc(const std::string& path) {
  const TensorFileReader r(path, kFormat, kVersion, "co-occurrence file");
  CoocMatrix m;
  m.window = r.meta_uint("window");
  m.symmetric = r.meta("symmetric") == "1";
  m.min_count = r.meta_uint("min_count");
  m.max_vocab = r.meta_uint("max_vocab");
  m.corpus = r.meta("corpus");
  m.corpus_tokens = r.meta_uint("corpus_tokens");
  m.corpus_distinct_words = r.meta_uint("corpus_distinct_words");
  if (r.meta("weighting") != "1/distance" || m.window == 0) fail("{}: the co-occurrence file's settings are invalid", path);

  const std::uint64_t rows = r.elements("counts");
  if (rows == 0 || rows > 0xffffffffu) fail("{}: the co-occurrence file's vocabulary is empty or too large", path);
  m.vocab.counts = r.copy<std::int64_t>("counts", DType::i64, rows);
  const auto offsets = r.copy<std::int64_t>("vocab.offsets", DType::i64, rows + 1);
  const auto bytes = r.tensor("vocab.bytes", DType::u8, r.elements("vocab.bytes"));
  for (std::uint64_t i = 0; i < rows; ++i) {
    if (offsets[i] < 0 || offsets[i] > offsets[i + 1] || static_cast<std::uint64_t>(offsets[i + 1]) > bytes.size()) {
      fail("{}: the co-occurrence file's vocabulary is malformed", path);
    }
    m.vocab.words.emplace_back(reinterpret_cast<const char*>(bytes.data()) + offsets[i],
                               static_cast<std::size_t>(offsets[i + 1] - offsets[i]));
  }
  const std::uint64_t n = r.elements("cooc") / 3;
  m.entries = r.copy<CoocEntry>("cooc", DType::u32, n * 3);
  for (std::uint64_t i = 0; i < n; ++i) {
    const CoocEntry& e = m.entries[i];
    if (e.row >= rows || e.column >= rows) {
      fail("{}: co-occurrence entry {} names word {} beyond the vocabulary of {}", path, i, std::max(e.row, e.column), rows);
    }
    if (!(e.count > 0) || !std::isfinite(e.count)) fail("{}: co-occurrence entry {} has a count of {}", path, i, e.count);
    if (i > 0 && cooc_key(m.entries[i - 1]) >= cooc_key(e)) fail("{}: co-occurrence entries {} and {} are out of order", path, i - 1, i);
  }
  return m;
}

}  // namespace embed
