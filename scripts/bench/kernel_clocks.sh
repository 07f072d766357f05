#!/usr/bin/env bash
# kernel_clocks.sh: where a skip-gram window's time goes on the GPU, in device placement
# (issue 36's targets: 93M words/s at dim 100 and 56M at dim 300, against the block
# kernel's 58M and 41M on an H200, about 17 µs a window at 512 windows in flight). One
# epoch of text8-head x COPIES for each kernel of KERNELS at each dim of DIMS, with
# EMBED_GPU_KERNEL_CLOCKS=1 (kernels/train/kernel_clocks.h): words/s, the share of the
# epoch the kernels ran (kern%), a batch's milliseconds in its kernels, a window's mean
# time and a block's mean run of windows by the SMs' cycle counters (at the GPU's peak
# clock), and tail: the batch's kernel time over its blocks' mean run, since a batch's
# kernel lasts as long as its slowest block. Then each run's clocks line: a window's
# phases (listing its outputs, loading its rows, ...) as shares of its cycles.
#
# Environment: BUILD, SHARED, COPIES (8), KERNELS ("block rows": EMBED_GPU_SKIPGRAM_KERNEL),
# DIMS ("100 300"), THREADS (nproc), PYTHON (python3), BENCH_DIR, KEEP=1. Needs a usable GPU and
# ../shared/data (skipped with a message where either is missing).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

COPIES=${COPIES:-8}
KERNELS=${KERNELS:-block rows}
DIMS=${DIMS:-100 300}
THREADS=${THREADS:-$(nproc)}
EMBED_TRAIN=$BUILD/embed-train
PYTHON=${PYTHON:-python3}
need_data
need_tool embed-train "$EMBED_TRAIN" BUILD
need_python
version=$("$EMBED_TRAIN" --version) || true
[[ $version =~ "CUDA backend built, "[0-9] ]] || skip "no usable GPU ($(grep "^gpus:" <<<"$version"))"
need_metrics "$EMBED_TRAIN"
[[ -n $KERNELS ]] || skip "no kernel to time (KERNELS is empty)"
bench_scratch
machine_line
echo "gpu: $(grep "^gpus:" <<<"$version")"

corpus=$work/text8-head-x$COPIES.txt
for ((i = 0; i < COPIES; ++i)); do cat "$data/text8-head.txt"; done > "$corpus"
echo "== skip-gram, device placement, 1 epoch of text8-head x $COPIES, $THREADS threads, EMBED_GPU_KERNEL_CLOCKS=1"
printf '%-7s %4s %12s %6s %10s %10s %10s %6s\n' kernel dim words/s kern% kernel_ms window_us block_us tail
lines=()
for choice in $KERNELS; do
  for dim in $DIMS; do
    name=$choice-$dim
    if ! EMBED_GPU_KERNEL_CLOCKS=1 EMBED_GPU_SKIPGRAM_KERNEL=$choice "$EMBED_TRAIN" --corpus "$corpus" --dim "$dim" --epochs 1 \
      --threads "$THREADS" --device cuda --table device --metrics "$work/$name.metrics" -o "$work/$name.emb" \
      2> "$work/$name.log"; then
      printf '%-7s %4s %s\n' "$choice" "$dim" "failed: $(tail -1 "$work/$name.log")"
      continue
    fi
    line=$(grep -m1 'kernel clocks' "$work/$name.log" | sed 's/^.*kernel clocks/kernel clocks/') ||
      die "$name: the run logged no kernel clocks"
    # shellcheck disable=SC2034 # last-epoch sets more names than these
    eval "$(stats last-epoch "$work/$name.metrics")"
    # A batch's mean time in its kernels, to the microsecond (last-epoch's batch_ms rounds to
    # hundredths of a millisecond, and a batch's kernels take a few tenths).
    kernel_ms=$("$PYTHON" - "$work/$name.metrics" <<'PY'
import json, sys
epoch = [m for m in map(json.loads, open(sys.argv[1])) if m.get("event") == "epoch"][-1]
print(f"{1e3 * epoch.get('batch_kernel_s', 0):.3f}")
PY
)
    window_us=$(sed -n 's/.* cycles (\([0-9.]*\) us at .*/\1/p' <<<"${line%%; a block*}")
    block_us=$(sed -n "s/.*a block's run of windows [0-9]* cycles (\([0-9.]*\) us.*/\1/p" <<<"$line")
    tail_factor=-
    [[ -n $block_us && -n $kernel_ms ]] && tail_factor=$(ratio "$kernel_ms" "$(stats scaled "$block_us" --divide-by 1000 --format .6g)")
    # shellcheck disable=SC2154 # wps and kernel (its kern%): set by the eval above
    printf '%-7s %4s %12.0f %5s%% %10s %10s %10s %6s\n' "$choice" "$dim" "$wps" "$kernel" "$kernel_ms" "${window_us:--}" \
      "${block_us:--}" "$tail_factor"
    lines+=("$name: $line")
  done
done
echo "== each run's clocks"
for line in "${lines[@]}"; do echo "$line"; done
rm -f "$work"/*.emb
