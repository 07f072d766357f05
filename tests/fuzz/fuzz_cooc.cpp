// The co-occurrence counts file (--save-cooc, --cooc), checksum recomputed first.
#include "core/error.h"
#include "fuzz_util.h"
#include "train/glove/cooc_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes = embed::fuzz::with_checksums(std::string(reinterpret_cast<const char*>(data), size));
  const std::string path = embed::fuzz::scratch_file(bytes, ".cooc");
  try {
    embed::load_cooc(path);
  } catch (const embed::Error&) {
  }
  return 0;
}
