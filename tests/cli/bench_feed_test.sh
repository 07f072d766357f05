#!/usr/bin/env bash
# End-to-end test of bench-feed (scripts/bench/feed.cpp): it counts and walks a corpus
# (plain, gzip, standard input, several copies), packing every batch, and reports one
# line per epoch and the last epoch's words/s; a missing corpus is one line and exit 1,
# a bad option exit 2.
# Usage: bench_feed_test.sh PATH/TO/bench-feed (run from the repo root)
set -u

FEED=$(realpath "${1:?usage: bench_feed_test.sh BENCH_FEED}")
DATA=$PWD/data
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# feed_rate FILE: the words/s of its "feed W" line, or nothing.
feed_rate() { awk '$1 == "feed" {print $2}' "$1"; }

"$FEED" --corpus "$DATA/text8-200k.txt.gz" --threads 2 --epochs 2 > gz.txt 2> gz.err
check "gzip corpus: exit status" "$?" "0"
# The words an epoch trains: text8-200k's in the vocabulary (min-count 5), each epoch all of them.
words=$(sed -n 's/^counting: .*, \([0-9]*\) words, vocabulary [0-9]*$/\1/p' gz.txt)
((${words:-0} > 150000 && ${words:-0} < 200000)) && ok || bad "counting line: $(head -2 gz.txt)"
[[ $(grep -c "^epoch [12]: $words words in" gz.txt) == 2 ]] && ok || bad "one line per epoch: $(cat gz.txt)"
python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 1e5)" "$(feed_rate gz.txt)" && ok || bad "words/s: $(cat gz.txt)"
[[ -z $(ls "${TMPDIR:-/tmp}"/bench-feed-* 2> /dev/null) ]] && ok || bad "spool files left behind: $(ls "${TMPDIR:-/tmp}"/bench-feed-*)"

gzip -dc "$DATA/text8-200k.txt.gz" > plain.txt
"$FEED" --corpus plain.txt --copies 3 --threads 1 --model cbow --batch-words 500 > copies.txt 2> copies.err
check "three copies: exit status" "$?" "0"
copied=$(sed -n 's/^counting: .*, \([0-9]*\) words, vocabulary [0-9]*$/\1/p' copies.txt)
((${copied:-0} > 3 * ${words:-0})) && grep -q "^epoch 1: $copied words in .* batches of" copies.txt && ok ||
  bad "three copies (more words pass min-count): $(cat copies.txt)"
gzip -dc "$DATA/text8-200k.txt.gz" | "$FEED" --corpus - --threads 2 > stdin.txt 2> stdin.err
check "standard input: exit status" "$?" "0"
grep -q "^epoch 1: $words words" stdin.txt && ok || bad "standard input: $(cat stdin.txt)"

"$FEED" --corpus missing.txt > out.txt 2> err.txt
check "missing corpus: exit status" "$?" "1"
[[ $(wc -l < err.txt) == 1 ]] && grep -q "missing.txt" err.txt && ok || bad "missing corpus: $(cat err.txt)"
"$FEED" --corpus plain.txt --model glove > out.txt 2> err.txt
check "bad --model: exit status" "$?" "2"
[[ $(wc -l < err.txt) == 1 ]] && ok || bad "bad --model: not one line: $(cat err.txt)"
"$FEED" --corpus - --copies 2 < plain.txt > out.txt 2> err.txt
check "--copies of standard input: exit status" "$?" "2"

finish
