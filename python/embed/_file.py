"""Opening an .emb (docs/FORMAT.md): the safetensors container and the .emb structure,
checked as the C++ reader (lib/format/emb_file.cpp) checks them, without reading the rows.
Version 2's compressed rows (int8 or pq storage) are checked as EmbFile::load_rows checks
them: the tensors' dtypes and shapes, from rows and dim in the metadata (and OPQ's optional
pq.rotation, F32 [dim, dim]).

The file is mapped read-only (np.memmap); each tensor is a numpy view into the mapping.
A gzip-compressed file cannot be mapped and is read into memory instead.
"""
import gzip
import json
import os

import numpy as np

from embed._errors import EmbError
from embed._sniff import HEAD_BYTES, is_safetensors, not_an_emb

MAX_HEADER = 100_000_000
LIMIT = 1 << 48  # shape entries and offsets must be below it
DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<u2"), "I64": np.dtype("<i8"),
          "U32": np.dtype("<u4"), "U8": np.dtype("u1"), "I8": np.dtype("i1")}
VECTOR_DTYPES = ("F32", "F16", "BF16")
NEWEST_VERSION = 2
STORAGES = ("dense", "int8", "pq")  # __metadata__ "storage"; absent: dense (a "vectors" tensor)
PQ_CENTROIDS = 256  # pq.nbits 8: a byte a code
SUBWORD_HASH = "fasttext-fnv1a-int8"
MAX_NGRAM = 1024


def bf16_to_f32(values):
    """bf16 values stored as uint16 (what a BF16 .emb maps to) widened to float32: bf16 is an f32's top half."""
    return (np.asarray(values, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


class EmbContainer:
    """A checked .emb: its metadata, the dtype of each tensor, and a view of each tensor's bytes."""

    def __init__(self, path):
        try:
            self.path = os.fsdecode(path)
        except TypeError:
            raise TypeError(f"embed.open: a path (str or pathlib.Path), not {type(path).__name__}") from None
        # file: the opened file, kept open while the mapping is, for the rows read with pread:
        # the path may name another file by then (replaced) or none (deleted).
        self.buffer, self.file, compressed = _map(self.path)
        # starts: each tensor's first byte in the file
        self.metadata, self.dtypes, self.tensors, self.starts = _read_header(self.path, self.buffer, compressed)
        self.mapped = isinstance(self.buffer, np.memmap)
        # storage: "dense", "int8" or "pq"; rows_name: the tensor of the stored rows, one row of it a word's
        # (vectors, int8.values or pq.codes); rows and dim from the file (its metadata, for compressed rows).
        self.storage, self.rows_name, self.rows, self.dim = "dense", "vectors", 0, 0
        _check_structure(self)

    def fail(self, message):
        raise EmbError(f"{self.path}: {message}")

    def __del__(self):  # also when __init__ failed: no file left open, no ResourceWarning
        if getattr(self, "file", None) is not None:
            self.file.close()


def _map(path):
    """(the bytes, mapped or read, the open file or None, whether it was gzip-compressed)."""
    try:
        f = open(path, "rb")
        magic = f.read(2)
    except OSError as e:
        raise EmbError(f"{path}: cannot open: {e.strerror}") from None
    if magic == b"\x1f\x8b":
        f.seek(0)
        try:
            with f, gzip.open(f, "rb") as g:
                head = g.read(HEAD_BYTES)
                # Another format's file (glove.840B.300d.txt.gz) is named from its start, not read whole.
                data = head + g.read() if is_safetensors(head) else head
                return np.frombuffer(data, dtype=np.uint8), None, True
        except (OSError, EOFError) as e:
            raise EmbError(f"{path}: a damaged gzip stream: {e}") from None
    try:
        return np.memmap(f, dtype=np.uint8, mode="r"), f, False
    except ValueError:  # an empty file cannot be mapped
        f.close()
        return np.zeros(0, dtype=np.uint8), None, False


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        seen = set()
        twice = next(k for k in keys if k in seen or seen.add(k))
        raise ValueError(f'the key "{twice}" appears twice')
    return dict(pairs)


def _is_offset(x):
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < LIMIT


def _read_header(path, buf, compressed):
    size = len(buf)
    unpacked = " once decompressed" if compressed else ""
    if size == 0:
        raise EmbError(f"{path}: an empty file{unpacked}, not an .emb")
    if size <= 8:
        raise EmbError(f"{path}: {size} bytes{unpacked}: too short for an .emb (an 8-byte header length, then a "
                       "JSON header): truncated?")
    head = bytes(buf[:HEAD_BYTES])
    if not is_safetensors(head):
        raise EmbError(not_an_emb(path, head, compressed))
    n = int(buf[:8].view("<u8")[0])
    if n > MAX_HEADER:
        raise EmbError(f"{path}: header length {n}: more than {MAX_HEADER} bytes, not a safetensors file")
    if 8 + n > size:
        raise EmbError(f"{path}: header length {n} runs past the end of the file ({size} bytes): truncated?")
    try:
        text = bytes(buf[8:8 + n]).decode("utf-8")
        if not text.lstrip().startswith("{"):
            raise ValueError("it is not a JSON object")
        header = json.loads(text, object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError) as e:
        raise EmbError(f"{path}: the header is not valid JSON: {e}") from None
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or any(not isinstance(v, str) for v in meta.values()):
        raise EmbError(f"{path}: __metadata__ must map names to strings")
    dtypes, spans = {}, []
    for name, t in header.items():
        if not isinstance(t, dict) or set(t) != {"dtype", "shape", "data_offsets"}:
            raise EmbError(f'{path}: tensor "{name}": expected exactly dtype, shape and data_offsets')
        dtype, shape, offsets = t["dtype"], t["shape"], t["data_offsets"]
        if dtype not in DTYPES:
            raise EmbError(f'{path}: tensor "{name}": dtype {dtype!r} is not one of {", ".join(DTYPES)}')
        if not isinstance(shape, list) or not all(_is_offset(x) for x in shape):
            raise EmbError(f'{path}: tensor "{name}": shape {shape!r} is not a list of integers in [0, 2^48)')
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_offset(x) for x in offsets):
            raise EmbError(f'{path}: tensor "{name}": data_offsets {offsets!r} are not two integers in [0, 2^48)')
        begin, end = offsets
        if end < begin:
            raise EmbError(f'{path}: tensor "{name}": data_offsets end {end} before begin {begin}')
        elements = 1
        for x in shape:
            elements *= x
        if end - begin != elements * DTYPES[dtype].itemsize:
            raise EmbError(f'{path}: tensor "{name}": {end - begin} bytes for shape {shape} of {dtype} '
                           f"({elements * DTYPES[dtype].itemsize} expected)")
        dtypes[name] = dtype
        spans.append((begin, end, name, shape))
    at = 0
    for begin, end, name, _ in sorted(spans):
        if begin != at:
            raise EmbError(f'{path}: tensor "{name}" begins at byte {begin} of the data, expected {at}: '
                           "the tensors must tile the data")
        at = end
    if 8 + n + at != size:
        raise EmbError(f"{path}: the tensors end at byte {8 + n + at}, the file at {size}: "
                       f"{'truncated' if 8 + n + at > size else 'trailing bytes'}")
    tensors, starts = {}, {}
    for begin, end, name, shape in spans:
        raw = buf[8 + n + begin:8 + n + end]
        tensors[name] = raw.view(DTYPES[dtypes[name]]).reshape(shape)
        starts[name] = 8 + n + begin
    return meta, dtypes, tensors, starts


def _check_structure(c):
    meta, tensors, dtypes = c.metadata, c.tensors, c.dtypes
    if meta.get("format") != "embed.vectors":
        c.fail(f"a safetensors file, but not an .emb: its format is {meta.get('format')!r}, not 'embed.vectors'")
    version = meta.get("format_version")
    if version is None or not (version.isascii() and version.isdigit()) or len(version) > 9 or int(version) == 0:
        c.fail(f"format_version {version!r}: expected a version number")
    if int(version) > NEWEST_VERSION:
        c.fail(f"format_version {version} is newer than this reader knows ({NEWEST_VERSION}): update the package")
    rows, dim = _check_rows(c, int(version))
    if rows >= 2**32 - 1:
        c.fail(f"{rows} rows: at most 2^32 - 2")

    def expect(name, dtype, shape=None, ndim=None):
        t = tensors.get(name)
        if t is None or dtypes[name] != dtype or (shape is not None and list(t.shape) != shape) or \
                (ndim is not None and t.ndim != ndim):
            want = f"{dtype} {shape}" if shape is not None else f"1-D {dtype}"
            got = "missing" if t is None else f"{dtypes[name]} {list(t.shape)}"
            c.fail(f'tensor "{name}" is {got}, expected {want}')

    expect("vocab.offsets", "I64", [rows + 1])
    expect("vocab.bytes", "U8", ndim=1)
    expect("vocab.index", "U32", ndim=1)
    if len(tensors["vocab.index"]) <= rows:
        c.fail(f"vocab.index has {len(tensors['vocab.index'])} slots for {rows} rows: it needs more")
    for name, dtype in (("counts", "I64"), ("norms", "F32")):
        if name in tensors:
            expect(name, dtype, [rows])
    if c.storage != "dense" and "norms" not in tensors:
        c.fail(f'missing the "norms" tensor, which {c.storage} rows need (each row\'s exact length)')
    offsets = tensors["vocab.offsets"]
    if offsets[0] != 0 or offsets[-1] != len(tensors["vocab.bytes"]) or (rows > 0 and np.any(np.diff(offsets) < 0)):
        c.fail(f"vocab.offsets must rise from 0 to {len(tensors['vocab.bytes'])} (the bytes of the words)")
    if "subwords.buckets" in tensors:
        _check_subwords(c, dim)


def _check_rows(c, version):
    """(rows, dim) of the stored rows: the dense "vectors", or version 2's compressed rows."""
    meta, tensors, dtypes = c.metadata, c.tensors, c.dtypes
    storage = meta.get("storage", "dense")
    if storage not in STORAGES:
        c.fail(f"__metadata__ storage is {storage[:40]!r}, which this reader does not read (it reads "
               f"{', '.join(STORAGES)}): update the package")
    c.storage = storage
    if storage == "dense":
        vectors = tensors.get("vectors")
        if vectors is None or vectors.ndim != 2 or dtypes["vectors"] not in VECTOR_DTYPES:
            c.fail("no 2-D F32, F16 or BF16 tensor \"vectors\"")
        rows, dim = vectors.shape
        for key, value in (("rows", str(rows)), ("dim", str(dim)), ("dtype", dtypes["vectors"].lower())):
            if meta.get(key) != value:
                c.fail(f"metadata {key} = {meta.get(key)!r}, but the vectors say {value}")
        c.rows, c.dim = rows, dim
        return rows, dim
    if version < 2:  # a version-1 reader would find no "vectors": the version says what to expect
        c.fail(f"{storage} rows need format_version 2, the file says {version}")
    # The stored rows' shape does not give dim (pq), so the metadata does.
    rows, dim = _count(c, "rows"), _count(c, "dim")
    if dim == 0:
        c.fail("metadata dim is 0")
    if meta.get("dtype") != storage:
        c.fail(f"metadata dtype = {meta.get('dtype')!r}, expected {storage!r} for {storage} storage")
    if storage == "int8":
        shapes = {"int8.values": ("I8", [rows, dim]), "int8.scale": ("F32", [rows])}
        c.rows_name = "int8.values"
    else:
        m = _count(c, "pq.m")
        if m == 0 or dim % m != 0:
            c.fail(f"metadata pq.m = {m} does not divide dim {dim}")
        shapes = {"pq.codes": ("U8", [rows, m]), "pq.codebooks": ("F32", [m, PQ_CENTROIDS, dim // m]),
                  "pq.scale": ("F32", [rows])}
        c.rows_name = "pq.codes"
    for name, (dtype, shape) in shapes.items():
        t = tensors.get(name)
        if t is None or dtypes[name] != dtype or list(t.shape) != shape:
            got = "missing" if t is None else f"{dtypes[name]} {list(t.shape)}"
            c.fail(f'tensor "{name}" is {got}, expected {dtype} {shape} for {storage} storage')
    # The codebooks are small (256 x dim floats), and every decoded row is made of them: checked whole, as the C++
    # reader checks them, so that a NaN is named here rather than met as a NaN score.
    if storage == "pq" and not np.all(np.isfinite(tensors["pq.codebooks"])):
        c.fail('tensor "pq.codebooks" holds a value that is not finite')
    # Optimized PQ (glove-convert --opq): the codes are of the rows turned by R; optional, checked as the C++ reader
    # checks it (F32 [dim, dim], every value finite: dim x dim floats, read whole).
    rotation = tensors.get("pq.rotation") if storage == "pq" else None
    if rotation is not None:
        if dtypes["pq.rotation"] != "F32" or list(rotation.shape) != [dim, dim]:
            c.fail(f'tensor "pq.rotation" is {dtypes["pq.rotation"]} {list(rotation.shape)}, '
                   f"expected F32 [{dim}, {dim}]")
        if not np.all(np.isfinite(rotation)):
            c.fail('tensor "pq.rotation" holds a value that is not finite')
    c.rows, c.dim = rows, dim
    return rows, dim


def _count(c, key):
    """A metadata value that must be a decimal count."""
    value = c.metadata.get(key)
    if value is None:
        c.fail(f"metadata has no {key}")
    if not (value.isascii() and value.isdigit()) or len(value) > 15:  # 15 digits: a count int() reads at once
        c.fail(f"metadata {key} = {value[:40]!r} is not a number (a decimal count below 10^15)")
    return int(value)


def _check_subwords(c, dim):
    meta = c.metadata
    if meta.get("subwords.hash") != SUBWORD_HASH:
        c.fail(f"subwords.hash is {meta.get('subwords.hash')!r}; this reader knows {SUBWORD_HASH!r}")
    try:
        minn, maxn, buckets = (int(meta[k]) for k in ("subwords.minn", "subwords.maxn", "subwords.bucket_count"))
    except (KeyError, ValueError):
        c.fail("subwords.minn, subwords.maxn and subwords.bucket_count must be numbers")
    if not (1 <= maxn <= MAX_NGRAM and 1 <= minn <= maxn):
        c.fail(f"subwords: n-grams of {minn} to {maxn} characters: expected 1 <= minn <= maxn <= {MAX_NGRAM}")
    t = c.tensors["subwords.buckets"]
    if list(t.shape) != [buckets, dim] or c.dtypes["subwords.buckets"] not in VECTOR_DTYPES or buckets == 0:
        c.fail(f"subwords.buckets is {c.dtypes['subwords.buckets']} {list(t.shape)}, expected [{buckets}, {dim}] "
               "of F32, F16 or BF16")
