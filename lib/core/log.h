// Logging set-up shared by the executables: spdlog to stderr, one line per message,
// "tool: warning: ..." / "tool: error: ..." prefixes, verbosity from -q/-v.
#pragma once

#include <string>

namespace embed {

// verbosity: -1 quiet (errors only), 0 normal (info), 1 verbose (debug), 2+ trace.
void init_logging(const std::string& tool_name, int verbosity);

}  // namespace embed
