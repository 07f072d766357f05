#!/usr/bin/env bash
# gpu.sh: embed-train's CUDA backend against its CPU backend (and Debian's fastText
# when installed) on one machine, in one run, with the HBM roofline beside the figures.
#
#   throughput  ../shared/data/text8-head.txt repeated (one copy per line) to at least
#               WORDS words; skip-gram, 1 epoch, dim 100 and 300 (DIMS), window 5, negative
#               5, sample 1e-4, min-count 5, THREADS threads; per mode: words/s of the epoch
#               (corpus words before subsampling, as word2vec counts them, per wall-clock
#               second of training: the epoch's per_second in embed-train's --metrics file)
#               and the whole process's wall seconds. Modes: fasttext (Debian's, whole-process
#               words/s: reading included), cpu, device (--table device), device-warp
#               (the same with EMBED_GPU_SKIPGRAM_KERNEL=warp, a warp per window,
#               EMBED_GPU_WINDOWS=WARP_WINDOWS, 4096 by default: as many warps in flight as
#               the block kernel's 512 windows, in WARP_LANES batches' kernels at once, 4 by
#               default: one batch's kernel runs at most a block per 11 windows, about 963,
#               and the log's "N windows at a time" says what they reach), device-pair (EMBED_GPU_PAIR_ATOMICS=1:
#               f32 element pairs added by one 8-byte atomic rather than two), device-lanes
#               (EMBED_GPU_KERNEL_LANES=LANES, 2 by default: that many batches' kernels at
#               once, each capped at its share of the windows in flight, so that one batch's
#               last blocks do not leave the GPU idle), device-rows (EMBED_GPU_SKIPGRAM_KERNEL=rows:
#               a block per window whose warps each own an output row, so that the inputs go by
#               without two barriers each), host-gather and host-mapped (--table host with each
#               --host-transfer).
#   quality     text8-head, EPOCHS epochs, dim 100, per seed in SEEDS: cpu, device and
#               host-gather vectors evaluated with embed-query eval (Google analogies
#               restricted to the 30,000 most frequent words, WordSim-353 Spearman); with
#               the first seed also the modes in QUALITY_TRY (none by default; device-warp:
#               what its windows in flight cost; device-lanes; device-rows).
#
# Roofline (../shared/design/gpu-training.md §2): with window-shared negatives a kept word
# reads and writes C + K + 1 rows (C = window + 1 on average under word2vec's reduced
# windows), so bytes per corpus word = keep × (C + K + 1) × 2 × dim × 4, where keep is the
# fraction subsampling keeps (computed from text8-head's counts); the ceiling is the
# measured device copy bandwidth (bench-gpu-bandwidth) over that. Host modes also move
# rows over PCIe: their H2D/D2H rates are printed.
#
#   optimizers  skip-gram and CBOW (OPT_MODELS) with optimizers (OPTIMIZERS: sgd adagrad rowadagrad
#               adam; adam in summed steps on the GPU), each at its device's starting rate: words/s of one
#               epoch on the throughput corpus at dim 100 (OPT_DIMS), per mode (OPT_MODES: cpu,
#               device, host-gather), over sgd's in the same mode (x_sgd); then EPOCHS epochs on
#               text8-head, seed 1, per mode: analogy and WS-353 (the optimizers with state keep
#               a row's accumulators beside it, so host placement moves them too).
#   subwords    fastText's model (--subwords): skip-gram and CBOW (SUB_MODELS), 1 epoch on the
#               throughput corpus at each of DIMS, fastText's settings (n-grams 3 to 6 in 2,000,000
#               buckets, lr 0.05), per mode (SUB_MODES: cpu, device, device-rows for skip-gram's rows kernel;
#               host-gather too, which holds every row
#               text8-head's words list as hot rows and copies none; host-tight, host-gather in
#               about 0.45 MB of GPU memory per dim, which holds only some and copies the rest): words/s over the CPU's and, for
#               skip-gram, Debian's fastText with the same settings (whole-process words/s); issue 41's
#               goal is 20M words/s at dim 100 on one H100. Then EPOCHS epochs on text8-head, seed 1,
#               per mode: analogy, WS-353 and the last loss.
#   glove       GloVe (AdaGrad per element, window 10, min-count 5): the co-occurrences of
#               text8-head written GLOVE_COPIES times with each copy's words suffixed by its
#               copy number (so the records multiply, not just their counts; repetition alone
#               would give text8-head's 5.03M again), counted once (--save-cooc), then
#               GLOVE_EPOCHS epochs per mode (cpu, device, host-gather, host-mapped) at dim 100
#               and 300: co-occurrence records/s of the last epoch (its per_second in
#               --metrics, block reshuffle included). Roofline: a record reads and writes its
#               two rows' vector, bias and accumulators, 2 × 2 × (dim + 1) × 4 bytes each way, over the
#               device copy bandwidth; its 16 bytes also cross PCIe (the records stream from
#               host memory), over the host->device bandwidth; the lower of the two.
#   glove-quality  text8-head, GLOVE_QUALITY_EPOCHS epochs, dim 100: cpu, device, host-gather
#               GloVe vectors (W + W̃) evaluated as above, with the last epoch's cost.
#
# Needs a GPU and a CUDA build (BUILD, default build/: embed-train with --metrics, embed-query,
# bench-gpu-bandwidth); skips with a message without a usable GPU or without $SHARED/data
# (../shared/data). The device kit (scripts/device-kit.sh) runs it from .device-kit/scripts/bench/.
# Environment: BUILD, PYTHON (python3), PARTS ("throughput quality glove glove-quality"; optimizers and
# subwords on request), SUB_MODELS, SUB_MODES, OPT_MODELS ("skipgram cbow"), OPTIMIZERS, OPT_DIMS ("100"), OPT_MODES, GLOVE_COPIES (8),
# GLOVE_EPOCHS (3), GLOVE_QUALITY_EPOCHS (15), DIMS ("100 300"), WORDS (100000000), THREADS
# (nproc), SEEDS ("1 2"), EPOCHS (5), MODES ("fasttext cpu device host-gather host-mapped"), WARP_WINDOWS (4096), LANES (2), QUALITY_TRY,
# SHARED, BENCH_DIR, KEEP=1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PARTS=${PARTS:-throughput quality glove glove-quality}
GLOVE_COPIES=${GLOVE_COPIES:-8}
GLOVE_EPOCHS=${GLOVE_EPOCHS:-3}
GLOVE_QUALITY_EPOCHS=${GLOVE_QUALITY_EPOCHS:-15}
DIMS=${DIMS:-100 300}
WORDS=${WORDS:-100000000}
THREADS=${THREADS:-$(nproc)}
SEEDS=${SEEDS:-1 2}
EPOCHS=${EPOCHS:-5}
MODES=${MODES:-fasttext cpu device host-gather host-mapped}
OPT_MODELS=${OPT_MODELS:-skipgram cbow}
OPTIMIZERS=${OPTIMIZERS:-sgd adagrad rowadagrad adam}
OPT_DIMS=${OPT_DIMS:-100}
OPT_MODES=${OPT_MODES:-cpu device host-gather}
SUB_MODELS=${SUB_MODELS:-skipgram cbow}
SUB_MODES=${SUB_MODES:-cpu device}
EMBED_TRAIN=$BUILD/embed-train
EMBED_QUERY=$BUILD/embed-query
BW=$BUILD/bench-gpu-bandwidth
PYTHON=${PYTHON:-python3}

need_data "$data/text8-head.txt" "$analogies" "$wordsim"
need_tool embed-train "$EMBED_TRAIN" BUILD
need_tool embed-query "$EMBED_QUERY" BUILD
# Captured, not piped into grep -q: under pipefail an early close could fail the check.
version=$("$EMBED_TRAIN" --version) || true
[[ $version =~ "CUDA backend built, "[0-9] ]] || skip "no usable GPU ($(grep "^gpus:" <<<"$version"))"
need_metrics "$EMBED_TRAIN"
bench_scratch
machine_line
echo "gpu: $(grep "^gpus:" <<<"$version")"
bandwidths=$("$BW") || die "$BW failed"
bandwidths=$(stats gpu-bandwidths - <<<"$bandwidths") || die "no figures from $BW"
read -r device_gbps h2d_gbps d2h_gbps <<<"$bandwidths"
echo "measured: device copy ${device_gbps} GB/s, host->device ${h2d_gbps} GB/s, device->host ${d2h_gbps} GB/s (pinned)"

# The fraction of text8-head's vocabulary words that subsampling at 1e-4 keeps (word2vec's formula).
keep=$(stats subsample-keep "$data/text8-head.txt")
roofline() { stats skipgram-roofline "$1" "$keep" "$device_gbps"; }  # roofline DIM: corpus words/s
echo "subsampling keeps $(printf '%.3f' "$keep") of text8-head's words"

# elapsed START END: seconds between two `date +%s.%N`, to 0.1 s.
elapsed() { stats elapsed "$1" "$2" 1; }

# run_embed NAME ARGS...: trains, leaves $wall, and from its --metrics file $epoch_wps (the
# last epoch's words/s; GloVe: records/s), $cost (the last epoch's loss; GloVe: its cost)
# and $wait_pct (the last epoch's share of the workers' time spent waiting for the GPU, in
# percent; 0 on the CPU), $kernel_pct (the share of the epoch the GPU's kernels ran) and
# $batch_ms (a batch's mean milliseconds on the GPU: in/queued/kernels/out).
run_embed() {
  local name=$1
  shift
  # Every name epoch_figures and last-epoch set is local, used or not, so that their evals
  # leave no globals.
  # shellcheck disable=SC2034
  local start end figures epochs_run unit units train_s rate last_rate loss wps rss resident h2d d2h gpu_mem wait copy \
    kernel batch_ms
  start=$(date +%s.%N)
  # MODE_ENV (mode_env's, for the call): variables to train with.
  # shellcheck disable=SC2086
  env ${MODE_ENV:-} "$EMBED_TRAIN" "$@" -o "$work/$name.emb" --metrics "$work/$name.metrics" 2>"$work/$name.log" ||
    { tail -3 "$work/$name.log"; return 1; }
  end=$(date +%s.%N)
  wall=$(elapsed "$start" "$end")
  figures=$(epoch_figures "$work/$name.metrics") || return 1
  eval "$figures"
  epoch_wps=$(printf '%.4g' "$last_rate")
  cost=$(printf '%.4f' "$loss")
  eval "$(stats last-epoch "$work/$name.metrics")"
  wait_pct=$wait kernel_pct=$kernel batch_ms_of=$batch_ms
}

# run_fasttext DIM ARGS...: Debian's fastText skip-gram, 1 epoch on the throughput corpus at DIM with
# our settings and ARGS; leaves $wall and $epoch_wps (whole-process words/s: reading included).
run_fasttext() {
  local dim=$1 start end
  shift
  start=$(date +%s.%N)
  fasttext skipgram -input "$work/big.txt" -output "$work/ft" -dim "$dim" -ws 5 -neg 5 -minCount 5 -t 1e-4 -epoch 1 \
    -thread "$THREADS" -verbose 0 "$@" >/dev/null
  end=$(date +%s.%N)
  wall=$(elapsed "$start" "$end")
  epoch_wps=$(stats rate "$big_words" "$wall" --format .4g)
}

# x_mode MODE: this run's words/s over MODE's (at the same dim), or - when MODE has not run.
x_mode() {
  if [[ -n ${wps[$1]:-} ]]; then ratio "$epoch_wps" "${wps[$1]}"; else echo -; fi
}

mode_args() {
  case $1 in
    cpu) echo "--device cpu" ;;
    device | device-warp | device-pair | device-lanes | device-rows) echo "--device cuda --table device" ;;
    host-gather) echo "--device cuda --table host --host-transfer gather" ;;
    host-mapped) echo "--device cuda --table host --host-transfer mapped" ;;
    # --subwords on text8-head (the tables: 0.9 GB at dim 100, 2.5 GB at dim 300), 16 workers:
    # 50 MB at dim 100 and 140 MB at 300 ($dim, the run's) hold about a fifth of the 123,969
    # rows its words touch (the plan: 11k to 16k hot rows of each table's worth, batches of
    # 500 words), so batches copy the rest; from 70 and 170 MB all of them are hot.
    host-tight) echo "--device cuda --table host --host-transfer gather --gpu-memory $((dim * 45 / 100 + 5))M" ;;
  esac
}

# mode_env MODE: the environment a mode trains in (device-warp: the warp kernel, WARP_WINDOWS windows at once in WARP_LANES lanes;
# device-pair: f32 element pairs added by one 8-byte atomic; device-lanes: LANES batches' kernels at once;
# device-rows: a warp per output row).
mode_env() {
  case $1 in
    device-warp) echo "EMBED_GPU_SKIPGRAM_KERNEL=warp EMBED_GPU_WINDOWS=${WARP_WINDOWS:-4096} EMBED_GPU_KERNEL_LANES=${WARP_LANES:-4}" ;;
    device-pair) echo "EMBED_GPU_PAIR_ATOMICS=1" ;;
    device-lanes) echo "EMBED_GPU_KERNEL_LANES=${LANES:-2}" ;;
    device-rows) echo "EMBED_GPU_SKIPGRAM_KERNEL=rows" ;;
  esac
}

# The throughput corpus: text8-head repeated to at least WORDS words, in $work/big.txt
# ($copies copies, $big_words words).
make_big() {
  per_copy=$(wc -w <"$data/text8-head.txt")
  copies=$(((WORDS + per_copy - 1) / per_copy))
  for ((i = 0; i < copies; i++)); do cat "$data/text8-head.txt"; echo; done >"$work/big.txt"
  big_words=$((per_copy * copies))
}

if has "$PARTS" throughput; then
  make_big
  echo
  echo "== throughput: skip-gram, 1 epoch on text8-head x $copies ($big_words words), $THREADS threads"
  printf '%-12s %5s %14s %9s %9s %9s %9s %14s %6s %6s %24s\n' mode dim words/s wall_s x_cpu x_fasttext x_device \
    roofline_w/s wait% kern% batch_ms_in/q/kern/out
  for dim in $DIMS; do
    declare -A wps=()
    for mode in $MODES; do
      if [[ $mode == fasttext ]]; then
        command -v fasttext >/dev/null || { echo "fasttext: not installed, skipped"; continue; }
        run_fasttext "$dim" -minn 0 -maxn 0 -lr 0.025
        wait_pct=- kernel_pct=- batch_ms_of=-
      else
        # shellcheck disable=SC2046
        MODE_ENV=$(mode_env "$mode") run_embed "$mode-$dim" --corpus "$work/big.txt" --dim "$dim" --epochs 1 --threads "$THREADS" $(mode_args "$mode") ||
          { echo "$mode dim $dim: failed"; continue; }
      fi
      wps[$mode]=$epoch_wps
      printf '%-12s %5s %14s %9s %9s %9s %9s %14s %6s %6s %24s\n' "$mode" "$dim" "$epoch_wps" "$wall" "$(x_mode cpu)" \
        "$(x_mode fasttext)" "$(x_mode device)" "$(roofline "$dim")" "$wait_pct" "$kernel_pct" "$batch_ms_of"
    done
    unset wps
  done
  echo "(fastText's words/s is whole-process: corpus words / wall seconds, reading included; wait%: the share of the" \
    "workers' time spent waiting for the GPU: near 0, the CPU's batches bound the run; kern%: the share of the epoch" \
    "the GPU's kernels ran, one batch's at a time; batch_ms: a batch's mean milliseconds moving in, queued behind" \
    "other batches' kernels, in its kernels, moving out; x_device: over the device mode's, the experiments' verdict)"
fi

if has "$PARTS" quality; then
  echo
  echo "== quality: skip-gram dim 100, $EPOCHS epochs on text8-head, $THREADS threads, seeds: $SEEDS"
  first_seed=${SEEDS%% *}
  for seed in $SEEDS; do
    # shellcheck disable=SC2086
    for mode in cpu device host-gather $([[ $seed == "$first_seed" ]] && echo ${QUALITY_TRY:-}); do
      # shellcheck disable=SC2046
      MODE_ENV=$(mode_env "$mode") run_embed "q-$mode-$seed" --corpus "$data/text8-head.txt" --epochs "$EPOCHS" --seed "$seed" --threads "$THREADS" \
        $(mode_args "$mode") || { echo "$mode seed $seed: failed"; continue; }
      figures=$(evaluate "$work/q-$mode-$seed.emb" "$work/q.json") || exit 1
      read -r acc _ _ _ ws _ <<<"$figures"
      printf '  %-12s seed %s  analogy %5.2f%%  ws353 %.3f  %s words/s\n' "$mode" "$seed" "$acc" "$ws" "$epoch_wps"
    done
  done
fi
if has "$PARTS" optimizers; then
  [[ -f $work/big.txt ]] || make_big
  declare -A opt_cpu=()  # the cpu mode's words/s per model, optimizer and dim
  for model in $OPT_MODELS; do
    echo
    echo "== optimizers: $model, 1 epoch on text8-head x $copies ($big_words words), $THREADS threads"
    printf '%-12s %-11s %5s %14s %9s %9s %9s\n' mode optimizer dim words/s wall_s x_sgd x_cpu
    for dim in $OPT_DIMS; do
      for mode in $OPT_MODES; do
        declare -A wps=()
        for optimizer in $OPTIMIZERS; do
          # shellcheck disable=SC2046
          run_embed "opt-$model-$mode-$optimizer-$dim" --corpus "$work/big.txt" --model "$model" --optimizer "$optimizer" \
            --dim "$dim" --epochs 1 --threads "$THREADS" $(mode_args "$mode") ||
            { echo "$mode $optimizer dim $dim: failed"; continue; }
          wps[$optimizer]=$epoch_wps
          [[ $mode != cpu ]] || opt_cpu[$model-$optimizer-$dim]=$epoch_wps
          cpu_wps=${opt_cpu[$model-$optimizer-$dim]:-}
          printf '%-12s %-11s %5s %14s %9s %9s %9s\n' "$mode" "$optimizer" "$dim" "$epoch_wps" "$wall" "$(x_mode sgd)" \
            "$([[ -n $cpu_wps ]] && ratio "$epoch_wps" "$cpu_wps" || echo -)"
        done
        unset wps
      done
    done
    echo "-- quality: $model dim 100, $EPOCHS epochs on text8-head, seed 1"
    for optimizer in $OPTIMIZERS; do
      for mode in $OPT_MODES; do
        # shellcheck disable=SC2046
        run_embed "oq-$model-$mode-$optimizer" --corpus "$data/text8-head.txt" --model "$model" --optimizer "$optimizer" \
          --epochs "$EPOCHS" --seed 1 --threads "$THREADS" $(mode_args "$mode") ||
          { echo "$mode $optimizer: failed"; continue; }
        figures=$(evaluate "$work/oq-$model-$mode-$optimizer.emb" "$work/q.json") || exit 1
        read -r acc _ _ _ ws _ <<<"$figures"
        printf '  %-12s %-11s analogy %5.2f%%  ws353 %.3f  last loss %s  %s words/s\n' "$mode" "$optimizer" "$acc" "$ws" \
          "$cost" "$epoch_wps"
      done
    done
  done
fi

if has "$PARTS" subwords; then
  [[ -f $work/big.txt ]] || make_big
  SUB=(--subwords --minn 3 --maxn 6 --buckets 2000000 --lr 0.05)
  for model in $SUB_MODELS; do
    echo
    echo "== subwords: $model, 1 epoch on text8-head x $copies ($big_words words), $THREADS threads, n-grams 3-6 in 2M buckets"
    printf '%-12s %5s %14s %9s %9s %9s\n' mode dim words/s wall_s x_cpu x_fasttext
    for dim in $DIMS; do
      declare -A wps=()
      if [[ $model == skipgram ]] && command -v fasttext >/dev/null; then
        run_fasttext "$dim" -minn 3 -maxn 6 -bucket 2000000 -lr 0.05
        wps[fasttext]=$epoch_wps
        printf '%-12s %5s %14s %9s %9s %9s\n' fasttext "$dim" "$epoch_wps" "$wall" - -
      fi
      for mode in $SUB_MODES; do
        # shellcheck disable=SC2046
        MODE_ENV=$(mode_env "$mode") run_embed "sub-$model-$mode-$dim" --corpus "$work/big.txt" --model "$model" "${SUB[@]}" --dim "$dim" --epochs 1 \
          --threads "$THREADS" $(mode_args "$mode") || { echo "$mode dim $dim: failed"; continue; }
        wps[$mode]=$epoch_wps
        printf '%-12s %5s %14s %9s %9s %9s\n' "$mode" "$dim" "$epoch_wps" "$wall" "$(x_mode cpu)" "$(x_mode fasttext)"
      done
      unset wps
    done
    echo "-- quality: $model dim 100, $EPOCHS epochs on text8-head, seed 1"
    dim=100
    for mode in $SUB_MODES; do
      # shellcheck disable=SC2046
      MODE_ENV=$(mode_env "$mode") run_embed "subq-$model-$mode" --corpus "$data/text8-head.txt" --model "$model" "${SUB[@]}" --dim "$dim" --epochs "$EPOCHS" --seed 1 \
        --threads "$THREADS" $(mode_args "$mode") || { echo "$mode: failed"; continue; }
      figures=$(evaluate "$work/subq-$model-$mode.emb" "$work/q.json") || exit 1
      read -r acc _ _ _ ws _ <<<"$figures"
      printf '  %-12s analogy %5.2f%%  ws353 %.3f  last loss %s  %s words/s\n' "$mode" "$acc" "$ws" "$cost" "$epoch_wps"
    done
  done
fi

if has "$PARTS" glove; then
  for ((i = 0; i < GLOVE_COPIES; i++)); do sed "s/\([^ ]\+\)/\1_$i/g" "$data/text8-head.txt"; echo; done >"$work/glove.txt"
  "$EMBED_TRAIN" --corpus "$work/glove.txt" --model glove --window 10 --save-cooc "$work/glove.cooc" --threads "$THREADS" \
    2>"$work/glove-count.log" || { tail -3 "$work/glove-count.log"; exit 1; }
  figures=$(stats glove-count "$work/glove-count.log") || exit 1
  # shellcheck disable=SC2154 # coocs: set by the eval, in a subshell (only it is wanted here)
  records=$(eval "$figures" && echo "$coocs")
  echo
  echo "== glove: $records co-occurrence records (text8-head x $GLOVE_COPIES, suffixed), adagrad, $GLOVE_EPOCHS epochs, $THREADS threads"
  printf '%-12s %5s %14s %9s %9s %14s\n' mode dim records/s wall_s x_cpu roofline_r/s
  for dim in $DIMS; do
    declare -A rps=()
    for mode in cpu device host-gather host-mapped; do
      # shellcheck disable=SC2046
      run_embed "glove-$mode-$dim" --cooc "$work/glove.cooc" --model glove --dim "$dim" --epochs "$GLOVE_EPOCHS" \
        --threads "$THREADS" $(mode_args "$mode") || { echo "$mode dim $dim: failed"; continue; }
      rps[$mode]=$epoch_wps
      x_cpu=-
      [[ -z ${rps[cpu]:-} ]] || x_cpu=$(ratio "${rps[$mode]}" "${rps[cpu]}")
      roof=$(stats glove-roofline "$dim" "$device_gbps" "$h2d_gbps")
      printf '%-12s %5s %14s %9s %9s %14s\n' "$mode" "$dim" "${rps[$mode]}" "$wall" "$x_cpu" "$roof"
    done
    unset rps
  done
fi

if has "$PARTS" glove-quality; then
  echo
  echo "== glove quality: dim 100, window 10, $GLOVE_QUALITY_EPOCHS epochs on text8-head, $THREADS threads, seeds: $SEEDS"
  for seed in $SEEDS; do
    for mode in cpu device host-gather; do
      # shellcheck disable=SC2046
      run_embed "gq-$mode-$seed" --corpus "$data/text8-head.txt" --model glove --window 10 --dim 100 \
        --epochs "$GLOVE_QUALITY_EPOCHS" --seed "$seed" --threads "$THREADS" $(mode_args "$mode") ||
        { echo "$mode seed $seed: failed"; continue; }
      figures=$(evaluate "$work/gq-$mode-$seed.emb" "$work/q.json") || exit 1
      read -r acc _ _ _ ws _ <<<"$figures"
      printf '  %-12s seed %s  analogy %5.2f%%  ws353 %.3f  last cost %s  %s s\n' "$mode" "$seed" "$acc" "$ws" "$cost" "$wall"
    done
  done
fi
machine_line
