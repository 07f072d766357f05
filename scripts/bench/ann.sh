#!/usr/bin/env bash
# ann.sh: the approximate index (glove-convert --index ann, embed-query --ann) against the
# exact search and against faiss (python3-faiss, IndexHNSWFlat) and hnswlib
# (python3-hnswlib) on the same vectors and held-out queries, in one run.
#
# Vectors with structure (ann.py make: a mixture of clusters in a 40-dimensional latent space
# mapped into DIM dimensions; word vectors' intrinsic dimension is low too), ROWS x DIM
# (default 1,000,000 x 300) and QUERIES held-out points (default 10,000). Prints:
#   build       glove-convert --index ann: seconds, peak memory, index bytes and their share
#               of the vectors' bytes
#   first       a new process's first answer (embed-query FILE WORD --ann -k 10, wall
#               time, median of 7) beside the exact search's
#   bench-ann   exact search queries/s (one at a time, batched), and for each efSearch of EF
#               recall@10 against the exact answers, queries/s one query at a time on one
#               thread and batched on THREADS
#   peers       the same figures for faiss and hnswlib (build, index bytes, load seconds),
#               then the targets: at recall >= 0.95, one-at-a-time queries/s >= 20x the
#               exact path's, batched >= the exact batched, index <= 25% of the vectors,
#               first answer <= 30 ms, queries/s within 1.5x of the best peer at matched
#               recall (the smallest ef reaching 0.95 for each).
#
# Needs a build (BUILD: glove-convert, embed-query, bench-ann) and Debian's /usr/bin/python3
# with numpy (PYTHON); the peers are skipped with a line when their package is missing.
# Environment: ROWS, DIM, QUERIES, THREADS (2), EF ("16,24,32,48,64,128"), M (16),
# EF_CONSTRUCTION (80), BENCH_DIR, KEEP=1.
# Smoke run: ROWS=20000 QUERIES=500 bash scripts/bench/ann.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=${ROWS:-1000000}
DIM=${DIM:-300}
QUERIES=${QUERIES:-10000}
THREADS=${THREADS:-2}
EF=${EF:-16,24,32,48,64,128}
M=${M:-16}
EF_CONSTRUCTION=${EF_CONSTRUCTION:-80}
PYTHON=${PYTHON:-/usr/bin/python3}

for tool in glove-convert embed-query bench-ann; do
  need_tool "$tool" "$BUILD/$tool" BUILD
done
need_numpy
need_gnu_time
bench_scratch

machine_block
echo "tool:    $(version_of "$BUILD/embed-query")"
echo "data:    $ROWS x $DIM, $QUERIES held-out queries (ann.py make: clusters in a 40-d latent space)"

echo "== preparing the vectors in $work"
"$PYTHON" "$here/ann.py" make "$work" "$ROWS" "$DIM" "$QUERIES"

echo "== build: glove-convert --index ann --ann-m $M --ann-ef-construction $EF_CONSTRUCTION --threads $THREADS"
timed "$work/build.time" "$BUILD/glove-convert" -q "$work/vectors.bin" --index ann --ann-m "$M" \
  --ann-ef-construction "$EF_CONSTRUCTION" --threads "$THREADS" -o "$work/v.emb"
read -r build_seconds build_kb < <(time_of "$work/build.time")
"$BUILD/glove-convert" -q "$work/vectors.bin" -o "$work/plain.emb"
index_line=$("$BUILD/glove-convert" "$work/v.emb" --info | grep '^index')
index_share=$(stats ann-index-share "$index_line")
echo "build:   ${build_seconds} s, peak $(mib "$build_kb") MiB; $index_line"
rm "$work/vectors.bin"

echo "== first answer from a cold process (median of 7, page cache warm)"
# ann.py names row i "w" + i zero-padded to the width of the last row's number.
width=$((ROWS - 1)); width=${#width}
word=$(printf "w%0${width}d" $((ROWS / 2)))
first() {
  local runs=() start end
  for _ in 1 2 3 4 5 6 7; do
    start=$(date +%s.%N)
    "$BUILD/embed-query" "$1" "$word" -k 10 --format tsv "${@:2}" > /dev/null || die "embed-query $1 $word failed"
    end=$(date +%s.%N)
    runs+=("$(stats elapsed "$start" "$end" 1 --unit ms)")
  done
  median "${runs[*]}"
}
cat "$work/v.emb" > /dev/null
first_ann=$(first "$work/v.emb" --ann)
first_exact=$(first "$work/plain.emb")
echo "first:   --ann ${first_ann} ms, exact ${first_exact} ms"

echo "== bench-ann (THREADS $THREADS)"
"$BUILD/bench-ann" "$work/v.emb" "$work/queries.f32" "$EF" "$THREADS" 10 "$work/truth.u64" | tee "$work/ours.jsonl"
echo "== peers"
"$PYTHON" "$here/ann.py" peers "$work" 10 "$THREADS" "$EF" | tee "$work/peers.jsonl"

echo "== summary"
stats ann-summary "$work/ours.jsonl" "$work/peers.jsonl" "$index_share" "$first_ann"
machine_line
