#!/usr/bin/env bash
# compare.sh: one build's tools beside another's (before and after a change), in one run,
# for the hot paths: embed-train's words/s (skip-gram and CBOW) and records/s (GloVe) on
# the CPU, and embed-query's queries/s on the CPU. Runs alternate old/new, so machine noise
# hits both alike; medians are reported with the ratio new/old.
#
# Every figure is a whole-process wall time under GNU time, so a build without --metrics
# can be compared: training words/s = the words an epoch trains on (after min-count, as the
# epoch lines say) x epochs / seconds, reading the corpus included; GloVe's records/s counts
# its whole run, counting co-occurrences included. Queries/s = query
# lines / seconds of `embed-query VECTORS --device cpu -k 10 < QUERIES`, with both builds
# answering from the same vectors; their answers must be identical (checked).
# With --threads 1 both builds must also write identical vectors (checked on the first run
# of each model), which says that the change kept training's arithmetic.
#
# Needs ../shared/data/text8-head.txt (skipped with a message when absent), GNU time, and
# the two builds' embed-train and embed-query.
#
# Environment:
#   OLD      the build (or folder of binaries) to compare against (required)
#   BUILD    the new build (default build)
#   MODELS   "skipgram cbow glove" (default)
#   EPOCHS   3 (default; GloVe: 3 x this, its epochs being cheaper)
#   THREADS  2 (default)
#   RUNS     5 (default): runs per build and model
#   QUERIES  40000 (default): query lines (the corpus's frequent words, repeated)
#   PYTHON   /usr/bin/python3 (default): runs benchstats.py, the statistics
#   BENCH_DIR, KEEP  as the other benchmarks
# Example: OLD=/tmp/old-build bash scripts/bench/compare.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -n ${OLD:-} ]] || die "set OLD to the build to compare against (OLD=/path/to/build)"
[[ $OLD == /* ]] || OLD=$repo/$OLD
MODELS=${MODELS:-skipgram cbow glove}
EPOCHS=${EPOCHS:-3}
THREADS=${THREADS:-2}
RUNS=${RUNS:-5}
QUERIES=${QUERIES:-40000}
PYTHON=${PYTHON:-/usr/bin/python3}
corpus=$data/text8-head.txt

need_data "$corpus"
need_gnu_time
need_python
for build in "$OLD" "$BUILD"; do
  need_tool embed-train "$build/embed-train" OLD/BUILD
  need_tool embed-query "$build/embed-query" OLD/BUILD
done
bench_scratch
cd "$work"

echo "old: $OLD ($(version_of "$OLD/embed-train"))"
echo "new: $BUILD ($(version_of "$BUILD/embed-train"))"
machine_line

epochs_of() { if [[ $1 == glove ]]; then echo $((3 * EPOCHS)); else echo "$EPOCHS"; fi; }
# The starting rate, given: skip-gram's and CBOW's default follows the run's size since issue
# 68, so builds from before and after it would otherwise train at different rates.
lr_of() { case $1 in skipgram) echo 0.025 ;; *) echo 0.05 ;; esac; }

# train MODEL WHICH BUILD RUN: one timed training run; prints its seconds.
train() {
  local model=$1 which=$2 build=$3 run=$4
  timed "$model-$which.time" "$build/embed-train" --corpus "$corpus" -o "$model-$which-$run.emb" --model "$model" \
    --epochs "$(epochs_of "$model")" --lr "$(lr_of "$model")" --threads "$THREADS" 2> "$model-$which.log" ||
    die "$which embed-train --model $model failed: $(tail -1 "$model-$which.log")"
  read -r seconds _ < <(time_of "$model-$which.time")
  echo "$seconds"
}

printf '\n%-9s %14s %14s %9s   (per second, median of %s runs, %s threads)\n' model old new new/old "$RUNS" "$THREADS"
for model in $MODELS; do
  # Identical arithmetic: one thread, one epoch, both builds, the same file.
  for which in old new; do
    build=$OLD; [[ $which == new ]] && build=$BUILD
    "$build/embed-train" --corpus "$corpus" -o "$model-$which-1t.emb" --model "$model" --epochs 1 \
      --lr "$(lr_of "$model")" --threads 1 -q ||
      die "$which embed-train --model $model --threads 1 failed"
  done
  cmp -s "$model-old-1t.emb" "$model-new-1t.emb" || echo "$bench_name: $model: the builds' vectors differ (one thread)"
  old_s="" new_s=""
  for run in $(seq "$RUNS"); do
    old_s+=" $(train "$model" old "$OLD" "$run")"
    new_s+=" $(train "$model" new "$BUILD" "$run")"
    rm -f "$model"-*-"$run".emb
  done
  unit=words
  [[ $model == glove ]] && unit=records
  # Items per epoch, from the first epoch line ("1104259 words in 0.7 s"), which both builds print.
  items=$(stats epoch-items "$model-new.log") || die "$model: no epoch line in $work/$model-new.log"
  total=$((items * $(epochs_of "$model")))
  old_rate=$(stats rate "$total" "$(median "$old_s")")
  new_rate=$(stats rate "$total" "$(median "$new_s")")
  printf '%-9s %14s %14s %9s   %s/s; seconds old:%s  new:%s\n' "$model" "$old_rate" "$new_rate" \
    "$(ratio "$new_rate" "$old_rate")" "$unit" "$old_s" "$new_s"
done

# Queries: the corpus's most frequent words (longer than 3 letters), repeated to QUERIES
# lines, answered by both builds from the same vectors.
vectors=${MODELS%% *}-new-1t.emb
tr ' ' '\n' < "$corpus" | awk 'length($0) > 3' | sort | uniq -c | sort -rn | awk 'NR <= 4000 {print $2}' > words.txt
awk -v n="$QUERIES" '{w[NR] = $0} END {for (i = 0; i < n; ++i) print w[i % NR + 1]}' words.txt > queries.txt
old_q="" new_q=""
for run in $(seq "$RUNS"); do
  for which in old new; do
    build=$OLD; [[ $which == new ]] && build=$BUILD
    timed query.time "$build/embed-query" "$vectors" --device cpu -k 10 < queries.txt > "answers-$which.txt" ||
      die "$which embed-query failed"
    read -r seconds _ < <(time_of query.time)
    rate=$(stats rate "$QUERIES" "$seconds")
    if [[ $which == old ]]; then old_q+=" $rate"; else new_q+=" $rate"; fi
  done
done
cmp -s answers-old.txt answers-new.txt || echo "$bench_name: the builds' answers differ"
printf '%-9s %14s %14s %9s   queries/s (%s lines, -k 10, --device cpu); old:%s  new:%s\n' query "$(median "$old_q")" \
  "$(median "$new_q")" "$(ratio "$(median "$new_q")" "$(median "$old_q")")" "$QUERIES" "$old_q" "$new_q"
machine_line
