#!/usr/bin/env bash
# count.sh: embed-train's counting pass (the vocabulary, before the first epoch) on one
# thread and on THREADS threads, each counting its byte range of the corpus (issue 36), beside
# gensim's build_vocab on the same file.
#
# The corpus is ../shared/data/text8-head.txt repeated COPIES times (default 16, about 107 MB),
# one copy per line, in the page cache. A run is the whole process, ended right after counting
# by a --min-count no word reaches (embed-train then fails with "lower --min-count"), so its
# wall time is the counting pass plus start-up. Runs are interleaved, RUNS of each (default 5);
# medians. Prints MB/s of text, the ratio of THREADS threads to one (target: at least 1.8x on
# 2 threads) and gensim 4's build_vocab(corpus_file=...) (PYTHON, default /usr/bin/python3;
# skipped without gensim). Wall seconds come from date, so that it also runs on the device
# machine, which has no GNU time. Target there (16 cores): at least 1 GB/s of text.
# Environment: COPIES, RUNS, THREADS (nproc), BUILD or EMBED_TRAIN, PYTHON, BENCH_DIR, KEEP=1,
# SHARED (../shared).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

COPIES=${COPIES:-16}
RUNS=${RUNS:-5}
THREADS=${THREADS:-$(nproc)}
EMBED_TRAIN=${EMBED_TRAIN:-$BUILD/embed-train}
PYTHON=${PYTHON:-/usr/bin/python3}

need_data "$data/text8-head.txt"
need_tool embed-train "$EMBED_TRAIN" EMBED_TRAIN
need_python
bench_scratch
corpus=$work/corpus.txt
for _ in $(seq "$COPIES"); do cat "$data/text8-head.txt"; echo; done > "$corpus"
bytes=$(stat -c %s "$corpus")
cat "$corpus" > /dev/null  # into the page cache
has_gensim=0
"$PYTHON" -c 'import gensim' 2> /dev/null && has_gensim=1

machine_line
echo "corpus: text8-head x $COPIES, $((bytes >> 20)) MiB; $(version_of "$EMBED_TRAIN"); $RUNS interleaved runs, medians"
# count_once THREADS: the counting pass's wall seconds (embed-train exits 1 after it).
count_once() {
  local start
  start=$(date +%s.%N)
  if "$EMBED_TRAIN" --corpus "$corpus" -o "$work/x.emb" --threads "$1" --min-count 1000000000000 2> "$work/err"; then
    die "embed-train trained instead of stopping after counting"
  fi
  grep -q 'lower --min-count' "$work/err" || die "embed-train failed: $(tail -1 "$work/err")"
  stats elapsed "$start" "$(date +%s.%N)" 3
}
gensim_once() {
  local start
  start=$(date +%s.%N)
  "$PYTHON" -c 'import sys
from gensim.models import Word2Vec
Word2Vec(min_count=5).build_vocab(corpus_file=sys.argv[1])' "$corpus" 2> /dev/null
  stats elapsed "$start" "$(date +%s.%N)" 3
}
one="" many="" peer=""
for _ in $(seq "$RUNS"); do
  one+=" $(count_once 1)"
  many+=" $(count_once "$THREADS")"
  if ((has_gensim)); then peer+=" $(gensim_once)"; fi
done
# mbs SECONDS: the corpus's MB (10^6 bytes) per second.
mbs() { stats rate "$bytes" "$1" --divide-by 1e6; }
t1=$(median "$one") tn=$(median "$many")
printf '%-34s %8s s %8s MB/s\n' "embed-train, 1 thread" "$t1" "$(mbs "$t1")"
printf '%-34s %8s s %8s MB/s   %sx one thread\n' "embed-train, $THREADS threads" "$tn" "$(mbs "$tn")" "$(ratio "$t1" "$tn")"
if ((has_gensim)); then
  tg=$(median "$peer")
  printf '%-34s %8s s %8s MB/s   embed-train %sx faster\n' "gensim build_vocab(corpus_file)" "$tg" "$(mbs "$tg")" \
    "$(ratio "$tg" "$tn")"
else
  echo "gensim: not installed for $PYTHON, skipped"
fi
if ((THREADS == 2)); then
  echo "target (2 threads >= 1.8x one): $(verdict "$t1 >= 1.8 * $tn")"
elif ((THREADS >= 16)); then
  echo "target ($THREADS threads >= 1 GB/s of text): $(verdict "$(mbs "$tn") >= 1000")"
fi
