#include "train/glove/cooc_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "core/error.h"
#include "format/tensor_file.h"
#include "train/run/train_settings.h"

namespace embed {
namespace {
constexpr const char* kCoocFormat = "embed-train cooc";
constexpr const char* kCoocVersion = "1";
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
  write_tensor_file(out, kCoocFormat, kCoocVersion, blobs, std::move(metadata));
}

namespace {

// The entries of a mapped co-occurrence file, checked one by one.
class CheckedEntries final : public SortedEntries {
 public:
  CheckedEntries(std::string path, std::span<const std::byte> bytes, std::uint64_t rows)
      : path_(std::move(path)), bytes_(bytes), rows_(rows) {}
  bool next(CoocEntry& e) override {
    if (index_ * sizeof(CoocEntry) == bytes_.size()) return false;
    std::memcpy(&e, bytes_.data() + index_ * sizeof(CoocEntry), sizeof(CoocEntry));
    if (e.row >= rows_ || e.column >= rows_) {
      fail("{}: co-occurrence entry {} names word {} beyond the vocabulary of {}", path_, index_, std::max(e.row, e.column),
           rows_);
    }
    if (!(e.count > 0) || !std::isfinite(e.count)) fail("{}: co-occurrence entry {} has a count of {}", path_, index_, e.count);
    if (index_ > 0 && previous_ >= cooc_key(e))
      fail("{}: co-occurrence entries {} and {} are out of order", path_, index_ - 1, index_);
    previous_ = cooc_key(e);
    ++index_;
    return true;
  }

 private:
  std::string path_;
  std::span<const std::byte> bytes_;
  std::uint64_t rows_;
  std::uint64_t index_ = 0;
  std::uint64_t previous_ = 0;
};

}  // namespace

CoocFileReader::CoocFileReader(const std::string& path)
    : file_(std::make_unique<TensorFileReader>(path, kCoocFormat, kCoocVersion, "co-occurrence file")) {
  const TensorFileReader& r = *file_;
  CoocInfo& m = info_;
  m.window = r.meta_uint("window");
  m.symmetric = r.meta("symmetric") == "1";
  m.min_count = r.meta_uint("min_count");
  m.max_vocab = r.meta_uint("max_vocab");
  m.corpus = r.meta("corpus");
  m.corpus_tokens = r.meta_uint("corpus_tokens");
  m.corpus_distinct_words = r.meta_uint("corpus_distinct_words");
  if (r.meta("weighting") != "1/distance") fail("{}: the co-occurrence file's weighting is not 1/distance", path);
  if (const auto window = static_cast<double>(m.window); window < kWindowRange.low || window > kWindowRange.high) {
    fail("{}: co-occurrence file window {} is out of range {}..{}", path, m.window, kWindowRange.low, kWindowRange.high);
  }

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
  entries_ = r.elements("cooc") / 3;
  r.tensor("cooc", DType::u32, entries_ * 3);  // checks the type and shape now
}

CoocFileReader::~CoocFileReader() = default;

std::unique_ptr<SortedEntries> CoocFileReader::read() const {
  return std::make_unique<CheckedEntries>(file_->path(), file_->tensor("cooc", DType::u32, entries_ * 3), info_.vocab.size());
}

CoocMatrix load_cooc(const std::string& path) {
  CoocFileReader reader(path);
  CoocMatrix m;
  static_cast<CoocInfo&>(m) = reader.info();
  m.entries.reserve(reader.entries());
  const auto entries = reader.read();
  for (CoocEntry e; entries->next(e);) m.entries.push_back(e);
  return m;
}

}  // namespace embed
