// The vector-file formats, one registry entry each: the names users type for it, the
// output names that imply it, what an input of it is called, how an input of it is
// recognised, and how it is read and written. Every tool asks this table (glove-convert's
// and embed-query's --from and --to choices and help, detect_format, the readers behind
// load_vectors, the writers behind convert), so a new format is its reader and writer
// plus one entry in kFormats (vector_formats.cpp), its detect hook included. The byte-level
// tests the hooks point at are text/format_detect.h's.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/format_detect.h"
#include "vectors/load.h"

namespace embed {

class AtomicOutput;

// Reads an opened input of the format into `loaded` (its table, and what else the format
// holds: subwords, dtype, normalization), honouring options.limit, keep, threads and
// unicode_errors. Throws embed::Error naming the file and line.
using VectorReader = void (*)(InputStream& in, const LoadOptions& options, LoadedVectors& loaded);

// Writes every row of `table` to `out`, as f32 values, with `threads` threads where the
// format's encoding can use them.
using VectorWriter = void (*)(const EmbeddingTable& table, unsigned threads, AtomicOutput& out);

// Whether the start of an input looks like the format: its first bytes (up to 64 KiB),
// decompressed, as the format's stage sees them.
using VectorDetector = bool (*)(std::string_view head);

// When detect_format asks a format's detect hook. Within a stage, the hooks are asked in
// registry order and must not claim the same inputs (a unit test checks each format's
// sample against the others).
enum class DetectStage {
  // Binary containers with a signature at the very start (fastText's models, safetensors),
  // asked first, on the bytes as they are.
  signature,
  // Formats that start with a line of text (word2vec's "COUNT DIM"), asked once no
  // signature matched and a Python pickle was refused, on the bytes after any UTF-8
  // byte-order mark (which the readers skip).
  text,
};

struct VectorFormatSpec {
  VectorFormat format;
  std::string_view name;                              // the --from/--to spelling, and what messages call it
  std::span<const std::string_view> aliases = {};     // other names people type for it ("word2vec", "txt")
  std::string_view alias_note = "";                   // said after the aliases in --help ("" for none)
  std::span<const std::string_view> extensions = {};  // output names that imply it (".txt"; "/" for a directory)
  std::string_view description;                       // what an input of it looks like, in messages
  VectorReader read = nullptr;                        // nullptr: the format is written only
  // Recognises an input of the format for detect_format, which asks it at `detect_stage`.
  // nullptr: never detected (GloVe text, which is what no hook claims; a format only written).
  VectorDetector detect = nullptr;
  DetectStage detect_stage = DetectStage::text;
  // The plain formats' writer: one stream, every row as it is. nullptr for a format that
  // is read only or written by convert itself: emb (dtype, subwords and an index travel
  // with the rows), fasttext-bin (subwords travel too) and projector (a directory of
  // three files).
  VectorWriter write = nullptr;
  bool writable = false;  // --to accepts it
  bool binary = false;    // raw bytes: refused on a terminal
};

// Every format, in the order --help lists them.
std::span<const VectorFormatSpec> vector_formats();
const VectorFormatSpec& format_spec(VectorFormat format);

// The format of `in`, from its (decompressed) start, without consuming it: the first
// entry whose detect hook claims it, the signature stage before the text stage; between
// them a Python pickle (gensim's KeyedVectors.save) fails with a message that names it;
// anything no hook claims is GloVe text.
VectorFormat detect_format(InputStream& in);

std::string_view format_name(VectorFormat format);
// A format's name or one of its aliases; nullopt for any other name.
std::optional<VectorFormat> parse_format_name(std::string_view name);
// The format an output name implies by its extension (a trailing "/": a directory).
std::optional<VectorFormat> format_from_extension(const std::string& path);

enum class FormatUse { read, write };
// Every spelling (names, then aliases) of the formats that can be read or written: the
// tools' --from and --to choices.
std::vector<std::string> format_spellings(FormatUse use);
// ".emb/.txt/.vec/.bin, a trailing / for projector": the output names that imply a
// format, for --to's help.
std::string format_extensions_help();
// "; also word2vec, vec or fasttext for w2v-text (...), ..., safetensors for emb": the
// aliases, for the options' help.
std::string format_aliases_help();

}  // namespace embed
