#!/usr/bin/env bash
# defaults.sh: each tool at its own defaults, as most users run it (issue 68): only the corpus,
# dim 100, THREADS threads and the seed given. embed-train's skip-gram, CBOW and subword model
# against Debian's fastText 0.9.2 and gensim 4.2, on text8-head repeated REPEAT times, for each
# of SEEDS, the tools in turn (so that machine noise hits them alike):
#   embed      embed-train --model MODEL [--subwords] (its own rate: the log's "lr ... for a run of")
#   fixed      embed-train with the fixed rate it had before issue 68 (skip-gram and subwords 0.025,
#              CBOW 0.05), for the issue's "no size where the new default scores below it"
#   fasttext   fasttext skipgram|cbow at its defaults (lr 0.05, sample 1e-4); for skip-gram and CBOW
#              without its character n-grams (-maxn 0: the word model), for subwords with them
#   gensim     Word2Vec(corpus_file=...) at its defaults (lr 0.025 for both models, sample 1e-3);
#              not for subwords
# Each result: analogy accuracy (Google's, restricted to the RESTRICT most frequent words, as
# gensim's evaluate_word_analogies) and WordSim-353 Spearman (embed-query eval), wall seconds.
# Then each tool's mean and issue 68's targets: embed's analogy at least the best peer's, its
# WS-353 at most 0.01 below the best peer's, and (with fixed) not below the fixed rate's by
# more than the seeds' spread.
# Environment: BUILD, MODELS ("skipgram cbow subwords"), REPEATS ("1 8"), SEEDS ("1 2 3"),
# TOOLS ("embed fixed fasttext gensim"), THREADS (2), RESTRICT, PYTHON (/usr/bin/python3), SHARED,
# BENCH_DIR, KEEP=1. Needs ../shared/data (skipped with a message when absent); fastText or
# gensim missing: left out with a note.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODELS=${MODELS:-skipgram cbow subwords}
REPEATS=${REPEATS:-1 8}
SEEDS=${SEEDS:-1 2 3}
TOOLS=${TOOLS:-embed fixed fasttext gensim}
THREADS=${THREADS:-2}
PYTHON=${PYTHON:-/usr/bin/python3}
EMBED_TRAIN=$BUILD/embed-train
EMBED_QUERY=$BUILD/embed-query
need_data "$data/text8-head.txt" "$analogies" "$wordsim"
need_tool embed-train "$EMBED_TRAIN" BUILD
need_tool embed-query "$EMBED_QUERY" BUILD
need_python
need_gnu_time
if has "$TOOLS" fasttext && ! command -v fasttext >/dev/null; then
  echo "note: no fasttext (apt-get install fasttext): left out"
  TOOLS=${TOOLS/fasttext/}
fi
if has "$TOOLS" gensim && ! "$PYTHON" -c 'import gensim' 2>/dev/null; then
  echo "note: no gensim for $PYTHON (apt-get install python3-gensim): left out"
  TOOLS=${TOOLS/gensim/}
fi
bench_scratch
machine_line

# train TOOL MODEL SEED CORPUS: trains, prints "VECTORS LR" (LR: embed-train's starting rate, or -).
train() {
  local tool=$1 model=$2 seed=$3 corpus=$4 word_model=skipgram subwords=() lr=-
  [[ $model == cbow ]] && word_model=cbow
  [[ $model == subwords ]] && subwords=(--subwords)
  case $tool in
    embed | fixed)
      local fixed=()
      if [[ $tool == fixed ]]; then
        lr=0.025
        [[ $model == cbow ]] && lr=0.05
        fixed=(--lr "$lr")
      fi
      timed "$work/time" "$EMBED_TRAIN" --corpus "$corpus" --model "$word_model" "${subwords[@]}" "${fixed[@]}" --dim 100 \
        --threads "$THREADS" --seed "$seed" -o "$work/v.emb" 2>"$work/train.log" ||
        die "embed-train failed: $(tail -1 "$work/train.log")"
      [[ $tool == embed ]] && lr=$(sed -n 's/.*: lr \([0-9.e-]*\) for a run of.*/\1/p' "$work/train.log")
      echo "$work/v.emb ${lr:--}"
      ;;
    fasttext)
      local ngrams=(-maxn 0)
      [[ $model == subwords ]] && ngrams=()
      timed "$work/time" fasttext "$word_model" -input "$corpus" -output "$work/ft" -dim 100 -thread "$THREADS" \
        -seed "$seed" "${ngrams[@]}" >"$work/train.log" 2>&1 || die "fasttext failed: $(tail -1 "$work/train.log")"
      rm -f "$work/ft.bin"
      echo "$work/ft.vec 0.05"
      ;;
    gensim)
      timed "$work/time" "$PYTHON" "$here/train_gensim.py" "$corpus" "$work/g.bin" --model "$word_model" --dim 100 \
        --sample 1e-3 --lr 0.025 --min-lr 0.0001 --threads "$THREADS" --seed "$seed" --reader file \
        >"$work/train.log" 2>&1 || die "gensim failed: $(tail -1 "$work/train.log")"
      echo "$work/g.bin 0.025"
      ;;
  esac
}

summary=$work/summary
for repeat in $REPEATS; do
  corpus=$work/corpus-$repeat.txt
  for ((i = 0; i < repeat; i++)); do cat "$data/text8-head.txt"; echo; done >"$corpus"
  words=$(wc -w <"$corpus")
  for model in $MODELS; do
    echo
    echo "== $model at each tool's defaults: text8-head x $repeat ($words words), dim 100, $THREADS threads, seeds: $SEEDS"
    printf '%-9s %4s %8s %8s %8s %8s\n' tool seed lr analogy ws353 wall_s
    declare -A acc=() ws=()
    for seed in $SEEDS; do
      for tool in $TOOLS; do
        [[ $tool == gensim && $model == subwords ]] && continue
        read -r vectors lr <<<"$(train "$tool" "$model" "$seed" "$corpus")" || exit 1
        read -r accuracy _ _ _ spearman _ <<<"$(evaluate "$vectors" "$work/q.json")" || exit 1
        read -r wall _ <<<"$(time_of "$work/time")"
        printf '%-9s %4s %8s %7.2f%% %8.4f %8s\n' "$tool" "$seed" "$lr" "$accuracy" "$spearman" "$wall"
        acc[$tool]+="$accuracy " ws[$tool]+="$spearman "
        rm -f "$vectors"
      done
    done
    echo "-- means ± half the seeds' range"
    best_acc=0 best_ws=0
    for tool in $TOOLS; do
      [[ -n ${acc[$tool]:-} ]] || continue
      a=$(mean "${acc[$tool]}") w=$(mean "${ws[$tool]}")
      printf '%-9s %14s%% %16s\n' "$tool" "$(mean_spread "${acc[$tool]}" 2)" "$(mean_spread "${ws[$tool]}" 4)"
      if [[ $tool == fasttext || $tool == gensim ]]; then
        best_acc=$(maximum "$best_acc $a") best_ws=$(maximum "$best_ws $w")
      fi
    done
    if [[ -n ${acc[embed]:-} ]]; then
      a=$(printf '%.2f' "$(mean "${acc[embed]}")") w=$(printf '%.4f' "$(mean "${ws[embed]}")")
      line="x $repeat $model: embed $a% / $w"
      if [[ $best_acc != 0 ]]; then
        line+="; analogy >= the best peer's $(printf '%.2f' "$best_acc"): $(verdict "$a >= $best_acc")"
        line+="; WS-353 >= the best peer's $(printf '%.4f' "$best_ws") - 0.01: $(verdict "$w >= $best_ws - 0.01")"
      fi
      if [[ -n ${acc[fixed]:-} ]]; then
        f=$(printf '%.2f' "$(mean "${acc[fixed]}")") noise=$(stats spread 2 -- "${acc[fixed]}")
        line+="; not below the fixed rate's $f by more than its seeds' spread (${noise:-0}): $(verdict "$a >= $f - ${noise:-0}")"
      fi
      echo "$line" | tee -a "$summary"
    fi
    unset acc ws
  done
  rm -f "$corpus"
done
echo
echo "== targets (issue 68)"
cat "$summary"
machine_line
