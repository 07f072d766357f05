// What glove-convert and embed-query load: format detection from the bytes (gzip
// included: the fuzzer's input may be compressed), then the detected reader, then the
// table's word index (duplicates).
#include "core/error.h"
#include "format/embedding_table.h"
#include "fuzz_util.h"
#include "vectors/load.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embed::fuzz::scratch_file(std::string(reinterpret_cast<const char*>(data), size), ".vec");
  try {
    embed::LoadOptions options;
    embed::load_vectors(path, options);
  } catch (const embed::Error&) {}
  return 0;
}
