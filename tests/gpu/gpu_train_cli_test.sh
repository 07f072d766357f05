#!/usr/bin/env bash
# embed-train --device cuda end to end (ctest label "gpu"; exit 77, skipped, where no
# GPU is usable): device and host placements, both host transfers, f16/bf16 tables (f16 host
# tables too), skip-gram
# and CBOW with adagrad and rowadagrad, and adam in summed steps, fastText's model (--subwords,
# in both placements), GloVe,
# out-of-memory advice, and Ctrl-C → checkpoint → --resume on the GPU. Quality is the
# CPU trainer's within noise: the last epoch's loss on the bundled text8 slice.
# Usage: gpu_train_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT
# The fixtures come from EMBED_DATA, by default the data/ folder two levels above this
# script (the repository's, or the device kit's: scripts/device-kit.sh).
set -u
ET=$(realpath "${1:?usage: gpu_train_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
EQ=$(realpath "${2:?usage}")
GC=$(realpath "${3:?usage}")
DATA=$(realpath "${EMBED_DATA:-$(dirname "${BASH_SOURCE[0]}")/../../data}")
CORPUS=$DATA/text8-200k.txt.gz
if ! "$ET" --version | grep -q 'CUDA backend built, [0-9]'; then
  echo "skipped: no usable GPU ($("$ET" --version | grep "^gpus:"))"
  exit 77
fi
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/sample_quality.sh"

# --epochs once per command line (twice is a usage error): ONE_EPOCH's runs only see where
# a run trains.
BASE=(--corpus "$CORPUS" --dim 64 --seed 3)
SETTINGS=("${BASE[@]}" --epochs 5)
RUN=("${SETTINGS[@]}" --threads 4)
ONE_EPOCH=("${BASE[@]}" --epochs 1 --threads 4)
# last_loss LOG: the loss of the last epoch line.
last_loss() { grep -o 'loss [0-9.]*' "$1" | tail -1 | cut -d' ' -f2; }
# within A B FRACTION: |A - B| <= FRACTION * B
within() { python3 -c "import sys; a, b, f = map(float, sys.argv[1:]); sys.exit(abs(a - b) > f * b)" "$@"; }

"$ET" "${RUN[@]}" -o cpu.emb --device cpu 2> cpu.log || bad "CPU reference run"
cpu_loss=$(last_loss cpu.log)
# The vectors' quality against the CPU's: sample_quality.sh says why the loss is not enough.
cpu_spearman=$(sample_spearman cpu.emb)
# placement_flags TABLE TRANSFER: --host-transfer applies to host tables only.
placement_flags() { echo "--table $1${2:+ --host-transfer $2}"; }
for placement in "device" "host gather" "host mapped"; do
  read -r table transfer <<<"$placement"
  name="$table${transfer:+-$transfer}"
  # shellcheck disable=SC2046
  "$ET" "${RUN[@]}" -o "$name.emb" --device cuda $(placement_flags "$table" "$transfer") 2> "$name.log"
  status=$?
  check "$name: exit status" "$status" "0"
  ((status == 0)) || tail -2 "$name.log" >&2
  grep -q "training skipgram on cuda (" "$name.log" && ok || bad "$name: trained on the GPU: $(grep training "$name.log")"
  grep -q "epoch 5/5" "$name.log" && ok || bad "$name: one line per epoch"
  within "$(last_loss "$name.log")" "$cpu_loss" 0.03 && ok || bad "$name: loss $(last_loss "$name.log") vs CPU $cpu_loss"
  spearman_near "$name" "$name.emb" "$cpu_spearman" "the CPU's"
done
# EMBED_GPU_KERNEL_CLOCKS=1 (kernel_clocks.h): the block and rows kernels time their windows'
# phases and the log says where a window's cycles went; the warp kernel keeps none.
for kernel in block rows warp; do
  EMBED_GPU_KERNEL_CLOCKS=1 EMBED_GPU_SKIPGRAM_KERNEL=$kernel "$ET" "${ONE_EPOCH[@]}" -o "clocks-$kernel.emb" --device cuda \
    2> "clocks-$kernel.log"
  check "clocks, $kernel kernel: exit status" "$?" "0"
  line=$(grep 'kernel clocks' "clocks-$kernel.log")
  if [[ $kernel == warp ]]; then
    check "clocks, warp kernel: none kept" "$line" ""
    continue
  fi
  [[ $line =~ kernel\ clocks\ \($kernel\ kernel\):\ [1-9][0-9]*\ windows,\ [0-9.]+\ inputs\ each\;\ a\ window\ [1-9][0-9]*\ cycles ]] &&
    ok || bad "clocks, $kernel kernel: $line"
  # The phases' shares add up to the window (to their rounding).
  python3 -c "import re, sys; s = sum(map(float, re.findall(r'[a-z]+ ([0-9.]+)%', sys.argv[1]))); sys.exit(abs(s - 100) > 0.5)" \
    "$line" && ok || bad "clocks, $kernel kernel: the phases do not add up: $line"
done
"$ET" "${RUN[@]}" -o cbow.emb --model cbow --device cuda 2> cbow.log && ok || bad "cbow on the GPU"
"$ET" "${RUN[@]}" -o cbow-cpu.emb --model cbow --device cpu 2> cbow-cpu.log
within "$(last_loss cbow.log)" "$(last_loss cbow-cpu.log)" 0.03 && ok || bad "cbow: loss $(last_loss cbow.log) vs CPU $(last_loss cbow-cpu.log)"

for dtype in f16 bf16; do
  "$ET" "${RUN[@]}" -o "$dtype.emb" --device cuda --dtype "$dtype" 2> "$dtype.log" && ok || bad "--dtype $dtype on the GPU"
  grep -q "$dtype" "$dtype.log" && ok || bad "--dtype $dtype: the backend says its storage"
  within "$(last_loss "$dtype.log")" "$cpu_loss" 0.05 && ok || bad "$dtype: loss $(last_loss "$dtype.log") vs CPU $cpu_loss"
done

# --table host --dtype f16: the host tables are f16 too (row_matrix.h), half the host
# memory; in 3M most rows are cold, so batches copy f16 rows and bring them back in f16:
# gathered by CPU threads, or read and written by kernels through the mapped tables
# (stored whole, or their change added where another batch in flight holds them).
for transfer in gather mapped; do
  name="f16-host-$transfer"
  "$ET" "${SETTINGS[@]}" -o "$name.emb" --device cuda --table host --host-transfer "$transfer" --dtype f16 --gpu-memory 3M \
    --threads 1 2> "$name.log" && ok || bad "--table host --dtype f16 ($transfer): $(tail -2 "$name.log")"
  grep -q "the host tables are f16 too" "$name.log" && ok || bad "$name: $(grep -m1 'host tables' "$name.log")"
  within "$(last_loss "$name.log")" "$cpu_loss" 0.05 && ok || bad "$name: loss $(last_loss "$name.log") vs CPU $cpu_loss"
  spearman_near "$name" "$name.emb" "$cpu_spearman" "the CPU's"
done

expect_error "--table device that does not fit" 1 "use --table host" "$ET" "${RUN[@]}" -o e.emb --device cuda \
  --table device --gpu-memory 1M
expect_error "--table host with too little memory" 1 "raise --gpu-memory or lower --threads" "$ET" "${RUN[@]}" -o e.emb \
  --device cuda --table host --gpu-memory 64K
# 3M holds neither the two 1.2 MB tables with their batches nor full batches: host
# placement with smaller batches, some of the rows hot and the rest copied per batch.
"$ET" --corpus "$CORPUS" --dim 64 --epochs 5 --seed 3 --threads 1 -o small.emb --device cuda --gpu-memory 3M \
  --metrics small.jsonl 2> small.log && ok ||
  bad "auto placement within 3M: $(tail -1 small.log)"
grep -q "they stay in host memory" small.log && ok || bad "--table auto picks host when the tables do not fit"
grep -qE "most touched rows in GPU memory: [1-9][0-9]* of the input table's and [1-9][0-9]* of the output" small.log && ok ||
  bad "some rows hot, some copied: $(grep training small.log)"
within "$(last_loss small.log)" "$cpu_loss" 0.05 && ok || bad "host placement in 3M: loss $(last_loss small.log) vs CPU $cpu_loss"
# The traffic each epoch: device placement serves every touch in GPU memory and moves
# only the batches' ids; host placement in 3M copies rows both ways. The GPU memory
# is as the device counts it (its allocation granularity on top of the plan's 3M).
grep -qE 'epoch 5/5: .*; GPU: 100\.0% of row touches on resident rows, [0-9]+ B/word to it' device.log && ok ||
  bad "device placement's traffic line: $(grep 'epoch 5/5' device.log)"
grep -qE 'epoch 5/5: .*; GPU: [1-9][0-9]?\.[0-9]% of row touches.*; workers waited for it [0-9]+% of their time, copied rows [0-9]+%; kernels busy [0-9]+% of the epoch; a batch [0-9.]+ ms in, [0-9.]+ ms queued, [0-9.]+ ms in kernels, [0-9.]+ ms out' small.log && ok ||
  bad "host placement's traffic line: $(grep 'epoch 5/5' small.log)"
python3 - small.jsonl <<'PY' && ok || bad "--metrics traffic fields: $(tail -1 small.jsonl)"
import json, sys
epochs = [m for m in map(json.loads, open(sys.argv[1])) if m["event"] == "epoch"]
assert len(epochs) == 5, epochs
for m in epochs:
    assert 0 < m["resident_share"] < 1, m
    assert 20 < m["to_gpu_per_item"] < 100000 and 0 < m["from_gpu_per_item"] < m["to_gpu_per_item"] * 2, m
    assert 0 < m["gpu_memory"] < 64 * 2**20, m
    assert m["peak_rss"] > 2**20, m
    # Where the workers' time went: host placement in 3M copies rows, and waits for the
    # GPU some of the time (both shares of the workers' time, so at most 1).
    assert 0 <= m["gpu_wait_share"] <= 1 and 0 < m["row_copy_share"] <= 1, m
    # The batches' times on the GPU: its kernels ran some of the epoch, and a batch's parts
    # each took less than the epoch.
    assert 0 < m["kernel_share"] <= 1 and 0 < m["batch_kernel_s"] and 0 < m["batch_in_s"] and 0 < m["batch_out_s"], m
    assert all(0 <= m[k] < m["time"] for k in ("batch_in_s", "batch_queued_s", "batch_kernel_s", "batch_out_s")), m
PY

# Skip-gram and CBOW with an optimizer that keeps state: device placement and host placement
# with most rows cold (their state travels with them) end near the CPU's loss with the
# same optimizer and score near its WS-353 sample; --dtype f16 keeps f32 rows on the GPU
# for the state, and says so.
# - The loss within 10%: rowadagrad's skip-gram in device placement, four workers with
#   batches of 512 windows in flight, ended 5.5% and 8.7% above the CPU's on two calls on
#   an H200 (2026-11-27) after passing within 5% on an H100, its Spearman within 0.08. One
#   epoch ends near 2.6, 25% above; an untrained model at 4.2.
# - The Spearman within 0.12: with adagrad the CPU alone scores 0.447 to 0.561 (skip-gram)
#   and 0.277 to 0.369 (CBOW) over seeds 3-6 at these settings (2 cores, 2026-11-27), and the
#   GPU's host placement came out 0.08 below the CPU's run, inside that spread.
for optimizer in adagrad rowadagrad; do
  for model in skipgram cbow; do
    "$ET" "${RUN[@]}" -o "$optimizer-$model-cpu.emb" --model "$model" --optimizer "$optimizer" --device cpu \
      2> "$optimizer-$model-cpu.log" || bad "$optimizer $model: CPU reference run"
    # In 3M the rows a batch touches, with their state, fit one worker's batches, not 4's.
    for placement in "device --threads 4" "host --host-transfer gather --gpu-memory 3M --threads 1"; do
      name="$optimizer-$model-${placement%% *}"
      # shellcheck disable=SC2086
      "$ET" "${SETTINGS[@]}" -o "$name.emb" --model "$model" --optimizer "$optimizer" --device cuda --table $placement \
        2> "$name.log"
      check "$name: exit status" "$?" "0"
      grep -q "training $model on cuda (.*optimizer $optimizer" "$name.log" && ok || bad "$name: $(grep training "$name.log")"
      within "$(last_loss "$name.log")" "$(last_loss "$optimizer-$model-cpu.log")" 0.10 && ok ||
        bad "$name: loss $(last_loss "$name.log") vs CPU $(last_loss "$optimizer-$model-cpu.log")"
      spearman_near "$name" "$name.emb" "$(sample_spearman "$optimizer-$model-cpu.emb")" "the CPU's" 0.12
    done
  done
done
grep -qE "GPU: [1-9][0-9]?\.[0-9]% of row touches" rowadagrad-skipgram-host.log && ok ||
  bad "rowadagrad in 3M: some rows copied: $(grep 'epoch 5/5' rowadagrad-skipgram-host.log)"
"$ET" "${RUN[@]}" -o adagrad-f16.emb --optimizer adagrad --device cuda --dtype f16 2> adagrad-f16.log &&
  grep -q "keeps f32 rows on the GPU for its state" adagrad-f16.log && ok || bad "adagrad with --dtype f16: $(tail -2 adagrad-f16.log)"
# Adam (like every rule whose state is not a sum) trains skip-gram and CBOW on the GPU in
# summed steps of 1024 windows (train/word2vec/summed_steps.h), from a rate of its own that
# the log names. The CPU trains the same steps with EMBED_SUMMED_WINDOWS=1024 at that rate:
# the GPU's loss within 10% of it and its WS-353 sample no more than the seed spread (0.12)
# below it, in device placement and in host placement with most rows copied (3M). Above it
# is no fault: on an H200 (2026-11-27) CBOW's device run scored 0.460, the CPU's 0.309.
for model in skipgram cbow; do
  name="adam-$model"
  "$ET" "${RUN[@]}" -o "$name.emb" --model "$model" --optimizer adam --device cuda 2> "$name.log"
  check "$name: exit status" "$?" "0"
  grep -q "training $model on cuda (.*steps summed over 1024 windows" "$name.log" && ok ||
    bad "$name: summed steps: $(grep training "$name.log")"
  lr=$(sed -n 's/.*--optimizer adam starts at lr \([0-9.e-]*\) on the GPU.*/\1/p' "$name.log")
  [[ -n $lr ]] && ok || bad "$name: the GPU's starting rate in the log: $(grep -i 'lr' "$name.log" | head -2)"
  EMBED_SUMMED_WINDOWS=1024 "$ET" "${RUN[@]}" -o "$name-cpu.emb" --model "$model" --optimizer adam --lr "${lr:-0.01}" \
    --device cpu 2> "$name-cpu.log" || bad "$name: CPU reference run"
  for run in "$name" "$name-host"; do
    if [[ $run == *-host ]]; then
      "$ET" "${SETTINGS[@]}" -o "$run.emb" --model "$model" --optimizer adam --device cuda --table host \
        --host-transfer gather --gpu-memory 3M --threads 1 2> "$run.log"
      check "$run: exit status" "$?" "0"
    fi
    within "$(last_loss "$run.log")" "$(last_loss "$name-cpu.log")" 0.10 && ok ||
      bad "$run: loss $(last_loss "$run.log") vs the CPU's summed steps $(last_loss "$name-cpu.log")"
    spearman_no_worse "$run" "$run.emb" "$(sample_spearman "$name-cpu.emb")" "the CPU's summed steps" 0.12
  done
done

# fastText's model (--subwords) on the GPU: skip-gram and CBOW reach the CPU's loss and
# WS-353 sample, in f32 and f16, and the output answers words outside the vocabulary;
# --device auto takes the GPU for it too.
SUB=(--subwords --buckets 200000 --minn 3 --maxn 6)
"$ET" "${ONE_EPOCH[@]}" "${SUB[@]}" -o auto.emb --device auto 2> auto.log &&
  grep -q "training skipgram on cuda (.*subwords" auto.log && ok || bad "--subwords --device auto: $(tail -2 auto.log)"
for model in skipgram cbow; do
  "$ET" "${RUN[@]}" "${SUB[@]}" --model "$model" -o "sub-$model-cpu.emb" --device cpu 2> "sub-$model-cpu.log" ||
    bad "subwords $model: CPU reference run"
  sub_spearman=$(sample_spearman "sub-$model-cpu.emb")
  for dtype in f32 f16; do
    name="sub-$model-$dtype"
    "$ET" "${RUN[@]}" "${SUB[@]}" --model "$model" --dtype "$dtype" -o "$name.emb" --device cuda \
      2> "$name.log"
    status=$?
    check "$name: exit status" "$status" "0"
    ((status == 0)) || tail -2 "$name.log" >&2
    grep -q "training $model on cuda (.*subwords" "$name.log" && ok || bad "$name: on the GPU: $(grep training "$name.log")"
    within "$(last_loss "$name.log")" "$(last_loss "sub-$model-cpu.log")" 0.05 && ok ||
      bad "$name: loss $(last_loss "$name.log") vs CPU $(last_loss "sub-$model-cpu.log")"
    spearman_near "$name" "$name.emb" "$sub_spearman" "the CPU's"
    check "$name: a word outside the vocabulary answered" "$("$EQ" "$name.emb" zebrafishes -k 3 --format tsv | wc -l)" "3"
  done
done
expect_error "--subwords with adagrad on the GPU" 1 "--subwords trains with --optimizer sgd on the GPU" \
  "$ET" "${RUN[@]}" "${SUB[@]}" -o e.emb --device cuda --optimizer adagrad
# Tables the budget cannot hold (200,000 buckets at dim 64: 51 MB): --table auto keeps
# them in host memory, each batch taking its words' lists and copying the rows they list,
# each table's most touched rows hot, n-gram buckets among them (hot_rows.h);
# skip-gram and CBOW reach the CPU's loss and WS-353
# sample, in gather and mapped transfers. One worker: four workers' batches copying each
# word's 20-odd rows do not fit 8M.
for model in skipgram cbow; do
  for transfer in gather mapped; do
    name="sub-$model-host-$transfer"
    "$ET" "${SETTINGS[@]}" --threads 1 "${SUB[@]}" --model "$model" -o "$name.emb" --device cuda --gpu-memory 8M \
      --host-transfer "$transfer" 2> "$name.log"
    check "$name: exit status" "$?" "0"
    grep -q "they stay in host memory" "$name.log" && ok || bad "$name: host placement: $(grep -i 'training\|table' "$name.log" | head -2)"
    grep -qE "\([1-9][0-9]* of them n-gram buckets\)" "$name.log" && ok || bad "$name: hot buckets: $(grep training "$name.log")"
    grep -qE "GPU: [0-9.]+% of row touches" "$name.log" && ok || bad "$name: the traffic line: $(grep 'epoch 5/5' "$name.log")"
    within "$(last_loss "$name.log")" "$(last_loss "sub-$model-cpu.log")" 0.05 && ok ||
      bad "$name: loss $(last_loss "$name.log") vs CPU $(last_loss "sub-$model-cpu.log")"
    spearman_near "$name" "$name.emb" "$(sample_spearman "sub-$model-cpu.emb")" "the CPU's"
    check "$name: a word outside the vocabulary answered" "$("$EQ" "$name.emb" zebrafishes -k 3 --format tsv | wc -l)" "3"
  done
done
# 16M holds every row the words list (text8-200k's 4,554 words: 37,351 input rows) but not
# the tables: host placement keeps them all hot and copies nothing, its batches long.
for model in skipgram cbow; do
  name="sub-$model-touched"
  "$ET" "${SETTINGS[@]}" --threads 1 "${SUB[@]}" --model "$model" -o "$name.emb" --device cuda --gpu-memory 16M \
    2> "$name.log"
  check "$name: exit status" "$?" "0"
  grep -q "they stay in host memory" "$name.log" && ok || bad "$name: host placement: $(grep -i 'training\|table' "$name.log" | head -2)"
  grep -qE 'epoch 5/5: .*; GPU: 100\.0% of row touches on resident rows' "$name.log" && ok ||
    bad "$name: every touch on a hot row: $(grep 'epoch 5/5' "$name.log")"
  within "$(last_loss "$name.log")" "$(last_loss "sub-$model-cpu.log")" 0.05 && ok ||
    bad "$name: loss $(last_loss "$name.log") vs CPU $(last_loss "sub-$model-cpu.log")"
  spearman_near "$name" "$name.emb" "$(sample_spearman "sub-$model-cpu.emb")" "the CPU's"
done

# GloVe on the GPU: both placements reach the CPU trainer's cost on the same counts and seed.
GLOVE=(--corpus "$CORPUS" --model glove --dim 50 --epochs 10 --seed 3 --threads 4)
last_cost() { grep -o 'cost [0-9.]*' "$1" | tail -1 | cut -d' ' -f2; }
"$ET" "${GLOVE[@]}" -o glove-cpu.emb --device cpu 2> glove-cpu.log || bad "glove: CPU reference run"
for placement in "device" "host gather" "host mapped"; do
  read -r table transfer <<<"$placement"
  name="glove-$table${transfer:+-$transfer}"
  # shellcheck disable=SC2046
  "$ET" "${GLOVE[@]}" -o "$name.emb" --device cuda $(placement_flags "$table" "$transfer") 2> "$name.log"
  status=$?
  check "$name: exit status" "$status" "0"
  ((status == 0)) || tail -2 "$name.log" >&2
  grep -q "training glove on cuda (" "$name.log" && ok || bad "$name: trained on the GPU: $(grep training "$name.log")"
  within "$(last_cost "$name.log")" "$(last_cost glove-cpu.log)" 0.05 && ok ||
    bad "$name: cost $(last_cost "$name.log") vs CPU $(last_cost glove-cpu.log)"
done
expect_error "glove: --table device that does not fit" 1 "use --table host" "$ET" "${GLOVE[@]}" -o e.emb --device cuda \
  --table device --gpu-memory 1M
# GloVe with rmsprop, whose state the kernel writes in place (concurrent records of one
# row may lose each other's change to it): a cost no higher than the CPU's (+10%). On an
# H200 the GPU's came out lower (gpu_glove_tests, 2026-11-26).
"$ET" "${GLOVE[@]}" -o glove-rmsprop-cpu.emb --optimizer rmsprop --device cpu 2> glove-rmsprop-cpu.log ||
  bad "glove rmsprop: CPU reference run"
for table in device host; do
  "$ET" "${GLOVE[@]}" -o "glove-rmsprop-$table.emb" --optimizer rmsprop --device cuda --table "$table" \
    2> "glove-rmsprop-$table.log"
  check "glove rmsprop $table: exit status" "$?" "0"
  python3 -c "import sys; a, b = map(float, sys.argv[1:]); sys.exit(a > 1.10 * b)" "$(last_cost "glove-rmsprop-$table.log")" \
    "$(last_cost glove-rmsprop-cpu.log)" && ok ||
    bad "glove rmsprop $table: cost $(last_cost "glove-rmsprop-$table.log") vs CPU $(last_cost glove-rmsprop-cpu.log)"
done

# Ctrl-C on the GPU: a checkpoint the GPU (or the CPU) resumes from.
LONG=(--corpus "$CORPUS" --dim 64 --epochs 40 --seed 3 --threads 4 --device cuda)
wait_for() { for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
set -m
for table in device host; do
  rm -f run.emb run.emb.ckpt run.log  # a stale "epoch 2/40" would be waited for no time
  "$ET" "${LONG[@]}" --table "$table" -o run.emb 2> run.log &
  pid=$!
  wait_for run.log 'epoch 2/40' || bad "$table: training never got going"
  kill -INT $pid
  wait $pid
  check "$table: interrupted exit status" "$?" "130"
  [[ -f run.emb.ckpt && ! -e run.emb ]] && ok || bad "$table: checkpoint and no output"
  "$ET" --resume run.emb.ckpt --device cuda --table "$table" 2> resume.log
  check "$table: resume on the GPU" "$?" "0"
  # Resumed, not restarted: it says where it goes on, its first epoch is after those the
  # interrupted run finished, and that epoch's loss is near the last one's (a run restarted
  # from scratch would log epoch 1 again, at the first epoch's higher loss).
  done_epochs=$(grep -c 'epoch [0-9]*/40:' run.log)
  grep -q "resuming skipgram training at epoch $((done_epochs + 1)) of 40" resume.log && ok ||
    bad "$table: resume: $(grep resuming resume.log)"
  first_resumed=$(grep -o 'epoch [0-9]*/40' resume.log | head -1)
  check "$table: the resumed run's first epoch" "$first_resumed" "epoch $((done_epochs + 1))/40"
  last_before=$(last_loss run.log)
  resumed_first=$(grep -o 'loss [0-9.]*' resume.log | head -1 | cut -d' ' -f2)
  within "$resumed_first" "$last_before" 0.05 && ok ||
    bad "$table: the resumed run's first loss $resumed_first, the interrupted run's last $last_before"
  check "$table: no temporaries left" "$(litter)" "0"
done
finish
