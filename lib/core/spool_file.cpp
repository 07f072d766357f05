#include "core/spool_file.h"

#include <unistd.h>

#include <utility>

#include "core/atomic_output.h"

namespace embed {

SpoolFile::SpoolFile(std::string path) : path_(std::move(path)) {
  install_cleanup_handlers();
  cleanup_slot_ = register_temporary(path_);
}

SpoolFile::~SpoolFile() {
  unregister_temporary(cleanup_slot_);
  if (owned_) ::unlink(path_.c_str());
}

void SpoolFile::keep() {
  unregister_temporary(cleanup_slot_);
  cleanup_slot_ = -1;
  owned_ = false;
}

void SpoolFile::release() {
  if (!owned_) cleanup_slot_ = register_temporary(path_);
  owned_ = true;
}

}  // namespace embed
