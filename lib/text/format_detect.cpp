#include "text/format_detect.h"

#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "format/safetensors.h"
#include "text/fasttext_model.h"
#include "text/text_reader.h"

namespace embed {

namespace {
// Python's pickles of protocol 2 to 5 start with the PROTO opcode (0x80) and the protocol;
// gensim's KeyedVectors.save and Word2Vec.save write them (.kv, .model). Asked only after
// the formats whose first bytes could look the same (a safetensors header of 640 bytes).
std::optional<int> pickle_protocol(std::string_view head) {
  if (head.size() < 2 || static_cast<unsigned char>(head[0]) != 0x80 || head[1] < 2 || head[1] > 5) return std::nullopt;
  return head[1];
}

[[noreturn]] void fail_pickle(int protocol, const std::string& name) {
  fail(
      "{}: looks like a pickled gensim KeyedVectors file (.kv or .model: a Python pickle, protocol {}), not a vector "
      "file; save it with model.wv.save_word2vec_format(\"vectors.bin\", binary=True) and convert that",
      name, protocol);
}

// What follows a first line "COUNT DIM": word2vec's text rows or its binary ones.
enum class CountDimRows { none, text, binary };

CountDimRows count_dim_rows(std::string_view head) {
  const auto newline = head.find('\n');
  if (newline == std::string_view::npos) return CountDimRows::none;
  const auto header = parse_count_dim_header(head.substr(0, newline));
  if (!header) return CountDimRows::none;
  // After the header comes a row: the word (which may contain spaces), then either D
  // numbers as text up to a newline, or a space and 4 * D raw bytes.
  // Characters of numbers as text, "nan" and "inf(inity)" included, and a stray "\r".
  auto number_char = [](unsigned char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' || c == '\r' || c == 'n' ||
           c == 'a' || c == 'i' || c == 'f' || c == 'N' || c == 'I' || c == 'F' || c == 't' || c == 'y';
  };
  auto number_like = [&](std::string_view field) {
    return !field.empty() && std::all_of(field.begin(), field.end(), [&](unsigned char c) { return number_char(c); });
  };
  const std::string_view row = head.substr(newline + 1);
  const auto row_end = row.find('\n');
  if (row_end == std::string_view::npos) {
    // A row longer than the peek: text if everything after the first word is number-like.
    const auto space = row.find(' ');
    if (space == std::string_view::npos) return CountDimRows::text;
    for (unsigned char c : row.substr(space + 1)) {
      if (!number_char(c) && c != ' ' && c != '\t') return CountDimRows::binary;
    }
    return CountDimRows::text;
  }
  // Count the number-like fields at the end of the first line. Raw floats may hold a
  // 0x0A byte after a few text-like bytes, but hardly ever after half a row's worth of
  // number-like fields; a text row with the wrong field count is still text, so that
  // its error says so.
  std::size_t numbers = 0;
  std::string_view line = row.substr(0, row_end);
  while (!line.empty()) {
    const auto last_separator = line.find_last_of(" \t");
    const std::string_view field = last_separator == std::string_view::npos ? line : line.substr(last_separator + 1);
    if (!field.empty()) {
      if (!number_like(field)) break;
      ++numbers;
    }
    if (last_separator == std::string_view::npos) break;
    line = line.substr(0, last_separator);
  }
  return numbers >= 1 && 2 * numbers >= header->second ? CountDimRows::text : CountDimRows::binary;
}
}  // namespace

bool is_safetensors(std::string_view head) {
  if (head.size() < 9) return false;
  const std::uint64_t header_size = safetensors::read_header_length(reinterpret_cast<const std::byte*>(head.data()));
  const auto first = head.substr(8).find_first_not_of(" \t\r\n");
  return header_size >= 2 && header_size <= safetensors::kMaxHeaderSize && first != std::string_view::npos &&
         head[8 + first] == '{';
}

bool is_w2v_text(std::string_view text) { return count_dim_rows(text) == CountDimRows::text; }

bool is_w2v_bin(std::string_view text) { return count_dim_rows(text) == CountDimRows::binary; }

void refuse_short_emb(std::string_view head, const std::string& name) {
  if (head.size() >= 9 || !(name.ends_with(".emb") || name.ends_with(".emb.gz"))) return;
  if (head.empty()) fail("{}: empty (0 bytes), not an .emb file: was it written by a run that failed?", name);
  fail("{}: {} bytes, too short for an .emb file (its header alone takes more): truncated?", name, head.size());
}

void refuse_pickle(std::string_view head, const std::string& name) {
  if (const auto protocol = pickle_protocol(head)) fail_pickle(*protocol, name);
}

void refuse_known_models(std::string_view head, const std::string& name) {
  if (!is_fasttext_model(head)) {
    if (const auto protocol = pickle_protocol(head); protocol && !is_safetensors(head)) fail_pickle(*protocol, name);
    return;
  }
  fail(
      "{}: a fastText model (.bin or .ftz), not a text vector file: read it as fasttext-bin (detected when --from is "
      "left out)",
      name);
}

}  // namespace embed
