#include "text/text_reader.h"

#include <algorithm>
#include <array>
#include <future>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fast_float/fast_float.h>

#include "core/error.h"
#include "core/excerpt.h"
#include "core/float_buffer.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/utf8.h"
#include "text/fasttext_model.h"
#include "text/format_detect.h"

namespace embed {
namespace {

inline bool is_separator(char c) { return c == ' ' || c == '\t'; }

// Strips "\r" and trailing separators (fastText writes a space before every newline).
inline const char* trim_line_end(const char* line, const char* end) {
  while (end > line && (end[-1] == '\r' || is_separator(end[-1]))) --end;
  return end;
}

struct Field {
  const char* begin;
  const char* end;
  std::string_view text() const { return {begin, static_cast<std::size_t>(end - begin)}; }
};

std::vector<Field> split_fields(const char* p, const char* end) {
  std::vector<Field> fields;
  while (p < end) {
    while (p < end && is_separator(*p)) ++p;
    if (p == end) break;
    const char* start = p;
    while (p < end && !is_separator(*p)) ++p;
    fields.push_back({start, p});
  }
  return fields;
}

// Parses one whole field as a number; false when it is not entirely a number.
inline bool parse_number(const char* begin, const char* end, float& value) {
  if (begin < end && *begin == '+' && begin + 1 < end && begin[1] != '-') ++begin;
  auto result = fast_float::from_chars(begin, end, value);
  return result.ec == std::errc() && result.ptr == end;
}

// Bytes a parser may read past the end of a block (see LineBlockReader).
constexpr std::size_t kReadSlack = 8;

inline std::uint64_t load8(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// How many of the 8 bytes in v (first byte lowest) are ASCII digits before the first non-digit.
inline unsigned count_leading_digits(std::uint64_t v) {
  const std::uint64_t high_nibble_not_3 = (v & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull;
  const std::uint64_t low_nibble_over_9 = ((v & 0x0F0F0F0F0F0F0F0Full) + 0x0606060606060606ull) & 0x1010101010101010ull;
  const std::uint64_t bad = high_nibble_not_3 | low_nibble_over_9;  // non-zero bytes are not digits
  const std::uint64_t bad_bytes = (((bad & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | bad) & 0x8080808080808080ull;
  return bad_bytes ? static_cast<unsigned>(__builtin_ctzll(bad_bytes)) / 8 : 8;
}

// The value of the first n (1 to 8) digits in v: shift them to the top as the last digits
// of an 8-digit number, then fast_float's three-multiply conversion.
inline std::uint32_t leading_digits_value(std::uint64_t v, unsigned n) {
  v -= 0x3030303030303030ull;  // borrows only reach bytes past the digits, which the shift drops
  v <<= 8 * (8 - n);
  v = v * 10 + (v >> 8);
  v = (((v & 0x000000FF000000FFull) * 0x000F424000000064ull) + (((v >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
  return static_cast<std::uint32_t>(v);
}

}  // namespace

// Parses the common shape "-?DIGITS(.DIGITS)?" (at most 7 digits each side) directly.
// Returns nullptr for anything else (exponents, long mantissas, "nan"), which the
// caller hands to fast_float. Reads up to kReadSlack bytes past `end`.
//
// Why m * 10^-d in double, rounded once to float, is the correctly rounded float of
// m / 10^d when m <= 2^24 and d <= 7: the double product is within 2^-52 (relative) of
// the exact quotient, while the quotient is either a float midpoint itself (impossible
// here: that needs 25 significant bits, and m / 5^d has fewer) or at least
// 1 / (10^d * 2^25) > 2^-49 away from every midpoint. So rounding to float cannot flip.
// A multiply instead of a float division: the division was a third of the parse time.
inline const char* parse_plain_decimal_inline(const char* p, const char* end, float& out) {
  static constexpr double kInversePowersOfTen[] = {1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7};
  static constexpr std::uint32_t kScale[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
  const bool negative = *p == '-';
  p += negative;
  const auto available = [&] { return static_cast<unsigned>(std::min<std::ptrdiff_t>(end - p, 8)); };
  const unsigned whole = std::min(count_leading_digits(load8(p)), available());
  if (whole == 8) return nullptr;
  std::uint64_t mantissa = whole ? leading_digits_value(load8(p), whole) : 0;
  p += whole;
  unsigned decimals = 0;
  if (p < end && *p == '.') {
    ++p;
    decimals = std::min(count_leading_digits(load8(p)), available());
    if (decimals == 8) return nullptr;
    if (decimals) mantissa = mantissa * kScale[decimals] + leading_digits_value(load8(p), decimals);
    p += decimals;
  }
  if (whole + decimals == 0 || mantissa > (1u << 24)) return nullptr;
  if (p < end && !is_separator(*p)) return nullptr;
  const double value = static_cast<double>(mantissa) * kInversePowersOfTen[decimals];
  out = static_cast<float>(negative ? -value : value);
  return p;
}

const char* parse_plain_decimal(const char* p, const char* end, float& out) { return parse_plain_decimal_inline(p, end, out); }

namespace {


// The rows parsed from one run of whole lines, by one thread.
// Parts live across chunks, so their buffers are allocated (and page-faulted) once.
struct Part {
  std::string words;
  std::vector<std::uint32_t> word_ends;
  FloatBuffer values;
  std::vector<std::uint32_t> row_lines;  // line of each row, counted from the part's first line (0-based)
  std::uint64_t lines = 0;               // lines consumed (all of them unless an error stopped the part)
  std::uint64_t rows_seen = 0;           // data rows, kept or filtered out
  std::optional<std::pair<std::uint64_t, std::string>> error;  // (line in part, message)

  void clear() {
    words.clear();
    word_ends.clear();
    values.clear();
    row_lines.clear();
    lines = 0;
    rows_seen = 0;
    error.reset();
  }
};

class LineParser {
 public:
  LineParser(std::size_t dim, const std::string& dim_origin, const WordSet* keep, WordDecoding words)
      : dim_(dim), dim_origin_(dim_origin), keep_(keep), words_(std::move(words)) {
    if (keep_) {
      for (const auto& w : *keep_) keep_has_spaces_ |= w.find_first_of(" \t") != std::string::npos;
    }
  }

  // Parses the whole lines in [begin, end) into `part`, stopping at the first bad line.
  void parse(const char* begin, const char* end, Part& part) const {
    const char* line = begin;
    while (line < end) {
      const char* newline = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
      const char* line_end = newline ? newline : end;
      if (auto message = parse_line(line, trim_line_end(line, line_end), part)) {
        part.error = {part.lines, std::move(*message)};
        return;
      }
      ++part.lines;
      line = newline ? newline + 1 : end;
    }
  }

 private:
  // Returns an error message, or nullopt when the line was parsed (or was blank, or filtered out).
  std::optional<std::string> parse_line(const char* line, const char* end, Part& part) const {
    if (line == end) return std::nullopt;  // blank lines are skipped
    if (is_separator(*line)) return "empty word (the line starts with whitespace)";
    ++part.rows_seen;
    // Fast path: a word without spaces followed by exactly dim numbers.
    const char* word_end = line;
    while (word_end < end && !is_separator(*word_end)) ++word_end;
    const std::string_view first_token(line, static_cast<std::size_t>(word_end - line));
    if (keep_ && !keep_has_spaces_ && !keep_->contains(first_token)) {
      if (count_fields(word_end, end) + 1 < dim_ + 1) return too_few_fields(line, end);
      return std::nullopt;  // not wanted: skip without parsing its numbers
    }
    const std::size_t base = part.values.size();
    part.values.resize(base + dim_);
    float* out = part.values.data() + base;
    const char* p = word_end;
    std::size_t k = 0;
    bool fast = true;
    for (; k < dim_; ++k) {
      while (p < end && is_separator(*p)) ++p;
      if (p == end) break;
      if (const char* next = parse_plain_decimal_inline(p, end, out[k])) {
        p = next;
        continue;
      }
      if (*p == '+' && p + 1 < end && p[1] != '-') ++p;
      auto result = fast_float::from_chars(p, end, out[k]);
      if (result.ec != std::errc() || (result.ptr < end && !is_separator(*result.ptr)) || !std::isfinite(out[k])) {
        fast = false;
        break;
      }
      p = result.ptr;
    }
    if (fast && k == dim_) {
      while (p < end && is_separator(*p)) ++p;
      fast = p == end;
    } else {
      fast = false;
    }
    if (fast) {
      if (keep_ && !keep_->contains(first_token)) {
        part.values.resize(base);
        return std::nullopt;
      }
      return add_word(first_token, part, base);
    }
    return parse_line_slowly(line, end, part, base);
  }

  // Every case the fast path does not take: words with spaces, and every kind of error.
  std::optional<std::string> parse_line_slowly(const char* line, const char* end, Part& part, std::size_t base) const {
    const std::vector<Field> fields = split_fields(line, end);
    if (fields.size() < dim_ + 1) {
      part.values.resize(base);
      return too_few_fields(line, end);
    }
    float* out = part.values.data() + base;
    const std::size_t first_number = fields.size() - dim_;
    for (std::size_t i = 0; i < dim_; ++i) {
      const Field& f = fields[first_number + i];
      if (!parse_number(f.begin, f.end, out[i])) {
        part.values.resize(base);
        return fmt::format("field {}: \"{}\" is not a number", first_number + i + 1, excerpt(f.text()));
      }
      if (!std::isfinite(out[i])) {
        part.values.resize(base);
        return fmt::format("field {}: \"{}\" is not a finite number", first_number + i + 1, excerpt(f.text()));
      }
    }
    const Field& last_word_field = fields[first_number - 1];
    float ignored;
    if (first_number > 1 && parse_number(last_word_field.begin, last_word_field.end, ignored)) {
      part.values.resize(base);
      return fmt::format("ragged row: {} numbers after the word \"{}\", expected {} ({})", fields.size() - 1,
                         excerpt(fields[0].text()), dim_, dim_origin_);
    }
    const std::string_view word(line, static_cast<std::size_t>(last_word_field.end - line));
    if (keep_ && !keep_->contains(word)) {
      part.values.resize(base);
      return std::nullopt;
    }
    return add_word(word, part, base);
  }

  std::optional<std::string> add_word(std::string_view word, Part& part, std::size_t base) const {
    std::string decoded;
    if (needs_decoding(word, words_)) {
      if (auto problem = decode_word(word, words_, decoded)) {
        part.values.resize(base);
        return problem;
      }
      word = decoded;
    }
    part.words.append(word);
    part.word_ends.push_back(static_cast<std::uint32_t>(part.words.size()));
    part.row_lines.push_back(static_cast<std::uint32_t>(part.lines));
    return std::nullopt;
  }

  static std::size_t count_fields(const char* p, const char* end) { return split_fields(p, end).size(); }

  // A row short of numbers says how many it has, as a row with too many does (a field count
  // alone, "found 50 fields" for a row of 50 numbers, reads as if nothing were missing).
  std::string too_few_fields(const char* line, const char* end) const {
    const auto fields = split_fields(line, end);
    if (fields.size() == 1) {
      return fmt::format("expected a word followed by {} numbers ({}), found the word \"{}\" alone", dim_, dim_origin_,
                         excerpt(fields[0].text()));
    }
    std::size_t numbers = 0;
    float ignored;
    while (numbers + 1 < fields.size() &&
           parse_number(fields[fields.size() - 1 - numbers].begin, fields[fields.size() - 1 - numbers].end, ignored)) {
      ++numbers;
    }
    if (numbers + 1 == fields.size()) {
      return fmt::format("ragged row: {} number{} after the word \"{}\", expected {} ({})", numbers, numbers == 1 ? "" : "s",
                         excerpt(fields[0].text()), dim_, dim_origin_);
    }
    return fmt::format("expected a word followed by {} numbers ({}), found {} fields", dim_, dim_origin_, fields.size());
  }

  std::size_t dim_;
  std::string dim_origin_;
  const WordSet* keep_;
  bool keep_has_spaces_ = false;
  WordDecoding words_;
};

// Splits [begin, end) into up to `parts` runs of whole lines.
std::vector<std::pair<const char*, const char*>> split_at_lines(const char* begin, const char* end, std::size_t parts) {
  std::vector<std::pair<const char*, const char*>> runs;
  const std::size_t size = static_cast<std::size_t>(end - begin);
  const char* start = begin;
  for (std::size_t i = 1; i <= parts && start < end; ++i) {
    const char* cut = i == parts ? end : begin + size * i / parts;
    if (cut < start) cut = start;
    if (cut < end) {
      const char* nl = static_cast<const char*>(std::memchr(cut, '\n', static_cast<std::size_t>(end - cut)));
      cut = nl ? nl + 1 : end;
    }
    runs.emplace_back(start, cut);
    start = cut;
  }
  return runs;
}

using CharBuffer = std::vector<char, UninitializedAllocator<char>>;

// Cuts an input stream into blocks of whole lines, about `block_bytes` each.
class LineBlockReader {
 public:
  // A file smaller than a block gets a block its size (gzip's: its compressed size, and
  // more rounds), so a small input never allocates the whole 32 MB.
  LineBlockReader(InputStream& in, std::size_t block_bytes)
      : in_(in),
        block_bytes_(in.raw_size() ? static_cast<std::size_t>(std::min<std::uint64_t>(block_bytes, std::max<std::uint64_t>(*in.raw_size() + 1, 4096)))
                                   : block_bytes) {}

  // Fills `block` with the next run of whole lines (at the end of the input the last
  // line may lack its newline). Returns false when nothing is left.
  bool next(CharBuffer& block) {
    grow(block, std::max(block_bytes_, 2 * carry_.size()));
    std::memcpy(block.data(), carry_.data(), carry_.size());
    std::size_t filled = carry_.size();
    for (;;) {
      while (filled < block.size() && !at_end_) {
        const std::size_t n = in_.read(block.data() + filled, block.size() - filled);
        if (n == 0) at_end_ = true;
        filled += n;
      }
      if (at_end_) {
        carry_.clear();
        block.resize(filled);
        return filled > 0;
      }
      const char* last_newline = static_cast<const char*>(memrchr(block.data(), '\n', filled));
      if (last_newline != nullptr) {
        const std::size_t end = static_cast<std::size_t>(last_newline + 1 - block.data());
        carry_.assign(block.data() + end, block.data() + filled);
        block.resize(end);
        return true;
      }
      grow(block, block.size() * 2);  // a line longer than the block: read more of it
    }
  }

 private:
  // Parsers may read kReadSlack bytes past the last line, so keep that much capacity beyond it.
  static void grow(CharBuffer& block, std::size_t size) {
    block.reserve(size + kReadSlack);
    block.resize(size);
  }

  InputStream& in_;
  std::size_t block_bytes_;
  std::string carry_;  // the incomplete last line of the previous block
  bool at_end_ = false;
};

// Reads the first line without consuming it (lines of vectors are a few kB; cap at 64 MB).
std::string_view peek_first_line(InputStream& in) {
  std::size_t want = 1 << 16;
  for (;;) {
    std::string_view head = in.peek(want);
    const auto nl = head.find('\n');
    if (nl != std::string_view::npos) return head.substr(0, nl);
    if (head.size() < want || want >= (64u << 20)) return head;
    want *= 4;
  }
}

// A UTF-8 byte-order mark, as some editors start a text file with: not part of the first
// word. Consumed.
void skip_byte_order_mark(InputStream& in) {
  if (in.peek(3) == "\xEF\xBB\xBF") {
    char bom[3];
    in.read(bom, 3);
  }
}

}  // namespace

std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_count_dim_header(std::string_view line) {
  const auto fields = split_fields(line.data(), trim_line_end(line.data(), line.data() + line.size()));
  if (fields.size() != 2) return std::nullopt;
  std::uint64_t values[2];
  for (int i = 0; i < 2; ++i) {
    auto [ptr, ec] = std::from_chars(fields[i].begin, fields[i].end, values[i]);
    if (ec != std::errc() || ptr != fields[i].end) return std::nullopt;
  }
  return std::make_pair(values[0], values[1]);
}

WordSet read_word_list(const std::string& path) {
  InputStream in = InputStream::open(path);  // "-" for stdin, gzip or not
  WordSet words;
  for (const std::string& line : in.read_lines()) {
    const char* end = trim_line_end(line.data(), line.data() + line.size());
    const char* begin = line.data();
    while (begin < end && is_separator(*begin)) ++begin;
    if (begin < end) words.emplace(begin, end);
  }
  return words;
}

EmbeddingTable read_text_vectors(InputStream& in, const TextReadOptions& options) {
  const std::string& name = in.name();
  EmbeddingTable table;
  std::uint64_t line_base = 0;  // lines consumed before the current chunk
  std::optional<std::uint64_t> header_rows;
  std::string dim_origin;

  // Given as text by --from, a model is still named for what it is.
  refuse_known_models(in.peek(kFastTextHeadBytes), name);
  skip_byte_order_mark(in);
  const std::string first_line(peek_first_line(in));
  if (first_line.empty() && in.peek(1).empty()) fail("{}: empty input (no vectors)", name);
  if (options.has_header) {
    auto header = parse_count_dim_header(first_line);
    if (!header) fail_at(name, 1, "expected a header \"COUNT DIM\" (word2vec/fastText text), found \"{}\"", excerpt(first_line));
    if (header->second == 0) fail_at(name, 1, "the header gives dimension 0");
    if (header->second > kMaxVectorDimension) {
      fail_at(name, 1, "the header gives dimension {}, which is not plausible (at most {})", header->second,
              kMaxVectorDimension);
    }
    header_rows = header->first;
    table.dim = header->second;
    dim_origin = "the header's dimension";
    std::vector<char> skip(first_line.size() + 1);
    in.read(skip.data(), skip.size());
    line_base = 1;
  } else {
    const char* end = trim_line_end(first_line.data(), first_line.data() + first_line.size());
    const auto fields = split_fields(first_line.data(), end);
    if (fields.empty()) fail_at(name, 1, "expected a word followed by numbers, found an empty line");
    if (fields.size() < 2) fail_at(name, 1, "expected a word followed by numbers, found one field \"{}\"", excerpt(fields[0].text()));
    table.dim = fields.size() - 1;
    dim_origin = "as on line 1";
  }
  const std::size_t dim = table.dim;
  const LineParser parser(dim, dim_origin, options.keep, options.words);

  // Reserve once from what we know, so the vectors are not copied as they grow: from the
  // file's size, never from the header alone (a header may promise anything, and a
  // stream has no size: then the table grows with what is read). Every value takes at
  // least two bytes of text ("0 "), so this is at most about twice the file's size.
  std::uint64_t expected_rows = 0;
  if (in.size_hint()) {
    const std::uint64_t by_size = *in.size_hint() / std::max<std::size_t>(first_line.size() + 1, 2 * dim + 2);
    expected_rows = header_rows ? std::min(*header_rows, by_size + 1) : by_size + by_size / 16;
    if (expected_rows * dim * sizeof(float) > 4 * *in.size_hint() + 4096) expected_rows = 0;
  }
  if (options.limit) expected_rows = std::min(expected_rows, options.limit);
  if (!options.keep) {
    if (!options.row_sink) table.values.reserve(expected_rows * dim);
    table.origins.reserve(expected_rows);
    table.word_offsets.reserve(expected_rows + 1);
  }

  const unsigned threads = std::max(1u, options.threads);
  Progress progress("reading " + name, in.raw_size().value_or(0));
  LineBlockReader reader(in, options.chunk_bytes);
  // Two of everything: while the workers parse one block, a helper thread hands the
  // previous block's rows to the sink (writing them out) and reads the next block.
  std::array<CharBuffer, 2> blocks;
  std::array<std::vector<Part>, 2> part_sets{std::vector<Part>(threads), std::vector<Part>(threads)};
  struct SinkJob {
    int set = 0;
    std::vector<std::pair<std::size_t, std::size_t>> rows;  // per part: (first table row, row count)
  };
  std::optional<SinkJob> pending;
  auto run_sink = [&](const SinkJob& job) {
    for (std::size_t i = 0; i < job.rows.size(); ++i) {
      const auto [first, count] = job.rows[i];
      if (count > 0) options.row_sink(table, first, std::span<float>(part_sets[job.set][i].values.data(), count * dim));
    }
  };
  std::uint64_t rows_seen = 0;
  bool limit_reached = false;
  int current = 0;
  bool have_block = reader.next(blocks[current]);
  while (have_block && !limit_reached) {
    bool have_next = false;
    auto helper = std::async(std::launch::async, [&, job = std::move(pending)] {
      if (job) run_sink(*job);
      have_next = reader.next(blocks[1 - current]);
    });
    pending.reset();
    std::vector<Part>& parts = part_sets[current];
    const auto runs = split_at_lines(blocks[current].data(), blocks[current].data() + blocks[current].size(), threads);
    for (Part& part : parts) part.clear();
    parallel_for(runs.size(), threads, [&](std::size_t i) { parser.parse(runs[i].first, runs[i].second, parts[i]); });
    helper.get();  // the table may change again only once the sink is done with it
    progress.update(in.raw_bytes_read());

    // Keep rows in input order up to the limit or the first bad line, whichever comes first.
    std::vector<std::size_t> first_row(runs.size() + 1, 0);
    std::size_t used_parts = 0;
    std::optional<std::size_t> failed_part;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      std::size_t take = parts[i].word_ends.size();
      if (options.limit) take = static_cast<std::size_t>(std::min<std::uint64_t>(take, options.limit - table.rows() - first_row[i]));
      first_row[i + 1] = first_row[i] + take;
      used_parts = i + 1;
      if (options.limit && table.rows() + first_row[i + 1] >= options.limit) {
        limit_reached = true;
        break;
      }
      if (parts[i].error) {
        failed_part = i;
        break;
      }
    }
    const std::size_t old_rows = table.rows();
    if (!options.row_sink) {
      table.values.resize((old_rows + first_row[used_parts]) * dim);
      parallel_for(used_parts, threads, [&](std::size_t i) {
        const std::size_t rows = first_row[i + 1] - first_row[i];
        if (rows == 0) return;  // a part of blank lines has no values (and maybe no buffer)
        std::memcpy(table.values.data() + (old_rows + first_row[i]) * dim, parts[i].values.data(),
                    rows * dim * sizeof(float));
      });
    } else {
      pending = SinkJob{current, {}};
      for (std::size_t i = 0; i < used_parts; ++i) pending->rows.emplace_back(old_rows + first_row[i], first_row[i + 1] - first_row[i]);
    }
    for (std::size_t i = 0; i < used_parts; ++i) {
      const Part& part = parts[i];
      std::uint32_t word_begin = 0;
      for (std::size_t r = 0; r < first_row[i + 1] - first_row[i]; ++r) {
        table.word_bytes.append(part.words, word_begin, part.word_ends[r] - word_begin);
        table.word_offsets.push_back(static_cast<std::int64_t>(table.word_bytes.size()));
        table.origins.push_back(line_base + part.row_lines[r] + 1);
        word_begin = part.word_ends[r];
      }
      rows_seen += part.rows_seen;
      if (failed_part == i) fail_at(name, line_base + part.error->first + 1, "{}", part.error->second);
      line_base += part.lines;
    }
    current = 1 - current;
    have_block = have_next;
  }
  if (pending) run_sink(*pending);
  progress.finish();

  if (header_rows && !limit_reached && rows_seen != *header_rows) {
    fail_at(name, 1, "the header says {} but the file has {}", counted(*header_rows, "word"), counted(rows_seen, "row"));
  }
  if (table.rows() == 0 && !options.keep) fail("{}: no vectors found", name);
  return table;
}

}  // namespace embed
