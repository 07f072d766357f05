#!/usr/bin/env bash
# glove_small_vocab.sh: GloVe (AdaGrad per element, our default and Stanford's) on a
# vocabulary of 100 words in two topics, where concurrent updates meet on the same rows
# most often: CPU on 1 and on THREADS_LIST threads, and the GPU in each placement,
# judged by the share of each word's 10 nearest neighbours in its own planted cluster
# (bench-cluster-quality; chance is about CLUSTER / VOCAB).
#
# Why: on an H200 machine (2026-11-26) the GPU test "GloVe on the GPU trains to the CPU's
# cost and separation" found no topic separation at all (0.000) for AdaGrad per element on
# its 100-word corpus, on the GPU and on the CPU with 4 threads on 16 cores alike, where
# 2 cores separate the same topics (0.62); AdaGrad per row and SGD separate them
# everywhere. Since issue 23 a bias steps at AdaGrad's rate 1 (glove.c's rule), not
# scaled by the learning rate. This shows whether the loss of separation follows the
# number of updates in flight at once.
#
# Environment: BUILD, VOCAB (100), CLUSTER (50: two topics, as the test's), WORDS (2000000),
# NOISE (0.01: the share of words drawn from the whole vocabulary), DIM (32), EPOCHS (10),
# THREADS_LIST ("1 4 16"), SEEDS ("1 2"), PYTHON (/usr/bin/python3: benchstats.py), BENCH_DIR,
# KEEP=1. Needs a CUDA build for the GPU rows (skipped without a usable GPU).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VOCAB=${VOCAB:-100}
CLUSTER=${CLUSTER:-50}
WORDS=${WORDS:-2000000}
NOISE=${NOISE:-0.01}
DIM=${DIM:-32}
EPOCHS=${EPOCHS:-10}
THREADS_LIST=${THREADS_LIST:-1 4 16}
SEEDS=${SEEDS:-1 2}
EMBED_TRAIN=$BUILD/embed-train
GENERATE=$BUILD/bench-gen-clusters
QUALITY=$BUILD/bench-cluster-quality
PYTHON=${PYTHON:-/usr/bin/python3}
need_tool embed-train "$EMBED_TRAIN" BUILD
need_tool bench-gen-clusters "$GENERATE" BUILD
need_tool bench-cluster-quality "$QUALITY" BUILD
need_python
version=$("$EMBED_TRAIN" --version) || true
gpu=0
[[ $version =~ "CUDA backend built, "[0-9] ]] && gpu=1
bench_scratch
machine_line
"$GENERATE" --vocab "$VOCAB" --cluster-size "$CLUSTER" --words "$WORDS" --noise "$NOISE" --out "$work/corpus.txt" 2>/dev/null
echo "== glove, adagrad per element, dim $DIM, window 10, $EPOCHS epochs: $WORDS words, $VOCAB ids in clusters of" \
  "$CLUSTER (chance about $(stats cluster-chance "$CLUSTER" "$VOCAB"))"
printf '%-24s %6s %9s %10s\n' run seed share10 cost
one() {  # one NAME SEED ARGS...
  # shellcheck disable=SC2034 # thirds: set by the eval beside share, not shown here
  local name=$1 seed=$2 share thirds cost quality
  shift 2
  "$EMBED_TRAIN" --corpus "$work/corpus.txt" --model glove --dim "$DIM" --window 10 --epochs "$EPOCHS" --min-count 1 \
    --seed "$seed" "$@" -o "$work/g.emb" 2>"$work/g.log" || { echo "$name: failed: $(tail -1 "$work/g.log")"; return; }
  cost=$(stats glove-last-cost "$work/g.log") || { echo "$name: no cost in its log"; return; }
  quality=$("$QUALITY" "$work/g.emb" --cluster-size "$CLUSTER" --sample "$VOCAB") ||
    { echo "$name: bench-cluster-quality failed"; return; }
  eval "$(stats cluster-quality - <<<"$quality")"  # share, thirds
  printf '%-24s %6s %9s %10s\n' "$name" "$seed" "$share" "$cost"
}
for seed in $SEEDS; do
  for t in $THREADS_LIST; do one "cpu, $t threads" "$seed" --device cpu --threads "$t"; done
  if ((gpu)); then
    for table in device host; do one "cuda, --table $table" "$seed" --device cuda --table "$table" --threads 4; done
    one "cuda, --adagrad row" "$seed" --device cuda --adagrad row --threads 4
  fi
done
((gpu)) || echo "gpu rows: skipped: no usable GPU ($(grep "^gpus:" <<<"$version"))"
machine_line
