// Writing text vector files: GloVe (no header) or word2vec/fastText text ("COUNT DIM" header).
// Floats are printed in their shortest form that reads back to the same f32, so
// text -> emb -> text -> emb reproduces every value bit for bit.
#pragma once

#include "core/atomic_output.h"
#include "format/embedding_table.h"

namespace embed {

void write_text_vectors(const EmbeddingTable& table, bool with_header, unsigned threads, AtomicOutput& out);

}  // namespace embed
