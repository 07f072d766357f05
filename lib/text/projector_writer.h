// Writing vectors for the TensorBoard Embedding Projector (projector.tensorflow.org, or
// TensorBoard's projector plugin): a directory holding
//   vectors.tsv             one row per word, its values separated by tabs, no header;
//   metadata.tsv            the words in the same order (with a "word\tcount" header and a
//                           count column when the table has counts);
//   projector_config.pbtxt  the text-format ProjectorConfig naming the two files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/atomic_output.h"
#include "format/embedding_table.h"

namespace embed {

// `word` as a metadata.tsv field. The projector splits the file on \n and each line on \t,
// keeps a \r, and skips lines that are blank once trimmed, with no escape of its own; so a
// backslash becomes "\\", a tab "\t", a newline "\n" and a carriage return "\r" (visible,
// and reversible), and a word made only of whitespace (as JavaScript's trim() sees it,
// such as U+3000) is written as \uXXXX escapes, one per character, so that its line is
// not skipped and the rows stay aligned with vectors.tsv.
std::string projector_label(std::string_view word);

// The tensor_name for projector_config.pbtxt: the input's file name without its folder,
// a ".gz" and then a vector file extension (.txt, .vec, .bin, .emb); "stdin" for "-".
std::string projector_tensor_name(const std::string& input_path);

// The three files in `directory`, each written to a temporary and renamed into place.
class ProjectorOutput {
 public:
  // Creates `directory` when it is missing, then the three files' temporaries in it, so
  // that an unusable destination fails before any work. Throws embed::Error naming it.
  explicit ProjectorOutput(std::string directory);
  // Uncommitted: removes the temporaries, and the directory when this created it.
  ~ProjectorOutput();
  ProjectorOutput(const ProjectorOutput&) = delete;
  ProjectorOutput& operator=(const ProjectorOutput&) = delete;

  // Throws embed::Error for a table of fewer than 2 dimensions (the projector refuses it).
  void write(const EmbeddingTable& table, std::string_view tensor_name, unsigned threads);
  // Renames the files into place, the config last: each file is replaced whole.
  void commit();

  const std::string& directory() const { return directory_; }

 private:
  void discard();

  std::string directory_;
  bool created_directory_ = false;
  bool committed_ = false;
  std::optional<AtomicOutput> vectors_, metadata_, config_;
};

}  // namespace embed
