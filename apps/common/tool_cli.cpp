#include "common/tool_cli.h"

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "backend/registry.h"
#include "common/option_checks.h"
#include "core/cpu_isa.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/log.h"
#include "core/report_errors.h"

namespace embed::cli {

void add_log_flags(CLI::App& app, LogFlags& flags) {
  // No message is at trace level, so -vv shows what -v shows, and the help promises no more.
  CLI::Option* verbose = app.add_flag("-v,--verbose", flags.verbose, "also debug messages");
  app.add_flag("-q,--quiet", flags.quiet, "errors only")->excludes(verbose);
}

void add_version_flag(CLI::App& app, const std::string& tool, std::function<std::string()> extra) {
  app.set_version_flag("--version", std::function<std::string()>([tool, extra] {
                         std::string text =
                             tool + " " EMBED_VERSION "\nbackends: " + backend_summary() + "\ngpus: " + gpu_summary() + "\ncpu: " + cpu_isa_summary();
                         if (extra) text += "\n" + extra();
                         return text;
                       }));
}

void add_device_options(CLI::App& app, GpuRequest& request, const std::string& device_help, const std::string& gpu_memory_help) {
  app.add_option_function<std::string>(
         "--device", [&request](const std::string& name) { request.device = *parse_device_choice(name); },
         device_help + " (default: " + std::string(device_choice_name(request.device)) + ")")
      ->check(CLI::IsMember(device_choice_names()));
  app.add_option("--gpu", request.ordinal, "GPU: which device --device cuda or auto uses, by CUDA number")
      ->check(between(0, 1023))
      ->capture_default_str();
  app.add_option("--gpu-memory", request.memory, gpu_memory_help)->transform(CLI::AsSizeValue(false));
}

CLI::Option* add_dtype_option(CLI::App& app, std::optional<DType>& dtype, const std::string& help) {
  return app
      .add_option_function<std::string>(
          "--dtype", [&dtype](const std::string& name) { dtype = parse_vector_dtype(name); }, help)
      ->check(CLI::IsMember(vector_dtype_names()));
}

CLI::Option* add_row_storage_options(CLI::App& app, RowStorageChoice& choice, const std::string& dtype_help,
                                     const std::string& pq_help) {
  std::vector<std::string> dtypes = vector_dtype_names();
  dtypes.push_back("int8");
  CLI::Option* dtype = app.add_option_function<std::string>(
                              "--dtype",
                              [&choice](const std::string& name) {
                                if (name == "int8") choice.storage = RowStorage::int8;
                                else choice.dtype = parse_vector_dtype(name);
                              },
                              dtype_help)
                           ->check(CLI::IsMember(dtypes));
  return app
      .add_option_function<std::size_t>(
          "--pq",
          [&choice](std::size_t m) {
            choice.storage = RowStorage::pq;
            choice.pq_m = m;
          },
          pq_help)
      ->check(between(std::size_t{1}, std::size_t{4096}))
      ->excludes(dtype);
}

void add_word_decoding_options(CLI::App& app, WordDecoding& words) {
  app.add_option("--encoding", words.encoding,
                 "the encoding of the input's words (text, word2vec and fastText files), as gensim's encoding=: an "
                 "8-bit one iconv knows, such as cp1251, latin1 or cp852 (default: UTF-8)")
      ->check(CLI::Validator(encoding_problem, "NAME"));
  app.add_option_function<std::string>(
         "--unicode-errors", [&words](const std::string& name) { words.errors = *parse_unicode_errors(name); },
         "words whose bytes do not decode (text, word2vec and fastText input), as gensim's unicode_errors: strict "
         "fails, replace puts U+FFFD in place of the bad bytes, ignore drops them, backslashreplace writes each as "
         "\\xNN, keeping words that differ in them apart (default: strict)")
      ->check(CLI::IsMember(unicode_errors_names()));
}

namespace {

// CLI11 names an option by its long name in errors ("--top: 0 is not ..."), whichever
// spelling was typed: `message` with the option named as the command line spelled it
// ("-k: 0 is not ..." after -k 0), or nullopt when it already is.
std::optional<std::string> as_typed(const CLI::App& app, const std::string& message, int argc, char** argv) {
  const auto colon = message.find(": ");
  if (!message.starts_with("--") || colon == std::string::npos) return std::nullopt;
  const std::string named = message.substr(0, colon);
  auto typed = [&](const std::string& spelling) {
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (arg == "--") break;
      if (arg == spelling || (arg.starts_with(spelling) && (spelling.size() == 2 || arg[spelling.size()] == '='))) return true;
    }
    return false;
  };
  for (const CLI::App* command = &app; command != nullptr;) {
    for (const CLI::Option* option : command->get_options()) {
      if (option->get_name() != named || typed(named)) continue;
      for (const std::string& letter : option->get_snames()) {
        if (typed("-" + letter)) return "-" + letter + message.substr(colon);
      }
    }
    const auto subcommands = command->get_subcommands();  // the one parsed, if any
    command = subcommands.empty() ? nullptr : subcommands.front();
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  // A usage error is one line, as every other error is (run's UsageError): CLI11's own
  // puts "Run with --help for more information." on a second line and names no tool,
  // which a pipeline's stderr then cannot attribute.
  app.failure_message([](const CLI::App* failed, const CLI::Error& error) {
    const CLI::App* tool = failed;
    while (tool->get_parent() != nullptr) tool = tool->get_parent();
    return fmt::format("{}: error: {}; see --help\n", tool->get_name(), error.what());
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ValidationError& e) {
    take_input_file_error();
    if (const auto message = as_typed(app, e.what(), argc, argv)) return usage_exit(app, CLI::ValidationError(*message));
    return app.exit(e) == 0 ? 0 : kExitUsage;
  } catch (const CLI::ParseError& e) {
    take_input_file_error();
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  if (const std::string error = take_input_file_error(); !error.empty()) {
    fmt::print(stderr, "{}: error: {}\n", app.get_name(), error);
    return kExitFailure;
  }
  return std::nullopt;
}

int usage_exit(CLI::App& app, const CLI::ParseError& error) {
  app.exit(error);
  return kExitUsage;
}

namespace {
void collect_given(const CLI::App& app, std::set<std::string>& given) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() > 0 && !option->get_lnames().empty()) given.insert("--" + option->get_lnames().front());
  }
  for (const CLI::App* sub : app.get_subcommands()) collect_given(*sub, given);
}
}  // namespace

std::set<std::string> given_options(const CLI::App& app) {
  std::set<std::string> given;
  collect_given(app, given);
  return given;
}

int run(const std::string& tool, const LogFlags& flags, const std::function<int()>& body) {
  init_logging(tool, flags.quiet ? -1 : flags.verbose);
  return report_errors(kExitFailure, [&]() -> int {
    try {
      cpu_isa();  // a wrong EMBED_CPU_ISA is an error before any work, not after counting a corpus
      const int status = body();
      // Written now, while a failure can still be told.
      flush_stdout("<stdout>: cannot write");
      return status;
    } catch (const UsageError& e) {
      spdlog::error("{}; see --help", e.what());
      return kExitUsage;
    }
  });
}

}  // namespace embed::cli
