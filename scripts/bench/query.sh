#!/usr/bin/env bash
# query.sh: embed-query against gensim's most_similar on the same vectors, in one run.
#
# Generates synthetic vectors (default 400,000 words x 300 dims, the shape of glove.6B.300d),
# converts them to .emb (for embed-query) and to a word2vec binary (for gensim, its fastest
# text-vector load), warms the page cache, then query.py times: process start to first
# answer, single-query latency in a running process, batch throughput (QUERIES queries through
# the CLI), the bare SGEMM of the same product against search() (GFLOP/s), and gensim's
# figures, printed as a table with ratios. With a GPU (a CUDA build and a usable device) it then
# times the GPU search (build/bench-gpu-search) on GPU_QUERIES queries against each of
# GPU_ROWS x 300 vectors, beside the bare cuBLAS GEMMs of the same product (the floor) and the
# CPU's search() on the same file; without one it says so and stops after the CPU figures.
# make_glove_text.py and make_vectors_bin.py (beside this script) generate the vectors.
#
# Needs a build (BUILD, default build/: embed-query, glove-convert, bench-search) and a Python
# with numpy (PYTHON, default Debian's /usr/bin/python3); gensim (python3-gensim) for the
# comparison, skipped without it. PARTS ("cpu gpu"): "cpu" is the table against gensim, "gpu"
# the GPU figures (the device kit runs PARTS=gpu).
# Environment: ROWS, DIM (400000, 300), THREADS (2), QUERIES (1000), GENSIM_QUERIES (100:
# gensim needs ~0.1-0.2 s per query here), DTYPE (f32; f16/bf16 to time 16-bit files),
# BENCH_DIR (scratch parent, default /tmp), KEEP=1 keeps the files. GPU: GPU_ROWS ("400000 4000000";
# 4,000,000 x 300 f32 is 4.8 GB on disk and on the GPU, generated straight into .emb), GPU_QUERIES
# (10000), GPU_CPU_QUERIES (1000: the CPU's queries/s on the same file, which does not depend on
# how many; 10,000 against 4,000,000 rows take the CPU minutes), GPU_CPU_THREADS (all cores: the
# CPU path at its best on that machine).
# Smoke run: ROWS=20000 QUERIES=100 GENSIM_QUERIES=10 PARTS=cpu bash scripts/bench/query.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=${ROWS:-400000}
DIM=${DIM:-300}
THREADS=${THREADS:-2}
QUERIES=${QUERIES:-1000}
GENSIM_QUERIES=${GENSIM_QUERIES:-100}
DTYPE=${DTYPE:-f32}
KEEP=${KEEP:-0}
GPU_ROWS=${GPU_ROWS:-400000 4000000}
GPU_QUERIES=${GPU_QUERIES:-10000}
GPU_CPU_QUERIES=${GPU_CPU_QUERIES:-1000}
GPU_CPU_THREADS=${GPU_CPU_THREADS:-$(nproc)}
PYTHON=${PYTHON:-/usr/bin/python3}
PARTS=${PARTS:-cpu gpu}

for tool in embed-query glove-convert bench-search; do
  need_tool "$tool" "$BUILD/$tool" BUILD
done
need_numpy

bench_scratch

machine_block
echo "tool:    $("$BUILD/embed-query" --version | tr '\n' ' ')"

if has "$PARTS" cpu; then
  echo "== preparing $ROWS x $DIM vectors ($DTYPE) in $work"
  "$PYTHON" "$here/make_glove_text.py" "$work/vectors.txt" "$ROWS" "$DIM"
  "$BUILD/glove-convert" -q "$work/vectors.txt" --dtype "$DTYPE" -o "$work/vectors.emb"
  "$BUILD/glove-convert" -q "$work/vectors.emb" --to w2v-bin -o "$work/vectors.bin"
  rm "$work/vectors.txt"
  sync
  # Warm the page cache the way a user's earlier query does (through the mapping): pages read
  # by `cat` instead sit in small page-cache folios that take embed-query's first pass about
  # 15 ms more to map on these VMs.
  cat "$work/vectors.bin" > /dev/null
  "$BUILD/embed-query" -q "$work/vectors.emb" w0 > /dev/null

  "$PYTHON" "$here/query.py" "$BUILD/embed-query" "$BUILD/bench-search" "$work/vectors.emb" \
    "$work/vectors.bin" "$THREADS" "$QUERIES" "$GENSIM_QUERIES"
  echo
fi

has "$PARTS" gpu || exit 0
if [[ ! -x $BUILD/bench-gpu-search ]]; then
  echo "no GPU: skipping GPU figures (this build has no CUDA backend)"
  exit 0
fi
if ! probe=$("$BUILD/bench-gpu-search" --probe); then
  echo "no GPU: skipping GPU figures ($probe)"
  exit 0
fi
gpu_results=()
for rows in $GPU_ROWS; do
  need=$((rows * 300 * 4 * 11 / 10))
  free=$(df --output=avail -B1 "$work" | tail -1)
  if ((free < need)); then
    echo "skipping $rows x 300: $((need >> 20)) MiB needed in $work, $((free >> 20)) MiB free"
    continue
  fi
  echo "== preparing $rows x 300 vectors ($DTYPE) for the GPU"
  "$PYTHON" "$here/make_vectors_bin.py" "$rows" 300 | "$BUILD/glove-convert" -q - --from w2v-bin --dtype "$DTYPE" \
    -o "$work/gpu-$rows.emb"
  cat "$work/gpu-$rows.emb" > /dev/null
  "$BUILD/bench-gpu-search" "$work/gpu-$rows.emb" "$GPU_QUERIES" 10 3 "$GPU_CPU_THREADS" > "$work/gpu-$rows.txt"
  "$BUILD/bench-search" "$work/gpu-$rows.emb" "$GPU_CPU_QUERIES" "$GPU_CPU_THREADS" 10 1 > "$work/cpu-$rows.txt"
  gpu_results+=("$work/gpu-$rows.txt" "$work/cpu-$rows.txt")
  rm "$work/gpu-$rows.emb"
done
if ((${#gpu_results[@]})); then
  "$PYTHON" "$here/query_gpu.py" "$GPU_QUERIES" "$GPU_CPU_QUERIES" "$GPU_CPU_THREADS" "${gpu_results[@]}"
fi
