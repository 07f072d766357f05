// What the three tools' command lines share: exit statuses, -v/-q, --version with the
// backends and GPUs of this build, --device/--gpu/--gpu-memory, --dtype, and turning
// a failure into one "tool: error: ..." line and the right exit status. The mains only
// declare their options; the rules between options live in lib/.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "core/utf8.h"
#include "device/gpu_device.h"
#include "format/dtype.h"
#include "format/emb_file.h"
#include "text/word_decoding.h"

namespace embed::cli {

inline constexpr int kExitFailure = 1;  // bad input or a failed run
inline constexpr int kExitUsage = 2;    // a bad command line

struct LogFlags {
  int verbose = 0;
  bool quiet = false;
};
void add_log_flags(CLI::App& app, LogFlags& flags);

// --version: "TOOL VERSION", "backends: ...", "gpus: ..." and the lines `extra` gives.
// Called only when asked for: listing GPUs creates no context, but loads the driver.
void add_version_flag(CLI::App& app, const std::string& tool, std::function<std::string()> extra = {});

// --device cpu|cuda|auto into request.device; --gpu N; --gpu-memory SIZE (one per app or
// subcommand that takes them).
void add_device_options(CLI::App& app, GpuRequest& request, const std::string& device_help,
                        const std::string& gpu_memory_help);

// --encoding NAME (gensim's encoding=) and --unicode-errors strict|replace|ignore|backslashreplace
// (gensim's unicode_errors): how the words of the input's vectors are read.
void add_word_decoding_options(CLI::App& app, WordDecoding& words);

// --dtype f32|f16|bf16, parsed into a DType once.
CLI::Option* add_dtype_option(CLI::App& app, std::optional<DType>& dtype, const std::string& help);

// How an .emb output stores its rows: --dtype f32|f16|bf16|int8 and --pq M (which exclude
// each other). `storage` is int8 or pq for a compressed file (format version 2), else dense.
struct RowStorageChoice {
  std::optional<DType> dtype;  // a dense --dtype
  RowStorage storage = RowStorage::dense;
  std::size_t pq_m = 0;
};
// Adds both options; returns --pq's, for options that need it.
CLI::Option* add_row_storage_options(CLI::App& app, RowStorageChoice& choice, const std::string& dtype_help,
                                     const std::string& pq_help);

// Parses the command line. Returns the exit status when the tool is done already
// (--help, --version, or a usage error it has printed: kExitUsage; an input_file()
// option's file that cannot be read, printed as "tool: error: FILE: reason":
// kExitFailure), nullopt to go on.
std::optional<int> parse(CLI::App& app, int argc, char** argv);

// Prints a parse error as the parser does and returns kExitUsage: for the rules the
// parser cannot state, which the app checks right after parse().
int usage_exit(CLI::App& app, const CLI::ParseError& error);

// The long names ("--window") of the options given on the command line, in `app` and
// the subcommand that was parsed.
std::set<std::string> given_options(const CLI::App& app);

// Starts logging and runs `body`: its return value is the exit status; embed::UsageError
// becomes "error: ...; see --help" and kExitUsage, any other exception its message and
// kExitFailure.
int run(const std::string& tool, const LogFlags& flags, const std::function<int()>& body);

}  // namespace embed::cli
