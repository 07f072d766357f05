// Writing a trained table as .emb: the vocabulary (most frequent first), the counts,
// and the rows in the storage type asked for, streamed a block at a time so that no
// second copy of the table is made.
#pragma once

#include <map>
#include <string>

#include "core/atomic_output.h"
#include "format/dtype.h"
#include "train/row_matrix.h"
#include "train/vocabulary.h"

namespace embed {

void write_trained_vectors(AtomicOutput& out, const Vocabulary& vocab, const RowMatrix& table, DType dtype,
                           const std::string& source, const std::map<std::string, std::string>& metadata,
                           unsigned threads);

}  // namespace embed
