#!/usr/bin/env bash
# mpi.sh: embed-train data-parallel under mpirun against one process, in one run (issue 20).
#
# text8-head repeated REPEAT times (one copy per line: 43 copies are 50.4M words), skip-gram
# dim 100, window 5, negative 5, min-count 5, sample 1e-4, EPOCHS epoch(s), trained RUNS times
# in each of three shapes, interleaved run by run so that machine noise hits every shape alike:
#   1x1   one process, one thread
#   2x1   mpirun -np 2, one thread per rank
#   1x2   one process, two threads
# Every run is evaluated with embed-query eval (Google analogies restricted to the 30,000 most
# frequent words, WordSim-353 Spearman). Words/s = input words x epochs / whole-process wall
# seconds (counting included, mpirun's start-up too); "train words/s" is embed-train's own rate
# over its epochs (its --metrics file). Bytes/s per rank: what rank 0 handed to MPI_Allreduce
# (its -v line "... sent by this rank (N bytes)") over the training seconds; every rank sends
# as much. Targets (issue 20): 2x1 words/s >= 1.7x 1x1's, analogy within 0.5 points and
# WS-353 within 0.02 of 1x1's.
#
# Needs ../shared/data (skipped with a message when absent), a build with MPI (embed-train
# --version says "MPI: Open MPI ..."), mpirun (Debian: openmpi-bin), GNU time, /usr/bin/python3.
# Environment:
#   MODEL  skipgram (default), or glove: dim 100, window 10, x-max 100, min-count 5, AdaGrad
#          (REPEAT 1 and EPOCHS 15 by default: repeating a corpus only raises GloVe's counts);
#          its "train" rate is in co-occurrence records/s
#   REPEAT 43, EPOCHS 1 (skipgram), RUNS 2 (seeds 1..RUNS, the same seed for every shape within a run)
#   SHAPES "1x1 2x1 1x2" (default), any subset
#   SYNC_INTERVAL 0.1, SYNC_ROWS 1024: embed-train's --sync-interval and --sync-rows
#   MPIRUN_ARGS   extra mpirun options (default none; as root, OMPI_ALLOW_RUN_AS_ROOT is set)
#   BUILD, SHARED, BENCH_DIR, KEEP: as in lib.sh
# Smoke run: REPEAT=2 RUNS=1 bash scripts/bench/mpi.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL=${MODEL:-skipgram}
case $MODEL in
  skipgram) REPEAT=${REPEAT:-43} EPOCHS=${EPOCHS:-1} ;;
  glove) REPEAT=${REPEAT:-1} EPOCHS=${EPOCHS:-15} ;;
  *) die "unknown MODEL '$MODEL' (skipgram, glove)" ;;
esac
RUNS=${RUNS:-2}
SHAPES=${SHAPES:-1x1 2x1 1x2}
SYNC_INTERVAL=${SYNC_INTERVAL:-0.1}
SYNC_ROWS=${SYNC_ROWS:-1024}
MPIRUN_ARGS=${MPIRUN_ARGS:-}
EMBED_TRAIN=$BUILD/embed-train
EMBED_QUERY=$BUILD/embed-query
PYTHON=${PYTHON:-/usr/bin/python3}
THREADS=2  # for embed-query eval

need_data "$data/text8-head.txt" "$analogies" "$wordsim"
need_tool embed-train "$EMBED_TRAIN"
need_tool embed-query "$EMBED_QUERY"
need_gnu_time
need_python
need_metrics "$EMBED_TRAIN"
for s in $SHAPES; do has "1x1 2x1 1x2" "$s" || die "unknown shape '$s' in SHAPES (1x1, 2x1, 1x2)"; done
if has "$SHAPES" 2x1; then
  command -v mpirun >/dev/null || skip "no mpirun (Debian: openmpi-bin)"
  "$EMBED_TRAIN" --version | grep -q '^MPI: Open MPI' || skip "$EMBED_TRAIN was built without MPI"
fi
# OpenMPI refuses root unless told (containers, CI machines).
[[ $(id -u) -ne 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bench_scratch
corpus=$work/text8-head-x$REPEAT.txt
for ((i = 0; i < REPEAT; i++)); do
  cat "$data/text8-head.txt"
  [[ -z $(tail -c 1 "$data/text8-head.txt") ]] || echo
done >"$corpus"
words=$(wc -w <"$corpus")

echo "== $bench_name"
machine_line
echo "embed:    $EMBED_TRAIN ($(version_of "$EMBED_TRAIN")); $("$EMBED_TRAIN" --version | grep '^MPI')"
echo "mpirun:   $(mpirun --version 2>/dev/null | head -1)"
echo "corpus:   text8-head x $REPEAT ($words words)"
if [[ $MODEL == glove ]]; then
  echo "settings: glove dim 100, window 10, x-max 100, min-count 5, $EPOCHS epoch(s) (adagrad, lr 0.05);" \
    "--sync-interval $SYNC_INTERVAL --sync-rows $SYNC_ROWS"
else
  echo "settings: skipgram dim 100, window 5, negative 5, min-count 5, sample 1e-4, $EPOCHS epoch(s);" \
    "--sync-interval $SYNC_INTERVAL --sync-rows $SYNC_ROWS"
fi
cat "$corpus" >/dev/null  # warm the page cache

# train SHAPE SEED PREFIX: trains under GNU time; sets run_secs, train_rate (embed-train's
# epochs' words/s) and sent_bytes (rank 0's, 0 for one process).
train() {
  local shape=$1 seed=$2 prefix=$3 cmd=()
  local common=(--corpus "$corpus" --output "$prefix.emb" --dim 100 --min-count 5 --epochs "$EPOCHS" --seed "$seed"
    --metrics "$prefix.metrics" -v)
  if [[ $MODEL == glove ]]; then
    common+=(--model glove --window 10 --x-max 100)
  else
    common+=(--model skipgram --window 5 --negative 5 --sample 1e-4)
  fi
  # shellcheck disable=SC2206  # MPIRUN_ARGS: words, as on a command line
  case $shape in
    1x1) cmd=("$EMBED_TRAIN" "${common[@]}" --threads 1) ;;
    1x2) cmd=("$EMBED_TRAIN" "${common[@]}" --threads 2) ;;
    2x1) cmd=(mpirun -np 2 $MPIRUN_ARGS "$EMBED_TRAIN" "${common[@]}" --threads 1
      --sync-interval "$SYNC_INTERVAL" --sync-rows "$SYNC_ROWS") ;;
  esac
  if ! timed "$prefix.time" "${cmd[@]}" >"$prefix.log" 2>&1; then
    tail -20 "$prefix.log" >&2
    die "$shape failed: ${cmd[*]}"
  fi
  read -r run_secs _ < <(time_of "$prefix.time")
  local figures
  figures=$(epoch_figures "$prefix.metrics") || die "no epochs in $prefix.metrics"
  eval "$figures"
  # shellcheck disable=SC2154 # rate, unit, train_s: set by epoch_figures
  train_rate=$rate train_unit=$unit train_secs=$train_s
  sent_bytes=$(stats mpi-sent-bytes "$prefix.log")  # 0 for one process
}

declare -A r_secs r_rate r_acc r_ws r_bps
echo
echo "== runs (seed = run)"
for ((run = 1; run <= RUNS; run++)); do
  for shape in $SHAPES; do
    prefix=$work/$shape-$run
    train "$shape" "$run" "$prefix"
    vals=$(evaluate "$prefix.emb" "$prefix.json") || exit 1
    read -r acc _ _ _ ws _ <<<"$vals"
    bps=$(stats rate "$sent_bytes" "$train_secs")
    r_secs[$shape]+="$run_secs "
    r_rate[$shape]+="$train_rate "
    r_acc[$shape]+="$acc "
    r_ws[$shape]+="$ws "
    r_bps[$shape]+="$bps "
    printf '  %-4s run %-2s %7.2f s  %sk words/s (train %sk '"$train_unit"'/s)  analogy %5.2f%%  ws353 %.3f  sent %s MB/s per rank\n' \
      "$shape" "$run" "$run_secs" "$(stats rate $((words * EPOCHS)) "$run_secs" --divide-by 1000 --format 6.0f)" \
      "$(stats scaled "$train_rate" --divide-by 1000 --format 6.0f)" "$acc" "$ws" \
      "$(stats scaled "$bps" --divide-by 1e6 --format .1f)"
    rm -f "$prefix.emb"
  done
done

echo
echo "== results: medians over $RUNS run(s); quality: mean ± half the range; analogy restricted to $RESTRICT words"
printf '%-5s %8s %10s %12s %9s %14s %14s %15s\n' shape wall_s words/s "train_$train_unit/s" speedup analogy_% ws353 \
  sent_MB/s/rank
declare -A rate_of
for shape in $SHAPES; do
  s=$(median "${r_secs[$shape]}")
  rate_of[$shape]=$(stats rate $((words * EPOCHS)) "$s")
done
for shape in $SHAPES; do
  speedup=-
  [[ -z ${rate_of[1x1]:-} ]] || speedup=$(ratio "${rate_of[$shape]}" "${rate_of[1x1]}")x
  printf '%-5s %8.2f %9sk %11sk %9s %14s %14s %15s\n' "$shape" "$(median "${r_secs[$shape]}")" \
    "$(stats scaled "${rate_of[$shape]}" --divide-by 1000)" \
    "$(stats scaled "$(median "${r_rate[$shape]}")" --divide-by 1000)" "$speedup" \
    "$(mean_spread "${r_acc[$shape]}" 2)" "$(mean_spread "${r_ws[$shape]}" 3)" \
    "$(stats scaled "$(median "${r_bps[$shape]}")" --divide-by 1e6 --format .1f)"
done
if has "$SHAPES" 1x1 && has "$SHAPES" 2x1; then
  speed=$(ratio "${rate_of[2x1]}" "${rate_of[1x1]}")
  d_acc=$(stats diff -- "$(mean "${r_acc[2x1]}")" "$(mean "${r_acc[1x1]}")" 2)
  d_ws=$(stats diff -- "$(mean "${r_ws[2x1]}")" "$(mean "${r_ws[1x1]}")" 3)
  echo
  echo "targets (2x1 against 1x1):"
  echo "  words/s >= 1.7x:          ${speed}x  $(verdict "$speed >= 1.7")"
  echo "  analogy within 0.5 point: ${d_acc}  $(verdict "-0.5 <= $d_acc <= 0.5")"
  echo "  WS-353 within 0.02:       ${d_ws}  $(verdict "-0.02 <= $d_ws <= 0.02")"
fi
echo
machine_line
