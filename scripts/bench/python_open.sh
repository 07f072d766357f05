#!/usr/bin/env bash
# python_open.sh: the Python package (python/embed) against gensim: from a fresh process to
# the first vector, and peak RSS, on synthetic vectors of the shape of glove.6B.300d (400,000
# x 300) and of a big vocabulary (2,000,000 x 300), then a 10,000-word subset of the big one
# (python_open.py says what each case runs). gensim's load_word2vec_format runs for the
# first size only (minutes for the second).
#
# Needs a build (BUILD, default build/: glove-convert) and Debian's python3 with numpy and
# gensim (python3-gensim); skipped with a message without them.
# Environment: SIZES ("400000 2000000"), DIM (300), RUNS (3), BENCH_DIR (scratch parent,
# default /tmp), KEEP=1 keeps the files.
# Smoke run: SIZES=20000 RUNS=1 bash scripts/bench/python_open.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SIZES=${SIZES:-400000 2000000}
DIM=${DIM:-300}
RUNS=${RUNS:-3}
KEEP=${KEEP:-0}
need_tool glove-convert "$BUILD/glove-convert" BUILD
if ! /usr/bin/python3 -c 'import numpy, gensim' 2> /dev/null; then
  echo "skipped: /usr/bin/python3 lacks numpy or gensim (python3-numpy, python3-gensim)"
  exit 0
fi
bench_scratch
machine_block
repo=$(cd "$here/../.." && pwd)
first=1
for rows in $SIZES; do
  echo
  echo "== $rows x $DIM float32 vectors"
  /usr/bin/python3 "$here/make_vectors_bin.py" "$rows" "$DIM" > "$work/v.bin"
  "$BUILD/glove-convert" -q "$work/v.bin" --from w2v-bin -o "$work/v.emb"
  /usr/bin/python3 -c "from gensim.models import KeyedVectors; import sys; \
KeyedVectors.load_word2vec_format(sys.argv[1], binary=True).save(sys.argv[2])" "$work/v.bin" "$work/v.kv"
  sync
  cat "$work"/v.* > /dev/null  # the page cache warm for every reader alike
  /usr/bin/python3 "$here/python_open.py" "$repo/python" "$work/v.emb" "$work/v.kv" "$work/v.bin" "$rows" "$RUNS" "$first"
  first=0
  rm -f "$work"/v.*
done
