#!/usr/bin/env bash
# optimizers.sh: every optimizer embed-train offers a model, each at a few learning rates
# around its default, on text8-head: analogy accuracy (restricted to the RESTRICT most
# frequent words, as gensim's), WordSim-353 Spearman, the final cost and records (words)/s,
# each optimizer's best rate against the model's own optimizer at its default. This is the
# table the optimizers' default learning rates (optimizer.cpp) come from
# (docs/embed-train.md shows it).
#
# The learning rates tried: each optimizer's starting rate (the model's for its own
# optimizer, else the registry's) times each of SCALES.
#
# CORPUS picks what they train on and how they are scored:
#   text8     (default) text8-head, repeated REPEAT times (1): analogy and WS-353
#   clusters  the planted-cluster corpus of big_table.sh, the "item embeddings" case
#             (bench-gen-clusters: VOCAB ids (100000) in clusters of 20, WORDS words (10M)):
#             the share of a word's 10 nearest neighbours in its own cluster (bench-cluster-
#             quality, head / middle / tail of the frequency ranks) in the analogy column
#
# Environment: BUILD, MODEL (glove, skipgram or cbow: the model whose optimizers are swept),
# CORPUS, REPEAT, VOCAB, WORDS, DIM (50), EPOCHS (10), THREADS (2), SCALES ("0.3 1 3"),
# SEEDS ("1": with several, a line per seed and the rate's mean line, which picks the best),
# LR_BASE (each optimizer's default: the rate SCALES multiply), EXTRA (more embed-train
# options, e.g. "--subwords"), OPTIMIZERS (all the model takes), PYTHON (/usr/bin/python3),
# BENCH_DIR, KEEP=1.
# Needs ../shared/data (skipped with a message when absent).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL=${MODEL:-glove}
DIM=${DIM:-50}
EPOCHS=${EPOCHS:-10}
THREADS=${THREADS:-2}
SCALES=${SCALES:-0.3 1 3}
SEEDS=${SEEDS:-1}
EXTRA=${EXTRA:-}
CORPUS=${CORPUS:-text8}
REPEAT=${REPEAT:-1}
VOCAB=${VOCAB:-100000}
WORDS=${WORDS:-10000000}
EMBED_TRAIN=$BUILD/embed-train
PYTHON=${PYTHON:-/usr/bin/python3}
EMBED_QUERY=$BUILD/embed-query
GLOVE_CONVERT=$BUILD/glove-convert
need_data
need_tool embed-train "$EMBED_TRAIN" BUILD
need_tool embed-query "$EMBED_QUERY" BUILD
need_tool glove-convert "$GLOVE_CONVERT" BUILD
need_python
[[ $CORPUS == text8 || $CORPUS == clusters ]] || die "CORPUS is text8 or clusters, not $CORPUS"
if [[ $CORPUS == clusters ]]; then
  need_tool bench-gen-clusters "$BUILD/bench-gen-clusters" BUILD
  need_tool bench-cluster-quality "$BUILD/bench-cluster-quality" BUILD
fi

# The optimizers embed-train offers; which the model takes, and each one's starting rate,
# come from a run of one epoch on a tiny corpus with no --lr (its .emb records the rate).
help=$("$EMBED_TRAIN" --help)
all=$(sed -n 's/^ *--optimizer TEXT:{\([^}]*\)}.*/\1/p' <<<"$help" | tr ',' ' ')
[[ -n $all ]] || die "cannot read --optimizer's choices from embed-train --help"
OPTIMIZERS=${OPTIMIZERS:-$all}
bench_scratch
machine_line
if [[ $CORPUS == clusters ]]; then
  corpus=$work/clusters.txt
  "$BUILD/bench-gen-clusters" --vocab "$VOCAB" --cluster-size 20 --words "$WORDS" --threads "$THREADS" --out "$corpus" \
    2>"$work/generate.log" || die "bench-gen-clusters failed: $(tail -1 "$work/generate.log")"
  corpus_name="a planted-cluster corpus ($WORDS words, $VOCAB ids in clusters of 20)"
  quality_header=(share@10 head/mid/tail)
else
  corpus=$data/text8-head.txt
  corpus_name=text8-head
  if ((REPEAT > 1)); then
    corpus=$work/text8-head-x$REPEAT.txt
    for ((i = 0; i < REPEAT; ++i)); do cat "$data/text8-head.txt"; done >"$corpus"
    corpus_name="text8-head x $REPEAT"
  fi
  quality_header=(analogy ws353)
fi
echo "== $MODEL on $corpus_name: dim $DIM, $EPOCHS epochs, $THREADS threads${EXTRA:+, $EXTRA}, seeds $SEEDS; learning rates: ${LR_BASE:-"each optimizer's default"} x ($SCALES)"
printf '%-11s %9s %5s %9s %9s %10s %12s\n' optimizer lr seed "${quality_header[@]}" cost \
  "$([[ $MODEL == glove ]] && echo records/s || echo words/s)"

: >"$work/table"
for optimizer in $OPTIMIZERS; do
  # Its default rate: what the run logs when --lr is not given (one epoch of a tiny corpus).
  head -c 20000 "$corpus" >"$work/tiny.txt"
  if ! "$EMBED_TRAIN" --corpus "$work/tiny.txt" --model "$MODEL" --optimizer "$optimizer" --epochs 1 --dim 8 \
    --min-count 1 -o "$work/tiny.emb" 2>"$work/tiny.log"; then
    echo "$optimizer: not taken by $MODEL ($(tail -1 "$work/tiny.log"))"
    continue
  fi
  default_lr=${LR_BASE:-$("$GLOVE_CONVERT" --info "$work/tiny.emb" | sed -n 's/^ *lr = //p')}
  [[ -n $default_lr ]] || die "cannot read the learning rate $optimizer defaults to"
  for scale in $SCALES; do
    lr=$(stats scaled "$default_lr" --times "$scale" --format .3g)
    accuracies="" seconds=""
    for seed in $SEEDS; do
    name=$optimizer-$lr-$seed
    # shellcheck disable=SC2086 # EXTRA: options, split on purpose
    if ! "$EMBED_TRAIN" --corpus "$corpus" --model "$MODEL" --optimizer "$optimizer" --lr "$lr" --dim "$DIM" \
      --epochs "$EPOCHS" --threads "$THREADS" --seed "$seed" $EXTRA --metrics "$work/$name.metrics" -o "$work/$name.emb" \
      2>"$work/$name.log"; then
      printf '%-11s %9s %5s %s\n' "$optimizer" "$lr" "$seed" "failed: $(tail -1 "$work/$name.log")"
      continue
    fi
    if [[ $CORPUS == clusters ]]; then
      # The share, as a percentage in the analogy column; the thirds in WS-353's.
      quality=$("$BUILD/bench-cluster-quality" "$work/$name.emb" --cluster-size 20 --threads "$THREADS" 2>&1) ||
        die "bench-cluster-quality failed: $quality"
      eval "$(stats cluster-quality - <<<"$quality")"  # share, thirds
      # shellcheck disable=SC2154 # share and thirds: set by the eval above
      accuracy=$(stats scaled "$share" --times 100 --format .2f) second=$thirds
    else
      read -r accuracy _ _ _ spearman _ < <(evaluate "$work/$name.emb" "$work/$name.eval.json") || exit 1
      accuracy=$(stats scaled "$accuracy" --format .2f) second=$(stats scaled "$spearman" --format .3f)
    fi
    local_loss=0 local_rate=0
    # shellcheck disable=SC2034 # epoch_figures sets more names than these two
    eval "$(epoch_figures "$work/$name.metrics")" && local_loss=$loss local_rate=$rate
    line=$(printf '%-11s %9s %5s %8s%% %9s %10s %12s' "$optimizer" "$lr" "$seed" "$accuracy" "$second" \
      "$(stats scaled "$local_loss" --format .4f)" "$(stats scaled "$local_rate" --format .0f)")
    echo "$line"
    accuracies+="$accuracy " seconds+="${second%%/*} "
    rm -f "$work/$name.emb"
    done
    [[ -n $accuracies ]] || continue
    if (($(wc -w <<<"$SEEDS") > 1)); then
      accuracy=$(mean "$accuracies") second=$(mean "$seconds")
      line=$(printf '%-11s %9s %5s %8.2f%% %9.3f' "$optimizer" "$lr" mean "$accuracy" "$second")
      echo "$line"
    fi
    # The best rate: analogy accuracy (or the share) first, WS-353 (or the head's share) to break ties.
    echo "$optimizer $accuracy ${second%%/*} $line" >>"$work/table"
  done
  rm -f "$work"/*.emb
done
echo "== each optimizer at its best rate (${quality_header[0]} first, then ${quality_header[1]})"
for optimizer in $OPTIMIZERS; do
  grep "^$optimizer " "$work/table" | sort -k2,2gr -k3,3gr | head -1 | cut -d' ' -f4-
done
