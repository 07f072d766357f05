#!/usr/bin/env bash
# Interop test: glove-convert against gensim and the fastText CLI, checked by a reader that
# shares no code with embed (read_emb.py).
#
# Usage: interop_test.sh GLOVE_CONVERT
# Exit status: 0 pass, 1 fail, 77 skipped (Debian's /usr/bin/python3 lacks gensim/numpy,
# or the `fasttext` command is missing).
#
# 1. make_peer_files.py trains a tiny gensim Word2Vec (binary + text word2vec files) and a tiny
#    fastText model (.vec).
# 2. Each is converted to .emb; read_emb.py must find every word at its row through the stored
#    index, every checksum, and every float bit-exact equal to gensim's own reading of the source
#    (and, for the .vec, to numpy float32 parsing).
# 3. .emb -> w2v-bin / w2v-text / glove, loaded by gensim, must equal the originals exactly.
# 4. text -> emb -> text -> emb must reproduce the vectors tensor byte for byte.
# 5. f16/bf16 storage must round like numpy (round to nearest even), and a reordered,
#    unaligned .emb with extra tensors (as another safetensors writer may produce) must read
#    the same.
# 6. The reader shown in docs/FORMAT.md must be read_emb.py's code and give the same results.
# Set KEEP_INTEROP_FILES=1 to keep the work directory.
set -euo pipefail

if [[ $# -ne 1 || ! -x $1 ]]; then
  echo "usage: $0 GLOVE_CONVERT (an executable)" >&2
  exit 1
fi
GC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/peers.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/embed-interop.XXXXXX")
if [[ -z ${KEEP_INTEROP_FILES:-} ]]; then
  trap 'rm -rf "$WORK"' EXIT
else
  echo "keeping files in $WORK"
fi
cd "$WORK"

# Runs a command, and on failure says which one and exits 1.
step() {
  if ! "$@"; then
    echo "FAIL: command failed: $*" >&2
    exit 1
  fi
}

export PYTHONHASHSEED=0  # gensim seeds its initial vectors with Python's string hash
step "$PY" "$HERE/make_peer_files.py" peer

# 2. Peer files -> .emb, each with the input format auto-detected.
step "$GC" -q peer/gensim.bin -o g_bin.emb
step "$GC" -q peer/gensim.txt -o g_txt.emb
step "$GC" -q peer/model.vec -o ft.emb
step "$GC" -q --from w2v-bin - -o - --to emb <peer/gensim.bin >g_stdin.emb
for f in g_bin g_txt ft g_stdin; do step "$GC" -q --verify "$f.emb"; done

# 3. .emb -> the peer formats.
for f in g_bin g_txt ft; do
  step "$GC" -q "$f.emb" -o "$f.back.bin"
  step "$GC" -q "$f.emb" -o "$f.back.vec"
  step "$GC" -q "$f.emb" -o "$f.back.txt"   # GloVe: no header line
done

# 4. text -> emb -> text -> emb, in both text flavours.
step "$GC" -q g_txt.back.vec -o rt.emb
step "$GC" -q rt.emb -o rt.back.vec
step "$GC" -q g_txt.back.txt -o rt_glove.emb
step "$GC" -q rt_glove.emb -o rt_glove.back.txt
step "$GC" -q ft.back.vec -o ft_rt.emb
for pair in g_txt.back.vec:rt.back.vec g_txt.back.txt:rt_glove.back.txt; do
  if ! cmp "${pair%%:*}" "${pair##*:}"; then
    echo "FAIL: text -> emb -> text is not byte-identical: ${pair%%:*} vs ${pair##*:}" >&2
    exit 1
  fi
done

# 5. 16-bit storage, and back out of it.
# f16 cannot hold the rows with |x| >= 65520: converting them is refused, the rest converts.
if "$GC" -q --dtype f16 g_bin.emb -o g_f16.emb 2>f16.err || ! grep -q "outside the range of f16" f16.err ||
   "$GC" -q --dtype bf16 g_bin.emb -o g_bf16.emb 2>bf16.err || ! grep -q "outside the range of bf16" bf16.err; then
  echo "FAIL: f16/bf16 overflow was not refused: $(cat f16.err bf16.err)" >&2
  exit 1
fi
# bf16 keeps f32's exponent but rounds FLT_MAX up to infinity: that row is refused too.
"$PY" - <<'PYTHON'
import json
import numpy as np
ref = np.load("peer/gensim_ref.npy")
words = json.load(open("peer/gensim_ref.json", encoding="utf-8"))
for name, limit in [("f16_words.txt", 65520.0), ("bf16_words.txt", 3.3895e38)]:
    with open(name, "w", encoding="utf-8") as out:
        for w, row in zip(words, ref):
            if np.abs(row).max() < limit:
                print(w, file=out)
PYTHON
step "$GC" -q --dtype f16 --vocab f16_words.txt g_bin.emb -o g_f16.emb
step "$GC" -q --dtype bf16 --vocab bf16_words.txt g_bin.emb -o g_bf16.emb
step "$GC" -q g_f16.emb -o g_f16.back.bin
step "$GC" -q g_bf16.emb -o g_bf16.back.bin
step "$GC" -q --dtype f16 --vocab f16_words.txt peer/gensim.bin -o g_f16_direct.emb

# All comparisons, with Python tools that share no code with embed; also writes foreign.emb.
if ! "$PY" - "$HERE" <<'PYTHON'
import json, sys, zlib
import numpy as np
from gensim.models import KeyedVectors

sys.path.insert(0, sys.argv[1])
from read_emb import check_emb, read_emb

failures = []

def fail(message):
    failures.append(message)
    print("FAIL:", message)

def same_bits(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))

def compare(what, words, vectors, ref_words, ref_vectors):
    """Words in the same order and float32 vectors bit for bit (so -0.0 != 0.0, NaN == same NaN)."""
    words, ref_words = list(words), list(ref_words)
    if words != ref_words:
        diff = [(i, a, b) for i, (a, b) in enumerate(zip(words, ref_words)) if a != b][:5]
        k = min(len(words), len(ref_words))
        fail(f"{what}: words differ: {len(words)} words, expected {len(ref_words)}; first differences "
             f"(row, got, expected): {diff}; extra: {words[k:k + 5]}; missing: {ref_words[k:k + 5]}")
        return
    vectors, ref_vectors = np.asarray(vectors, np.float32), np.asarray(ref_vectors, np.float32)
    if vectors.shape != ref_vectors.shape:
        fail(f"{what}: shape {vectors.shape}, expected {ref_vectors.shape}")
    elif not same_bits(vectors, ref_vectors):
        rows, cols = np.nonzero(vectors.view(np.uint32) != ref_vectors.view(np.uint32))
        shown = [f"{words[r]!r}[{c}]: {vectors[r, c]!r} (0x{vectors.view(np.uint32)[r, c]:08x}) expected "
                 f"{ref_vectors[r, c]!r} (0x{ref_vectors.view(np.uint32)[r, c]:08x})" for r, c in zip(rows[:5], cols[:5])]
        fail(f"{what}: {len(rows)} floats differ, e.g. " + "; ".join(shown))
    else:
        print(f"ok  {what}: {len(words)} words x {vectors.shape[1]}, bit-exact")

def gensim_load(path, binary, no_header=False):
    kv = KeyedVectors.load_word2vec_format(path, binary=binary, no_header=no_header)
    return kv.index_to_key, kv.vectors

def emb(path):
    problems = check_emb(path)
    for p in problems:
        fail(f"{path}: {p}")
    words, vectors, meta, tensors = read_emb(path)
    return words, vectors, meta, tensors

def parse_vec(path):
    """fastText .vec parsed directly: header, then 'word v1 ... vD ' per line, values as numpy float32."""
    with open(path, encoding="utf-8") as f:
        rows, dim = map(int, f.readline().split())
        words, vectors = [], []
        for line in f:
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            words.append(parts[0])
            vectors.append(np.array(parts[1:], dtype=np.float32))
    assert len(words) == rows and all(len(v) == dim for v in vectors), "unexpected .vec layout"
    return words, np.stack(vectors)

# Peer references.
ref_words = json.load(open("peer/gensim_ref.json", encoding="utf-8"))
ref_vectors = np.load("peer/gensim_ref.npy")
gbin = gensim_load("peer/gensim.bin", True)
gtxt = gensim_load("peer/gensim.txt", False)
gvec = gensim_load("peer/model.vec", False)
vec = parse_vec("peer/model.vec")
compare("gensim reads its own gensim.bin as the model held it (sanity)", *gbin, ref_words, ref_vectors)
compare("gensim reads its own gensim.txt as the model held it (sanity)", *gtxt, ref_words, ref_vectors)
compare("gensim reads model.vec as numpy parsing does (sanity)", *gvec, *vec)
for w in ["café", "cafe\u0301", "日本", "a\u00a0b", "nan", "1.5"]:
    if w not in ref_words:
        fail(f"the peer files lack the special word {w!r}")

# 2. Peer files -> .emb: words, floats, index, checksums, metadata.
sources = {"g_bin": ("w2v-bin", gbin), "g_txt": ("w2v-text", gtxt), "ft": ("w2v-text", gvec), "g_stdin": ("w2v-bin", gbin)}
for name, (source_format, (words, vectors)) in sources.items():
    ewords, evectors, meta, _ = emb(f"{name}.emb")
    compare(f"{name}.emb vs gensim's reading of its source", ewords, evectors, words, vectors)
    if (meta.get("source_format"), meta.get("normalized")) != (source_format, "false"):
        fail(f"{name}.emb: source_format, normalized = {meta.get('source_format')!r}, {meta.get('normalized')!r}; "
             f"expected {source_format!r}, 'false'")
compare("ft.emb vs numpy parsing of model.vec", *emb("ft.emb")[:2], *vec)
compare("g_txt.emb vs the vectors gensim held in memory", *emb("g_txt.emb")[:2], ref_words, ref_vectors)
if emb("g_stdin.emb")[3]["vectors"].tobytes() != emb("g_bin.emb")[3]["vectors"].tobytes():
    fail("g_stdin.emb (read from a pipe) has other vectors than g_bin.emb (read from the file)")

# 3. .emb -> peer formats, read back by gensim.
for name, (_, (words, vectors)) in list(sources.items())[:3]:
    compare(f"{name}.emb -> w2v-bin, read by gensim", *gensim_load(f"{name}.back.bin", True), words, vectors)
    compare(f"{name}.emb -> w2v-text, read by gensim", *gensim_load(f"{name}.back.vec", False), words, vectors)
    compare(f"{name}.emb -> glove, read by gensim (no_header)", *gensim_load(f"{name}.back.txt", False, True), words, vectors)

# 4. text -> emb -> text -> emb: identical tensors.
before = len(failures)
for a, b in [("g_txt.emb", "rt.emb"), ("g_txt.emb", "rt_glove.emb"), ("g_bin.emb", "rt.emb"), ("ft.emb", "ft_rt.emb")]:
    ta, tb = emb(a)[3], emb(b)[3]
    for tensor in ["vectors", "vocab.bytes", "vocab.offsets", "vocab.index", "norms"]:
        if ta[tensor].tobytes() != tb[tensor].tobytes():
            fail(f"{a} vs {b}: tensor {tensor} is not byte-identical")
if len(failures) == before:
    print("ok  text -> emb -> text -> emb (and bin -> emb -> text -> emb): identical tensors")

# 5. 16-bit storage rounds to nearest even, like numpy; reading it back widens exactly.
all_words, all_vectors = gbin
fits_f16 = np.abs(all_vectors).max(axis=1) < 65520  # the rows converted with --vocab f16_words.txt
fits_bf16 = np.abs(all_vectors).max(axis=1) < 3.3895e38  # and with --vocab bf16_words.txt
f16_words = [w for w, keep in zip(all_words, fits_f16) if keep]
bf16_words = [w for w, keep in zip(all_words, fits_bf16) if keep]
f16 = all_vectors[fits_f16].astype(np.float16)
u = all_vectors[fits_bf16].view(np.uint32).astype(np.uint64)
bf16 = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
for path, dtype_name, raw, widened, back, words, vectors in [
        ("g_f16.emb", "F16", f16.view(np.uint16), f16.astype(np.float32), "g_f16.back.bin", f16_words, all_vectors[fits_f16]),
        ("g_f16_direct.emb", "F16", f16.view(np.uint16), f16.astype(np.float32), None, f16_words, all_vectors[fits_f16]),
        ("g_bf16.emb", "BF16", bf16, (bf16.astype(np.uint32) << 16).view(np.float32), "g_bf16.back.bin", bf16_words,
         all_vectors[fits_bf16])]:
    ewords, evectors, meta, t = emb(path)
    stored = t["vectors"].view(np.uint16)
    if stored.shape != raw.shape:
        fail(f"{path}: vectors of shape {stored.shape}, expected {raw.shape}")
        continue
    if not np.array_equal(stored, raw):
        r, c = np.argwhere(stored != raw)[0]
        fail(f"{path}: {dtype_name} bits differ from numpy's rounding, e.g. {words[r]!r}[{c}] = {vectors[r, c]!r}: "
             f"stored 0x{stored[r, c]:04x}, expected 0x{raw[r, c]:04x}")
    compare(f"{path} ({dtype_name}) widened to f32", ewords, evectors, words, widened)
    if back:
        compare(f"{back}, read by gensim", *gensim_load(back, True), words, widened)

# A file as another safetensors writer may lay it out: tensors in reverse order, no metadata
# first, the buffer starting at an odd offset (so nothing is aligned). glove-convert must accept it.
raw = open("g_bin.emb", "rb").read()
n = int.from_bytes(raw[:8], "little")
header = json.loads(raw[8:8 + n])
meta = header.pop("__metadata__")
blobs, new_header, offset = [], {}, 0
for name in sorted(header, key=lambda k: header[k]["data_offsets"], reverse=True):
    begin, end = header[name]["data_offsets"]
    blobs.append(raw[8 + n + begin:8 + n + end])
    new_header[name] = dict(header[name], data_offsets=[offset, offset + end - begin])
    offset += end - begin
# Add what a richer writer may add: word counts (optional, I64 [rows]) and a tensor embed does not know.
rows = header["vectors"]["shape"][0]
counts = (np.arange(rows, 0, -1, dtype="<i8") * 10).tobytes()
for name, dtype, blob in [("counts", "I64", counts), ("x.note", "U8", "from another writer".encode())]:
    new_header[name] = {"dtype": dtype, "shape": [len(blob) // (8 if dtype == "I64" else 1)],
                        "data_offsets": [offset, offset + len(blob)]}
    meta["checksum." + name] = "crc32:%08x" % zlib.crc32(blob)
    blobs.append(blob)
    offset += len(blob)
new_header["__metadata__"] = meta
text = json.dumps(new_header, ensure_ascii=False, separators=(",", ":")).encode()
text += b" " * (1 if len(text) % 2 == 0 else 2)  # N odd, so the buffer starts at an odd offset
open("foreign.emb", "wb").write(len(text).to_bytes(8, "little") + text + b"".join(blobs))
fw, fv, _, ft = read_emb("foreign.emb")
compare("foreign.emb (reordered, unaligned) via read_emb.py", fw, fv, *gbin)
np.save("foreign_counts.npy", ft["counts"])

# docs/FORMAT.md shows the reader: it must be read_emb.py's code, and work on its own.
import ast, os, re
doc_path = os.path.join(sys.argv[1], "..", "..", "docs", "FORMAT.md")
blocks = re.findall(r"```python\n(.*?)```", open(doc_path, encoding="utf-8").read(), re.S)
doc_code = next((b for b in blocks if "def read_emb" in b), "")
ours = open(os.path.join(sys.argv[1], "read_emb.py"), encoding="utf-8").read()
def functions(code):
    return {n.name: ast.get_source_segment(code, n) for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)}
doc_functions, our_functions = functions(doc_code), functions(ours)
for name in ["read_emb", "fnv1a64", "lookup", "verify_checksums"]:
    if doc_functions.get(name) != our_functions.get(name):
        fail(f"docs/FORMAT.md's {name}() differs from read_emb.py's (or is missing)")
scope = {}
exec(doc_code, scope)
for path in ["g_bin.emb", "g_bf16.emb", "foreign.emb"]:
    dw, dv, dm, dt = scope["read_emb"](path)
    scope["verify_checksums"](dm, dt)
    compare(f"{path} via the reader in docs/FORMAT.md", dw, dv, *read_emb(path)[:2])
    if [scope["lookup"](dt, w) for w in dw] != list(range(len(dw))):
        fail(f"{path}: lookup() from docs/FORMAT.md does not find every word at its row")

sys.exit(1 if failures else 0)
PYTHON
then
  echo "FAIL: the comparisons above failed" >&2
  exit 1
fi

# The reordered, unaligned file: our reader must accept it and give the same data.
step "$GC" -q --verify foreign.emb
step "$GC" -q foreign.emb -o foreign.back.bin
if ! cmp foreign.back.bin g_bin.back.bin; then
  echo "FAIL: foreign.emb (reordered, unaligned) converts differently from g_bin.emb" >&2
  exit 1
fi
# Rewritten by glove-convert: the counts are kept, in the writer's layout; the unknown tensor is dropped.
step "$GC" -q foreign.emb -o foreign.back.emb
step "$PY" - "$HERE" <<'PYTHON'
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from read_emb import check_emb, read_emb
problems = check_emb("foreign.back.emb")
t = read_emb("foreign.back.emb")[3]
if "counts" not in t or not np.array_equal(t["counts"], np.load("foreign_counts.npy")) or "x.note" in t:
    problems.append(f"tensors {sorted(t)}: expected the input's counts kept and x.note dropped")
for p in problems:
    print("FAIL: foreign.back.emb:", p)
sys.exit(1 if problems else 0)
PYTHON
echo "ok  foreign.emb (tensors reordered, unaligned, counts, an unknown tensor) reads the same through glove-convert"
echo "PASS: interop with gensim and fastText"
