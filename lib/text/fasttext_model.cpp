#include "text/fasttext_model.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/buffered_reader.h"
#include "core/error.h"
#include "core/excerpt.h"
#include "core/progress.h"
#include "text/text_reader.h"

static_assert(std::endian::native == std::endian::little, "fastText models hold little-endian numbers");

namespace embed {
namespace {

enum : std::int32_t { kModelCbow = 1, kModelSkipgram = 2, kModelSupervised = 3 };
// The longest dictionary entry accepted: fastText splits words on whitespace only.
constexpr std::size_t kMaxWordBytes = 1 << 20;

struct Entry {
  std::string word;
  std::int64_t count = 0;
};

// Fixed-size fields over a BufferedReader, failing with the file, the byte offset and
// the field when the file ends inside one.
class FieldReader {
 public:
  FieldReader(InputStream& in, const std::string& name) : reader_(in), name_(name) {}

  template <typename T>
  T read(std::string_view what) {
    T value{};
    if (!reader_.read_exact(reinterpret_cast<char*>(&value), sizeof value)) truncated(what);
    return value;
  }
  // False when the file ends first (the caller names what it was reading).
  bool read_floats(float* out, std::size_t count) {
    return reader_.read_exact(reinterpret_cast<char*>(out), count * sizeof(float));
  }
  void skip(std::uint64_t bytes, std::string_view what) {
    std::vector<char> scratch(std::min<std::uint64_t>(bytes, 1 << 20));
    while (bytes > 0) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, scratch.size()));
      if (!reader_.read_exact(scratch.data(), n)) truncated(what);
      bytes -= n;
    }
  }
  // A NUL-terminated string.
  std::string read_word(std::string_view what) {
    std::string word;
    for (int c; (c = reader_.get()) != 0;) {
      if (c < 0) truncated(what);
      if (word.size() >= kMaxWordBytes) fail("{}: byte {}: {} is over 1 MB long: not a fastText model?", name_, offset(), what);
      word.push_back(static_cast<char>(c));
    }
    return word;
  }
  bool read_bool(std::string_view what) {
    const auto value = read<std::uint8_t>(what);
    if (value > 1) fail("{}: byte {}: {} is {}, expected a bool (0 or 1)", name_, offset() - 1, what, value);
    return value == 1;
  }
  std::uint64_t offset() const { return reader_.offset(); }
  [[noreturn]] void truncated(std::string_view what) const {
    fail("{}: truncated fastText model: the file ends at byte {}, inside {}", name_, offset(), what);
  }

 private:
  BufferedReader reader_;
  const std::string& name_;
};

struct Args {
  std::int32_t dim = 0, model = 0, bucket = 0, minn = 0, maxn = 0;
};

Args read_args(FieldReader& f, const std::string& name) {
  // args.cc, Args::save: twelve int32s then a double, in this order.
  static constexpr const char* kNames[] = {"dim",  "ws",    "epoch",  "minCount", "neg",  "wordNgrams",
                                           "loss", "model", "bucket", "minn",     "maxn", "lrUpdateRate"};
  std::int32_t values[12];
  for (std::size_t i = 0; i < 12; ++i) values[i] = f.read<std::int32_t>(fmt::format("the setting {}", kNames[i]));
  f.read<double>("the setting t");
  Args args{values[0], values[7], values[8], values[9], values[10]};
  if (args.dim <= 0 || static_cast<std::uint64_t>(args.dim) > kMaxVectorDimension) {
    fail("{}: the model's dim is {}; expected 1 to {}", name, args.dim, kMaxVectorDimension);
  }
  if (args.model < kModelCbow || args.model > kModelSupervised) {
    fail("{}: the model type is {}; expected 1 (cbow), 2 (skipgram) or 3 (supervised)", name, args.model);
  }
  if (args.bucket < 0 || args.minn < 0 || args.maxn < 0 || static_cast<std::uint32_t>(args.maxn) > kMaxNgramLength) {
    fail("{}: the settings bucket {}, minn {}, maxn {} are not valid; expected bucket >= 0 and 0 <= minn, maxn <= {}", name,
         args.bucket, args.minn, args.maxn, kMaxNgramLength);
  }
  if (args.maxn > 0 && args.bucket == 0)
    fail("{}: the model has n-grams (maxn {}) but no buckets for them (bucket 0)", name, args.maxn);
  return args;
}

// Whether the fields of the original layout's start (args, then the dictionary's sizes)
// that `head` holds are values fastText could have written; a field cut short is not judged.
bool original_layout_plausible(std::string_view head) {
  auto int_at = [&](std::size_t offset) {
    std::int32_t value = 0;
    std::memcpy(&value, head.data() + offset, sizeof value);
    return value;
  };
  constexpr std::int64_t kAny = std::numeric_limits<std::int32_t>::max();
  // The int32 args in args.cc's order: dim, ws, epoch, minCount, neg, wordNgrams, loss
  // (hs, ns, softmax, ova), model (cbow, skipgram, supervised), bucket, minn, maxn, lrUpdateRate.
  constexpr std::pair<std::int64_t, std::int64_t> kRanges[12] = {{1, kMaxVectorDimension},
                                                                 {1, kAny},
                                                                 {1, kAny},
                                                                 {0, kAny},
                                                                 {0, kAny},
                                                                 {1, kAny},
                                                                 {1, 4},
                                                                 {1, 3},
                                                                 {0, kAny},
                                                                 {0, kMaxNgramLength},
                                                                 {0, kMaxNgramLength},
                                                                 {1, kAny}};
  for (std::size_t i = 0; i < 12; ++i) {
    if (head.size() < 4 * i + 4) return true;
    const std::int32_t value = int_at(4 * i);
    if (value < kRanges[i].first || value > kRanges[i].second) return false;
  }
  if (head.size() < 56) return true;
  double t = 0;
  std::memcpy(&t, head.data() + 48, sizeof t);
  if (!std::isfinite(t) || t < 0) return false;
  if (head.size() < 68) return true;
  const std::int32_t size = int_at(56), nwords = int_at(60), nlabels = int_at(64);
  return nwords >= 0 && nlabels >= 0 && std::int64_t{nwords} + nlabels == size;
}

bool starts_with_magic(std::string_view head) {
  std::int32_t magic = 0;
  if (head.size() >= 4) std::memcpy(&magic, head.data(), sizeof magic);
  return magic == kFastTextMagic;
}

}  // namespace

bool is_fasttext_model(std::string_view head) {
  // From 8 bytes on: a dim and a ws, each with zero high bytes, are never text.
  return head.size() >= 8 && (starts_with_magic(head) || original_layout_plausible(head));
}

FastTextModel read_fasttext_model(InputStream& in, const FastTextReadOptions& options) {
  const std::string& name = in.name();
  const std::string_view head = in.peek(kFastTextHeadBytes);
  // The original layout has no version; 0 stands for it below.
  const bool versioned = head.size() < 4 || starts_with_magic(head);
  if (!versioned && !original_layout_plausible(head)) {
    std::int32_t first = 0;
    std::memcpy(&first, head.data(), sizeof first);
    fail(
        "{}: not a fastText model: it starts with {}, expected the magic number {} or, in fastText's original layout "
        "without one, the model's settings (dim, ws, epoch, ...)",
        name, first, kFastTextMagic);
  }
  FieldReader f(in, name);
  std::int32_t version = 0;
  if (versioned) {
    f.read<std::int32_t>("the magic number");
    version = f.read<std::int32_t>("the format version");
    if (version < kFastTextOldestVersion || version > kFastTextVersion) {
      fail(
          "{}: a fastText model of format version {}; this reader knows versions {} and {} (fastText 2017 to 0.9) and "
          "the original layout without a version",
          name, version, kFastTextOldestVersion, kFastTextVersion);
    }
  }
  const Args args = read_args(f, name);

  // dictionary.cc, Dictionary::save.
  const auto size = f.read<std::int32_t>("the dictionary's size");
  const auto nwords = f.read<std::int32_t>("the dictionary's word count");
  const auto nlabels = f.read<std::int32_t>("the dictionary's label count");
  f.read<std::int64_t>("the dictionary's token count");
  const std::int64_t pruneidx_size = versioned ? f.read<std::int64_t>("the dictionary's pruning index size") : -1;
  if (size < 0 || nwords < 0 || nlabels < 0 || std::int64_t{nwords} + nlabels != size) {
    fail("{}: the dictionary has {} entries, {} words and {} labels; expected entries = words + labels", name, size, nwords,
         nlabels);
  }
  std::vector<Entry> entries;
  std::string first_label;
  for (std::int32_t i = 0; i < size; ++i) {
    const std::string what = fmt::format("dictionary entry {} of {}", i + 1, size);
    Entry e;
    e.word = f.read_word(what);
    e.count = f.read<std::int64_t>(what);
    const auto type = f.read<std::int8_t>(what);
    // Dictionary::threshold sorts words before labels.
    const std::int8_t expected = i < nwords ? 0 : 1;
    if (type != expected) {
      fail("{}: {} (\"{}\") has type {}, expected {} ({} of the {} entries are words)", name, what, excerpt(e.word), type,
           expected == 0 ? "0 (word)" : "1 (label)", nwords, size);
    }
    if (e.word.empty() && type == 0) {
      // Its input row is still read (rows follow the dictionary's order), and skipped.
      spdlog::warn("{}: {} is an empty word: skipped, as a row needs a name (gensim keeps it, as the key \"\")", name, what);
    }
    if (type == 1 && first_label.empty()) first_label = e.word;
    if (type == 0) entries.push_back(std::move(e));
  }
  if (pruneidx_size > std::int64_t{1} << 31) {
    fail("{}: the dictionary's pruning index has {} entries; expected at most 2^31", name, pruneidx_size);
  }
  if (pruneidx_size > 0) f.skip(8 * static_cast<std::uint64_t>(pruneidx_size), "the dictionary's pruning index");
  const bool quantized = versioned && f.read_bool("the quantized-input flag");
  const bool supervised = args.model == kModelSupervised || nlabels > 0;
  if (quantized) {
    fail(
        "{}: a quantized fastText model (.ftz){}: its vectors are compressed by product quantization, which glove-convert "
        "does not decode; convert the .bin model it was made from",
        name, supervised ? ", and a supervised one" : "");
  }
  if (supervised) {
    fail(
        "{}: a supervised fastText model (labels such as \"{}\", {} label{}): its vectors are trained to classify, not "
        "for word similarity; glove-convert reads unsupervised models (fasttext skipgram or cbow)",
        name, excerpt(first_label), nlabels, nlabels == 1 ? "" : "s");
  }
  if (pruneidx_size >= 0) {
    fail(
        "{}: the dictionary is pruned (pruning index of {} entries) but the model is not quantized; fastText itself refuses "
        "such a file",
        name, pruneidx_size);
  }

  // The input matrix: the words' rows, then the n-gram buckets' rows.
  const auto rows = f.read<std::int64_t>("the input matrix's row count");
  const auto cols = f.read<std::int64_t>("the input matrix's column count");
  if (rows != std::int64_t{nwords} + args.bucket || cols != args.dim) {
    fail("{}: the input matrix is {} x {}; expected (words + buckets) x dim = {} x {}", name, rows, cols,
         std::int64_t{nwords} + args.bucket, args.dim);
  }
  const auto dim = static_cast<std::size_t>(args.dim);
  FastTextModel model;
  EmbeddingTable& table = model.table;
  table.dim = dim;
  table.origin_kind = "entry";
  const std::uint64_t wanted = options.limit ? std::min<std::uint64_t>(options.limit, entries.size()) : entries.size();
  std::vector<std::size_t> kept;  // the dictionary entries of the table's rows
  std::vector<float> row(dim);
  Progress progress("reading " + name, in.raw_size().value_or(0));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!f.read_floats(row.data(), dim)) {
      f.truncated(fmt::format("the input row of word {} (\"{}\")", i + 1, excerpt(entries[i].word)));
    }
    if (kept.size() >= wanted || entries[i].word.empty()) continue;
    std::string word = entries[i].word;
    if (needs_decoding(word, options.words)) {
      std::string decoded;
      if (const auto problem = decode_word(word, options.words, decoded)) fail("{}: entry {}: {}", name, i + 1, *problem);
      word = std::move(decoded);
    }
    if (options.keep && !options.keep->contains(word)) continue;
    table.add_row(word, row, i + 1);
    if (options.keep_rows) model.own_rows.insert(model.own_rows.end(), row.begin(), row.end());
    table.counts.push_back(entries[i].count);
    kept.push_back(i);
    if (i % 4096 == 0) progress.update(in.raw_bytes_read());
  }
  const SubwordSettings settings{static_cast<std::uint32_t>(args.minn), static_cast<std::uint32_t>(args.maxn),
                                 static_cast<std::uint64_t>(args.maxn > 0 ? args.bucket : 0)};
  // Grown as rows arrive, so that a header promising more than the file holds fails on
  // its truncation instead of on the allocation.
  FloatBuffer bucket_rows;
  for (std::int32_t b = 0; b < args.bucket; b += 4096) {
    const std::size_t count = static_cast<std::size_t>(std::min(4096, args.bucket - b));
    bucket_rows.resize(bucket_rows.size() + count * dim);
    if (!f.read_floats(bucket_rows.data() + static_cast<std::size_t>(b) * dim, count * dim)) {
      f.truncated(fmt::format("the input rows of n-gram buckets {} to {}", b, b + static_cast<std::int32_t>(count) - 1));
    }
    progress.update(in.raw_bytes_read());
  }
  for (std::size_t x = 0; x < bucket_rows.size(); ++x) {
    if (!std::isfinite(bucket_rows[x]))
      fail("{}: n-gram bucket {}: component {} is not a finite number", name, x / dim, x % dim + 1);
  }
  if (settings.buckets != bucket_rows.size() / dim) bucket_rows.clear();  // a model without n-grams ignores its buckets
  SubwordTable subwords(settings, dim, std::move(bucket_rows));

  // print-word-vectors' vector: the word's own row and its n-grams' rows, averaged.
  const EosNgrams eos = version == kFastTextVersion ? EosNgrams::none : EosNgrams::computed;
  for (std::size_t r = 0; r < kept.size(); ++r) {
    const std::vector<std::uint32_t> buckets = subword_buckets(entries[kept[r]].word, settings, eos);
    const std::span<float> vector = table.row(r);
    subwords.add_rows(buckets, vector);
    fasttext_average(vector, buckets.size() + 1);
    for (std::size_t x = 0; x < dim; ++x) {
      if (!std::isfinite(vector[x])) {
        fail("{}: entry {} (\"{}\"): component {} is not a finite number", name, kept[r] + 1, table.word(r), x + 1);
      }
    }
  }

  // The output matrix: one row per word (skip-gram and CBOW score against it). Read only
  // with keep_rows; otherwise skipped, but a file that ends inside it is truncated.
  if (versioned && f.read_bool("the quantized-output flag"))
    fail("{}: the output matrix is quantized but the input matrix is not", name);
  const auto out_rows = f.read<std::int64_t>("the output matrix's row count");
  const auto out_cols = f.read<std::int64_t>("the output matrix's column count");
  if (out_rows < 0 || out_rows > std::int64_t{1} << 40 || out_cols != args.dim) {
    fail("{}: the output matrix is {} x {}; expected dim {} columns", name, out_rows, out_cols, args.dim);
  }
  if (!options.keep_rows) {
    f.skip(static_cast<std::uint64_t>(out_rows) * dim * sizeof(float), "the output matrix");
  } else {
    if (out_rows != nwords) fail("{}: the output matrix has {} rows; expected one per word ({})", name, out_rows, nwords);
    // Output row i is dictionary entry i's, as input row i is.
    std::vector<std::int64_t> table_row(entries.size(), -1);
    for (std::size_t r = 0; r < kept.size(); ++r) table_row[kept[r]] = static_cast<std::int64_t>(r);
    model.output_rows.resize(kept.size() * dim);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (!f.read_floats(row.data(), dim)) f.truncated(fmt::format("the output row of word {}", i + 1));
      if (table_row[i] >= 0)
        std::copy(row.begin(), row.end(), model.output_rows.begin() + table_row[i] * static_cast<std::ptrdiff_t>(dim));
    }
  }
  progress.finish();
  if (options.keep_subwords && settings.buckets > 0) model.subwords = std::move(subwords);
  model.subwords_left = !options.keep_subwords && settings.buckets > 0;
  return model;
}

}  // namespace embed
