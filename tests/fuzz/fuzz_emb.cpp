// The .emb reader: open (header, tensors, index), verify (every checksum, every word
// found through the index), and every row as f32. Checksums are recomputed first.
#include <vector>

#include "core/error.h"
#include "format/emb_file.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes = embed::fuzz::with_checksums(std::string(reinterpret_cast<const char*>(data), size));
  const std::string path = embed::fuzz::scratch_file(bytes, ".emb");
  try {
    const embed::EmbFile file = embed::EmbFile::open(path);
    file.verify();
    std::vector<float> row(file.dim());
    for (std::uint64_t r = 0; r < file.rows(); ++r) file.rows_as_f32(r, 1, row.data());
  } catch (const embed::Error&) {
  }
  return 0;
}
