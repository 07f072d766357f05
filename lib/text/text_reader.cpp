#include "text/text_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>

#include <fast_float/fast_float.h>

#include "core/error.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/utf8.h"

namespace embed {
namespace {

inline bool is_separator(char c) { return c == ' ' || c == '\t'; }

// Strips "\r" and trailing separators (fastText writes a space before every newline).
inline const char* trim_line_end(const char* line, const char* end) {
  while (end > line && (end[-1] == '\r' || is_separator(end[-1]))) --end;
  return end;
}

inline bool is_ascii(std::string_view s) {
  for (unsigned char c : s) {
    if (c & 0x80) return false;
  }
  return true;
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

// Parses the common shape "-?DIGITS(.DIGITS)?" directly: when the digits fit in 24 bits
// and there are at most 10 decimals, both the digits and the power of ten are exact
// floats, so one IEEE division gives the correctly rounded result (Clinger's fast path,
// the one fast_float takes too, without its generality). Returns nullptr for anything
// else (exponents, long mantissas, "nan"), which the caller hands to fast_float.
inline const char* parse_plain_decimal(const char* p, const char* end, float& out) {
  static constexpr float kPowersOfTen[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
  const bool negative = p < end && *p == '-';
  p += negative;
  std::uint64_t mantissa = 0;
  const char* digits = p;
  while (p < end && static_cast<unsigned>(*p - '0') < 10) mantissa = mantissa * 10 + static_cast<unsigned>(*p++ - '0');
  std::size_t count = static_cast<std::size_t>(p - digits);
  std::size_t decimals = 0;
  if (p < end && *p == '.') {
    const char* fraction = ++p;
    while (p < end && static_cast<unsigned>(*p - '0') < 10) mantissa = mantissa * 10 + static_cast<unsigned>(*p++ - '0');
    decimals = static_cast<std::size_t>(p - fraction);
    count += decimals;
  }
  if (count == 0 || count > 19 || decimals > 10 || mantissa > (1u << 24)) return nullptr;
  if (p < end && !is_separator(*p)) return nullptr;
  const float value = static_cast<float>(mantissa) / kPowersOfTen[decimals];
  out = negative ? -value : value;
  return p;
}

std::string show(std::string_view s) {
  constexpr std::size_t kMax = 40;
  return s.size() <= kMax ? std::string(s) : std::string(s.substr(0, kMax)) + "...";
}

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
  LineParser(std::size_t dim, const std::string& dim_origin, const WordSet* keep)
      : dim_(dim), dim_origin_(dim_origin), keep_(keep) {
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
      if (const char* next = parse_plain_decimal(p, end, out[k])) {
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
        return fmt::format("field {}: \"{}\" is not a number", first_number + i + 1, show(f.text()));
      }
      if (!std::isfinite(out[i])) {
        part.values.resize(base);
        return fmt::format("field {}: \"{}\" is not a finite number", first_number + i + 1, show(f.text()));
      }
    }
    const Field& last_word_field = fields[first_number - 1];
    float ignored;
    if (first_number > 1 && parse_number(last_word_field.begin, last_word_field.end, ignored)) {
      part.values.resize(base);
      return fmt::format("ragged row: {} numbers after the word \"{}\", expected {} ({})", fields.size() - 1,
                         show(fields[0].text()), dim_, dim_origin_);
    }
    const std::string_view word(line, static_cast<std::size_t>(last_word_field.end - line));
    if (keep_ && !keep_->contains(word)) {
      part.values.resize(base);
      return std::nullopt;
    }
    return add_word(word, part, base);
  }

  std::optional<std::string> add_word(std::string_view word, Part& part, std::size_t base) const {
    if (!is_ascii(word) && !is_valid_utf8(word)) {
      part.values.resize(base);
      return fmt::format("the word \"{}\" is not valid UTF-8", show(word));
    }
    part.words.append(word);
    part.word_ends.push_back(static_cast<std::uint32_t>(part.words.size()));
    part.row_lines.push_back(static_cast<std::uint32_t>(part.lines));
    return std::nullopt;
  }

  static std::size_t count_fields(const char* p, const char* end) { return split_fields(p, end).size(); }

  std::string too_few_fields(const char* line, const char* end) const {
    const auto fields = split_fields(line, end);
    return fmt::format("expected a word followed by {} numbers ({}), found {} field{}", dim_, dim_origin_, fields.size(),
                       fields.size() == 1 ? "" : "s");
  }

  std::size_t dim_;
  std::string dim_origin_;
  const WordSet* keep_;
  bool keep_has_spaces_ = false;
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
  std::ifstream file(path);
  if (!file) fail("{}: cannot open the word list", path);
  WordSet words;
  std::string line;
  while (std::getline(file, line)) {
    const char* end = trim_line_end(line.data(), line.data() + line.size());
    const char* begin = line.data();
    while (begin < end && is_separator(*begin)) ++begin;
    if (begin < end) words.emplace(begin, end);
  }
  if (file.bad()) fail("{}: read error", path);
  return words;
}

EmbeddingTable read_text_vectors(InputStream& in, const TextReadOptions& options) {
  const std::string& name = in.name();
  EmbeddingTable table;
  std::uint64_t line_base = 0;  // lines consumed before the current chunk
  std::optional<std::uint64_t> header_rows;
  std::string dim_origin;

  const std::string first_line(peek_first_line(in));
  if (options.has_header) {
    auto header = parse_count_dim_header(first_line);
    if (!header) fail_at(name, 1, "expected a header \"COUNT DIM\" (word2vec/fastText text), found \"{}\"", show(first_line));
    if (header->second == 0) fail_at(name, 1, "the header gives dimension 0");
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
    if (fields.size() < 2) fail_at(name, 1, "expected a word followed by numbers, found one field \"{}\"", show(fields[0].text()));
    table.dim = fields.size() - 1;
    dim_origin = "as on line 1";
  }
  const std::size_t dim = table.dim;
  const LineParser parser(dim, dim_origin, options.keep);

  // Reserve once from what we know, so the vectors are not copied as they grow.
  std::uint64_t expected_rows = header_rows.value_or(0);
  if (in.size_hint()) {
    const std::uint64_t by_size = *in.size_hint() / std::max<std::size_t>(first_line.size() + 1, 2 * dim + 2) + 16;
    expected_rows = header_rows ? std::min(*header_rows, by_size * 2) : by_size + by_size / 16;
  }
  if (options.limit) expected_rows = std::min(expected_rows, options.limit);
  if (!options.keep) {
    expected_rows = std::min<std::uint64_t>(expected_rows, std::uint64_t{1} << 28);
    table.values.reserve(expected_rows * dim);
    table.origins.reserve(expected_rows);
    table.word_offsets.reserve(expected_rows + 1);
  }

  const unsigned threads = std::max(1u, options.threads);
  Progress progress("reading " + name, in.raw_size().value_or(0));
  std::vector<char> buffer(options.chunk_bytes);
  std::vector<Part> parts(threads);
  std::size_t carried = 0;
  std::uint64_t rows_seen = 0;
  bool at_end = false;
  bool limit_reached = false;
  while (!at_end && !limit_reached) {
    std::size_t filled = carried;
    while (filled < buffer.size()) {
      const std::size_t n = in.read(buffer.data() + filled, buffer.size() - filled);
      if (n == 0) {
        at_end = true;
        break;
      }
      filled += n;
    }
    progress.update(in.raw_bytes_read());
    const char* begin = buffer.data();
    const char* end = begin + filled;
    if (!at_end) {
      const char* last_newline = static_cast<const char*>(memrchr(begin, '\n', filled));
      if (last_newline == nullptr) {
        buffer.resize(buffer.size() * 2);  // a line longer than the buffer: read more of it
        carried = filled;
        continue;
      }
      end = last_newline + 1;
    }
    const auto runs = split_at_lines(begin, end, threads);
    for (Part& part : parts) part.clear();
    parallel_for(runs.size(), threads, [&](std::size_t i) { parser.parse(runs[i].first, runs[i].second, parts[i]); });

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
    table.values.resize((old_rows + first_row[used_parts]) * dim);
    parallel_for(used_parts, threads, [&](std::size_t i) {
      std::memcpy(table.values.data() + (old_rows + first_row[i]) * dim, parts[i].values.data(),
                  (first_row[i + 1] - first_row[i]) * dim * sizeof(float));
    });
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
    carried = static_cast<std::size_t>(buffer.data() + filled - end);
    std::memmove(buffer.data(), end, carried);
  }
  progress.finish();

  if (header_rows && !limit_reached && rows_seen != *header_rows) {
    fail_at(name, 1, "the header says {} words but the file has {} rows", *header_rows, rows_seen);
  }
  if (table.rows() == 0 && !options.keep) fail("{}: no vectors found", name);
  return table;
}

}  // namespace embed
