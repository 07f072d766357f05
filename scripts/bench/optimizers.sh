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
# Environment: BUILD, MODEL (glove, skipgram or cbow: the model whose optimizers are swept),
# DIM (50), EPOCHS (10), THREADS (2), SCALES ("0.3 1 3"),
# OPTIMIZERS (all the model takes), PYTHON (/usr/bin/python3), BENCH_DIR, KEEP=1.
# Needs ../shared/data (skipped with a message when absent).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL=${MODEL:-glove}
DIM=${DIM:-50}
EPOCHS=${EPOCHS:-10}
THREADS=${THREADS:-2}
SCALES=${SCALES:-0.3 1 3}
EMBED_TRAIN=$BUILD/embed-train
PYTHON=${PYTHON:-/usr/bin/python3}
EMBED_QUERY=$BUILD/embed-query
GLOVE_CONVERT=$BUILD/glove-convert
need_data
need_tool embed-train "$EMBED_TRAIN" BUILD
need_tool embed-query "$EMBED_QUERY" BUILD
need_tool glove-convert "$GLOVE_CONVERT" BUILD
need_python
corpus=$data/text8-head.txt

# The optimizers embed-train offers; which the model takes, and each one's starting rate,
# come from a run of one epoch on a tiny corpus with no --lr (its .emb records the rate).
help=$("$EMBED_TRAIN" --help)
all=$(sed -n 's/^ *--optimizer TEXT:{\([^}]*\)}.*/\1/p' <<<"$help" | tr ',' ' ')
[[ -n $all ]] || die "cannot read --optimizer's choices from embed-train --help"
OPTIMIZERS=${OPTIMIZERS:-$all}
bench_scratch
machine_line
echo "== $MODEL on text8-head: dim $DIM, $EPOCHS epochs, $THREADS threads; learning rates: each optimizer's default x ($SCALES)"
printf '%-11s %9s %9s %9s %10s %12s\n' optimizer lr analogy ws353 cost "$([[ $MODEL == glove ]] && echo records/s || echo words/s)"

: >"$work/table"
for optimizer in $OPTIMIZERS; do
  # Its default rate: what the run logs when --lr is not given (one epoch of a tiny corpus).
  head -c 20000 "$corpus" >"$work/tiny.txt"
  if ! "$EMBED_TRAIN" --corpus "$work/tiny.txt" --model "$MODEL" --optimizer "$optimizer" --epochs 1 --dim 8 \
    --min-count 1 -o "$work/tiny.emb" 2>"$work/tiny.log"; then
    echo "$optimizer: not taken by $MODEL ($(tail -1 "$work/tiny.log"))"
    continue
  fi
  default_lr=$("$GLOVE_CONVERT" --info "$work/tiny.emb" | sed -n 's/^ *lr = //p')
  [[ -n $default_lr ]] || die "cannot read the learning rate $optimizer defaults to"
  for scale in $SCALES; do
    lr=$(stats scaled "$default_lr" --times "$scale" --format .3g)
    name=$optimizer-$lr
    if ! "$EMBED_TRAIN" --corpus "$corpus" --model "$MODEL" --optimizer "$optimizer" --lr "$lr" --dim "$DIM" \
      --epochs "$EPOCHS" --threads "$THREADS" --metrics "$work/$name.metrics" -o "$work/$name.emb" 2>"$work/$name.log"; then
      printf '%-11s %9s %s\n' "$optimizer" "$lr" "failed: $(tail -1 "$work/$name.log")"
      continue
    fi
    read -r accuracy _ _ _ spearman _ < <(evaluate "$work/$name.emb" "$work/$name.eval.json") || exit 1
    local_loss=0 local_rate=0
    # shellcheck disable=SC2034 # epoch_figures sets more names than these two
    eval "$(epoch_figures "$work/$name.metrics")" && local_loss=$loss local_rate=$rate
    line=$(printf '%-11s %9s %8s%% %9s %10s %12s' "$optimizer" "$lr" "$(stats scaled "$accuracy" --format .2f)" \
      "$(stats scaled "$spearman" --format .3f)" "$(stats scaled "$local_loss" --format .4f)" "$(stats scaled "$local_rate" --format .0f)")
    echo "$line"
    # The best rate: analogy accuracy first, WS-353 to break ties.
    echo "$optimizer $accuracy $spearman $line" >>"$work/table"
  done
  rm -f "$work"/*.emb
done
echo "== each optimizer at its best rate (analogy first, then WS-353)"
for optimizer in $OPTIMIZERS; do
  grep "^$optimizer " "$work/table" | sort -k2,2gr -k3,3gr | head -1 | cut -d' ' -f4-
done
