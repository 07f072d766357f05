// fastText's native models (.bin): magic, version, settings, dictionary, matrices.
#include "core/error.h"
#include "fuzz_util.h"
#include "text/fasttext_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embed::fuzz::scratch_file(std::string(reinterpret_cast<const char*>(data), size), ".bin");
  try {
    embed::InputStream in = embed::InputStream::open(path);
    embed::FastTextReadOptions options;
    options.keep_subwords = true;
    const embed::FastTextModel model = embed::read_fasttext_model(in, options);
    if (model.subwords) {
      std::vector<float> vector(model.table.dim);
      model.subwords->oov_vector("fuzz\xC3\xA9", vector);
    }
  } catch (const embed::Error&) {
  }
  return 0;
}
