#!/usr/bin/env bash
# large_corpus.sh: embed-train on corpora read from disk every epoch (issue 17), beside
# the in-memory trainer it replaced and beside Debian's fastText.
#
#   disk     ../shared/data/text8-head.txt repeated (one copy per line) to at least
#            DISK_WORDS words (default 100M); skip-gram, 1 epoch, dim 100, window 5,
#            negative 5, sample 1e-4, min-count 5, THREADS threads: this build (the corpus
#            streamed from disk, page cache warm) against BASELINE_TRAIN (an embed-train that
#            keeps the corpus in memory as word ids: a build of commit ad08b68 or earlier),
#            interleaved, RUNS runs each. Per tool: the epoch's words/s (its per_second in
#            --metrics: corpus words over the epoch's wall time), whole-process words/s
#            (words in the file over wall seconds, counting pass included) and peak RSS.
#            Target: streamed epoch words/s >= 0.9 x in-memory. Skipped without BASELINE_TRAIN.
#            On DEVICE (cpu, the default, or cuda) as the billion part.
#   billion  the same text repeated to at least BIG_WORDS words (default 1e9, about 5.5 GB;
#            skipped with a message unless the scratch disk has the file's size + 1 GiB
#            free), one epoch of the same skip-gram with --max-vocab 100000 on DEVICE
#            (cpu, the default, or cuda): peak RSS, epoch and whole-process words/s. Then
#            fastText (Debian's 0.9.2, built without AVX; -minn 0 -maxn 0, same settings)
#            on a file of the first FASTTEXT_WORDS words' copies (default: all of them; on two
#            cores fastText needs about 1.5 hours for 1e9 words), whole-process words/s and
#            peak RSS. Targets: embed-train's peak RSS under 200 MB whatever the corpus
#            size, its words/s at least 5 x fastText's.
#
# Wall time and peak RSS come from the process itself (Python's getrusage over the child),
# so the script runs where GNU time is not installed (the device kit's machine).
# Environment: PARTS ("disk billion"), THREADS (nproc), RUNS (3), DISK_WORDS, BIG_WORDS,
# FASTTEXT_WORDS, DEVICE, BASELINE_TRAIN, EMBED_TRAIN ($BUILD/embed-train), FASTTEXT
# (fasttext), PYTHON (python3), BENCH_DIR (/tmp), KEEP=1 keeps the scratch directory,
# SHARED (../shared).
# Example (this machine, fastText on a tenth of the billion):
#   BASELINE_TRAIN=/tmp/old/embed-train FASTTEXT_WORDS=100000000 bash scripts/bench/large_corpus.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PARTS=${PARTS:-disk billion}
THREADS=${THREADS:-$(nproc)}
RUNS=${RUNS:-3}
DISK_WORDS=${DISK_WORDS:-100000000}
BIG_WORDS=${BIG_WORDS:-1000000000}
FASTTEXT_WORDS=${FASTTEXT_WORDS:-$BIG_WORDS}
DEVICE=${DEVICE:-cpu}
BASELINE_TRAIN=${BASELINE_TRAIN:-}
EMBED_TRAIN=${EMBED_TRAIN:-$BUILD/embed-train}
FASTTEXT=${FASTTEXT:-fasttext}
PYTHON=${PYTHON:-python3}
PYTHON=$(command -v "$PYTHON" || echo "$PYTHON")  # a name on PATH, as the device kit passes it

need_data
[[ -x $EMBED_TRAIN ]] || die "no embed-train at $EMBED_TRAIN (cmake --build build, or set EMBED_TRAIN)"
need_python
bench_scratch
text=$data/text8-head.txt
text_words=$(wc -w <"$text")
text_bytes=$(stat -c %s "$text")
SETTINGS=(--model skipgram --dim 100 --window 5 --negative 5 --sample 1e-4 --min-count 5 --lr 0.025 --epochs 1)

# repeated FILE WORDS: text8-head copied (one copy per line) until FILE holds at least WORDS
# words; prints the words it holds. Fails (status 1) when the disk lacks the room.
repeated() {
  local file=$1 copies=$(((($2) + text_words - 1) / text_words))
  local need=$((copies * (text_bytes + 1) + (1 << 30)))
  local avail
  avail=$(df --output=avail -B1 "$(dirname "$file")" | tail -1)
  if ((avail < need)); then
    echo "$bench_name: $file needs $((need >> 20)) MiB free (the file and 1 GiB), $((avail >> 20)) MiB are" >&2
    return 1
  fi
  for ((i = 0; i < copies; i++)); do
    cat "$text"
    [[ -z $(tail -c 1 "$text") ]] || echo
  done >"$file"
  echo $((copies * text_words))
}

# measured PREFIX COMMAND...: runs COMMAND (output to PREFIX.log); sets run_secs (wall)
# and run_mb (peak RSS of the process, MB of 2^20 bytes).
measured() {
  local prefix=$1
  shift
  stats measure "$prefix.time" "$@" >"$prefix.log" 2>&1 || { cat "$prefix.log" >&2; die "failed: $*"; }
  local kb
  read -r run_secs kb <"$prefix.time"
  run_mb=$(mib "$kb")
}

# embed BINARY CORPUS PREFIX EXTRA...: one embed-train run; sets run_secs, run_mb and
# epoch_rate (the epoch's words/s from --metrics).
embed() {
  local binary=$1 corpus=$2 prefix=$3
  shift 3
  measured "$prefix" "$binary" --corpus "$corpus" -o "$prefix.emb" "${SETTINGS[@]}" --threads "$THREADS" \
    --metrics "$prefix.jsonl" "$@"
  eval "$(epoch_figures "$prefix.jsonl")"
  # shellcheck disable=SC2154 # set by epoch_figures
  epoch_rate=$last_rate
  rm -f "$prefix.emb"
}
# whole_rate WORDS SECONDS: words/s at full precision (the medians round); mwords_per_s WORDS
# SECONDS: the same in millions ("12.345M"); millions N: N in millions ("12.345M").
whole_rate() { stats rate "$1" "$2" --format .17g; }
mwords_per_s() { stats rate "$1" "$2" --divide-by 1e6 --format .3f --suffix M; }
millions() { stats scaled "$1" --divide-by 1e6 --format .3f --suffix M; }

machine_block
echo "embed-train: $EMBED_TRAIN ($(version_of "$EMBED_TRAIN"))"
[[ -z $BASELINE_TRAIN ]] || echo "in-memory baseline: $BASELINE_TRAIN ($(version_of "$BASELINE_TRAIN"))"
echo "settings: ${SETTINGS[*]} --threads $THREADS"
notes=()

if has "$PARTS" disk; then
  echo
  if [[ -z $BASELINE_TRAIN ]]; then
    notes+=("disk: skipped: no BASELINE_TRAIN (an embed-train that keeps the corpus in memory)")
  elif ! words=$(repeated "$work/disk.txt" "$DISK_WORDS"); then
    notes+=("disk: skipped: not enough disk space")
  else
    echo "== disk: 1 epoch on text8-head repeated ($words words), --device $DEVICE, $RUNS run(s) per tool, interleaved"
    cat "$work/disk.txt" >/dev/null  # the page cache is warm for every run
    declare -A epoch_rates whole_rates peaks
    for ((run = 1; run <= RUNS; run++)); do
      for tool in streamed in-memory; do
        binary=$EMBED_TRAIN
        [[ $tool == streamed ]] || binary=$BASELINE_TRAIN
        embed "$binary" "$work/disk.txt" "$work/disk-$tool-$run" --device "$DEVICE"
        epoch_rates[$tool]+="$epoch_rate "
        whole_rates[$tool]+="$(whole_rate "$words" "$run_secs") "
        peaks[$tool]+="$run_mb "
        printf '  %-10s run %s: epoch %s words/s, whole process %s words/s (%.1f s), peak %s MB\n' "$tool" "$run" \
          "$(millions "$epoch_rate")" "$(mwords_per_s "$words" "$run_secs")" "$run_secs" "$run_mb"
      done
    done
    rm -f "$work/disk.txt"
    streamed=$(median "${epoch_rates[streamed]}") in_memory=$(median "${epoch_rates[in-memory]}")
    echo
    echo "disk, medians of $RUNS: $words words, $THREADS threads"
    printf '%-10s %14s %14s %8s\n' tool epoch_words/s whole_words/s peak_MB
    for tool in streamed in-memory; do
      printf '%-10s %14s %14s %8s\n' "$tool" "$(millions "$(median "${epoch_rates[$tool]}")")" \
        "$(millions "$(median "${whole_rates[$tool]}")")" "$(maximum "${peaks[$tool]}")"
    done
    ratio_disk=$(ratio "$streamed" "$in_memory")
    echo "streamed / in-memory epoch words/s: $ratio_disk (target >= 0.9: $(verdict "$ratio_disk >= 0.9"))"
  fi
fi

if has "$PARTS" billion; then
  echo
  if ! words=$(repeated "$work/big.txt" "$BIG_WORDS"); then
    notes+=("billion: skipped: not enough disk space for $BIG_WORDS words")
  else
    echo "== billion: 1 epoch on text8-head repeated ($words words, $(($(stat -c %s "$work/big.txt") >> 20)) MiB)," \
      "--max-vocab 100000, --device $DEVICE"
    embed "$EMBED_TRAIN" "$work/big.txt" "$work/big-embed" --max-vocab 100000 --device "$DEVICE"
    embed_whole=$(whole_rate "$words" "$run_secs")
    printf '  embed-train: epoch %s words/s, whole process %s words/s (%.1f s), peak %s MB (target < 200: %s)\n' \
      "$(millions "$epoch_rate")" "$(millions "$embed_whole")" "$run_secs" "$run_mb" "$(verdict "$run_mb < 200")"
    grep -m1 'training skipgram on' "$work/big-embed.log" | sed 's/^/  /' || true
    if ! command -v "$FASTTEXT" >/dev/null; then
      notes+=("billion: fastText skipped: '$FASTTEXT' not found (apt-get install fasttext, or set FASTTEXT)")
    else
      ft_corpus=$work/big.txt ft_words=$words
      if ((FASTTEXT_WORDS < words)); then
        # The first copies of the same text, one per line, as many as FASTTEXT_WORDS needs.
        copies=$(((FASTTEXT_WORDS + text_words - 1) / text_words))
        head -n "$copies" "$work/big.txt" >"$work/ft.txt"
        ft_corpus=$work/ft.txt ft_words=$((copies * text_words))
      fi
      measured "$work/big-fasttext" "$FASTTEXT" skipgram -input "$ft_corpus" -output "$work/ft" -minn 0 -maxn 0 \
        -dim 100 -ws 5 -neg 5 -minCount 5 -t 1e-4 -epoch 1 -lr 0.025 -thread "$THREADS" -verbose 0
      ft_whole=$(whole_rate "$ft_words" "$run_secs")
      printf '  fastText:    whole process %s words/s on %s words (%.1f s), peak %s MB\n' \
        "$(millions "$ft_whole")" "$ft_words" "$run_secs" "$run_mb"
      ratio_ft=$(ratio "$embed_whole" "$ft_whole")
      echo "  embed-train / fastText, whole-process words/s: $ratio_ft (target >= 5: $(verdict "$ratio_ft >= 5"))"
      rm -f "$work"/ft.*
    fi
    rm -f "$work/big.txt"
  fi
fi
for n in ${notes[@]+"${notes[@]}"}; do echo "$n"; done
echo
machine_line
