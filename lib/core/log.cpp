#include "core/log.h"

#include <memory>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace embed {
namespace {

// %L in our pattern: nothing for info, "warning: " / "error: " and so on otherwise,
// so that ordinary progress lines stay uncluttered and problems stand out.
class LevelPrefix : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const char* prefix = "";
    switch (msg.level) {
      case spdlog::level::trace: prefix = "trace: "; break;
      case spdlog::level::debug: prefix = "debug: "; break;
      case spdlog::level::warn: prefix = "warning: "; break;
      case spdlog::level::err: prefix = "error: "; break;
      case spdlog::level::critical: prefix = "fatal: "; break;
      default: break;
    }
    dest.append(prefix, prefix + std::char_traits<char>::length(prefix));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<LevelPrefix>(); }
};

}  // namespace

void init_logging(const std::string& tool_name, int verbosity) {
  auto logger = std::make_shared<spdlog::logger>(tool_name, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<LevelPrefix>('L').set_pattern("%n: %L%v");
  logger->set_formatter(std::move(formatter));
  spdlog::level::level_enum level = spdlog::level::info;
  if (verbosity < 0) level = spdlog::level::err;
  if (verbosity == 1) level = spdlog::level::debug;
  if (verbosity >= 2) level = spdlog::level::trace;
  logger->set_level(level);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace embed
