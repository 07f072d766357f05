#!/usr/bin/python3
"""A standalone numpy reader for embed .emb files (docs/FORMAT.md), with no code from embed.

    words, vectors, meta, tensors = read_emb("vectors.emb")   # vectors: float32 [rows, dim]
    row = lookup(tensors, "café")                             # through the stored hash index
    verify_checksums(meta, tensors)                           # zlib.crc32 of every tensor

Run as a script, it checks each FILE.emb given (layout, checksums, index) and exits 1 on a problem:
    read_emb.py FILE.emb...
"""
import json
import sys
import zlib

import numpy as np

DTYPES = {"F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "U32": "<u4", "U8": "u1"}
EMPTY = 0xFFFFFFFF


def read_emb(path):
    """Returns (words, vectors as float32 [rows, dim], metadata, {name: raw tensor array})."""
    buf = np.memmap(path, dtype=np.uint8, mode="r")
    n = int(buf[:8].view("<u8")[0])                      # header length, u64 little-endian
    header = json.loads(bytes(buf[8:8 + n]))             # JSON, padded with trailing spaces
    meta = header.pop("__metadata__", {})
    if meta.get("format") != "embed.vectors" or int(meta["format_version"]) > 1:
        raise ValueError(f"{path}: not an embed.vectors file of a version this reader knows")
    tensors = {}
    for name, t in header.items():                       # any order; offsets count from byte 8 + n
        begin, end = t["data_offsets"]
        tensors[name] = buf[8 + n + begin:8 + n + end].view(DTYPES[t["dtype"]]).reshape(t["shape"])
    vectors = tensors["vectors"]
    if header["vectors"]["dtype"] == "BF16":             # bf16 is the top half of an f32
        vectors = (vectors.astype(np.uint32) << 16).view(np.float32)
    offsets, raw = tensors["vocab.offsets"], tensors["vocab.bytes"].tobytes()
    words = [raw[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(len(offsets) - 1)]
    return words, vectors.astype(np.float32, copy=False), meta, tensors


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def lookup(tensors, word):
    """The row of `word` found through the stored vocab.index, or None."""
    index, offsets, raw = tensors["vocab.index"], tensors["vocab.offsets"], tensors["vocab.bytes"]
    key, capacity, rows = word.encode("utf-8"), len(index), len(offsets) - 1
    slot = (fnv1a64(key) * capacity) >> 64               # high 64 bits of the 128-bit product
    for _ in range(capacity):
        row = int(index[slot])
        if row == EMPTY:
            return None
        if row < rows and raw[offsets[row]:offsets[row + 1]].tobytes() == key:
            return row
        slot = (slot + 1) % capacity                     # linear probing, wrapping to 0
    return None


def verify_checksums(meta, tensors):
    """Raises ValueError unless every tensor's CRC-32 matches __metadata__["checksum.NAME"]."""
    for name, array in tensors.items():
        recorded, computed = meta.get("checksum." + name), "crc32:%08x" % zlib.crc32(array.tobytes())
        if recorded != computed:
            raise ValueError(f"tensor {name}: checksum recorded {recorded}, computed {computed}")


# ---- Everything below checks more than a reader needs: the layout glove-convert promises. ----

WRITER_ORDER = ["vectors", "__padding__", "norms", "vocab.index", "vocab.offsets", "counts", "vocab.bytes"]
ITEMSIZE = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8, "U32": 4, "U8": 1}


def check_emb(path):
    """Returns a list of problems with `path` (empty when it is a well-formed .emb as glove-convert writes)."""
    problems = []
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    if n > 100_000_000 or 8 + n > len(raw):
        return [f"header length {n} does not fit the file ({len(raw)} bytes)"]
    text = raw[8:8 + n].decode("utf-8")
    if not text.startswith("{") or text.rstrip(" ") != text.rstrip(" ").rstrip() or not text.rstrip(" ").endswith("}"):
        problems.append("header must start with '{' and be padded only with trailing spaces")

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            problems.append(f"duplicate JSON keys in {keys}")
        return dict(pairs)

    header = json.loads(text, object_pairs_hook=no_duplicates)
    keys = list(header)
    if keys[0] != "__metadata__":
        problems.append("__metadata__ is not the first key")
    meta = header.pop("__metadata__")
    names = [k for k in keys if k != "__metadata__"]
    if names != [w for w in WRITER_ORDER if w in names] or set(WRITER_ORDER) - set(names) - {"counts", "__padding__"}:
        problems.append(f"tensors {names}, expected the writer order {WRITER_ORDER} (counts, __padding__ optional)")
    if any(not isinstance(v, str) for v in meta.values()):
        problems.append("a __metadata__ value is not a string")
    end = 0
    for name in sorted(names, key=lambda k: header[k]["data_offsets"]):
        t = header[name]
        if set(t) != {"dtype", "shape", "data_offsets"}:
            problems.append(f"tensor {name} has keys {sorted(t)}")
        begin, stop = t["data_offsets"]
        if begin != end or stop - begin != int(np.prod(t["shape"], dtype=np.int64)) * ITEMSIZE[t["dtype"]]:
            problems.append(f"tensor {name} at {begin}..{stop} does not tile the buffer (expected start {end})")
        if (8 + n + begin) % ITEMSIZE[t["dtype"]]:
            problems.append(f"tensor {name} at file offset {8 + n + begin} is not naturally aligned")
        end = stop
    if 8 + n + end != len(raw):
        problems.append(f"tensors end at {8 + n + end}, the file at {len(raw)}")
    vec_at = 8 + n + header["vectors"]["data_offsets"][0]
    if vec_at % 64 or header["vectors"]["data_offsets"][0] != 0:
        problems.append(f"vectors at file offset {vec_at}: expected first in the buffer, at a multiple of 64")
    if problems:
        return problems

    words, vectors, meta, tensors = read_emb(path)
    rows, dim = tensors["vectors"].shape
    dtype = header["vectors"]["dtype"]
    expected_keys = {"format", "format_version", "rows", "dim", "dtype", "normalized", "source", "source_format",
                     "creator", "index"} | {"checksum." + k for k in names}
    if set(meta) != expected_keys:
        problems.append(f"__metadata__ keys {sorted(meta)}, expected {sorted(expected_keys)}")
    want = {"format": "embed.vectors", "format_version": "1", "rows": str(rows), "dim": str(dim),
            "dtype": dtype.lower(), "index": "fnv1a64-linear-probing"}
    for k, v in want.items():
        if meta.get(k) != v:
            problems.append(f"__metadata__ {k} = {meta.get(k)!r}, expected {v!r}")
    if meta.get("normalized") not in ("true", "false") or not meta.get("creator", "").startswith("glove-convert "):
        problems.append(f"__metadata__ normalized/creator: {meta.get('normalized')!r} {meta.get('creator')!r}")
    try:
        verify_checksums(meta, tensors)
    except ValueError as e:
        problems.append(str(e))
    offsets, index = tensors["vocab.offsets"], tensors["vocab.index"]
    if offsets[0] != 0 or offsets[-1] != len(tensors["vocab.bytes"]) or np.any(np.diff(offsets) < 0):
        problems.append("vocab.offsets do not rise from 0 to len(vocab.bytes)")
    if len(index) not in (2 * rows + 1, 2 * rows + 2) or header["vocab.index"]["data_offsets"][1] % 8:
        problems.append(f"vocab.index has {len(index)} slots for {rows} rows, or does not end 8-aligned")
    if np.count_nonzero(index != EMPTY) != rows or np.any(index[index != EMPTY] >= rows):
        problems.append("vocab.index does not hold each row number once")
    for row, word in enumerate(words):
        if lookup(tensors, word) != row:
            problems.append(f"lookup({word!r}) = {lookup(tensors, word)}, expected row {row}")
    if lookup(tensors, "\x00no such word\x00") is not None:
        problems.append("lookup of a missing word found a row")
    expected_norms = np.sqrt((vectors.astype(np.float64) ** 2).sum(axis=1)).astype(np.float32)
    if not np.allclose(tensors["norms"], expected_norms, rtol=1e-6, atol=0, equal_nan=True):
        problems.append("norms are not the L2 norms of the stored rows")
    return problems


def main(paths):
    failed = False
    for path in paths:
        problems = check_emb(path)
        for p in problems:
            print(f"{path}: {p}")
        if not problems:
            _, vectors, meta, _ = read_emb(path)
            print(f"{path}: ok ({vectors.shape[0]} rows x {vectors.shape[1]}, {meta['dtype']})")
        failed |= bool(problems)
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
