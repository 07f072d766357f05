#!/usr/bin/python3
"""python_open.py: the time from a fresh Python process to its first vector, and its peak
RSS, with the embed package against gensim, on the same vectors (python_open.sh makes them).

Each case runs in its own process under /usr/bin/time (wall seconds from exec, peak RSS),
RUNS times interleaved, medians printed, with Python's own start (`import numpy`) beside
them. Cases: embed.open + one lookup; gensim KeyedVectors.load(mmap='r') + one lookup;
gensim load_word2vec_format (binary) + one lookup (SLOW=0 leaves it out); and a
10,000-word subset: embed's rows() of those words against gensim's mmap'ed kv[words]; and,
with PyTorch installed, embed's nn.Embedding of them, against the whole table in one: gensim's
vectors copied into a tensor (what a user without embed does) and embed's, mapped.

Usage: python_open.py PYTHON_PACKAGE_DIR EMB KV W2V_BIN ROWS RUNS SLOW
"""
import statistics
import subprocess
import sys

PACKAGE, EMB, KV, W2V = sys.argv[1:5]
ROWS, RUNS, SLOW = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7] == "1"
PY = "/usr/bin/python3"
WIDTH = len(str(ROWS - 1))  # make_vectors_bin.py's words: w, then the row zero-padded
WORD = f"w{42:0{WIDTH}d}"
WORDS = (f"import numpy as np; words = ['w%0{WIDTH}d' % i for i in "
         f"np.random.default_rng(5).choice({ROWS}, min(10000, {ROWS}), replace=False)]")

CASES = [
    ("python + numpy (the floor)", "import numpy"),
    ("embed.open + v[word]", f"import sys; sys.path.insert(0, {PACKAGE!r}); import embed; v = embed.open({EMB!r}); "
                             f"x = v[{WORD!r}]; assert x.shape[0] > 0"),
    ("gensim load(mmap='r') + kv[word]", "from gensim.models import KeyedVectors; "
                                         f"kv = KeyedVectors.load({KV!r}, mmap='r'); x = kv[{WORD!r}]"),
    ("embed rows(10,000 words)", f"import sys; sys.path.insert(0, {PACKAGE!r}); import embed; v = embed.open({EMB!r}); "
                                 f"{WORDS}; x = v.rows(words); assert x.shape[0] == len(words)"),
    ("gensim mmap kv[10,000 words]", "from gensim.models import KeyedVectors; "
                                     f"kv = KeyedVectors.load({KV!r}, mmap='r'); {WORDS}; x = kv[words]"),
]
TORCH_FLOOR = "python + numpy + torch (their floor)"
TORCH_CASES = set()  # measured from the torch floor: importing PyTorch alone takes a second
try:
    import torch  # noqa: F401
    torch_cases = [(TORCH_FLOOR, "import numpy, torch")]
    torch_cases.append(("embed nn.Embedding(10,000 words)", f"import sys; sys.path.insert(0, {PACKAGE!r}); import embed; "
                  f"v = embed.open({EMB!r}); {WORDS}; e = v.embedding(words)"))
    # What a user does without embed: load every vector, then build the layer of all of them.
    torch_cases.append(("gensim mmap + nn.Embedding(all, copied)", "import numpy as np, torch; "
                  "from gensim.models import KeyedVectors; "
                  f"kv = KeyedVectors.load({KV!r}, mmap='r'); "
                  "e = torch.nn.Embedding.from_pretrained(torch.from_numpy(np.array(kv.vectors)))"))
    torch_cases.append(("embed nn.Embedding(all, mapped)", f"import sys; sys.path.insert(0, {PACKAGE!r}); import embed; "
                  f"v = embed.open({EMB!r}); e = v.embedding(); x = e.weight[42]"))
    CASES += torch_cases
    TORCH_CASES = {name for name, _ in torch_cases}
except ImportError:
    print("(PyTorch not installed: the nn.Embedding case is left out; rows() is the copy it makes)")
if SLOW:
    CASES.append(("gensim load_word2vec_format + kv[word]", "from gensim.models import KeyedVectors; "
                  f"kv = KeyedVectors.load_word2vec_format({W2V!r}, binary=True); x = kv[{WORD!r}]"))


def measure(code):
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", PY, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"failed: {code}\n{out.stderr[-800:]}")
    wall, rss = out.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss) / 1024


results = {name: [] for name, _ in CASES}
for _ in range(RUNS):
    for name, code in CASES:
        results[name].append(measure(code))
floor = statistics.median(w for w, _ in results[CASES[0][0]])
torch_floor = statistics.median(w for w, _ in results[TORCH_FLOOR]) if TORCH_FLOOR in results else 0
print(f"{'case':42} {'wall s':>8} {'- floor':>9} {'peak RSS MB':>12}   ({RUNS} runs, medians; floor: numpy's, "
      "or numpy's and torch's for the nn.Embedding cases)")
for name, _ in CASES:
    wall = statistics.median(w for w, _ in results[name])
    rss = statistics.median(r for _, r in results[name])
    print(f"{name:42} {wall:8.3f} {wall - (torch_floor if name in TORCH_CASES else floor):9.3f} {rss:12.1f}")
