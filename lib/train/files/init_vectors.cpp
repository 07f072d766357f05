#include "train/files/init_vectors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/checksum.h"
#include "core/error.h"
#include "core/excerpt.h"
#include "core/mapped_file.h"
#include "core/file_io.h"
#include "core/spool_file.h"
#include "core/progress.h"
#include "train/files/checkpoint.h"
#include "train/run/model_registry.h"
#include "train/run/train_command.h"
#include "train/run/training_model.h"
#include "train/word2vec/subword_rows.h"
#include "vectors/load.h"
#include "vectors/vector_formats.h"

namespace embed {
namespace {

std::string file_checksum(const std::string& path) {
  const auto file = MappedFile::open(path);
  return fmt::format("crc32:{:08x}", crc32(file->bytes()));
}

// The first `dim` floats of each of `table`'s rows, back to back.
std::vector<float> packed_rows(const RowMatrix& table, std::size_t dim) {
  std::vector<float> rows(table.rows() * dim);
  for (std::size_t r = 0; r < table.rows(); ++r) std::copy_n(table.row(r), dim, rows.data() + r * dim);
  return rows;
}

// An embed-train checkpoint: its tables as they stood, and the vectors it would have
// written (GloVe's W + W̃ where its run writes those).
void read_checkpoint_source(InitSource& source) {
  CheckpointTables c = read_checkpoint_tables(source.path);
  const TrainingModel& model = training_model(c.settings.model);
  const std::size_t dim = c.settings.dim;
  source.what = fmt::format("a {} checkpoint", model.name());
  source.dim = dim;
  source.words = c.vocab.words;
  // The words' rows, then (--subwords) the n-gram buckets'.
  const std::vector<float> input_rows = packed_rows(c.input, dim);
  const auto words_end = input_rows.begin() + static_cast<std::ptrdiff_t>(source.words.size() * dim);
  source.word_rows.assign(input_rows.begin(), words_end);
  if (c.settings.subwords) {
    source.subwords.emplace(subword_settings(c.settings), dim, FloatBuffer(words_end, input_rows.end()));
    source.own_rows = source.word_rows;
  }
  source.context_rows = packed_rows(c.output, dim);
  source.context_from = source.path;
  if (const std::optional<std::size_t> bias = model.bias_column(c.settings)) {
    for (std::size_t r = 0; r < c.input.rows(); ++r) {
      source.word_bias.push_back(c.input.row(r)[*bias]);
      source.context_bias.push_back(c.output.row(r)[*bias]);
    }
  }
  TrainingRun run;
  run.settings = c.settings;
  run.corpus.vocab = std::move(c.vocab);  // --subwords' vectors average the rows each word lists
  run.input = std::move(c.input);
  run.output_table = std::move(c.output);
  const RowReader vector_of = model.vector_rows(run);
  source.vectors.resize(source.word_rows.size());
  for (std::size_t r = 0; r < source.words.size(); ++r) vector_of(r, source.vectors.data() + r * dim);
  // A word's own row is only part of its vector with --subwords: a run without the
  // buckets starts from the vector.
  if (c.settings.subwords) source.word_rows = source.vectors;
  if (source.vectors == source.word_rows) source.vectors.clear();
}

// Vectors glove-convert reads, and the context vectors --save-context wrote beside
// them, when there are some.
void read_vector_source(InitSource& source, unsigned threads, bool with_subwords) {
  LoadOptions options;
  options.threads = threads;
  options.subwords = with_subwords;
  options.model_rows = true;
  LoadedVectors loaded = load_vectors(source.path, options);
  EmbeddingTable& table = loaded.table;
  source.what = fmt::format("{} vectors", format_name(loaded.format));
  source.dim = table.dim;
  for (std::size_t r = 0; r < table.rows(); ++r) source.words.emplace_back(table.word(r));
  source.word_rows.assign(table.values.data(), table.values.data() + table.values.size());
  source.subwords = std::move(loaded.subwords);
  source.subwords_unread = loaded.subwords_left;
  if (source.subwords) source.own_rows = std::move(loaded.own_rows);
  // A fastText model's output matrix: the context rows, as a checkpoint's are.
  if (!loaded.output_rows.empty()) {
    source.what = "a fastText model";
    source.context_from = source.path;
    source.context_rows = std::move(loaded.output_rows);
    return;
  }

  const std::string context_path = context_output_path(source.path);
  struct stat st {};
  if (::stat(context_path.c_str(), &st) != 0) return;
  LoadedVectors context = load_vectors(context_path, options);
  bool same_words = context.table.rows() == table.rows() && context.table.dim == table.dim;
  for (std::size_t r = 0; same_words && r < table.rows(); ++r) same_words = context.table.word(r) == table.word(r);
  if (!same_words) {
    fail(
        "--init {}: {} beside it holds other words or dimensions than it ({} x {} against {} x {}); remove or "
        "rename it to start the context rows at zero",
        source.path, context_path, counted(context.table.rows(), "row"), context.table.dim, counted(table.rows(), "row"),
        table.dim);
  }
  source.context_from = context_path;
  source.context_rows.assign(context.table.values.data(), context.table.values.data() + context.table.values.size());
}

// Word -> its index in `words`; a word given twice is an error naming both places.
std::unordered_map<std::string_view, std::size_t> index_of_words(const InitSource& source) {
  std::unordered_map<std::string_view, std::size_t> index;
  index.reserve(source.words.size());
  for (std::size_t i = 0; i < source.words.size(); ++i) {
    const auto [at, inserted] = index.emplace(source.words[i], i);
    if (!inserted) {
      fail("--init {}: the word \"{}\" is in rows {} and {}; each word must have one vector", source.path,
           excerpt(source.words[i]), at->second + 1, i + 1);
    }
  }
  return index;
}

// Sets the first `dim` floats of row r (and its bias, at `bias`, when the model has one);
// no values: zeros.
void set_row(RowMatrix& table, std::size_t r, std::span<const float> values, std::size_t dim, std::optional<std::size_t> bias,
             float bias_value) {
  if (table.half()) {  // a GPU's f16 host tables (row_matrix.h): SGD, no bias
    EMBED_ASSERT(!bias);
    if (values.empty()) {
      std::memset(table.row_bytes_at(r), 0, dim * sizeof(std::uint16_t));  // f16 zeros
    } else {
      table.store_row(r, values.data(), dim);
    }
    return;
  }
  float* row = table.row(r);
  if (values.empty()) {
    std::fill_n(row, dim, 0.0f);
  } else {
    std::copy_n(values.data(), dim, row);
  }
  if (bias) row[*bias] = bias_value;
}

// A new empty file in $TMPDIR (or /tmp), for a copy of `path`.
std::string new_temporary_file(const std::string& path) {
  std::string name = (std::filesystem::temp_directory_path() / "embed-init-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail("--init {}: cannot create a temporary copy in {}: {}", path, name, std::strerror(errno));
  ::close(fd);
  return name;
}

// Copies what `path` holds (a pipe's bytes, as they come) into the file `to`.
void copy_file_bytes(const std::string& path, const std::string& to) {
  const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) fail("{}: cannot open: {}", path, std::strerror(errno));
  const int out = ::open(to.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (out < 0) {
    const int error = errno;
    ::close(in);
    fail("{}: cannot open: {}", to, std::strerror(error));
  }
  std::vector<char> block(1 << 20);
  try {
    while (const std::size_t n = read_some(in, block.data(), block.size(), path)) {
      write_all(out, block.data(), n, std::nullopt, to);
    }
  } catch (...) {
    ::close(in);
    ::close(out);
    throw;
  }
  ::close(in);
  ::close(out);
}

}  // namespace

InitSource read_init_source(const std::string& path, unsigned threads, bool with_subwords) {
  if (path == "-") fail("--init: give a file, not standard input (its checksum goes into the output's metadata)");
  // A pipe or a process substitution (--init <(zcat vectors.txt.gz)) can be read once only,
  // and the steps below read the file up to three times (its checksum, its kind, its rows):
  // it is copied first into a temporary file, which messages call by the name given.
  std::optional<SpoolFile> copy;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    copy.emplace(new_temporary_file(path));
    copy_file_bytes(path, copy->path());
  }
  InitSource source;
  source.path = copy ? copy->path() : path;
  try {
    source.checksum = file_checksum(source.path);
    if (is_checkpoint_file(source.path)) {
      read_checkpoint_source(source);
    } else {
      read_vector_source(source, threads, with_subwords);
    }
  } catch (const Error& e) {
    if (!copy) throw;
    std::string message = e.what();
    for (std::size_t at; (at = message.find(copy->path())) != std::string::npos;) {
      message.replace(at, copy->path().size(), path);
    }
    throw Error(message);
  }
  if (copy) {
    if (source.context_from == source.path) source.context_from = path;
    source.path = path;
  }
  if (source.words.empty()) fail("--init {}: no vectors", path);
  index_of_words(source);  // refuses repeated words before any training
  return source;
}

void settle_init_settings(const InitSource& source, const InitRequest& request, TrainSettings& settings) {
  if (!request.dim_given) {
    settings.dim = source.dim;
  } else if (settings.dim != source.dim) {
    fail("--init {}: its vectors have {} dimensions, and --dim asks for {}; leave --dim out to take the file's", source.path,
         source.dim, settings.dim);
  }
  if (!settings.subwords || !source.subwords) return;
  // The buckets' rows continue only with the n-grams that hashed into them.
  const SubwordSettings& file = source.subwords->settings();
  auto settle = [&](std::string_view option, bool given, auto& value, auto file_value) {
    if (!given) {
      value = static_cast<std::remove_reference_t<decltype(value)>>(file_value);
    } else if (value != file_value) {
      fail(
          "--init {}: its n-grams are {} to {} characters long in {} buckets, and {} asks for {}; leave {} out to take "
          "the file's",
          source.path, file.minn, file.maxn, file.buckets, option, value, option);
    }
  };
  settle("--minn", request.minn_given, settings.minn, file.minn);
  settle("--maxn", request.maxn_given, settings.maxn, file.maxn);
  settle("--buckets", request.buckets_given, settings.buckets, file.buckets);
}

void apply_init(const InitSource& source, const InitRequest& request, const TrainingModel& model, TrainingRun& run) {
  const std::size_t dim = run.settings.dim;
  EMBED_ASSERT(dim == source.dim);
  const Vocabulary& vocab = run.corpus.vocab;
  const std::optional<std::size_t> bias = model.bias_column(run.settings);
  const auto index = index_of_words(source);
  InitVectors& init = run.init;
  init = InitVectors{};
  init.file = request.file;
  init.checksum = source.checksum;
  init.keep = request.keep;
  if (request.lock) init.locked.assign(vocab.size(), 0);
  std::vector<bool> in_vocabulary(source.words.size(), false);
  const auto row_of = [&](const std::vector<float>& rows, std::size_t i) {
    return rows.empty() ? std::span<const float>() : std::span<const float>(rows.data() + i * dim, dim);
  };
  const auto bias_of = [](const std::vector<float>& biases, std::size_t i) { return biases.empty() ? 0.0f : biases[i]; };
  // --subwords: the file's bucket rows first, so that the words' own rows can be fitted to them.
  const bool subwords = run.settings.subwords;
  const bool buckets_from_file = subwords && source.subwords.has_value();
  if (buckets_from_file) {
    EMBED_ASSERT(run.input.rows() == vocab.size() + source.subwords->settings().buckets);
    for (std::uint64_t b = 0; b < source.subwords->settings().buckets; ++b) {
      source.subwords->row(static_cast<std::uint32_t>(b), std::span(run.input.row(vocab.size() + b), dim));
    }
  }
  const SubwordRows listed = subwords ? SubwordRows(vocab, subword_settings(run.settings)) : SubwordRows();
  std::vector<float> own(dim);
  std::vector<double> sum(dim);
  // Word r's own row, so that the average of it and its n-grams' rows (as the table holds
  // them now) is `vector`: fastText's word vector solved for the word's row.
  const auto fitted_row = [&](std::size_t r, std::span<const float> vector) {
    const std::span<const std::uint32_t> rows = listed.of(static_cast<std::uint32_t>(r));
    std::fill(sum.begin(), sum.end(), 0.0);
    for (std::size_t k = 1; k < rows.size(); ++k) {
      const float* bucket = run.input.row(rows[k]);
      for (std::size_t x = 0; x < dim; ++x) sum[x] += bucket[x];
    }
    const auto n = static_cast<double>(rows.size());
    for (std::size_t x = 0; x < dim; ++x) own[x] = static_cast<float>(n * vector[x] - sum[x]);
    return std::span<const float>(own);
  };
  for (std::size_t r = 0; r < vocab.size(); ++r) {
    const auto found = index.find(vocab.words[r]);
    if (found == index.end()) continue;
    const std::size_t i = found->second;
    in_vocabulary[i] = true;
    std::span<const float> input_row = row_of(source.word_rows, i);
    if (buckets_from_file && !source.own_rows.empty()) {
      input_row = row_of(source.own_rows, i);
    } else if (subwords) {
      input_row = fitted_row(r, source.vector(i));
    }
    set_row(run.input, r, input_row, dim, bias, bias_of(source.word_bias, i));
    set_row(run.output_table, r, row_of(source.context_rows, i), dim, bias, bias_of(source.context_bias, i));
    if (request.lock) init.locked[r] = 1;
    ++init.rows_from_file;
  }
  const std::size_t outside = source.words.size() - init.rows_from_file;
  if (request.keep) {
    for (std::size_t i = 0; i < source.words.size(); ++i) {
      if (in_vocabulary[i]) continue;
      init.kept_words.push_back(source.words[i]);
      const std::span<const float> vector = source.vector(i);
      init.kept_vectors.insert(init.kept_vectors.end(), vector.begin(), vector.end());
      const std::span<const float> context = row_of(source.context_rows, i);
      if (context.empty()) {
        init.kept_context.resize(init.kept_context.size() + dim, 0.0f);
      } else {
        init.kept_context.insert(init.kept_context.end(), context.begin(), context.end());
      }
    }
  }

  // An optimizer with state (a checkpoint's, or none) starts it afresh: say so.
  const bool has_state = optimizer_spec(run.settings.optimizer).state_floats(16) > 0;
  spdlog::info(
      "--init {} ({}, {} dims): {} of the {} vocabulary words start from its vectors, their context rows {}; "
      "{} new{}",
      source.path, source.what, dim, init.rows_from_file, vocab.size(),
      source.context_from.empty()
          ? std::string("at zero")
          : "from its context vectors" + (source.context_from == source.path ? std::string() : " (" + source.context_from + ")"),
      vocab.size() - init.rows_from_file,
      has_state ? fmt::format("; {}'s state starts afresh", optimizer_name(run.settings.optimizer)) : std::string());
  if (outside > 0) {
    spdlog::info("{} of its {} are not in the vocabulary: {}", outside, counted(source.words.size(), "word"),
                 request.keep ? "--init-keep writes them after the trained rows, unchanged, with count 0"
                              : "dropped (--init-keep keeps them)");
  }
  if (request.lock) {
    spdlog::info("--lock-init: the {} rows from the file stay as they are; the new words and the context rows train",
                 init.rows_from_file);
  }
  if (buckets_from_file) {
    spdlog::info("--subwords: its {} n-gram bucket rows continue ({} to {} characters), and its words' own rows {}",
                 source.subwords->settings().buckets, run.settings.minn, run.settings.maxn,
                 source.own_rows.empty() ? "are fitted so that their vectors start as its vectors" : "as it holds them");
  } else if (subwords) {
    spdlog::info(
        "--subwords: it has no n-gram rows, so the buckets start fresh and its words' own rows are fitted so that "
        "their vectors start as its vectors");
  } else if (source.subwords || source.subwords_unread) {
    spdlog::info("its n-gram bucket rows are not used: the words start from their vectors (--subwords would continue them)");
  }
}

Vocabulary with_kept_words(const Vocabulary& vocab, const InitVectors& init) {
  Vocabulary all = vocab;
  all.words.insert(all.words.end(), init.kept_words.begin(), init.kept_words.end());
  all.counts.resize(all.words.size(), 0);
  return all;
}

RowReader with_kept_rows(RowReader trained, const TrainingRun& run, const std::vector<float>& kept) {
  if (kept.empty()) return trained;
  const std::size_t trained_rows = run.corpus.vocab.size(), dim = run.settings.dim;
  return [trained = std::move(trained), trained_rows, dim, &kept](std::size_t r, float* out) {
    if (r < trained_rows) {
      trained(r, out);
    } else {
      std::copy_n(kept.data() + (r - trained_rows) * dim, dim, out);
    }
  };
}

void add_init_metadata(const InitVectors& init, std::map<std::string, std::string>& metadata) {
  if (!init.active()) return;
  metadata["init"] = init.file;
  metadata["init_checksum"] = init.checksum;
  metadata["init_rows"] = std::to_string(init.rows_from_file);
  if (init.lock()) metadata["init_lock"] = "1";
  if (init.keep) metadata["init_kept"] = std::to_string(init.kept_words.size());
}

}  // namespace embed
