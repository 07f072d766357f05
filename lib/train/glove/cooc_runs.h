// Sorted runs of co-occurrence entries and their k-way merge: how counting stays
// within its memory budget (Stanford's `cooccur` spills and merges the same way).
//
// A run spilled to disk lives in an anonymous temporary file: created in the
// temporary directory and unlinked at once, so nothing is left behind even when the
// process is killed.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "train/glove/cooc.h"

namespace embed {

// Entries in cooc_key order, possibly with repeated keys.
class SortedEntries {
 public:
  virtual ~SortedEntries() = default;
  virtual bool next(CoocEntry& entry) = 0;
};

// A run on disk: its file and how many entries it holds.
class SpillRun {
 public:
  SpillRun(std::FILE* file, std::uint64_t entries) : file_(file, &std::fclose), entries_(entries) {}
  std::uint64_t entries() const { return entries_; }
  // Reads the run from its start, `buffer_entries` at a time.
  std::unique_ptr<SortedEntries> reader(std::size_t buffer_entries) const;

 private:
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  std::uint64_t entries_;
};

// Writes entries (in order) to a new anonymous file in `directory`.
class SpillWriter {
 public:
  explicit SpillWriter(const std::string& directory);
  void add(const CoocEntry& entry);
  void add(std::span<const CoocEntry> entries);
  SpillRun finish();

 private:
  std::string directory_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_{nullptr, &std::fclose};
  std::uint64_t entries_ = 0;
};

// The entries of a sorted vector, as a source.
std::unique_ptr<SortedEntries> entries_source(std::span<const CoocEntry> sorted);

// Merges `sources` into one stream in key order, summing the counts of equal keys (in
// double), and hands each merged entry to `emit`.
void merge_entries(std::vector<std::unique_ptr<SortedEntries>> sources, const std::function<void(const CoocEntry&)>& emit);

// Sorts `entries` by key (an LSD radix sort over the bits that row and column ids below
// `id_limit` can have, using `scratch` of the same size) and sums repeated keys, keeping
// one entry per key. Returns how many entries remain at the front of `entries`.
std::size_t sort_and_combine(std::span<CoocEntry> entries, std::span<CoocEntry> scratch, std::uint32_t id_limit);

// The directory temporary files go to: $TMPDIR, or /tmp.
std::string temporary_directory();

}  // namespace embed
