#include "search/index_kinds.h"

#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/progress.h"
#include "search/ann/ann_storage.h"

namespace embed {
namespace {

// --- HNSW (search/ann/) ---

std::shared_ptr<const void> build_hnsw_index(const EmbeddingTable& table, const IndexSettings& settings, EmbWriteOptions& emb) {
  HnswBuildOptions build = settings.hnsw;
  build.threads = settings.threads;
  build.on_progress = settings.on_progress;
  const auto start = std::chrono::steady_clock::now();
  auto arrays = std::make_shared<HnswArrays>(build_hnsw(table.values, table.dim, build));
  spdlog::info(
      "approximate index (HNSW, M {}, ef-construction {}): {} in {:.1f} s", build.m, build.ef_construction,
      human_bytes(static_cast<double>(arrays->neighbors.size() * 4 + arrays->offsets.size() * 8 + arrays->levels.size())),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  add_ann_to_emb(*arrays, build, emb);
  return arrays;
}

std::string describe_hnsw_index(const EmbFile& file) {
  std::uint64_t index_bytes = 0, vector_bytes = 0;
  for (const auto& t : file.tensors()) {
    if (t.name.starts_with("ann.")) index_bytes += t.end - t.begin;
    if (t.name == "vectors") vector_bytes = t.end - t.begin;
  }
  const auto m = file.metadata().find("ann.hnsw.m");
  return fmt::format("{} (M {}), {}, {:.0f}% of the vectors' bytes", file.metadata().at(kAnnKindKey),
                     m == file.metadata().end() ? "?" : m->second, human_bytes(static_cast<double>(index_bytes)),
                     vector_bytes ? 100.0 * static_cast<double>(index_bytes) / static_cast<double>(vector_bytes) : 0.0);
}

std::unique_ptr<Index> open_hnsw_index(const VectorSpace& space, const IndexSearchSettings& settings) {
  return std::make_unique<AnnIndex>(space, settings.ef);
}

const IndexKindSpec kIndexKinds[] = {
    {.name = "ann",
     .stored_kind = kHnswKind,
     .description = "an HNSW graph (built with hnswlib, searched in place in the mapped file)",
     .build = build_hnsw_index,
     .verify = verify_ann,
     .describe = describe_hnsw_index,
     .open = open_hnsw_index},
};

}  // namespace

std::span<const IndexKindSpec> index_kinds() { return kIndexKinds; }

const IndexKindSpec* find_index_kind(std::string_view name) {
  for (const IndexKindSpec& kind : kIndexKinds) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

const IndexKindSpec* stored_index_kind(const EmbFile& file) {
  if (!has_ann(file)) return nullptr;
  const auto stored = file.metadata().find(kAnnKindKey);
  for (const IndexKindSpec& kind : kIndexKinds) {
    if (kind.stored_kind == stored->second) return &kind;
  }
  fail("{}: its index is of kind '{}', which this build of embed does not know", file.name(), stored->second);
}

std::string index_kinds_help() {
  std::string help;
  for (const IndexKindSpec& kind : kIndexKinds)
    help += fmt::format("{}{}: {}", help.empty() ? "" : "; ", kind.name, kind.description);
  return help;
}

std::vector<std::string> index_kind_names() {
  std::vector<std::string> names;
  for (const IndexKindSpec& kind : kIndexKinds) names.emplace_back(kind.name);
  return names;
}

}  // namespace embed
