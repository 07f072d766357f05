// The text vector reader (GloVe text, word2vec/fastText text with a header): the first
// byte chooses the header, the threads and the block size, the rest is the file.
#include "core/error.h"
#include "fuzz_util.h"
#include "text/text_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string path = embed::fuzz::scratch_file(std::string(reinterpret_cast<const char*>(data) + 1, size - 1), ".txt");
  try {
    embed::InputStream in = embed::InputStream::open(path);
    embed::TextReadOptions options;
    options.has_header = (mode & 1) != 0;
    options.threads = (mode & 2) != 0 ? 2 : 1;
    // Small blocks cut lines across them; the default 32 MB would be allocated every run.
    options.chunk_bytes = (mode & 4) != 0 ? 64 : 1u << 16;
    options.limit = (mode & 8) != 0 ? 3 : 0;
    embed::read_text_vectors(in, options);
  } catch (const embed::Error&) {
  }
  return 0;
}
