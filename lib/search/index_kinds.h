// The approximate-index kinds an .emb can hold, one registry entry each: the name
// glove-convert --index takes, how the index is built into an .emb, recognised, verified
// and described in one, and opened for embed-query --ann. glove-convert and the Searcher
// ask this table and nothing else, so a new kind (an IVF beside HNSW, say) is its folder
// under search/ (build, storage, an Index) plus one entry in kIndexKinds
// (index_kinds.cpp) and its settings in IndexSettings.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/emb_file.h"
#include "format/emb_writer.h"
#include "format/embedding_table.h"
#include "search/ann/ann_index.h"
#include "search/ann/hnsw_build.h"
#include "search/index.h"
#include "search/vector_space.h"

namespace embed {

// Every kind's settings, each in its own member: what glove-convert's options fill in.
struct IndexSettings {
  unsigned threads = 1;                                       // rows inserted at once; 1 is deterministic
  std::function<void(std::uint64_t rows_added)> on_progress;  // called from the calling thread
  HnswBuildOptions hnsw;  // --ann-m, --ann-ef-construction, --seed (its threads and on_progress: the above)
};

// What a search through an index may tune: embed-query's options.
struct IndexSearchSettings {
  std::size_t ef = kDefaultEf;  // --ef: the HNSW beam's width
};

struct IndexKindSpec {
  std::string_view name;         // --index's spelling
  std::string_view stored_kind;  // the .emb's "ann.kind" metadata for it
  std::string_view description;  // for --help and --info
  // Builds the index of `table`'s rows and adds its tensors and metadata to `emb`. The
  // tensors point into the returned object: keep it until the file is written.
  std::shared_ptr<const void> (*build)(const EmbeddingTable& table, const IndexSettings& settings, EmbWriteOptions& emb);
  // A pass over the whole stored index (glove-convert --verify). Throws embed::Error.
  void (*verify)(const EmbFile& file);
  // --info's "index" line, after "index       ".
  std::string (*describe)(const EmbFile& file);
  // The stored index as an Index over `space`'s rows, searched in place.
  std::unique_ptr<Index> (*open)(const VectorSpace& space, const IndexSearchSettings& settings);
};

std::span<const IndexKindSpec> index_kinds();
const IndexKindSpec* find_index_kind(std::string_view name);  // by --index's spelling
// The kind of index `file` holds, or nullptr when it holds none. Throws embed::Error for
// a kind this build does not know.
const IndexKindSpec* stored_index_kind(const EmbFile& file);
std::vector<std::string> index_kind_names();  // --index's choices
std::string index_kinds_help();               // "ann: an HNSW graph (...)", for --help

}  // namespace embed
