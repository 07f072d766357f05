// Output names whose extension promises a format the tools do not write (NumPy, pickles,
// PyTorch, HDF5...): writing .emb bytes under such a name would hand the next tool in a
// pipeline a file it misreads, so the tools refuse them and say what to do instead.
#pragma once

#include <string>
#include <string_view>

namespace embed {

// The extension of `path` (".npy") when it names a format no tool here writes, else empty.
std::string_view foreign_vector_extension(std::string_view path);

}  // namespace embed
