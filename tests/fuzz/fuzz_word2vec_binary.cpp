// word2vec's binary format ("COUNT DIM" then word, space, DIM little-endian floats).
#include "core/error.h"
#include "fuzz_util.h"
#include "text/word2vec_binary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embed::fuzz::scratch_file(std::string(reinterpret_cast<const char*>(data), size), ".bin");
  try {
    embed::InputStream in = embed::InputStream::open(path);
    embed::read_word2vec_binary(in, 0, nullptr);
  } catch (const embed::Error&) {
  }
  return 0;
}
