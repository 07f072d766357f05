#include "train/files/checkpoint.h"

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/excerpt.h"
#include "core/mapped_file.h"
#include "format/safetensors.h"
#include "format/tensor_file.h"
#include "train/run/model_registry.h"
#include "train/run/training_model.h"

namespace embed {
namespace {

constexpr const char* kFormat = "embed-train checkpoint";
// Version 3 (issue 17): the corpus is named (files, sizes, modification times), not held;
// the workers' shards are stored with their positions. Version 4: GloVe's records are
// named (their file beside the output), not held. Since issue 20 a checkpoint of an
// N-rank job (mpirun) says "ranks" and holds N x threads workers; without it, one process.
constexpr const char* kVersion = "4";

// The metadata key of a corpus file's field: "corpus_file.0.path".
std::string file_key(std::size_t file, std::string_view field) { return fmt::format("corpus_file.{}.{}", file, field); }

// Words stored as PREFIX.offsets (rows + 1 of them) and PREFIX.bytes; `what` names them
// in the error.
std::vector<std::string> read_words(const TensorFileReader& r, const std::string& prefix, std::uint64_t rows,
                                    std::string_view what) {
  const auto offsets = r.copy<std::int64_t>(prefix + ".offsets", DType::i64, rows + 1);
  const auto bytes = r.tensor(prefix + ".bytes", DType::u8, r.elements(prefix + ".bytes"));
  std::vector<std::string> words;
  words.reserve(rows);
  for (std::uint64_t i = 0; i < rows; ++i) {
    if (offsets[i] < 0 || offsets[i] > offsets[i + 1] || static_cast<std::uint64_t>(offsets[i + 1]) > bytes.size()) {
      fail("{}: the checkpoint's {} is malformed", r.path(), what);
    }
    words.emplace_back(reinterpret_cast<const char*>(bytes.data()) + offsets[i],
                       static_cast<std::size_t>(offsets[i + 1] - offsets[i]));
  }
  return words;
}

// What a run started with --init keeps (init_vectors.h): metadata, the locked rows, and
// the kept words with their vectors. `kept` holds the kept words' packing, which the
// blobs point into.
void save_init(const TrainingRun& run, const PackedWords& kept, std::vector<TensorBlob>& blobs,
               std::map<std::string, std::string>& metadata) {
  const InitVectors& init = run.init;
  if (!init.active()) return;
  metadata["init"] = init.file;
  metadata["init_checksum"] = init.checksum;
  metadata["init_rows"] = std::to_string(init.rows_from_file);
  metadata["init_lock"] = std::to_string(init.lock() ? 1 : 0);
  metadata["init_keep"] = std::to_string(init.keep ? 1 : 0);
  if (init.lock()) blobs.push_back({"init.locked", DType::u8, {init.locked.size()}, std::as_bytes(std::span(init.locked))});
  if (!init.keep) return;
  const std::uint64_t words = init.kept_words.size(), dim = run.settings.dim;
  blobs.push_back({"init.kept.offsets", DType::i64, {words + 1}, std::as_bytes(std::span(kept.offsets))});
  blobs.push_back({"init.kept.bytes", DType::u8, {kept.bytes.size()}, std::as_bytes(std::span(kept.bytes))});
  blobs.push_back({"init.kept.vectors", DType::f32, {words, dim}, std::as_bytes(std::span(init.kept_vectors))});
  blobs.push_back({"init.kept.context", DType::f32, {words, dim}, std::as_bytes(std::span(init.kept_context))});
}

void load_init(const TensorFileReader& r, std::uint64_t rows, TrainingRun& run) {
  if (!r.has_meta("init")) return;
  InitVectors& init = run.init;
  init.file = r.meta("init");
  init.checksum = r.meta("init_checksum");
  init.rows_from_file = r.meta_uint("init_rows");
  if (init.rows_from_file > rows) fail("{}: the checkpoint's init_rows is past its vocabulary", r.path());
  if (r.meta("init_lock") == "1") init.locked = r.copy<std::uint8_t>("init.locked", DType::u8, rows);
  init.keep = r.meta("init_keep") == "1";
  if (!init.keep) return;
  const std::uint64_t offsets = r.elements("init.kept.offsets");
  if (offsets == 0) fail("{}: the checkpoint's list of --init-keep words is malformed", r.path());
  const std::uint64_t words = offsets - 1, dim = run.settings.dim;
  init.kept_words = read_words(r, "init.kept", words, "list of --init-keep words");
  init.kept_vectors = r.copy<float>("init.kept.vectors", DType::f32, words * dim);
  init.kept_context = r.copy<float>("init.kept.context", DType::f32, words * dim);
}

}  // namespace

void save_checkpoint(const std::string& path, const TrainingRun& run) {
  const TrainSettings& settings = run.settings;
  const Corpus& corpus = run.corpus;
  const TrainState& state = run.state;
  const PackedWords words = pack_words(corpus.vocab);
  std::vector<std::int64_t> positions(state.positions.begin(), state.positions.end());
  std::vector<std::int64_t> shards;
  for (const PositionRange& shard : state.shards)
    shards.insert(shards.end(), {static_cast<std::int64_t>(shard.begin), static_cast<std::int64_t>(shard.end)});
  std::vector<std::uint64_t> random_words;
  for (const auto& r : state.random) random_words.insert(random_words.end(), r.begin(), r.end());

  // A sharded run's manifest holds no rows: its tables are empty here (its shards hold them).
  const std::uint64_t rows = corpus.vocab.size(), stride = run.input.stride();
  std::vector<TensorBlob> blobs = {
      {"input", run.input.element(), {run.input.rows(), stride}, run.input.bytes()},
      {"output", run.output_table.element(), {run.output_table.rows(), stride}, run.output_table.bytes()},
      {"counts", DType::i64, {rows}, std::as_bytes(std::span(corpus.vocab.counts))},
      {"vocab.offsets", DType::i64, {rows + 1}, std::as_bytes(std::span(words.offsets))},
      {"shards", DType::i64, {state.shards.size(), 2}, std::as_bytes(std::span(shards))},
      {"positions", DType::i64, {positions.size()}, std::as_bytes(std::span(positions))},
      {"random", DType::i64, {state.random.size(), 4}, std::as_bytes(std::span(random_words))},
      {"vocab.bytes", DType::u8, {words.bytes.size()}, std::as_bytes(std::span(words.bytes))},
  };
  const OutputSettings& output = run.output;
  std::map<std::string, std::string> metadata = settings_metadata(settings);
  training_model(settings.model).save_items(run, blobs, metadata);
  const PackedWords kept = pack_words(run.init.kept_words);
  save_init(run, kept, blobs, metadata);
  metadata.insert({
      {"dim", std::to_string(settings.dim)},
      {"threads", std::to_string(settings.threads)},
      {"ranks", std::to_string(run.ranks)},
      {"output", output.output},
      {"dtype", std::string(vector_dtype_name(output.dtype))},
      {"storage", std::string(row_storage_name(output.storage))},
      {"pq_m", std::to_string(output.pq_m)},
      {"save_context", output.save_context ? "1" : "0"},
      {"fasttext_bin", output.fasttext_bin},
      {"min_count", std::to_string(output.min_count)},
      {"max_vocab", std::to_string(output.max_vocab)},
      {"corpus", corpus.name},
      {"corpus_tokens", std::to_string(corpus.tokens)},
      {"corpus_distinct_words", std::to_string(corpus.distinct_words)},
      {"corpus_max_token_bytes", std::to_string(corpus.max_token_bytes)},
      {"corpus_files", std::to_string(corpus.files.size())},
      {"epoch", std::to_string(state.epoch)},
      {"words_done", std::to_string(state.items_done)},  // the key of version 1 files: words or records
      {"epoch_loss", fmt::format("{}", state.epoch_loss)},
      {"epoch_examples", std::to_string(state.epoch_examples)},
  });
  if (run.shards.ranks > 0) {  // a manifest: the tables are in its shards
    metadata["shard_ranks"] = std::to_string(run.shards.ranks);
    metadata["shard_id"] = run.shards.id;
    metadata["shard_hot_rows"] = std::to_string(run.shards.hot_rows);
  }
  for (std::size_t i = 0; i < corpus.files.size(); ++i) {
    const CorpusFile& file = corpus.files[i];
    metadata[file_key(i, "path")] = file.path;
    metadata[file_key(i, "size")] = std::to_string(file.size);
    metadata[file_key(i, "mtime_ns")] = std::to_string(file.mtime_ns);
    metadata[file_key(i, "spooled")] = std::to_string(file.spooled ? 1 : 0);
  }
  AtomicOutput out(path);
  write_tensor_file(out, kFormat, kVersion, blobs, std::move(metadata));
}

namespace {

// The settings from a checkpoint's metadata.
TrainSettings read_settings(const TensorFileReader& r) {
  const std::string& path = r.path();
  TrainSettings s;
  const std::string name = r.meta("model");
  const TrainingModel* model = find_training_model(name);
  if (!model) fail("{}: unknown model \"{}\" in the checkpoint", path, excerpt(name));
  s.model = model->id();
  s.dim = r.meta_uint("dim");
  s.window = r.meta_uint("window");
  s.epochs = static_cast<unsigned>(r.meta_uint("epochs"));
  s.lr = static_cast<float>(r.meta_double("lr"));
  s.seed = r.meta_uint("seed");
  s.threads = static_cast<unsigned>(r.meta_uint("threads"));
  const std::optional<Optimizer> optimizer = parse_optimizer(r.meta("optimizer"));
  if (!optimizer || !model->supports(*optimizer)) fail("{}: the checkpoint's optimizer is invalid", path);
  s.optimizer = *optimizer;
  if (!model->read_settings(r, s)) fail("{}: the checkpoint's settings are invalid", path);
  // The optimizer's hyper-parameters; a checkpoint from before they were options has
  // none, and the defaults it trained with.
  const OptimizerSpec& spec = optimizer_spec(s.optimizer);
  for (const OptimizerParamSpec& param : optimizer_param_specs()) {
    const std::string key(param.key);
    if (spec.takes(param) && r.has_meta(key)) s.hyper.*param.field = static_cast<float>(r.meta_double(key));
  }
  s.hyper = resolve_params(s.optimizer, s.hyper);
  // As strictly as the command line: a file must not ask for what a flag may not.
  if (const std::string problem = settings_out_of_range(s); !problem.empty()) fail("{}: checkpoint {}", path, problem);
  return s;
}

// The vocabulary: words, and counts of at least 1.
Vocabulary read_vocabulary(const TensorFileReader& r) {
  const std::string& path = r.path();
  Vocabulary vocab;
  const std::uint64_t rows = r.elements("counts");
  if (rows == 0) fail("{}: the checkpoint has an empty vocabulary", path);
  vocab.counts = r.copy<std::int64_t>("counts", DType::i64, rows);
  for (std::uint64_t i = 0; i < rows; ++i) {
    if (vocab.counts[i] < 1) fail("{}: the checkpoint's count of word {} is {}", path, i, vocab.counts[i]);
  }
  vocab.words = read_words(r, "vocab", rows, "vocabulary");
  return vocab;
}

// A table of `rows` x `width` elements, f32 or (a GPU's host tables: row_matrix.h) f16;
// its bytes are checked against the file before anything is allocated for them.
RowMatrix read_table(const TensorFileReader& r, const std::string& name, std::uint64_t rows, std::uint64_t width) {
  const DType element = r.dtype(name) == DType::f16 && width == RowMatrix::stride_for(width) ? DType::f16 : DType::f32;
  const auto bytes = r.tensor(name, element, rows * width);
  RowMatrix table(rows, width, element);
  if (!bytes.empty()) std::memcpy(table.row_bytes_at(0), bytes.data(), bytes.size());
  return table;
}

}  // namespace

namespace {

// The metadata of `path` when it is a regular file whose header says it is a checkpoint
// (of any version), read once for both questions below.
std::optional<std::map<std::string, std::string>> checkpoint_metadata(const std::string& path) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  try {
    const auto file = MappedFile::open(path);
    auto header = safetensors::parse(file->bytes(), path);
    const auto kind = header.metadata.find("format");
    if (kind == header.metadata.end() || kind->second != kFormat) return std::nullopt;
    return std::move(header.metadata);
  } catch (const Error&) {
    return std::nullopt;  // not a safetensors file at all
  }
}

}  // namespace

bool is_checkpoint_file(const std::string& path) { return checkpoint_metadata(path).has_value(); }

std::optional<CheckpointProgress> checkpoint_progress(const std::string& path) {
  const auto metadata = checkpoint_metadata(path);
  if (!metadata) return std::nullopt;
  const auto number = [&](const char* key) -> unsigned {
    const auto it = metadata->find(key);
    return it == metadata->end() ? 0 : static_cast<unsigned>(std::strtoul(it->second.c_str(), nullptr, 10));
  };
  return CheckpointProgress{number("epoch"), number("epochs")};
}

CheckpointTables read_checkpoint_tables(const std::string& path) {
  const TensorFileReader r(path, kFormat, kVersion, "checkpoint");
  if (r.has_meta("shard_ranks")) {
    fail("{}: this checkpoint of a run with --shard-tables keeps its rows in one shard per rank; --init reads the "
         "vectors it writes when it ends",
         path);
  }
  CheckpointTables c;
  c.settings = read_settings(r);
  c.vocab = read_vocabulary(r);
  const TrainingModel& model = training_model(c.settings.model);
  const std::uint64_t width = model.table_width(c.settings);
  c.input = read_table(r, "input", model.input_rows(c.settings, c.vocab.size()), width);
  c.output = read_table(r, "output", c.vocab.size(), width);
  // A GPU's f16 host tables, widened for the readers of these (--init), which read f32.
  if (c.input.half()) c.input = widened(c.input);
  if (c.output.half()) c.output = widened(c.output);
  return c;
}

TrainingRun load_checkpoint(const std::string& path) {
  const TensorFileReader r(path, kFormat, kVersion, "checkpoint");
  TrainingRun c;
  TrainSettings& s = c.settings;
  s = read_settings(r);
  c.output.output = r.meta("output");
  const std::optional<DType> dtype = parse_vector_dtype(r.meta("dtype"));
  if (!dtype) fail("{}: the checkpoint's dtype \"{}\" is not f32, f16 or bf16", path, excerpt(r.meta("dtype")));
  c.output.dtype = *dtype;
  if (r.has_meta("storage")) {  // older checkpoints have none: dense
    const std::optional<RowStorage> storage = parse_row_storage(r.meta("storage"));
    if (!storage) fail("{}: the checkpoint's storage \"{}\" is not dense, int8 or pq", path, excerpt(r.meta("storage")));
    c.output.storage = *storage;
    c.output.pq_m = r.meta_uint("pq_m");
  }
  c.output.save_context = r.meta("save_context") == "1";
  if (r.has_meta("fasttext_bin")) c.output.fasttext_bin = r.meta("fasttext_bin");  // older checkpoints have none
  c.output.min_count = r.meta_uint("min_count");
  c.output.max_vocab = r.meta_uint("max_vocab");

  const TrainingModel& model = training_model(s.model);
  c.corpus.vocab = read_vocabulary(r);
  const std::uint64_t rows = c.corpus.vocab.size();
  c.corpus.name = r.meta("corpus");
  c.corpus.tokens = r.meta_uint("corpus_tokens");
  c.corpus.distinct_words = r.meta_uint("corpus_distinct_words");
  c.corpus.words = c.corpus.vocab.total_count();  // as read_corpus derives it
  c.corpus.max_token_bytes = r.meta_uint("corpus_max_token_bytes");
  if (c.corpus.max_token_bytes < 4 || c.corpus.max_token_bytes > kMaxTokenBytes) {
    fail("{}: checkpoint corpus_max_token_bytes {} is out of range 4..{}", path, c.corpus.max_token_bytes, kMaxTokenBytes);
  }
  const std::uint64_t files = r.meta_uint("corpus_files");
  if (files > 1000000) fail("{}: the checkpoint's corpus file count is malformed", path);
  for (std::uint64_t i = 0; i < files; ++i) {
    CorpusFile file;
    file.path = r.meta(file_key(i, "path"));
    file.size = r.meta_uint(file_key(i, "size"));
    file.mtime_ns = static_cast<std::int64_t>(r.meta_uint(file_key(i, "mtime_ns")));
    file.spooled = r.meta(file_key(i, "spooled")) == "1";
    if (file.spooled) {
      // The spool stays until the run completes (train_command releases it then).
      c.corpus.spools.push_back(std::make_shared<SpoolFile>(file.path));
      c.corpus.spools.back()->keep();
    }
    c.corpus.files.push_back(std::move(file));
  }
  const std::uint64_t ranks = r.has_meta("ranks") ? r.meta_uint("ranks") : 1;
  if (ranks < 1 || ranks >= (1u << 20)) fail("{}: the checkpoint's rank count is malformed", path);
  c.ranks = static_cast<unsigned>(ranks);
  const std::uint64_t bound = model.load_items(r, c);  // of the workers' positions

  if (r.has_meta("shard_ranks")) {
    // A sharded run's manifest: each rank reads its rows from its shard (train_command.cpp).
    c.shards.ranks = static_cast<unsigned>(r.meta_uint("shard_ranks"));
    c.shards.id = r.meta("shard_id");
    c.shards.hot_rows = r.meta_uint("shard_hot_rows");
    const bool hex_id = !c.shards.id.empty() && c.shards.id.size() <= 16 &&
                        c.shards.id.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (c.shards.ranks != c.ranks || !hex_id || c.shards.hot_rows > rows) {
      fail("{}: the checkpoint's shard manifest is malformed", path);
    }
  } else {
    c.input = read_table(r, "input", model.input_rows(s, rows), model.table_width(s));
    c.output_table = read_table(r, "output", rows, model.table_width(s));
  }
  load_init(r, rows, c);

  TrainState& state = c.state;
  state.epoch = static_cast<unsigned>(r.meta_uint("epoch"));
  state.items_done = r.meta_uint("words_done");
  state.epoch_loss = r.meta_double("epoch_loss");
  state.epoch_examples = r.meta_uint("epoch_examples");
  const std::uint64_t workers = std::uint64_t{s.threads} * c.ranks;
  const auto shards = r.copy<std::int64_t>("shards", DType::i64, workers * 2);
  const auto positions = r.copy<std::int64_t>("positions", DType::i64, workers);
  std::int64_t previous_end = 0;
  for (std::uint64_t w = 0; w < workers; ++w) {
    // Each rank's shards are in order (GloVe's ranks each walk their own records).
    if (w % s.threads == 0) previous_end = 0;
    const std::int64_t begin = shards[2 * w], end = shards[2 * w + 1], position = positions[w];
    const bool valid =
        previous_end <= begin && begin <= end && static_cast<std::uint64_t>(end) <= bound && begin <= position && position <= end;
    if (!valid) fail("{}: the checkpoint's shards or positions are malformed", path);
    state.shards.push_back({static_cast<std::uint64_t>(begin), static_cast<std::uint64_t>(end)});
    state.positions.push_back(static_cast<std::uint64_t>(position));
    previous_end = end;
  }
  const auto words = r.copy<std::uint64_t>("random", DType::i64, workers * 4);
  for (std::uint64_t w = 0; w < workers; ++w)
    state.random.push_back({words[4 * w], words[4 * w + 1], words[4 * w + 2], words[4 * w + 3]});
  if (state.epoch > s.epochs) fail("{}: the checkpoint's epoch is past its last", path);
  return c;
}

}  // namespace embed
