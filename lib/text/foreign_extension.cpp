#include "text/foreign_extension.h"

#include <array>

namespace embed {

std::string_view foreign_vector_extension(std::string_view path) {
  // What people load embeddings from in Python and elsewhere (gensim saves .kv and
  // .model pickles; numpy .npy/.npz; torch .pt/.pth; h5py .h5/.hdf5).
  static constexpr std::array<std::string_view, 14> kForeign = {".npy", ".npz", ".pt",  ".pth",     ".pkl",
                                                               ".pickle", ".kv", ".model", ".h5",   ".hdf5",
                                                               ".json", ".csv", ".tsv", ".parquet"};
  for (std::string_view extension : kForeign) {
    if (path.size() > extension.size() && path.ends_with(extension)) return extension;
  }
  return {};
}

}  // namespace embed
