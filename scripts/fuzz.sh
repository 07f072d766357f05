#!/usr/bin/env bash
# fuzz.sh TARGET|all [SECONDS]: runs the libFuzzer harnesses of tests/fuzz (one per reader)
# under AddressSanitizer and UndefinedBehaviorSanitizer.
#
# Builds them in the sanitizer build, build-asan/ (scripts/sanitize_build.sh: clang, -O1,
# EMBED_FUZZ=ON), makes each harness's seed corpus
# with our own tools from data/ (vectors as .emb, GloVe text, word2vec text and binary and
# gzip; a co-occurrence file; checkpoints of skip-gram, CBOW and GloVe runs interrupted
# mid-run; query lines and evaluation files; corpus text and word lists; fastText models made
# by tests/cli/make_fasttext_model.py), then runs TARGET,
# or every harness, one per core at a time, for SECONDS each (default 60). Inputs it finds new go to
# build-asan/corpus/TARGET, kept between runs. A finding (crash, sanitizer report, an exception other than embed::Error,
# a single allocation over 2 GB, an input taking over 10 s) stops it with the input saved as
# build-asan/findings/TARGET-*; the exit status is then non-zero. Replay one with
#   build-asan/tests/fuzz/TARGET build-asan/findings/TARGET-crash-...
# and, once it is fixed, copy it to tests/fuzz/regressions/TARGET/: every build's tests replay
# those (ctest -R regressions).
# Needs clang and libclang-rt-14-dev (bash scripts/setup.sh --fuzz).
# FUZZ_JOBS: how many campaigns run at once (default: the cores). FUZZ_IDLE_MARK: a file to
# touch once a core has no campaign left (below).
# Targets: fuzz_text_vectors fuzz_word2vec_binary fuzz_fasttext_model fuzz_convert fuzz_emb fuzz_cooc fuzz_checkpoint fuzz_query fuzz_corpus
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stage_times.sh
target=${1:?usage: fuzz.sh TARGET|all [SECONDS]}
seconds=${2:-60}
all=(fuzz_text_vectors fuzz_word2vec_binary fuzz_fasttext_model fuzz_convert fuzz_emb fuzz_cooc fuzz_checkpoint fuzz_query fuzz_corpus)
if [[ $target == all ]]; then targets=("${all[@]}"); else targets=("$target"); fi
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target $t (${all[*]})" >&2; exit 2; }
done
source scripts/sanitize_build.sh

# The sanitizer build's folder (scripts/sanitize_build.sh): after scripts/test.sh --sanitize,
# as in CI, the harnesses are built already.
build=$sanitize_dir
start=$SECONDS
sanitize_configure || exit 1
echo "fuzz.sh: building ${targets[*]} with clang in $build"
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" embed-train glove-convert > "$build/build.log" 2>&1 ||
  { tail -40 "$build/build.log" >&2; exit 1; }
stage_done "fuzz build" $start
start=$SECONDS

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
seeds=$build/seeds
mkdir -p "$build/corpus" "$build/findings"
rm -rf "$seeds"
mkdir -p "$seeds"/{fuzz_text_vectors,fuzz_word2vec_binary,fuzz_fasttext_model,fuzz_convert,fuzz_emb,fuzz_cooc,fuzz_checkpoint,fuzz_query,fuzz_corpus}
work=$(realpath "$seeds")
ET=$build/embed-train GC=$build/glove-convert
gzip -dc data/text8-200k.txt.gz > "$work/sample.txt"
head -c 200000 "$work/sample.txt" > "$work/corpus.txt"

# Vectors in every format the readers take, small.
"$ET" --corpus "$work/corpus.txt" -o "$work/v.emb" --dim 6 --epochs 1 --threads 1 --min-count 20 -q
"$GC" -q "$work/v.emb" --limit 40 -o "$work/v40.emb"
"$GC" -q "$work/v40.emb" --dtype f16 -o "$work/fuzz_emb/f16.emb"
cp "$work/v40.emb" "$work/fuzz_emb/f32.emb"
"$GC" -q "$work/v40.emb" --to glove -o "$work/v.txt"
"$GC" -q "$work/v40.emb" --to w2v-text -o "$work/v.w2v.txt"
"$GC" -q "$work/v40.emb" --to w2v-bin -o "$work/v.bin"
gzip -c "$work/v.txt" > "$work/v.txt.gz"
for mode in 0 2 4 8; do
  { printf "\\x$(printf %02x "$mode")"; cat "$work/v.txt"; } > "$work/fuzz_text_vectors/glove-$mode"
  { printf "\\x$(printf %02x $((mode + 1)))"; cat "$work/v.w2v.txt"; } > "$work/fuzz_text_vectors/w2v-$mode"
done
cp "$work/v.bin" "$work/fuzz_word2vec_binary/v.bin"
cp "$work/v.txt" "$work/v.w2v.txt" "$work/v.bin" "$work/v.txt.gz" "$work/fuzz_convert/"
cp "$work/v40.emb" "$work/fuzz_convert/v.emb"

# fastText models (.bin): a skip-gram one, one in the original layout (no magic number), and the kinds that are
# refused (supervised, quantized).
for kind in skipgram original supervised quantized; do
  python3 tests/cli/make_fasttext_model.py "$work/fuzz_fasttext_model/$kind.bin" "$kind"
done

# A co-occurrence file.
"$ET" --model glove --corpus "$work/corpus.txt" --save-cooc "$work/fuzz_cooc/c.cooc" --min-count 30 --window 3 -q

# Checkpoints of runs interrupted mid-run: their corpus and GloVe's records stay beside them.
for model in skipgram cbow glove; do
  "$ET" --model "$model" --corpus "$work/corpus.txt" -o "$work/$model.emb" --dim 4 --epochs 100000 --threads 1 \
    --min-count 30 2> "$work/$model.log" &
  pid=$!
  for _ in $(seq 600); do grep -q 'epoch 2/' "$work/$model.log" && break; sleep 0.1; done
  kill -TERM $pid  # (a background job of a script ignores SIGINT)
  wait $pid || true
  [[ -f $work/$model.emb.ckpt ]] || { echo "fuzz.sh: no $model checkpoint for the seeds: $(tail -2 "$work/$model.log")" >&2; exit 1; }
  cp "$work/$model.emb.ckpt" "$work/fuzz_checkpoint/$model.ckpt"
done

# Query lines and evaluation files (the first byte chooses: 0 a line, 1 analogies, 2 word pairs).
for line in "paris" "paris - france + italy" "a b c" "sim a b" "3cosmul paris france italy" ""; do
  { printf '\x00'; printf '%s' "$line"; } > "$work/fuzz_query/line-${#line}"
done
{ printf '\x01'; head -40 data/analogies-sample.txt; } > "$work/fuzz_query/analogies"
{ printf '\x02'; head -40 data/wordsim-sample.tsv; } > "$work/fuzz_query/pairs"

# Corpus text (the first byte: token limit, sentence length, shards; 0x80 a word list).
for mode in 0 13 46 127; do
  { printf "\\x$(printf %02x "$mode")"; head -c 3000 "$work/sample.txt" | fold -w 120; } > "$work/fuzz_corpus/text-$mode"
done
{ printf '\x80'; head -c 600 "$work/sample.txt" | tr ' ' '\n'; } > "$work/fuzz_corpus/words"

# fuzz_one TARGET: one campaign of SECONDS; its log in $build/TARGET.log, its exit status in
# $build/TARGET.status.
fuzz_one() {
  local t=$1 rc=0
  mkdir -p "$build/corpus/$t"
  "$build/tests/fuzz/$t" "$build/corpus/$t" "$seeds/$t" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=4096 -malloc_limit_mb=2048 -artifact_prefix="$build/findings/$t-" -print_final_stats=1 \
    > "$build/$t.log" 2>&1 || rc=$?
  echo "$rc" > "$build/$t.status"
}

# The campaigns run FUZZ_JOBS at a time (default: one per core), each on a core of its own and
# each for its full SECONDS, so that all of them take SECONDS x targets / cores of wall time.
parallel=${FUZZ_JOBS:-$(nproc)}
echo "fuzz.sh: ${#targets[@]} harnesses for $seconds s each, $parallel at a time"
if [[ -n ${FUZZ_IDLE_MARK:-} ]]; then rm -f "$FUZZ_IDLE_MARK"; fi
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  rm -f "$build/$t.status"
  fuzz_one "$t" &
done
# FUZZ_IDLE_MARK: a file touched once a core has no campaign left to run (9 harnesses on 2
# cores leave one idle for the last 30 s), for a caller that has work for it (.ci/run: the kit).
while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
if [[ -n ${FUZZ_IDLE_MARK:-} ]]; then touch "$FUZZ_IDLE_MARK"; fi
wait
stage_done "fuzz" $start

status=0
for t in "${targets[@]}"; do
  if [[ $(cat "$build/$t.status" 2> /dev/null) != 0 ]]; then
    echo "fuzz.sh: $t FOUND something: $build/$t.log, input in $build/findings/" >&2
    grep -m5 -E "ERROR|SUMMARY|runtime error|terminate|==[0-9]+==" "$build/$t.log" >&2 || tail -20 "$build/$t.log" >&2
    status=1
  else
    echo "fuzz.sh: $t for $seconds s"
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$build/$t.log" | tail -3 | sed 's/^/  /'
  fi
done
exit $status
