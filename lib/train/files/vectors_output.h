// Writing trained vectors as .emb: the vocabulary (most frequent first), the counts,
// and the rows in the storage type asked for, streamed a block at a time so that no
// second copy of the table is made.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/atomic_output.h"
#include "format/dtype.h"
#include "format/emb_writer.h"
#include "format/quantized_rows.h"
#include "train/corpus/vocabulary.h"
#include "train/engine/row_matrix.h"

namespace embed {

// Writes `dim` values of row r to `out`; called for every row in order, twice when the
// output cannot seek (a pipe), so it must give the same values each time.
using RowReader = std::function<void(std::size_t row, float* out)>;

// The `dim` values from `column` on of each row of `table`, which must outlive the reader.
RowReader table_rows(const RowMatrix& table, std::size_t dim, std::size_t column = 0);

// What a writer adds to the .emb's options (tensors beyond the vectors), returning what
// holds their bytes until the write ends.
using EmbExtras = std::function<std::shared_ptr<const void>(EmbWriteOptions& options)>;

// Writes and commits `out`: a file, or a stream when it was opened with Streaming::allowed.
// With `quantize` (storage int8 or pq) the rows are compressed: read into memory first
// (a copy of the table), then encoded; `dtype` is then unused.
void write_trained_vectors(AtomicOutput& out, const Vocabulary& vocab, std::size_t dim, const RowReader& row, DType dtype,
                           const std::string& source, const std::map<std::string, std::string>& metadata, unsigned threads,
                           const EmbExtras& extras = {}, const QuantizeSpec* quantize = nullptr);

}  // namespace embed
