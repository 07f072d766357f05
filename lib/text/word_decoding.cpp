#include "text/word_decoding.h"

#include <iconv.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "core/excerpt.h"

namespace embed {
namespace {

std::string lower_alnum(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

struct IconvCloser {
  void operator()(void* cd) const { ::iconv_close(static_cast<iconv_t>(cd)); }
};
using Converter = std::unique_ptr<void, IconvCloser>;

Converter open_converter(const std::string& encoding) {
  iconv_t cd = ::iconv_open("UTF-8", encoding.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return nullptr;
  return Converter(cd);
}

// One converter per thread and encoding: an iconv descriptor keeps state between calls, so
// the readers' threads cannot share one, and opening one per word would cost more than
// the word.
iconv_t converter_for(const std::string& encoding) {
  thread_local std::string open_for;
  thread_local Converter converter;
  if (!converter || open_for != encoding) {
    converter = open_converter(encoding);
    open_for = encoding;
    EMBED_ASSERT(converter && "check_encoding accepted the encoding");
  }
  return static_cast<iconv_t>(converter.get());
}

// What unicode_errors does with one byte that does not decode (Python's handlers).
void handle_bad_byte(unsigned char byte, UnicodeErrors errors, std::string& out) {
  switch (errors) {
    case UnicodeErrors::replace: out += "\xEF\xBF\xBD"; break;  // U+FFFD
    case UnicodeErrors::backslashreplace: out += fmt::format("\\x{:02x}", byte); break;
    case UnicodeErrors::ignore:
    case UnicodeErrors::strict: break;
  }
}

}  // namespace

bool WordDecoding::utf8() const { return encoding.empty() || lower_alnum(encoding) == "utf8"; }

std::string encoding_problem(const std::string& encoding) {
  if (WordDecoding{encoding}.utf8()) return "";
  const Converter converter = open_converter(encoding);
  if (!converter) {
    return fmt::format("the C library's iconv has no encoding \"{}\" (iconv --list names those it has; for example "
                       "cp1251, latin1, cp852)",
                       encoding);
  }
  // An ASCII-compatible encoding gives every ASCII byte back as itself.
  std::string ascii = "az AZ 09\n\t.";
  char* in = ascii.data();
  std::size_t in_left = ascii.size();
  std::string out(4 * ascii.size(), '\0');
  char* at = out.data();
  std::size_t out_left = out.size();
  const std::size_t done = ::iconv(static_cast<iconv_t>(converter.get()), &in, &in_left, &at, &out_left);
  out.resize(out.size() - out_left);
  if (done == static_cast<std::size_t>(-1) || out != ascii) {
    return fmt::format("{} is not an 8-bit encoding that keeps ASCII as it is (as cp1251, latin1 and cp852 do); "
                       "convert such a file to UTF-8 first (iconv -f {} -t UTF-8)",
                       encoding, encoding);
  }
  return "";
}

bool needs_decoding(std::string_view word, const WordDecoding& decoding) {
  const bool ascii = std::all_of(word.begin(), word.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) return false;
  return !decoding.utf8() || !is_valid_utf8(word);
}

std::optional<std::string> decode_word(std::string_view word, const WordDecoding& decoding, std::string& decoded) {
  decoded.clear();
  if (decoding.utf8()) {
    if (decoding.errors == UnicodeErrors::strict) {
      return fmt::format(
          "the word \"{}\" is not valid UTF-8 (--encoding NAME reads a file in a legacy encoding; --unicode-errors "
          "backslashreplace, replace or ignore would keep it)",
          excerpt(word));
    }
    decoded = repair_utf8(word, decoding.errors);
  } else {
    const iconv_t cd = converter_for(decoding.encoding);
    ::iconv(cd, nullptr, nullptr, nullptr, nullptr);  // a fresh start for each word
    std::string in_bytes(word);
    char* in = in_bytes.data();
    std::size_t in_left = in_bytes.size();
    std::string out(4 * in_bytes.size() + 4, '\0');
    std::size_t used = 0;
    while (in_left > 0) {
      char* at = out.data() + used;
      std::size_t out_left = out.size() - used;
      const std::size_t done = ::iconv(cd, &in, &in_left, &at, &out_left);
      used = out.size() - out_left;
      if (done != static_cast<std::size_t>(-1)) break;
      if (errno == E2BIG) {
        out.resize(out.size() * 2);
        continue;
      }
      // EILSEQ (a byte the encoding leaves undefined) or EINVAL (an incomplete sequence at
      // the end): that byte is handled as --unicode-errors says, and decoding goes on after it.
      const auto byte = static_cast<unsigned char>(*in);
      if (decoding.errors == UnicodeErrors::strict) {
        return fmt::format("the word \"{}\" has the byte 0x{:02X}, which is not {} (--unicode-errors backslashreplace, "
                           "replace or ignore would keep the word)",
                           excerpt(word), byte, decoding.encoding);
      }
      out.resize(used);
      handle_bad_byte(byte, decoding.errors, out);
      used = out.size();
      out.resize(std::max(out.size() * 2, used + 4 * in_left + 4));
      ++in;
      --in_left;
      ::iconv(cd, nullptr, nullptr, nullptr, nullptr);
    }
    out.resize(used);
    decoded = std::move(out);
  }
  if (decoded.empty()) {
    return fmt::format("the word \"{}\" is empty once its bytes that do not decode are dropped (--unicode-errors ignore)",
                       excerpt(word));
  }
  return std::nullopt;
}

}  // namespace embed
