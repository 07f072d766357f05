#!/usr/bin/env bash
# roofline.sh: the CPU trainers against this machine's ceilings, per instruction-set level
# (issue 67). First bench-roofline measures the ceilings at each DIM (its arithmetic peak with
# and without FMA, skip-gram's own inner loop on rows in L1, streams, random rows of a table);
# then embed-train trains each MODEL at each DIM on each level of CPU_PATHS (EMBED_CPU_ISA),
# on 1 thread and on THREADS, one epoch of CORPUS, and its --metrics give words/s and the
# examples it trained. The table puts per corpus word the flops and the rows' bytes (the
# formulas: benchstats.py's cpu_roofline) beside the GFLOP/s and GB/s reached and their
# share of the ceilings: % peak (the FMA peak, the baseline's mul+add), % loop (skip-gram's
# loop in L1: what no cache miss would leave), % rows (random rows of a text8-head-sized table).
#
# Needs ../shared/data/text8-head.txt beside the repo (skipped with a message when absent),
# a build with build/bench-roofline and build/embed-train (cmake --build build).
#
# Environment:
#   CPU_PATHS  levels to measure (default: every level this CPU has: avx512 avx2 baseline)
#   DIMS       "100 300" (default)
#   MODELS     "skipgram cbow" (default; CBOW's figures need skip-gram's at the same dim and path)
#   THREADS    2 (default): the all-threads column; 1 thread is measured too
#   CORPUS     default $SHARED/data/text8-head.txt
#   BUILD      build (default)
# Example: CPU_PATHS="avx2" DIMS=100 bash scripts/bench/roofline.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DIMS=${DIMS:-100 300}
MODELS=${MODELS:-skipgram cbow}
THREADS=${THREADS:-2}
CORPUS=${CORPUS:-$data/text8-head.txt}
[[ -f $CORPUS ]] || skip "no $CORPUS (the shared data beside the repo; set SHARED=... or CORPUS=...)"
EMBED_TRAIN=${EMBED_TRAIN:-$BUILD/embed-train}
PROBE=$BUILD/bench-roofline
need_tool embed-train "$EMBED_TRAIN" EMBED_TRAIN
[[ -x $PROBE ]] || die "no $PROBE: cmake --build $BUILD --target bench-roofline"
need_metrics "$EMBED_TRAIN"
if [[ -z ${CPU_PATHS:-} ]]; then
  CPU_PATHS=""
  for path in avx512 avx2 baseline; do
    [[ $(EMBED_CPU_ISA=$path cpu_path) == "$path"* ]] && CPU_PATHS+="$path "
  done
fi

bench_scratch
echo "== $bench_name"
machine_line
echo "embed-train: $EMBED_TRAIN ($(version_of "$EMBED_TRAIN")); levels: $CPU_PATHS; corpus $CORPUS"
cat "$CORPUS" >/dev/null

probes=()
for dim in $DIMS; do
  echo
  echo "== ceilings, dim $dim: $PROBE --threads $THREADS --dim $dim"
  "$PROBE" --threads "$THREADS" --dim "$dim" | tee "$work/probe-dim$dim.txt"
  probes+=("$work/probe-dim$dim.txt")
done

echo
echo "== training: 1 epoch, window 5, negative 5, sample 1e-4, seed 1 (words/s: embed-train's epoch rate)"
: >"$work/runs.txt"
for dim in $DIMS; do
  for model in $MODELS; do
    for path in $CPU_PATHS; do
      for threads in $(printf '%s\n' 1 "$THREADS" | sort -un); do
        metrics=$work/$model-$dim-$path-$threads.jsonl
        EMBED_CPU_ISA=$path "$EMBED_TRAIN" --corpus "$CORPUS" -o "$work/out.emb" --model "$model" --dim "$dim" --epochs 1 \
          --threads "$threads" --seed 1 --metrics "$metrics" -q || die "embed-train failed: $model dim $dim on $path"
        line=$(grep '"event":"epoch"' "$metrics" | tail -1)
        read -r words rate examples < <(sed -n \
          's/.*"done":\([0-9]*\),"per_second":\([0-9.e+]*\),.*"examples":\([0-9]*\).*/\1 \2 \3/p' <<<"$line")
        echo "$model $dim $path $threads $words $rate $examples" | tee -a "$work/runs.txt"
      done
    done
  done
done

echo
echo "== per corpus word, and the share of the ceilings (kflop, KB: per word; % peak: of the FMA"
echo "   peak, the baseline's mul+add; % loop: skip-gram's loop on rows in L1; % rows: random rows)"
stats cpu-roofline "$work/runs.txt" "${probes[@]}"
echo
machine_line
