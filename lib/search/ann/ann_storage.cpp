#include "search/ann/ann_storage.h"

#include <algorithm>

#include "core/error.h"

namespace embed {
namespace {

template <typename T>
std::span<const std::byte> bytes_of(const std::vector<T>& v) {
  return std::as_bytes(std::span<const T>(v));
}

}  // namespace

void add_ann_to_emb(const HnswArrays& arrays, const HnswBuildOptions& options, EmbWriteOptions& write) {
  const std::uint64_t rows = arrays.levels.size();
  write.extra_tensors.push_back({kHnswOffsets, DType::i64, {rows + 1}, bytes_of(arrays.offsets)});
  write.extra_tensors.push_back({kHnswNeighbors, DType::u32, {arrays.neighbors.size()}, bytes_of(arrays.neighbors)});
  write.extra_tensors.push_back({kHnswLevels, DType::u8, {rows}, bytes_of(arrays.levels)});
  write.extra_metadata[kAnnKindKey] = kHnswKind;
  write.extra_metadata["ann.hnsw.m"] = std::to_string(arrays.m);
  write.extra_metadata["ann.hnsw.entry_point"] = std::to_string(arrays.entry_point < 0 ? 0 : arrays.entry_point);
  write.extra_metadata["ann.hnsw.max_level"] = std::to_string(arrays.max_level);
  write.extra_metadata["ann.hnsw.ef_construction"] = std::to_string(options.ef_construction);
  write.extra_metadata["ann.hnsw.seed"] = std::to_string(options.seed);
  write.vectors_checksum_key = kAnnVectorsKey;
}

bool has_ann(const EmbFile& file) { return file.metadata().count(kAnnKindKey) != 0; }

HnswGraph open_ann(const EmbFile& file) {
  const auto& meta = file.metadata();
  if (!has_ann(file)) {
    fail("{}: has no approximate index; add one with: glove-convert --index ann {} -o OUT.emb", file.name(), file.name());
  }
  EMBED_ASSERT(meta.at(kAnnKindKey) == kHnswKind);  // stored_index_kind refused any other kind
  const auto bound = meta.find(kAnnVectorsKey);
  const auto vectors = meta.find("checksum." + file.rows_tensor_name());
  if (bound == meta.end() || vectors == meta.end() || bound->second != vectors->second) {
    fail("{}: the approximate index was built for other vectors (its \"{}\" is not the vectors' checksum); rebuild it "
         "with glove-convert --index ann",
         file.name(), kAnnVectorsKey);
  }
  const std::uint64_t rows = file.rows();
  const auto levels = file.find_tensor(kHnswLevels, DType::u8, {rows});
  const auto offsets = file.find_tensor(kHnswOffsets, DType::i64, {rows + 1});
  const auto neighbors = file.find_tensor(kHnswNeighbors, DType::u32, {EmbFile::kAnyExtent});
  if (!levels || !offsets || !neighbors) {
    fail("{}: the approximate index is missing tensors (\"{}\", \"{}\", \"{}\")", file.name(), kHnswLevels, kHnswOffsets,
         kHnswNeighbors);
  }
  HnswGraph graph;
  graph.levels = {reinterpret_cast<const std::uint8_t*>(levels->data()), rows};
  graph.offsets = {reinterpret_cast<const std::int64_t*>(offsets->data()), rows + 1};
  graph.neighbors = {reinterpret_cast<const std::uint32_t*>(neighbors->data()), neighbors->size() / sizeof(std::uint32_t)};
  graph.m = static_cast<std::uint32_t>(std::min<std::uint64_t>(file.metadata_count("ann.hnsw.m"), 1u << 30));
  graph.entry_point = static_cast<std::int64_t>(std::min<std::uint64_t>(file.metadata_count("ann.hnsw.entry_point"), 1ull << 62));
  graph.max_level = static_cast<unsigned>(std::min<std::uint64_t>(file.metadata_count("ann.hnsw.max_level"), 1u << 30));
  if (const std::string problem = graph.shape_problem(rows); !problem.empty()) {
    fail("{}: the approximate index is malformed: {}", file.name(), problem);
  }
  return graph;
}

void verify_ann(const EmbFile& file) {
  const HnswGraph graph = open_ann(file);
  const std::uint64_t rows = graph.rows();
  for (std::uint64_t r = 0; r < rows; ++r) {
    const unsigned levels = graph.levels[r];
    const std::int64_t expected = 2 * std::int64_t{graph.m} + (levels == 0 ? -2 * std::int64_t{graph.m} : (levels - 1) * std::int64_t{graph.m});
    if (levels == 0 || levels > graph.max_level + 1 || graph.offsets[r + 1] - graph.offsets[r] != expected) {
      fail("{}: the approximate index is corrupt at row {} (its layers and neighbour lists disagree)", file.name(), r);
    }
    for (std::int64_t i = graph.offsets[r]; i < graph.offsets[r + 1]; ++i) {
      const std::uint32_t n = graph.neighbors[static_cast<std::size_t>(i)];
      if (n != kNoNeighbor && n >= rows) {
        fail("{}: the approximate index links row {} to {}, which is not a row", file.name(), r, n);
      }
    }
  }
  if (rows > 0 && graph.levels[static_cast<std::size_t>(graph.entry_point)] != graph.max_level + 1) {
    fail("{}: the approximate index's entry point is not in its top layer", file.name());
  }
}

}  // namespace embed
