// How an approximate index lives in an .emb (docs/FORMAT.md, "Approximate index"): three
// tensors beside the vectors and a few __metadata__ keys, one of which repeats the
// vectors' checksum so that an index cannot be used with vectors it was not built for.
#pragma once

#include <string>

#include "format/emb_file.h"
#include "format/emb_writer.h"
#include "search/ann/hnsw_build.h"
#include "search/ann/hnsw_graph.h"

namespace embed {

inline constexpr const char* kAnnKindKey = "ann.kind";        // which kind of index: kHnswKind for the graph here
inline constexpr const char* kHnswKind = "hnsw";              // kAnnKindKey's value for it (index_kinds.cpp's entry)
inline constexpr const char* kAnnVectorsKey = "ann.vectors";  // "crc32:..." of the vectors it was built from
inline constexpr const char* kHnswLevels = "ann.hnsw.levels";
inline constexpr const char* kHnswOffsets = "ann.hnsw.offsets";
inline constexpr const char* kHnswNeighbors = "ann.hnsw.neighbors";

// Adds `arrays`, built with `options`, to what write_emb writes; the tensors point into `arrays`.
void add_ann_to_emb(const HnswArrays& arrays, const HnswBuildOptions& options, EmbWriteOptions& write);

// Whether `file` has an index.
bool has_ann(const EmbFile& file);

// The graph stored in `file`, as spans into it. Throws embed::Error naming the file when
// there is none (saying how to build one), when its tensors or settings are malformed,
// or when it was built for other vectors. Costs no pass over anything. An index of
// another kind is the registry's to refuse (stored_index_kind, search/index_kinds.h),
// before this is called.
HnswGraph open_ann(const EmbFile& file);

// open_ann, then a pass over the whole graph (glove-convert --verify): every list where
// the levels put it, every link a row, the entry point in the top layer. Throws embed::Error.
void verify_ann(const EmbFile& file);

}  // namespace embed
