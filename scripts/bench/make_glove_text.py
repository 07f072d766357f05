#!/usr/bin/python3
"""Writes a synthetic GloVe-style text file: ROWS lines of "word f1 ... fDIM", no header.

Words are w0, w1, ... (unique); values are N(0, 0.35) printed with 6 decimals
("-0.123456", "0.041234"), like glove.6B.300d.txt. Formatting is vectorised with
numpy in chunks of rows (about 1 GB for 400,000 x 300 takes tens of seconds).

Usage: make_glove_text.py OUTPUT [ROWS] [DIM] [SEED]    (default 400000 300 1)
Only needs numpy; Debian's /usr/bin/python3 has it (python3-numpy). convert.sh and query.sh,
beside it, generate their input with it.
"""
import sys

import numpy as np


def format_chunk(first, rows, dim, rng):
    """Returns the bytes of lines first .. first+rows-1."""
    words = np.array([f"w{i}".encode() for i in range(first, first + rows)])
    word_width = words.dtype.itemsize
    word_bytes = words.view(np.uint8).reshape(rows, word_width)  # NUL-padded

    values = rng.standard_normal((rows, dim), dtype=np.float32) * np.float32(0.35)
    scaled = np.rint(np.abs(values).astype(np.float64) * 1e6).astype(np.int64)
    scaled = np.minimum(scaled, 9_999_999)  # one integer digit
    negative = (values < 0) & (scaled > 0)

    # Each value as 10 bytes: ' ' sign int '.' d d d d d d, with NUL where there is no sign.
    field = np.empty((rows, dim, 10), dtype=np.uint8)
    field[:, :, 0] = ord(" ")
    field[:, :, 1] = np.where(negative, ord("-"), 0)
    field[:, :, 2] = ord("0") + scaled // 1_000_000
    field[:, :, 3] = ord(".")
    frac = scaled % 1_000_000
    for k in range(6):
        field[:, :, 9 - k] = ord("0") + frac % 10
        frac //= 10

    line = np.empty((rows, word_width + dim * 10 + 1), dtype=np.uint8)
    line[:, :word_width] = word_bytes
    line[:, word_width:-1] = field.reshape(rows, dim * 10)
    line[:, -1] = ord("\n")
    flat = line.reshape(-1)
    return flat[flat != 0].tobytes()  # drop the NUL padding


def main():
    if not 2 <= len(sys.argv) <= 5:
        sys.exit(__doc__)
    path = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 400_000
    dim = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rng = np.random.default_rng(seed)
    chunk = max(1, 4_000_000 // dim)  # ~40 MB of text per chunk
    with open(path, "wb") as out:
        for first in range(0, rows, chunk):
            out.write(format_chunk(first, min(chunk, rows - first), dim, rng))


if __name__ == "__main__":
    main()
