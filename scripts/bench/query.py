#!/usr/bin/python3
"""Times embed-query and gensim's most_similar on the same vectors, in one run.

Usage: query.py EMBED_QUERY BENCH_SEARCH VECTORS.emb VECTORS.bin THREADS QUERIES GENSIM_QUERIES
(query.sh, beside it, prepares the files and calls this.) Prints one table and the ratios.

Figures (median of several runs where cheap, warm page cache), all on the CPU (--device cpu;
query.sh adds the GPU's figures after them):
  first answer     process start to the first answer printed: `embed-query X.emb WORD`;
                   for gensim a python process that loads the word2vec binary and answers
                   most_similar(WORD) (gensim's fastest load of a format both can read)
  single query     one query answered by a running process: embed-query reading stdin
                   from a pipe (a conversation: write a word, read its 10 answers);
                   gensim's most_similar after the first call (norms ready)
  batch            QUERIES queries from stdin through the whole CLI, process start included;
                   gensim: most_similar in a loop over GENSIM_QUERIES of them (each costs the
                   same, so queries/s does not depend on how many)
  sgemm floor      bench-search: the same product as one SGEMM call with all threads, and
                   embed-query's search() on it (blocked SGEMM + fused top-k), same run
"""
import os
import statistics
import subprocess
import sys
import time

EQ, BENCH_SEARCH, EMB, BIN = sys.argv[1:5]
THREADS, QUERIES, GENSIM_QUERIES = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
K = 10


def words(count, rows, seed):
    return [f"w{(i * 7919 + seed) % rows}" for i in range(count)]


def rows_of(emb):
    out = subprocess.run([os.path.join(os.path.dirname(EQ), "glove-convert"), "--info", emb],
                         capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[1] for line in out.splitlines() if line.startswith("rows")))


ROWS = rows_of(EMB)
results = {}

# --- embed-query: first answer ---
firsts = []
for word in words(7, ROWS, 1):
    start = time.perf_counter()
    subprocess.run([EQ, EMB, word, "-k", str(K), "--threads", str(THREADS), "--device", "cpu"], check=True,
                   capture_output=True)
    firsts.append(time.perf_counter() - start)
results["embed first answer s"] = statistics.median(firsts)

# --- embed-query: single queries in a conversation ---
proc = subprocess.Popen([EQ, EMB, "-k", str(K), "--format", "tsv", "--threads", str(THREADS), "--device", "cpu"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
latencies = []
for word in words(21, ROWS, 2):
    start = time.perf_counter()
    proc.stdin.write(word + "\n")
    proc.stdin.flush()
    for _ in range(K):
        proc.stdout.readline()
    latencies.append(time.perf_counter() - start)
proc.stdin.close()
proc.wait()
results["embed single query s"] = statistics.median(latencies[1:])

# --- embed-query: a batch from stdin, whole process ---
batch = "\n".join(words(QUERIES, ROWS, 3)) + "\n"
times = []
for _ in range(3):
    start = time.perf_counter()
    out = subprocess.run([EQ, EMB, "-k", str(K), "--format", "tsv", "--threads", str(THREADS), "--device", "cpu"],
                         input=batch,
                         capture_output=True, text=True, check=True)
    times.append(time.perf_counter() - start)
    assert out.stdout.count("\n") == QUERIES * K, "wrong number of answers"
results["embed batch s"] = min(times)
results["embed batch q/s"] = QUERIES / min(times)

# --- the SGEMM floor, same matrices ---
out = subprocess.run([BENCH_SEARCH, EMB, str(QUERIES), str(THREADS), str(K), "3"], capture_output=True, text=True,
                     check=True).stdout
floor = dict(line.split(" ", 1) for line in out.splitlines())
for key in ("sgemm_seconds", "sgemm_gflops", "search_seconds", "search_gflops", "search_over_sgemm"):
    results[key] = float(floor[key])

# --- gensim ---
GENSIM = r'''
import sys, time
t0 = time.perf_counter()
from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=True)
first = kv.most_similar(sys.argv[2], topn=10)
print(first[0][0], flush=True)
t1 = time.perf_counter()
lat = []
for w in sys.argv[3].split(","):
    s = time.perf_counter(); kv.most_similar(w, topn=10); lat.append(time.perf_counter() - s)
batch = sys.argv[4].split(",")
s = time.perf_counter()
for w in batch:
    kv.most_similar(w, topn=10)
b = time.perf_counter() - s
lat.sort()
print("single", lat[len(lat) // 2])
print("batch", b, len(batch))
print("in_process_load", t1 - t0)
'''
have_gensim = subprocess.run(["/usr/bin/python3", "-c", "import gensim"], capture_output=True).returncode == 0
if have_gensim:
    env = dict(os.environ)
    start = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/python3", "-c", GENSIM, BIN, "w1", ",".join(words(21, ROWS, 2)),
                             ",".join(words(GENSIM_QUERIES, ROWS, 3))], stdout=subprocess.PIPE, text=True, env=env)
    proc.stdout.readline()
    results["gensim first answer s"] = time.perf_counter() - start
    rest = dict(line.split(" ", 1) for line in proc.stdout.read().splitlines())
    proc.wait()
    results["gensim single query s"] = float(rest["single"])
    seconds, count = rest["batch"].split()
    results["gensim batch q/s"] = int(count) / float(seconds)
    blas = subprocess.run(["/usr/bin/python3", "-c", "import numpy, os\n"
                           "print(sorted({os.path.realpath(l.split()[-1]) for l in open('/proc/self/maps') if 'blas' in l}))"],
                          capture_output=True, text=True).stdout.strip()

print(f"== results: {ROWS} x 300 .emb, {QUERIES} queries, k={K}, {THREADS} threads")
print(f"gemm: {floor['gemm']}")
print(f"{'figure':<28} {'embed-query':>14} {'gensim':>14} {'ratio':>9}")


def row(name, ours, theirs, fmt, better_low):
    if theirs is None:
        print(f"{name:<28} {fmt.format(ours):>14} {'-':>14} {'-':>9}")
        return
    ratio = theirs / ours if better_low else ours / theirs
    print(f"{name:<28} {fmt.format(ours):>14} {fmt.format(theirs):>14} {ratio:>8.1f}x")


g = results if have_gensim else {}
row("first answer (s)", results["embed first answer s"], g.get("gensim first answer s"), "{:.3f}", True)
row("single query (ms)", 1000 * results["embed single query s"],
    1000 * g["gensim single query s"] if have_gensim else None, "{:.1f}", True)
row("batch (queries/s)", results["embed batch q/s"], g.get("gensim batch q/s"), "{:.1f}", False)
print(f"ratios are gensim time / embed-query time (higher: embed-query faster)")
if not have_gensim:
    print("skipped gensim: /usr/bin/python3 cannot import gensim (apt-get install python3-gensim)")
print()
print(f"batch through the CLI: {QUERIES} queries in {results['embed batch s']:.3f} s (process start, parsing and output included)")
print(f"bare SGEMM, one call, {THREADS} threads:  {results['sgemm_seconds']:.3f} s = {results['sgemm_gflops']:.1f} GFLOP/s")
print(f"search() blocked SGEMM + top-k:   {results['search_seconds']:.3f} s = {results['search_gflops']:.1f} GFLOP/s effective")
verdict = "OK" if results["search_over_sgemm"] <= 1.5 else "ABOVE TARGET"
print(f"search / bare SGEMM:              {results['search_over_sgemm']:.2f}x  {verdict} (target <= 1.5x)")
fa = results["embed first answer s"]
print(f"first answer:                     {1000 * fa:.0f} ms  {'OK' if fa < 0.05 else 'ABOVE TARGET'} (target < 50 ms)")
if have_gensim:
    print(f"gensim's numpy links: {blas}")
