#!/usr/bin/env bash
# shards.sh: embed-train --shard-tables (issue 70) against one process and the data-parallel
# mode, in one run.
#
# Part "quality" (text8-head repeated REPEAT times, skip-gram dim 100, window 5, negative 5,
# min-count 5, sample 1e-4, EPOCHS epoch(s), seeds 1..RUNS, the shapes interleaved run by
# run):
#   1x1    one process, one thread
#   dp2    mpirun -np 2, data-parallel (the default mode), one thread a rank
#   sh2    mpirun -np 2 --shard-tables, one thread a rank
#   sh3    mpirun -np 3 --shard-tables, one thread a rank (3 ranks on the machine's cores)
# Each run is evaluated (analogies restricted to the 30,000 most frequent words, WS-353).
# Words/s = corpus words x epochs / wall seconds. For the sharded shapes, rank 0's traffic
# (its -v line: bytes of rows fetched, and of the hot rows' sums, per corpus word) is printed
# beside what shard_model.py predicts for the same corpus, ranks and round size.
#
# Part "memory": a bench-gen-clusters corpus of ROWS distinct words (uniform, so every row is
# as cold as the next: the rounds dedupe nothing), skip-gram dim MEM_DIM, one epoch, min-count 1,
# --shard-tables on 1, 2 and 3 ranks; each rank's peak RSS (GNU time) against the one-process
# table bytes (2 tables x rows x padded row). Targets (issue 70): a rank at most 1/N of them
# plus 25%, and 3 ranks each at most 40%.
#
# Needs ../shared/data for "quality" (skipped with a message when absent), a build with MPI,
# mpirun (Debian: openmpi-bin), GNU time, /usr/bin/python3 with numpy.
# Environment: PARTS "quality memory clusters" (default all three), REPEAT 8, EPOCHS 1, RUNS 2,
#   SHAPES "1x1 dp2 sh2 sh3", ROWS 2100000, MEM_WORDS 16000000, MEM_DIM 300, MEM_RANKS "1 2 3",
#   CL_ROWS 200000, CL_WORDS 10000000, SYNC_ROWS 1024 (--sync-rows: the hot rows),
#   BUILD, SHARED, BENCH_DIR, KEEP: as in lib.sh
# Smoke run: REPEAT=1 RUNS=1 ROWS=200000 MEM_WORDS=2000000 bash scripts/bench/shards.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PARTS=${PARTS:-quality memory clusters}
REPEAT=${REPEAT:-8}
EPOCHS=${EPOCHS:-1}
RUNS=${RUNS:-2}
SHAPES=${SHAPES:-1x1 dp2 sh2 sh3}
ROWS=${ROWS:-2100000}
MEM_WORDS=${MEM_WORDS:-16000000}
MEM_DIM=${MEM_DIM:-300}
MEM_RANKS=${MEM_RANKS:-1 2 3}
CL_ROWS=${CL_ROWS:-200000}
CL_WORDS=${CL_WORDS:-10000000}
SYNC_ROWS=${SYNC_ROWS:-1024}
EMBED_TRAIN=$BUILD/embed-train
EMBED_QUERY=$BUILD/embed-query
GEN_CLUSTERS=$BUILD/bench-gen-clusters
PYTHON=${PYTHON:-/usr/bin/python3}
THREADS=2  # for embed-query eval

need_tool embed-train "$EMBED_TRAIN"
need_gnu_time
need_numpy
command -v mpirun >/dev/null || skip "no mpirun (Debian: openmpi-bin)"
"$EMBED_TRAIN" --version | grep -q '^MPI: Open MPI' || skip "$EMBED_TRAIN was built without MPI"
[[ $(id -u) -ne 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI's own choice of transport: shared memory (vader) between the ranks of one machine,
# as a user's run would have (the tests pin TCP over loopback, which is 5-10x slower here).
MPIRUN=(mpirun --oversubscribe -np)
bench_scratch

echo "== $bench_name"
machine_line
echo "embed:    $EMBED_TRAIN ($(version_of "$EMBED_TRAIN")); $("$EMBED_TRAIN" --version | grep '^MPI')"

# The -v summary of a sharded run's rank 0: "rows hot words rounds", bytes a corpus word.
traffic_of() {
  sed -n 's/.* \([0-9]*\) rounds, .*this rank trained (\([0-9]*\)): \([0-9]*\) bytes of rows fetched.*, \([0-9]*\) of the hot rows.*/\3 \4 \2 \1/p' "$1" | head -1
}

quality_part() {
  need_data "$data/text8-head.txt" "$analogies" "$wordsim"
  need_tool embed-query "$EMBED_QUERY"
  local corpus=$work/text8-head-x$REPEAT.txt words
  for ((i = 0; i < REPEAT; i++)); do
    cat "$data/text8-head.txt"
    [[ -z $(tail -c 1 "$data/text8-head.txt") ]] || echo
  done >"$corpus"
  words=$(wc -w <"$corpus")
  echo
  echo "== quality and speed: text8-head x $REPEAT ($words words), skip-gram dim 100, window 5, negative 5," \
    "min-count 5, sample 1e-4, $EPOCHS epoch(s), one thread a rank, --sync-rows $SYNC_ROWS"
  declare -A r_secs r_acc r_ws r_rows r_hot r_round
  local shape run prefix cmd common vals acc ws
  for ((run = 1; run <= RUNS; run++)); do
    for shape in $SHAPES; do
      prefix=$work/$shape-$run
      common=(--corpus "$corpus" --output "$prefix.emb" --dim 100 --min-count 5 --epochs "$EPOCHS" --seed "$run"
        --window 5 --negative 5 --sample 1e-4 --threads 1 -v)
      case $shape in
        1x1) cmd=("$EMBED_TRAIN" "${common[@]}") ;;
        dp2) cmd=("${MPIRUN[@]}" 2 "$EMBED_TRAIN" "${common[@]}" --sync-rows "$SYNC_ROWS") ;;
        sh2) cmd=("${MPIRUN[@]}" 2 "$EMBED_TRAIN" "${common[@]}" --shard-tables --sync-rows "$SYNC_ROWS") ;;
        sh3) cmd=("${MPIRUN[@]}" 3 "$EMBED_TRAIN" "${common[@]}" --shard-tables --sync-rows "$SYNC_ROWS") ;;
        *) die "unknown shape '$shape' (1x1 dp2 sh2 sh3)" ;;
      esac
      timed "$prefix.time" "${cmd[@]}" >"$prefix.log" 2>&1 || { tail -20 "$prefix.log" >&2; die "$shape failed"; }
      read -r secs _ < <(time_of "$prefix.time")
      vals=$(evaluate "$prefix.emb" "$prefix.json") || exit 1
      read -r acc _ _ _ ws _ <<<"$vals"
      r_secs[$shape]+="$secs " r_acc[$shape]+="$acc " r_ws[$shape]+="$ws "
      local traffic=""
      if [[ $shape == sh* ]]; then
        read -r rows hot trained rounds <<<"$(traffic_of "$prefix.log")"
        r_rows[$shape]+="$rows " r_hot[$shape]+="$hot " r_round[$shape]+="$((trained / rounds)) "
        traffic="  rows $rows B/word, hot $hot B/word, $((trained / rounds)) words a round"
      fi
      printf '  %-4s run %-2s %7.2f s  %6sk words/s  analogy %5.2f%%  ws353 %.3f%s\n' "$shape" "$run" "$secs" \
        "$(stats rate $((words * EPOCHS)) "$secs" --divide-by 1000 --format 6.0f)" "$acc" "$ws" "$traffic"
      rm -f "$prefix.emb"
    done
  done
  echo
  echo "== results: medians over $RUNS run(s); quality: mean ± half the range"
  printf '%-5s %8s %10s %9s %14s %14s\n' shape wall_s words/s x1x1 analogy_% ws353
  declare -A rate_of
  for shape in $SHAPES; do rate_of[$shape]=$(stats rate $((words * EPOCHS)) "$(median "${r_secs[$shape]}")"); done
  for shape in $SHAPES; do
    local x=-
    [[ -z ${rate_of[1x1]:-} ]] || x=$(ratio "${rate_of[$shape]}" "${rate_of[1x1]}")x
    printf '%-5s %8.2f %9sk %9s %14s %14s\n' "$shape" "$(median "${r_secs[$shape]}")" \
      "$(stats scaled "${rate_of[$shape]}" --divide-by 1000)" "$x" "$(mean_spread "${r_acc[$shape]}" 2)" \
      "$(mean_spread "${r_ws[$shape]}" 3)"
  done
  if has "$SHAPES" dp2 && has "$SHAPES" sh2; then
    local speed
    speed=$(ratio "${rate_of[sh2]}" "${rate_of[dp2]}")
    echo "target: sh2 words/s >= 0.7x dp2's: ${speed}x  $(verdict "$speed >= 0.7")"
  fi
  echo
  echo "== traffic per corpus word, rank 0 (each way), against shard_model.py"
  local n measured model_rows round
  for shape in sh2 sh3; do
    has "$SHAPES" "$shape" || continue
    n=${shape#sh}
    round=$(median "${r_round[$shape]}")
    measured=$(median "${r_rows[$shape]}")
    model_rows=$("$PYTHON" "$here/shard_model.py" --corpus "$corpus" --ranks "$n" --cache "$SYNC_ROWS" \
      --round-words "$round" --dim 112 --vector-dim 100 | awk -v n="$n" '$1 == n {gsub(",", "", $2); print $2}' | tail -1)
    printf '  %s: rows fetched %s B/word measured, %s modelled (%s words a round): %sx; hot rows %s B/word\n' \
      "$shape" "$measured" "$model_rows" "$round" "$(ratio "$model_rows" "$measured")" "$(median "${r_hot[$shape]}")"
  done
}

memory_part() {
  need_tool bench-gen-clusters "$GEN_CLUSTERS"
  local corpus=$work/clusters-$ROWS.txt n
  "$GEN_CLUSTERS" --vocab "$ROWS" --cluster-size 20 --words "$MEM_WORDS" --zipf 0 --out "$corpus" --seed 1
  echo
  echo "== memory: bench-gen-clusters, $ROWS ids uniform, $MEM_WORDS words, skip-gram dim $MEM_DIM, 1 epoch," \
    "min-count 1, --shard-tables, one thread a rank"
  local padded=$(((MEM_DIM + 15) / 16 * 16)) vocab table_mb
  for n in $MEM_RANKS; do
    local prefix=$work/mem-$n
    # shellcheck disable=SC2016  # expanded by the rank's shell, where OMPI_COMM_WORLD_RANK is set
    "${MPIRUN[@]}" "$n" bash -c '"$0" -f %M -o "$1.rss.$OMPI_COMM_WORLD_RANK" "${@:2}"' "$TIME" "$prefix" \
      "$EMBED_TRAIN" --corpus "$corpus" -o "$prefix.emb" --dim "$MEM_DIM" --epochs 1 --min-count 1 --threads 1 \
      --shard-tables -v >"$prefix.log" 2>&1 || { tail -20 "$prefix.log" >&2; die "$n ranks failed"; }
    vocab=$(sed -n 's/.*; vocabulary \([0-9]*\) words.*/\1/p' "$prefix.log" | head -1)
    [[ -n $vocab ]] || die "no vocabulary line in $prefix.log"
    table_mb=$(stats scaled $((2 * vocab * padded * 4)) --divide-by 1048576 --format .0f)
    local rss=() r
    for ((r = 0; r < n; r++)); do rss+=("$(($(tail -1 "$prefix.rss.$r") / 1024))"); done
    local most=0
    for r in "${rss[@]}"; do ((r > most)) && most=$r; done
    printf '  %s rank(s): %s rows, tables %s MB in one process; peak RSS per rank %s MB: %s of the tables (target <= %s)\n' \
      "$n" "$vocab" "$table_mb" "${rss[*]}" "$(ratio "$most" "$table_mb")" \
      "$(stats scaled "$(ratio 1.25 "$n")" --format .3f)"
    rm -f "$prefix.emb"
  done
}

# Part "clusters": planted clusters (bench-gen-clusters, CL_ROWS ids in clusters of 20, Zipf 1,
# CL_WORDS words), skip-gram dim 64, 2 epochs, min-count 1, one thread a rank: the share of a
# word's 10 nearest neighbours in its own cluster (bench-cluster-quality), one process against
# 2 and 3 sharded ranks, seeds 1..RUNS.
clusters_part() {
  need_tool bench-gen-clusters "$GEN_CLUSTERS"
  need_tool bench-cluster-quality "$BUILD/bench-cluster-quality"
  local corpus=$work/planted.txt shape run prefix cmd share
  "$GEN_CLUSTERS" --vocab "$CL_ROWS" --cluster-size 20 --words "$CL_WORDS" --out "$corpus" --seed 1 >/dev/null
  echo
  echo "== planted clusters: $CL_ROWS ids in clusters of 20, Zipf 1, $CL_WORDS words; skip-gram dim 64, 2 epochs," \
    "min-count 1, one thread a rank; cluster share at 10 (head/middle/tail)"
  declare -A shares
  for ((run = 1; run <= RUNS; run++)); do
    for shape in 1x1 sh2 sh3; do
      prefix=$work/cl-$shape-$run
      cmd=("$EMBED_TRAIN" --corpus "$corpus" -o "$prefix.emb" --dim 64 --epochs 2 --min-count 1 --threads 1 --seed "$run" -q)
      case $shape in
        sh2) cmd=("${MPIRUN[@]}" 2 "${cmd[@]}" --shard-tables) ;;
        sh3) cmd=("${MPIRUN[@]}" 3 "${cmd[@]}" --shard-tables) ;;
      esac
      "${cmd[@]}" >"$prefix.log" 2>&1 || { tail -20 "$prefix.log" >&2; die "$shape failed"; }
      "$BUILD/bench-cluster-quality" "$prefix.emb" --cluster-size 20 --seed "$run" >"$prefix.quality" ||
        die "bench-cluster-quality failed on $prefix.emb"
      eval "$(stats cluster-quality "$prefix.quality")"
      # shellcheck disable=SC2154  # share, thirds: set by stats cluster-quality
      printf '  %-4s run %-2s share %s (%s)\n' "$shape" "$run" "$share" "$thirds"
      shares[$shape]+="$share "
      rm -f "$prefix.emb"
    done
  done
  for shape in 1x1 sh2 sh3; do printf '  %-4s share %s\n' "$shape" "$(mean_spread "${shares[$shape]}" 3)"; done
}

for part in $PARTS; do
  case $part in
    quality) quality_part ;;
    memory) memory_part ;;
    clusters) clusters_part ;;
    *) die "unknown part '$part' (quality memory clusters)" ;;
  esac
done
echo
machine_line
