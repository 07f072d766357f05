#include "train/checkpoint.h"

#include <cstring>

#include <fmt/format.h>

#include "core/atomic_output.h"
#include "core/checksum.h"
#include "core/error.h"
#include "core/mapped_file.h"
#include "format/safetensors.h"

namespace embed {
namespace {

constexpr const char* kFormat = "embed-train checkpoint";
constexpr const char* kVersion = "1";

// A tensor to write: its name, type, shape and bytes.
struct Blob {
  std::string name;
  DType dtype;
  std::vector<std::uint64_t> shape;
  std::span<const std::byte> bytes;
};

}  // namespace

void save_checkpoint(const std::string& path, const TrainingRun& run) {
  const TrainSettings& settings = run.settings;
  const Corpus& corpus = run.corpus;
  const TrainState& state = run.state;
  const PackedWords words = pack_words(corpus.vocab);
  std::vector<std::int64_t> line_ends(corpus.line_ends.begin(), corpus.line_ends.end());
  std::vector<std::int64_t> positions(state.positions.begin(), state.positions.end());
  std::vector<std::uint64_t> random_words;
  for (const auto& r : state.random) random_words.insert(random_words.end(), r.begin(), r.end());

  const std::uint64_t rows = run.input.rows(), stride = run.input.stride();
  const std::vector<Blob> blobs = {
      {"input", DType::f32, {rows, stride}, std::as_bytes(run.input.span())},
      {"output", DType::f32, {rows, stride}, std::as_bytes(run.output_table.span())},
      {"counts", DType::i64, {rows}, std::as_bytes(std::span(corpus.vocab.counts))},
      {"vocab.offsets", DType::i64, {rows + 1}, std::as_bytes(std::span(words.offsets))},
      {"corpus.line_ends", DType::i64, {line_ends.size()}, std::as_bytes(std::span(line_ends))},
      {"positions", DType::i64, {positions.size()}, std::as_bytes(std::span(positions))},
      {"random", DType::i64, {state.random.size(), 4}, std::as_bytes(std::span(random_words))},
      {"corpus.ids", DType::u32, {corpus.ids.size()}, std::as_bytes(std::span(corpus.ids))},
      {"vocab.bytes", DType::u8, {words.bytes.size()}, std::as_bytes(std::span(words.bytes))},
  };
  std::vector<safetensors::TensorInfo> tensors;
  std::uint64_t offset = 0;
  std::uint32_t crc = 0;
  for (const auto& b : blobs) {
    tensors.push_back({b.name, b.dtype, b.shape, offset, offset + b.bytes.size()});
    offset += b.bytes.size();
    crc = crc32(b.bytes, crc);
  }
  const OutputSettings& output = run.output;
  std::map<std::string, std::string> metadata = settings_metadata(settings);
  metadata.insert({
      {"format", kFormat},
      {"version", kVersion},
      {"dim", std::to_string(settings.dim)},
      {"threads", std::to_string(settings.threads)},
      {"output", output.output},
      {"dtype", output.dtype},
      {"save_context", output.save_context ? "1" : "0"},
      {"min_count", std::to_string(output.min_count)},
      {"max_vocab", std::to_string(output.max_vocab)},
      {"corpus", corpus.name},
      {"corpus_tokens", std::to_string(corpus.tokens)},
      {"corpus_distinct_words", std::to_string(corpus.distinct_words)},
      {"epoch", std::to_string(state.epoch)},
      {"words_done", std::to_string(state.words_done)},
      {"epoch_loss", fmt::format("{}", state.epoch_loss)},
      {"epoch_examples", std::to_string(state.epoch_examples)},
      {"crc32", fmt::format("{:08x}", crc)},
  });
  std::string json = safetensors::header_json(tensors, metadata);
  const std::uint64_t header_size = (json.size() + 7) / 8 * 8;
  AtomicOutput out(path);
  out.write(safetensors::frame_header(std::move(json), header_size));
  for (const auto& b : blobs) out.write(b.bytes.data(), b.bytes.size());
  out.commit();
}

namespace {

class CheckpointReader {
 public:
  explicit CheckpointReader(const std::string& path) : path_(path), file_(MappedFile::open(path)) {
    header_ = safetensors::parse(file_->bytes(), path);
    if (meta("format", false) != kFormat) fail("{}: not an embed-train checkpoint", path);
    if (meta("version") != kVersion) {
      fail("{}: checkpoint version {} is not supported (this embed-train reads version {})", path, meta("version"), kVersion);
    }
    const auto data = file_->bytes().subspan(header_.data_start);
    if (fmt::format("{:08x}", crc32(data)) != meta("crc32")) fail("{}: the checkpoint is damaged (checksum mismatch)", path);
  }

  std::string meta(const std::string& key, bool required = true) const {
    auto it = header_.metadata.find(key);
    if (it == header_.metadata.end()) {
      if (required) fail("{}: the checkpoint lacks \"{}\"", path_, key);
      return {};
    }
    return it->second;
  }
  // The metadata value `key`, read whole by `parse` (std::stoull, std::stod).
  template <typename Parse>
  auto meta_number(const std::string& key, Parse parse) const {
    const std::string text = meta(key);
    try {
      std::size_t used = 0;
      const auto value = parse(text, &used);
      if (used == text.size()) return value;
    } catch (const std::exception&) {
    }
    fail("{}: checkpoint field \"{}\" is not a number: \"{}\"", path_, key, text);
  }

  std::uint64_t meta_uint(const std::string& key) const {
    return meta_number(key, [](const std::string& text, std::size_t* used) { return std::stoull(text, used); });
  }
  double meta_double(const std::string& key) const {
    return meta_number(key, [](const std::string& text, std::size_t* used) { return std::stod(text, used); });
  }

  // The tensor's bytes, checked against the expected type and element count.
  std::span<const std::byte> tensor(const std::string& name, DType dtype, std::uint64_t elements) const {
    const auto* info = header_.find(name);
    if (info == nullptr) fail("{}: the checkpoint lacks the tensor \"{}\"", path_, name);
    if (info->dtype != dtype || info->end - info->begin != elements * dtype_size(dtype)) {
      fail("{}: checkpoint tensor \"{}\" has the wrong type or size", path_, name);
    }
    return file_->bytes().subspan(header_.data_start + info->begin, info->end - info->begin);
  }
  std::uint64_t elements(const std::string& name) const {
    const auto* info = header_.find(name);
    if (info == nullptr) fail("{}: the checkpoint lacks the tensor \"{}\"", path_, name);
    return (info->end - info->begin) / dtype_size(info->dtype);
  }
  template <typename T>
  std::vector<T> copy(const std::string& name, DType dtype, std::uint64_t elements) const {
    const auto bytes = tensor(name, dtype, elements);
    std::vector<T> out(elements);
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }

 private:
  std::string path_;
  std::shared_ptr<const MappedFile> file_;
  safetensors::Header header_;
};

}  // namespace

TrainingRun load_checkpoint(const std::string& path) {
  const CheckpointReader r(path);
  TrainingRun c;
  TrainSettings& s = c.settings;
  const std::string model = r.meta("model");
  const std::optional<Model> parsed = parse_model_name(model);
  if (!parsed) fail("{}: unknown model \"{}\" in the checkpoint", path, model);
  s.model = *parsed;
  s.dim = r.meta_uint("dim");
  s.window = r.meta_uint("window");
  s.negative = r.meta_uint("negative");
  s.sample = r.meta_double("sample");
  s.epochs = static_cast<unsigned>(r.meta_uint("epochs"));
  s.lr = static_cast<float>(r.meta_double("lr"));
  s.seed = r.meta_uint("seed");
  s.threads = static_cast<unsigned>(r.meta_uint("threads"));
  if (s.dim == 0 || s.window == 0 || s.threads == 0 || s.epochs == 0 || s.negative > 60) {
    fail("{}: the checkpoint's settings are invalid", path);
  }
  c.output.output = r.meta("output");
  c.output.dtype = r.meta("dtype");
  c.output.save_context = r.meta("save_context") == "1";
  c.output.min_count = r.meta_uint("min_count");
  c.output.max_vocab = r.meta_uint("max_vocab");

  const std::uint64_t rows = r.elements("counts");
  const std::uint64_t stride = RowMatrix::stride_for(s.dim);
  if (rows == 0) fail("{}: the checkpoint has an empty vocabulary", path);
  c.corpus.vocab.counts = r.copy<std::int64_t>("counts", DType::i64, rows);
  const auto offsets = r.copy<std::int64_t>("vocab.offsets", DType::i64, rows + 1);
  const auto word_bytes = r.tensor("vocab.bytes", DType::u8, r.elements("vocab.bytes"));
  for (std::uint64_t i = 0; i < rows; ++i) {
    if (offsets[i] < 0 || offsets[i] > offsets[i + 1] || static_cast<std::uint64_t>(offsets[i + 1]) > word_bytes.size()) {
      fail("{}: the checkpoint's vocabulary is malformed", path);
    }
    c.corpus.vocab.words.emplace_back(reinterpret_cast<const char*>(word_bytes.data()) + offsets[i],
                                      static_cast<std::size_t>(offsets[i + 1] - offsets[i]));
  }
  c.corpus.ids = r.copy<std::uint32_t>("corpus.ids", DType::u32, r.elements("corpus.ids"));
  for (std::uint32_t id : c.corpus.ids) {
    if (id >= rows) fail("{}: the checkpoint's corpus names a word beyond the vocabulary", path);
  }
  for (auto end : r.copy<std::int64_t>("corpus.line_ends", DType::i64, r.elements("corpus.line_ends"))) {
    if (end < 0 || static_cast<std::uint64_t>(end) > c.corpus.ids.size()) fail("{}: the checkpoint's line ends are malformed", path);
    c.corpus.line_ends.push_back(static_cast<std::uint64_t>(end));
  }
  c.corpus.name = r.meta("corpus");
  c.corpus.tokens = r.meta_uint("corpus_tokens");
  c.corpus.distinct_words = r.meta_uint("corpus_distinct_words");

  c.input = RowMatrix(rows, s.dim);
  c.output_table = RowMatrix(rows, s.dim);
  const auto input_bytes = r.tensor("input", DType::f32, rows * stride);
  const auto output_bytes = r.tensor("output", DType::f32, rows * stride);
  std::memcpy(c.input.data(), input_bytes.data(), input_bytes.size());
  std::memcpy(c.output_table.data(), output_bytes.data(), output_bytes.size());

  TrainState& state = c.state;
  state.epoch = static_cast<unsigned>(r.meta_uint("epoch"));
  state.words_done = r.meta_uint("words_done");
  state.epoch_loss = r.meta_double("epoch_loss");
  state.epoch_examples = r.meta_uint("epoch_examples");
  for (auto p : r.copy<std::int64_t>("positions", DType::i64, s.threads)) {
    if (p < 0 || static_cast<std::uint64_t>(p) > c.corpus.ids.size()) fail("{}: the checkpoint's positions are malformed", path);
    state.positions.push_back(static_cast<std::uint64_t>(p));
  }
  const auto words = r.copy<std::uint64_t>("random", DType::i64, std::uint64_t{s.threads} * 4);
  for (unsigned w = 0; w < s.threads; ++w) state.random.push_back({words[4 * w], words[4 * w + 1], words[4 * w + 2], words[4 * w + 3]});
  if (state.epoch > s.epochs) fail("{}: the checkpoint's epoch is past its last", path);
  return c;
}

}  // namespace embed
