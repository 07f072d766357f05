#!/usr/bin/python3
"""Writes synthetic word vectors as a word2vec binary file to standard output, fast.

ROWS rows of DIM float32 values N(0, 0.35) (the spread of glove.6B.300d), words w0000000,
w0000001, ... (zero-padded to one width, so that each chunk of rows is one fixed-size
numpy record array). 4,000,000 x 300 (4.8 GB) takes about a minute, bound by the
random numbers; pipe it into glove-convert rather than storing it:

    make_vectors_bin.py 4000000 300 | glove-convert - --from w2v-bin -o vectors.emb

Usage: make_vectors_bin.py ROWS DIM [SEED]    Only needs numpy (python3-numpy).
query.sh, beside it, makes its GPU figures' vectors with it.
"""
import sys

import numpy as np

CHUNK = 1 << 16


def main():
    rows, dim = int(sys.argv[1]), int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = np.random.default_rng(seed)
    width = len(str(max(rows - 1, 0)))
    out = sys.stdout.buffer
    out.write(f"{rows} {dim}\n".encode())
    record = np.dtype([("word", f"S{width + 1}"), ("space", "S1"), ("values", "<f4", (dim,)), ("newline", "S1")])
    for first in range(0, rows, CHUNK):
        n = min(CHUNK, rows - first)
        chunk = np.empty(n, dtype=record)
        chunk["word"] = np.char.add(b"w", np.char.zfill(np.arange(first, first + n).astype(f"S{width}"), width))
        chunk["space"] = b" "
        chunk["values"] = rng.standard_normal((n, dim), dtype=np.float32) * np.float32(0.35)
        chunk["newline"] = b"\n"
        out.write(chunk.tobytes())
    out.flush()


if __name__ == "__main__":
    main()
