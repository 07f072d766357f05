#!/usr/bin/env bash
# compressed.sh: int8 and product-quantized .emb files (glove-convert --dtype int8, --pq M;
# issue 69) against the f32 file they come from and against faiss's PQ and OPQ at the same
# code size, in one run:
#   size     each file's bytes and its ratio to the f32 file's
#   quality  analogy accuracy (restricted to RESTRICT words, as gensim) and WS-353 Spearman by
#            embed-query eval: on the f32 file, int8, our PQ and OPQ (searched in place by ADC), and
#            faiss IndexPQ's and OPQ+PQ's decodings (same M, trained on the same unit rows)
#   speed    neighbours/s for QUERIES words through embed-query (k 10), the median of RUNS runs
#            interleaved across the files; faiss IndexPQ's search of the same unit rows; the time
#            from a fresh process to its first answer (median of RUNS); its peak RSS
#   time     glove-convert's compression (and faiss's training) of the table
# The vectors: VECTORS (an .emb, or any format glove-convert reads), else skip-gram at dim DIM
# trained here on text8-head repeated REPEAT times (the issue's vectors).
# Environment: VECTORS, REPEAT (8), DIM (300), M (DIM/4), THREADS (2), QUERIES (2000), RUNS (3),
# OPQ (1; 0 leaves faiss's OPQ out: it trains about ten times as long as its PQ), PYTHON
# (/usr/bin/python3), BENCH_DIR, KEEP=1. Needs ../shared/data (skipped with a message when
# absent) and python3-faiss (without it the faiss figures are left out, with a note).
# Smoke run: REPEAT=1 DIM=40 QUERIES=200 RUNS=1 OPQ=0 bash scripts/bench/compressed.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REPEAT=${REPEAT:-8}
DIM=${DIM:-300}
THREADS=${THREADS:-2}
QUERIES=${QUERIES:-2000}
RUNS=${RUNS:-3}
OPQ=${OPQ:-1}
PYTHON=${PYTHON:-/usr/bin/python3}
EMBED_TRAIN=$BUILD/embed-train
EMBED_QUERY=$BUILD/embed-query
GLOVE_CONVERT=$BUILD/glove-convert
need_data "$analogies" "$wordsim"
need_tool embed-query "$EMBED_QUERY" BUILD
need_tool glove-convert "$GLOVE_CONVERT" BUILD
need_python
need_gnu_time
faiss=1
if ! "$PYTHON" -c 'import faiss' 2>/dev/null; then
  echo "note: no faiss for $PYTHON (apt-get install python3-faiss): its figures are left out"
  faiss=0
fi
bench_scratch
machine_line

# The f32 vectors.
if [[ -n ${VECTORS:-} ]]; then
  "$GLOVE_CONVERT" -q "$VECTORS" -o "$work/f32.emb" || die "cannot convert $VECTORS"
  echo "vectors: $VECTORS"
else
  need_data "$data/text8-head.txt"
  need_tool embed-train "$EMBED_TRAIN" BUILD
  for ((i = 0; i < REPEAT; i++)); do cat "$data/text8-head.txt"; done > "$work/corpus.txt"
  "$EMBED_TRAIN" -q --corpus "$work/corpus.txt" --model skipgram --dim "$DIM" --threads "$THREADS" --seed 1 \
    -o "$work/f32.emb" || die "training failed"
  echo "vectors: skip-gram, dim $DIM, text8-head x $REPEAT, seed 1, embed-train's defaults"
fi
dim=$("$GLOVE_CONVERT" --info "$work/f32.emb" | awk '/^dim / {print $2}')
rows=$("$GLOVE_CONVERT" --info "$work/f32.emb" | awk '/^rows / {print $2}')
M=${M:-$((dim / 4))}
echo "table: $rows x $dim; pq M = $M ($M bytes a row), $THREADS threads"

# Compression.
timed "$work/int8.time" "$GLOVE_CONVERT" -q "$work/f32.emb" -o "$work/int8.emb" --dtype int8 --threads "$THREADS" ||
  die "--dtype int8 failed"
timed "$work/pq.time" "$GLOVE_CONVERT" -q "$work/f32.emb" -o "$work/pq.emb" --pq "$M" --threads "$THREADS" ||
  die "--pq $M failed"
timed "$work/opq.time" "$GLOVE_CONVERT" -q "$work/f32.emb" -o "$work/opq.emb" --pq "$M" --opq --threads "$THREADS" ||
  die "--pq $M --opq failed"
files=(f32 int8 pq opq)
# The query words: QUERIES rows spread evenly over the table.
"$GLOVE_CONVERT" -q "$work/f32.emb" -o - --to glove | cut -d' ' -f1 |
  awk -v n="$rows" -v q="$QUERIES" 'BEGIN {step = n / q} NR - 1 >= next_row {print; next_row += step}' > "$work/queries.txt"
queries=$(wc -l < "$work/queries.txt")
if ((faiss)); then
  "$PYTHON" "$here/compressed_faiss.py" "$repo/python" "$work/f32.emb" "$M" "$THREADS" "$work/faiss-" \
    "$work/queries.txt" "$RUNS" "$OPQ" > "$work/faiss.txt" || die "compressed_faiss.py failed"
  "$GLOVE_CONVERT" -q "$work/faiss-pq.bin" --from w2v-bin -o "$work/faiss-pq.emb" || die "cannot convert faiss's PQ"
  files+=(faiss-pq)
  if [[ $OPQ == 1 ]]; then
    "$GLOVE_CONVERT" -q "$work/faiss-opq.bin" --from w2v-bin -o "$work/faiss-opq.emb" || die "cannot convert faiss's OPQ"
    files+=(faiss-opq)
  fi
fi

echo
echo "== size and quality (analogy: restricted to $RESTRICT words; faiss: its decodings, as f32)"
printf '%-10s %12s %7s %9s %8s %9s %8s\n' file bytes ratio analogy delta ws353 delta
f32_bytes=$(stat -c %s "$work/f32.emb")
for f in "${files[@]}"; do
  read -r accuracy _ _ _ spearman _ <<<"$(evaluate "$work/$f.emb" "$work/$f.json")"
  [[ $f == f32 ]] && base_accuracy=$accuracy base_spearman=$spearman
  bytes=$(stat -c %s "$work/$f.emb")
  [[ $f == faiss-* ]] && bytes=$(stat -c %s "$work/pq.emb")  # the same code size
  printf '%-10s %12s %7s %9.2f %8s %9.4f %8s\n' "$f" "$bytes" "$(ratio "$bytes" "$f32_bytes")" "$accuracy" \
    "$(stats diff -- "$accuracy" "$base_accuracy" 2)" "$spearman" "$(stats diff -- "$spearman" "$base_spearman" 4)"
done
echo "(faiss rows: the bytes our PQ file takes at the same M; faiss's own index holds the same codes)"

echo
echo "== speed: $queries neighbour queries (k 10), median of $RUNS runs, interleaved"
for ((run = 0; run < RUNS; run++)); do
  for f in f32 int8 pq opq; do
    timed "$work/$f.q$run" "$EMBED_QUERY" "$work/$f.emb" -k 10 --threads "$THREADS" < "$work/queries.txt" > /dev/null ||
      die "embed-query failed on $f"
    # The first answer: a fresh process for one word, 10 in a row (GNU time counts 10 ms steps).
    word=$(sed -n "$((run + 1))p" "$work/queries.txt")
    start=$(date +%s%N)
    for ((i = 0; i < 10; i++)); do
      "$EMBED_QUERY" "$work/$f.emb" "$word" -k 10 --threads "$THREADS" > /dev/null || die "embed-query failed on $f"
    done
    echo "$(($(date +%s%N) - start))" > "$work/$f.first$run"
    timed "$work/$f.rss$run" "$EMBED_QUERY" "$work/$f.emb" "$word" -k 10 --threads "$THREADS" > /dev/null ||
      die "embed-query failed on $f"
  done
done
printf '%-10s %12s %9s %15s %10s\n' file queries/s vs_f32 first_answer_ms rss_mb
for f in f32 int8 pq opq; do
  seconds=() first=() rss=()
  for ((run = 0; run < RUNS; run++)); do
    read -r s _ <<<"$(time_of "$work/$f.q$run")"
    seconds+=("$s")
    first+=("$(stats scaled "$(cat "$work/$f.first$run")" --divide-by 1e7 --format .1f)")
    read -r _ k <<<"$(time_of "$work/$f.rss$run")"
    rss+=("$k")
  done
  rate=$(stats rate -- "$queries" "$(median "${seconds[*]}")")
  [[ $f == f32 ]] && f32_rate=$rate
  printf '%-10s %12s %9s %15s %10s\n' "$f" "$rate" "$(ratio "$rate" "$f32_rate")" "$(median "${first[*]}")" \
    "$(mib "$(median "${rss[*]}")")"
  [[ $f == pq ]] && pq_rate=$rate
done
if ((faiss)); then
  faiss_rate=$(awk '$1 == "search" {print $3}' "$work/faiss.txt")
  printf '%-10s %12s %9s   (IndexPQ.search in Python, the same unit rows; ours includes starting the process)\n' \
    faiss-pq "$faiss_rate" "$(ratio "$faiss_rate" "$f32_rate")"
  echo "pq vs faiss IndexPQ: $(ratio "$pq_rate" "$faiss_rate")x"
fi

echo
echo "== compression time ($THREADS threads)"
echo "int8: $(time_of "$work/int8.time" | cut -d' ' -f1) s; pq M=$M: $(time_of "$work/pq.time" | cut -d' ' -f1) s," \
  "peak RSS $(mib "$(time_of "$work/pq.time" | cut -d' ' -f2)") MB; --opq: $(time_of "$work/opq.time" | cut -d' ' -f1) s"
if ((faiss)); then
  line="faiss: pq training $(awk '$2 == "pq" && $1 == "train" {print $3}' "$work/faiss.txt") s"
  [[ $OPQ == 1 ]] && line+=", opq training $(awk '$2 == "opq" {print $3}' "$work/faiss.txt") s"
  echo "$line"
fi
machine_line
