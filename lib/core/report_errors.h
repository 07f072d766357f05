// The outermost frame of every executable: runs the tool's work and turns whatever it
// throws into one "tool: error: ..." line on stderr and the tool's failure exit code.
#pragma once

#include <new>
#include <stdexcept>

#include <spdlog/spdlog.h>

namespace embed {

template <typename Body>
int report_errors(int failure_exit_code, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    spdlog::error("out of memory");
  } catch (const std::exception& e) {  // embed::Error and the rest: the message is the story
    spdlog::error("{}", e.what());
  }
  return failure_exit_code;
}

}  // namespace embed
