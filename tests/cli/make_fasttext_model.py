"""Writes a small fastText 0.9 model file (format version 12) for the CLI tests.

Usage: make_fasttext_model.py OUT [skipgram|supervised|quantized|original [MINN]]
Words "king", "queen", "man", "woman", "</s>"; dim 4, minn 3, maxn 4, 50 buckets; rows
are small deterministic numbers. `supervised` adds two labels, `quantized` sets the
quantized-input flag (what a .ftz file has), `original` writes fastText's layout from
before its format versions (no magic number or version, no pruneidx_size, no
quantization flags). MINN (default 3) above 3 leaves short words
without n-grams.
"""
import struct
import sys

out, kind = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "skipgram"
dim, bucket = 4, 50
minn = int(sys.argv[3]) if len(sys.argv) > 3 else 3
maxn = max(minn, 4)
words = [("king", 9), ("queen", 7), ("man", 5), ("woman", 4), ("</s>", 3)]
labels = ["__label__yes", "__label__no"] if kind == "supervised" else []
model = 3 if kind == "supervised" else 2
versioned = kind != "original"
b = struct.pack("<ii", 793712314, 12) if versioned else b""
b += struct.pack("<12i", dim, 5, 1, 1, 5, 1, 2, model, bucket, minn, maxn, 100) + struct.pack("<d", 1e-4)
b += struct.pack("<iiiq", len(words) + len(labels), len(words), len(labels), 100)
b += struct.pack("<q", -1) if versioned else b""
for word, count in words:
    b += word.encode() + b"\0" + struct.pack("<qb", count, 0)
for label in labels:
    b += label.encode() + b"\0" + struct.pack("<qb", 1, 1)
b += struct.pack("<?", kind == "quantized") if versioned else b""
rows = len(words) + bucket
b += struct.pack("<qq", rows, dim)
for r in range(rows):
    b += struct.pack("<4f", *[((r * 7 + j * 3) % 11 - 5) / 8 for j in range(dim)])
b += struct.pack("<?", False) if versioned else b""
b += struct.pack("<qq", len(words), dim) + struct.pack(f"<{len(words) * dim}f", *([0.25] * (len(words) * dim)))
open(out, "wb").write(b)
