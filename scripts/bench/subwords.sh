#!/usr/bin/env bash
# subwords.sh: embed-train --subwords (fastText's model) against Debian's fastText 0.9.2 with
# the same settings, in one run: MODEL (skipgram; or cbow) on ../shared/data/text8-head.txt
# repeated REPEAT times (1), dim DIM (100), window 5, negative 5, min-count 5, sample 1e-4,
# n-grams of 3 to 6 characters in BUCKETS buckets (2000000: fastText's defaults), lr LR (0.05,
# fastText's), EPOCHS epochs (5), THREADS threads (2). Per seed in SEEDS ("1 2 3"), the two
# tools in turn:
#   words/s    of training: ours the epochs' (--metrics), fastText's its last words/sec/thread
#              times the threads; and each whole process's seconds and peak RSS (GNU time)
#   analogy    Google's analogies restricted to the RESTRICT (30000) most frequent words, and
#   ws353      WordSim-353 Spearman over the pairs the vocabulary knows, both as gensim's
#              evaluate_word_analogies and evaluate_word_pairs (embed-query eval)
#   ws353_all  WordSim-353 Spearman over every pair, words outside the vocabulary answered from
#              their n-grams (embed-query on each tool's model; on fastText's .bin it computes
#              what `fasttext print-word-vectors` prints, tested in tests/cli)
# Then the medians, our figures over fastText's, and issue 41's targets: analogy at least
# fastText's - 0.2 points, WS-353 not lower, words/s at least 5x, peak RSS no more.
# Environment: BUILD, PYTHON (/usr/bin/python3), MODEL, REPEAT, DIM, BUCKETS, LR, EPOCHS,
# THREADS, SEEDS, RESTRICT, SHARED, BENCH_DIR, KEEP=1. Needs ../shared/data and Debian's
# fasttext (skipped with a message without them).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL=${MODEL:-skipgram}
REPEAT=${REPEAT:-1}
DIM=${DIM:-100}
BUCKETS=${BUCKETS:-2000000}
LR=${LR:-0.05}
EPOCHS=${EPOCHS:-5}
THREADS=${THREADS:-2}
SEEDS=${SEEDS:-1 2 3}
PYTHON=${PYTHON:-/usr/bin/python3}
EMBED_TRAIN=$BUILD/embed-train
EMBED_QUERY=$BUILD/embed-query
need_data "$data/text8-head.txt" "$analogies" "$wordsim"
need_tool embed-train "$EMBED_TRAIN" BUILD
need_tool embed-query "$EMBED_QUERY" BUILD
need_python
need_gnu_time
need_metrics "$EMBED_TRAIN"
command -v fasttext >/dev/null || skip "no fasttext (apt-get install fasttext)"
[[ $MODEL == skipgram || $MODEL == cbow ]] || die "MODEL is skipgram or cbow, not $MODEL"
bench_scratch
machine_line

corpus=$work/corpus.txt
for ((i = 0; i < REPEAT; i++)); do cat "$data/text8-head.txt"; echo; done >"$corpus"
words=$(wc -w <"$corpus")
grep -v '^#' "$wordsim" | cut -f1,2 >"$work/pairs.tsv"

# ws_all MODEL_FILE: Spearman over every WordSim-353 pair (embed-query answers words outside
# the vocabulary from the model's n-grams).
ws_all() {
  "$EMBED_QUERY" "$1" --format tsv -q <"$work/pairs.tsv" >"$work/answers.tsv" || die "embed-query failed on $1"
  stats pairs-spearman "$wordsim" "$work/answers.tsv" | cut -d' ' -f1
}

echo
echo "== $MODEL with subwords: text8-head x $REPEAT ($words words), dim $DIM, window 5, negative 5, minn 3, maxn 6," \
  "$BUCKETS buckets, lr $LR, $EPOCHS epochs, $THREADS threads, seeds: $SEEDS"
printf '%-9s %4s %12s %8s %8s %8s %7s %9s\n' tool seed words/s wall_s rss_MB analogy ws353 ws353_all
declare -A figures=()  # tool:figure -> the seeds' values, space-separated
for seed in $SEEDS; do
  for tool in fasttext embed; do
    if [[ $tool == fasttext ]]; then
      timed "$work/time" fasttext "$MODEL" -input "$corpus" -output "$work/ft" -dim "$DIM" -ws 5 -neg 5 -minCount 5 \
        -t 1e-4 -minn 3 -maxn 6 -bucket "$BUCKETS" -lr "$LR" -epoch "$EPOCHS" -thread "$THREADS" -seed "$seed" \
        >"$work/ft.log" 2>&1 || { tail -3 "$work/ft.log"; die "fasttext failed"; }
      rate=$(stats fasttext-rate "$work/ft.log" "$THREADS")
      model_file=$work/ft.bin
    else
      timed "$work/time" "$EMBED_TRAIN" --corpus "$corpus" --model "$MODEL" --subwords --buckets "$BUCKETS" --dim "$DIM" \
        --window 5 --negative 5 --min-count 5 --sample 1e-4 --lr "$LR" --epochs "$EPOCHS" --threads "$THREADS" \
        --seed "$seed" -o "$work/e.emb" --metrics "$work/e.metrics" 2>"$work/e.log" ||
        { tail -3 "$work/e.log"; die "embed-train failed"; }
      eval "$(epoch_figures "$work/e.metrics")"
      # shellcheck disable=SC2154 # rate: set by the eval
      rate=$(printf '%.0f' "$rate")
      model_file=$work/e.emb
    fi
    read -r wall rss_kib <<<"$(time_of "$work/time")"
    read -r acc _ _ _ ws _ <<<"$(evaluate "$model_file" "$work/q.json")" || exit 1
    all=$(ws_all "$model_file")
    rss=$(mib "$rss_kib")
    printf '%-9s %4s %12s %8s %8s %7.2f%% %7.4f %9s\n' "$tool" "$seed" "$rate" "$wall" "$rss" "$acc" "$ws" "$all"
    for figure in rate wall rss acc ws all; do figures[$tool:$figure]+="${!figure} "; done
    rm -f "$work"/ft.bin "$work"/ft.vec "$work"/e.emb
  done
done

echo
printf '%-9s %12s %8s %8s %8s %7s %9s\n' median words/s wall_s rss_MB analogy ws353 ws353_all
declare -A med=()
for tool in fasttext embed; do
  for figure in rate wall rss acc ws all; do med[$tool:$figure]=$(median "${figures[$tool:$figure]}"); done
  printf '%-9s %12s %8s %8s %7.2f%% %7.4f %9s\n' "$tool" "${med[$tool:rate]}" "${med[$tool:wall]}" "${med[$tool:rss]}" \
    "${med[$tool:acc]}" "${med[$tool:ws]}" "${med[$tool:all]}"
done
x_rate=$(ratio "${med[embed:rate]}" "${med[fasttext:rate]}")
x_wall=$(ratio "${med[fasttext:wall]}" "${med[embed:wall]}")
echo "embed / fastText: words/s ${x_rate}x (whole process ${x_wall}x faster); peak RSS $(ratio "${med[embed:rss]}" "${med[fasttext:rss]}")x"
for tool in fasttext embed; do  # rounded for the verdicts' lines
  med[$tool:acc]=$(printf '%.2f' "${med[$tool:acc]}")
  med[$tool:ws]=$(printf '%.4f' "${med[$tool:ws]}")
done
echo "targets (issue 41):"
echo "  analogy >= fastText's - 0.2: ${med[embed:acc]} vs ${med[fasttext:acc]}," \
  "$(verdict "${med[embed:acc]} >= ${med[fasttext:acc]} - 0.2")"
echo "  WS-353 not lower: ${med[embed:ws]} vs ${med[fasttext:ws]}, $(verdict "${med[embed:ws]} >= ${med[fasttext:ws]}");" \
  "every pair: ${med[embed:all]} vs ${med[fasttext:all]}, $(verdict "${med[embed:all]} >= ${med[fasttext:all]}")"
echo "  words/s >= 5x fastText's: ${x_rate}x, $(verdict "$x_rate >= 5")"
echo "  peak RSS no more than fastText's: ${med[embed:rss]} vs ${med[fasttext:rss]} MB," \
  "$(verdict "${med[embed:rss]} <= ${med[fasttext:rss]}")"
machine_line
