// Writing text vector files: GloVe (no header) or word2vec/fastText text ("COUNT DIM" header).
// Floats are printed in their shortest form that reads back to the same f32, so
// text -> emb -> text -> emb reproduces every value bit for bit.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include "core/atomic_output.h"
#include "format/embedding_table.h"

namespace embed {

void write_text_vectors(const EmbeddingTable& table, bool with_header, unsigned threads, AtomicOutput& out);

// Appends `values` to `text` in their shortest round-trip form, separated by `separator`
// (none before the first). Shared by every writer of vectors as text.
void append_values(std::string& text, std::span<const float> values, char separator);

// Writes `rows` lines to `out` in order: blocks of rows are formatted in parallel, where
// format_row(r, text) appends row r's line, then written in turn, so that memory stays
// at a few blocks per thread whatever the table's size.
void write_row_blocks(std::size_t rows, unsigned threads, AtomicOutput& out,
                      const std::function<void(std::size_t row, std::string& text)>& format_row);

}  // namespace embed
