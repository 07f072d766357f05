#!/usr/bin/env bash
# big_table.sh: skip-gram whose tables do not fit the GPU's memory budget, against the same
# run with the tables in GPU memory, at the vocabulary size host placement exists for.
#
# The corpus is generated (bench-gen-clusters): VOCAB token ids in planted clusters of
# CLUSTER ids, each line drawn from one cluster (Zipf over clusters and over members, of
# exponent ZIPF), a little noise from the whole vocabulary; WORDS words. With min-count 5 that leaves a
# vocabulary of a few million words. Then, dim DIM, EPOCHS epoch(s), window 5, negative 5,
# sample 1e-4, THREADS threads, one run per mode:
#   device     --table device (the tables in GPU memory), seeds SEEDS (their spread is the
#              quality's seed noise)
#   host/N     --table host --gpu-memory (the tables' bytes / N) for N in FRACTIONS: the most
#              frequent rows stay in GPU memory, the others travel per batch, CPU threads
#              copying them through pinned staging buffers (--host-transfer gather)
#   mapped/N   the same, the GPU reading and writing the rows through the mapped host tables
#              (--host-transfer mapped): each row crosses the bus once each way (a row another
#              batch in flight holds comes back staged twice, and the CPU adds its change)
#   f16/N      --table host --dtype f16: the host tables, the staged rows and the GPU's rows
#              all f16 (row_matrix.h), with --gpu-memory the f16 tables' bytes / N (until
#              2026-11-27 the f32 tables' bytes / N, and the host tables stayed f32)
#   f16m/N     f16/N with mapped transfers: the f16 host tables pinned and mapped, kernels
#              reading and writing their rows (2026-11-27, not yet run on a GPU)
#   f16s/N     f16/N with the batches' slots in BATCH_SHARE (0.25) of the budget rather than
#              half (EMBED_HOST_BATCH_SHARE): smaller batches, more hot rows, fewer rows
#              copied per word (on the dev VM's 2 threads, 1.71 rather than 2.14 at 1/4)
#   f16c/N     f16/N with as many batches' kernels at once as the windows in flight allow
#              full batches' (EMBED_GPU_KERNEL_LANES=auto: a small batch's kernel alone runs a
#              few dozen to a few hundred blocks), each capped at its share of the windows
#              (2026-11-28, not yet run on a GPU)
#   f16r/N     f16/N with skip-gram's rows kernel (EMBED_GPU_SKIPGRAM_KERNEL=rows: a warp per
#              output row, the inputs without the block kernel's two barriers each): whether a
#              window's latency bounds host placement's small batches (2026-11-28, not yet run)
#   f16t/N     f16/N on a quarter of THREADS: a quarter of the slots in the same budget, so
#              batches four times as large, against fewer threads gathering (not yet run)
#   cpu        (when MODES has it) every CPU core, for scale
# Per run: the last epoch's words/s (corpus words per second of training, --metrics), its
# ratio to device placement's, the share of row touches served by rows resident on the GPU,
# bytes host->GPU and GPU->host per corpus word, the share of the workers' time spent waiting
# for the GPU (wait%: high, the GPU bounds the run; low, the CPU does) and moving rows
# (copy%: gather's copies; mapped's queuing, turns and adds), the share of the epoch the GPU's
# kernels ran (kern%: near 100, the kernels bound the run) and a batch's mean milliseconds on
# the GPU (batch_ms: its ids and rows moving in, queued behind other batches' kernels, its
# kernels, its rows and loss moving out), GPU memory the backend took, peak RSS, the
# last epoch's loss, whole-process seconds (counting and writing included), and quality:
# the share of a word's 10 nearest neighbours in its own planted cluster
# (bench-cluster-quality, over a sample spread over the frequency ranks: head, middle, tail).
# Targets (issue 36): host/4 >= 0.67x device, host/16 >= 0.5x; quality equal within noise.
# OPTIMIZER (sgd) trains with another optimizer (adagrad, rowadagrad, adam, ...): its
# state sits in each row after the vector (Word2vecLayout), so the tables' bytes, and the
# fractions' budgets, count it (issue 40: a host-placement run whose table plus state is at
# least 4 times the GPU budget; Adam's triples the bytes, and its summed steps keep a sum
# per hot row on the GPU besides).
#
# BUDGET (a --gpu-memory size such as 16G) instead trains the largest tables: host placement
# alone (MODES "f16", whose vectors file takes half the disk, or "host"; no device run, no
# fractions) in that budget, one run per mode, and reports the rows trained against issue
# 36's target (at least 50 million rows x 300 dims in at most 16 GB of GPU memory).
#
# Needs a GPU and a CUDA build (BUILD, default build/: embed-train, glove-convert,
# bench-gen-clusters, bench-cluster-quality); skips with a message without a usable GPU.
# DEVICE=cpu runs every mode on the CPU instead (the script's own test on a machine without
# a GPU: the figures then say nothing about placement). The device kit runs it from
# .device-kit/scripts/bench/.
# Environment: BUILD, PYTHON (python3), VOCAB (4000000), CLUSTER (20), WORDS (200000000), ZIPF (1.0),
# DIM (300), EPOCHS (1), THREADS (nproc), SEEDS ("1 2"), FRACTIONS ("4 16"),
# MODES ("device host f16"; also: f16s, f16m, f16c, f16r, f16t, mapped, cpu), BATCH_SHARE (0.25, f16s's), OPTIMIZER (sgd), MIN_COUNT (5), BUDGET, SAMPLE (300), RUN_TIMEOUT (150: seconds a run may take, then it is
# reported with its last progress line), DEVICE, BENCH_DIR, KEEP=1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VOCAB=${VOCAB:-4000000}
CLUSTER=${CLUSTER:-20}
WORDS=${WORDS:-200000000}
ZIPF=${ZIPF:-1.0}
DIM=${DIM:-300}
EPOCHS=${EPOCHS:-1}
THREADS=${THREADS:-$(nproc)}
SEEDS=${SEEDS:-1 2}
FRACTIONS=${FRACTIONS:-4 16}
MODES=${MODES:-device host f16}
BATCH_SHARE=${BATCH_SHARE:-0.25}
OPTIMIZER=${OPTIMIZER:-sgd}
# Floats per row: the vector padded to 16 (P), then the optimizer's state (optimizer.cpp's
# registry: adagrad keeps one accumulator per element, rowadagrad 16 floats, adam two
# moments and 16 floats of beta powers, ...).
stride=$(((DIM + 15) / 16 * 16))
case $OPTIMIZER in
  sgd) width=$stride ;;
  adagrad | rmsprop) width=$((2 * stride)) ;;
  rowadagrad) width=$((stride + 16)) ;;
  adam | adamw | adamax) width=$((3 * stride + 16)) ;;
  adadelta | rprop) width=$((3 * stride)) ;;
  asgd) width=$((2 * stride + 16)) ;;
  *) die "OPTIMIZER is one of embed-train's optimizers, not $OPTIMIZER" ;;
esac
MIN_COUNT=${MIN_COUNT:-5}
BUDGET=${BUDGET:-}
SAMPLE=${SAMPLE:-300}
RUN_TIMEOUT=${RUN_TIMEOUT:-150}
# A run past RUN_TIMEOUT is stopped as Ctrl-C stops it, leaving a checkpoint, but the
# largest tables' (BUDGET: 69 GB) would not fit the GPU machine's 64 GB of disk: those are
# killed, and their metrics' last progress line says how far they got.
timeout_signal=TERM
[[ -n ${BUDGET:-} ]] && timeout_signal=KILL
DEVICE=${DEVICE:-cuda}
PYTHON=$(command -v "${PYTHON:-python3}" || echo "${PYTHON:-python3}")
EMBED_TRAIN=$BUILD/embed-train
GLOVE_CONVERT=$BUILD/glove-convert
GENERATE=$BUILD/bench-gen-clusters
QUALITY=$BUILD/bench-cluster-quality

need_tool embed-train "$EMBED_TRAIN" BUILD
need_tool glove-convert "$GLOVE_CONVERT" BUILD
need_tool bench-gen-clusters "$GENERATE" BUILD
need_tool bench-cluster-quality "$QUALITY" BUILD
need_python
if [[ $DEVICE == cuda ]]; then
  version=$("$EMBED_TRAIN" --version) || true
  [[ $version =~ "CUDA backend built, "[0-9] ]] || skip "no usable GPU ($(grep "^gpus:" <<<"$version"))"
fi
need_metrics "$EMBED_TRAIN"
bench_scratch
machine_line
[[ $DEVICE == cuda ]] && echo "gpu: $(grep "^gpus:" <<<"$version")"

# ---- the corpus ----------------------------------------------------------------------------
corpus=$work/clusters.txt
gen_start=$(date +%s.%N)
"$GENERATE" --vocab "$VOCAB" --cluster-size "$CLUSTER" --words "$WORDS" --zipf "$ZIPF" --threads "$THREADS" --out "$corpus" \
  2>"$work/generate.log" || die "bench-gen-clusters failed: $(tail -1 "$work/generate.log")"
gen_s=$(stats elapsed "$gen_start" "$(date +%s.%N)" 1)
corpus_bytes=$(stat -c %s "$corpus")
echo "corpus: $WORDS words ($(stats gb "$corpus_bytes") GB), $VOCAB ids in clusters" \
  "of $CLUSTER, generated in $gen_s s on $THREADS threads ($(tail -1 "$work/generate.log"))"

# ---- the runs ------------------------------------------------------------------------------
# The run's figures from its --metrics file's last epoch, as shell assignments: wps, loss, rss,
# resident, h2d, d2h, gpu_mem, wait, copy.
last_epoch() { stats last-epoch "$1"; }
# gb BYTES: in GB of 10^9 bytes, two decimals.
gb() { stats gb "$1"; }
# stamp NAME START: each line of standard input, after the seconds since START (date +%s.%N).
stamp() { stats stamp "$1" "$2"; }

# run MODE_NAME SEED ARGS...: trains (with run_env's VAR=VALUE settings in its environment, on run_threads threads),
# prints its row of the table, keeps its figures in wps_of[MODE_NAME] and share_of[MODE_NAME].
declare -A wps_of=() share_of=()
run_env=()
run_threads=$THREADS  # f16t's fewer
run() {
  local name=$1 seed=$2 start end wall wps loss rss resident h2d d2h gpu_mem wait copy kernel batch_ms quality x_dev share thirds
  local file=$work/${name//\//-}  # host/4 -> host-4
  shift 2
  start=$(date +%s.%N)
  # Each log line goes to stderr as it comes, stamped with the seconds since this run began,
  # so that a run stopped by its timeout (or the caller's) still shows where its time went.
  if ! env "${run_env[@]}" timeout -s "$timeout_signal" "$RUN_TIMEOUT" "$EMBED_TRAIN" --corpus "$corpus" --dim "$DIM" --epochs "$EPOCHS" --window 5 --negative 5 \
    --sample 1e-4 --min-count "$MIN_COUNT" --optimizer "$OPTIMIZER" --threads "$run_threads" --seed "$seed" "$@" \
    -o "$file.emb" --metrics "$file.metrics" \
    2> >(tee "$file.log" | stamp "$name" "$start" >&2); then
    echo "$name: failed or past $RUN_TIMEOUT s: $(tail -2 "$file.log" | tr '\n' ' ')" \
      "last progress: $(grep progress "$file.metrics" 2>/dev/null | tail -1)"
    return 1
  fi
  end=$(date +%s.%N)
  wall=$(stats elapsed "$start" "$end" 1)
  eval "$(last_epoch "$file.metrics")"
  quality=$("$QUALITY" "$file.emb" --cluster-size "$CLUSTER" --sample "$SAMPLE" --threads "$THREADS" 2>&1) ||
    { echo "$name: bench-cluster-quality failed: $quality"; return 1; }
  echo "$(grep '^sample' <<<"$quality")" | stamp "$name" "$start" >&2
  eval "$(stats cluster-quality - <<<"$quality")"  # share, thirds
  share_of[$name]=$share
  wps_of[$name]=$wps
  x_dev=-
  [[ -n ${wps_of[device]:-} ]] && x_dev=$(ratio "$wps" "${wps_of[device]}")
  printf '%-10s %9s %11s %7s %9s %8s %8s %6s %6s %6s %24s %8s %9s %8s %7s %17s %7s\n' "$name" "${budget_gb:--}" "$wps" "$x_dev" \
    "$(stats scaled "$resident" --times 100 --format .1f --suffix %)" "$h2d" "$d2h" "$wait" "$copy" "$kernel" "$batch_ms" \
    "$(gb "$gpu_mem")" "$(gb "$rss")" "$loss" "${share_of[$name]}" "$thirds" "$wall"
  # The vectors are gigabytes: only the first run's are kept (for the table's size).
  [[ $name == "$first_run" ]] || rm -f "$file.emb"
}

placement() { [[ $DEVICE == cuda ]] && echo "--device cuda $*" || echo "--device cpu"; }

echo
echo "== skip-gram dim $DIM, $EPOCHS epoch(s), window 5, negative 5, sample 1e-4, min-count $MIN_COUNT, optimizer $OPTIMIZER," \
  "$THREADS threads"
printf '%-10s %9s %11s %7s %9s %8s %8s %6s %6s %6s %24s %8s %9s %8s %7s %17s %7s\n' mode budget_GB words/s x_dev resident \
  B/w_h2d B/w_d2h wait% copy% kern% batch_ms_in/q/kern/out gpu_GB rss_GB loss share10 head/mid/tail wall_s
first_run=device
first_seed=${SEEDS%% *}
budget_gb=
if [[ -n $BUDGET ]]; then
  # The largest tables: host placement alone in a fixed budget. Each run's vectors stay
  # until their rows are counted.
  budget_gb=$BUDGET
  for name in host f16 f16m; do
    has "$MODES" "$name" || continue
    first_run=$name/fixed
    how=(--host-transfer gather)
    [[ $name == f16 ]] && how+=(--dtype f16)
    [[ $name == f16m ]] && how=(--host-transfer mapped --dtype f16)
    # shellcheck disable=SC2046
    run "$name/fixed" "$first_seed" $(placement --table host "${how[@]}" --gpu-memory "$BUDGET") || continue
    file=$work/$name-fixed.emb
    rows=$("$GLOVE_CONVERT" --info "$file" | awk '$1 == "rows" {print $2; exit}')
    rm -f "$file"
    element_bytes=4
    [[ $name == f16* ]] && element_bytes=2  # --table host --dtype f16: f16 host tables
    echo "   ($name: $rows rows x $DIM dims trained in --gpu-memory $BUDGET; the two host tables take" \
      "$(gb $((2 * rows * width * element_bytes))) GB)"
    echo "target (issue 36) >= 50000000 rows x 300 dims in at most 16 GB of GPU memory: $rows x $DIM," \
      "$(verdict "$rows >= 50000000 and $DIM >= 300")"
  done
  machine_line
  exit 0
fi
# shellcheck disable=SC2046
run device "$first_seed" $(placement --table device) || die "device placement failed: no table size to take fractions of"
rows=$("$GLOVE_CONVERT" --info "$work/device.emb" | awk '$1 == "rows" {print $2; exit}')
table_bytes=$((2 * rows * width * 4))
echo "   (vocabulary $rows words: the two f32 tables take $(gb "$table_bytes") GB, optimizer $OPTIMIZER's state included)"
rm -f "$work/device.emb"
# Each budget's two transfers side by side, so that a step cut short by its cap still
# compares them at the first budget.
for n in $FRACTIONS; do
  for name in host mapped f16 f16m f16s f16c f16r f16t; do
    has "$MODES" "$name" || continue
    budget=$((table_bytes / n))
    case $name in
      host) how=(--host-transfer gather) ;;
      mapped) how=(--host-transfer mapped) ;;
      f16 | f16s | f16c | f16r | f16t) how=(--host-transfer gather --dtype f16) budget=$((table_bytes / 2 / n)) ;;  # its tables' bytes / n
      f16m) how=(--host-transfer mapped --dtype f16) budget=$((table_bytes / 2 / n)) ;;
    esac
    [[ $name == f16s ]] && run_env=(EMBED_HOST_BATCH_SHARE="$BATCH_SHARE")
    [[ $name == f16c ]] && run_env=(EMBED_GPU_KERNEL_LANES=auto)
    [[ $name == f16r ]] && run_env=(EMBED_GPU_SKIPGRAM_KERNEL=rows)
    [[ $name == f16t ]] && run_threads=$(((THREADS + 3) / 4))
    budget_gb=$(gb "$budget")
    # shellcheck disable=SC2046
    run "$name/$n" "$first_seed" $(placement --table host "${how[@]}" --gpu-memory "$budget") || true
    run_env=()
    run_threads=$THREADS
  done
done
# The other seeds last: their spread is the quality's noise, the figure a slow step can lose.
budget_gb=
for seed in ${SEEDS#"$first_seed"}; do
  # shellcheck disable=SC2046
  run "device-s$seed" "$seed" $(placement --table device) || true
done
if has "$MODES" cpu; then
  budget_gb=
  run cpu "$first_seed" --device cpu || true
fi

# ---- targets -------------------------------------------------------------------------------
echo
shares=${share_of[device]:-}
for seed in ${SEEDS#"$first_seed"}; do shares+=" ${share_of[device-s$seed]:-}"; done
spread=$(stats spread 3 -- "$shares")  # "-" for fewer than two seeds
for n in $FRACTIONS; do
  target=0.67
  ((n >= 16)) && target=0.5
  for name in host mapped f16 f16m f16s f16c f16r f16t; do
    [[ -n ${wps_of[$name/$n]:-} && -n ${wps_of[device]:-} ]] || continue
    x=$(ratio "${wps_of[$name/$n]}" "${wps_of[device]}")
    echo "target $name/$n >= ${target}x device: ${x}x, $(verdict "$x >= $target");" \
      "share@10 ${share_of[$name/$n]} vs device ${share_of[device]} (seed spread $spread)"
  done
done
machine_line
