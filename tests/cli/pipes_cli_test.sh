#!/usr/bin/env bash
# Every tool reading what shells hand it (issue 66): named FIFOs and process substitutions
# (`<(zcat corpus.gz)`), which can be read once only, as corpora on two threads, as --init,
# as vectors, as --vocab and as evaluation files; gzip bytes through a pipe; a pipe whose
# writer writes nothing. Each run has a time limit: reading a pipe twice hangs.
# Usage: pipes_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT
set -u
ET=$(realpath "${1:?usage: pipes_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
EQ=$(realpath "${2:?usage}")
GC=$(realpath "${3:?usage}")
DATA=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../../data")
source "$(dirname "$0")/lib.sh"

# A corpus whose first word occurs once: a reader that loses the first bytes loses it.
{ printf 'zyzzyva '; zcat "$DATA/text8-200k.txt.gz" | head -c 400000; } > corpus.txt
gzip -k corpus.txt
TRAIN=(--dim 8 --epochs 1 --min-count 1 --seed 3)
# counted LOG: the corpus line of a run's log ("N words, M distinct"), without the name.
counted() { grep -o '[0-9]* words, [0-9]* distinct' "$1"; }
"$ET" --corpus corpus.txt -o file.emb "${TRAIN[@]}" --threads 2 2> file.log
expected=$(counted file.log)
[[ -n $expected ]] && ok || bad "the corpus line of a plain run: $(head -3 file.log)"

# same_corpus NAME LOG EMB: the run counted what the plain file holds and kept its first word.
same_corpus() {
  check "$1: the corpus as counted" "$(counted "$2")" "$expected"
  "$EQ" "$3" zyzzyva -k 1 --format tsv > /dev/null 2>&1 && ok || bad "$1: the first word is lost"
}

# --- corpora, on two threads (the one path where the file was opened twice) ---
timeout 60 "$ET" --corpus <(cat corpus.txt) -o subst.emb "${TRAIN[@]}" --threads 2 2> subst.log
check "<(cat corpus.txt): exit status" "$?" "0"
same_corpus "<(cat corpus.txt)" subst.log subst.emb
timeout 60 "$ET" --corpus <(cat corpus.txt.gz) -o gz.emb "${TRAIN[@]}" --threads 2 2> gz.log
check "<(cat corpus.txt.gz): exit status" "$?" "0"
same_corpus "gzip through a pipe" gz.log gz.emb
grep -q 'gzip cannot be read from the middle' gz.log && ok || bad "gzip through a pipe: detected from its bytes: $(head -2 gz.log)"
mkfifo corpus.fifo
for try in 1 2 3; do
  cat corpus.txt > corpus.fifo &
  timeout 60 "$ET" --corpus corpus.fifo -o fifo.emb "${TRAIN[@]}" --threads 2 2> fifo.log
  check "a named FIFO, try $try: exit status" "$?" "0"
  same_corpus "a named FIFO, try $try" fifo.log fifo.emb
  wait
done
tr ' ' '\n' < corpus.txt > words.txt
timeout 60 "$ET" --corpus <(head -n 30000 words.txt) <(tail -n +30001 words.txt) -o two.emb "${TRAIN[@]}" \
  --threads 2 2> two.log
check "two process substitutions: exit status" "$?" "0"
check "two process substitutions: counted as one file" "$(counted two.log | cut -d' ' -f1)" "$(cut -d' ' -f1 <<<"$expected")"
timeout 60 "$ET" --corpus <(cat corpus.txt) --model glove -o glove.emb "${TRAIN[@]}" --threads 2 2> glove.log
check "GloVe from a pipe: exit status" "$?" "0"
same_corpus "GloVe from a pipe" glove.log glove.emb
timeout 60 "$ET" --corpus <(cat corpus.txt) --subwords --buckets 1000 -o sub.emb "${TRAIN[@]}" --threads 2 2> sub.log
check "--subwords from a pipe: exit status" "$?" "0"
same_corpus "--subwords from a pipe" sub.log sub.emb
timeout 60 "$ET" --corpus <(true) -o none.emb "${TRAIN[@]}" -q --threads 2 2> none.log
check "a pipe with nothing in it: exit status" "$?" "1"
grep -q 'embed-train: error: /dev/fd/[0-9]*: .*no words\|embed-train: error: .*empty' none.log && ok || bad "an empty pipe: $(cat none.log)"
check "no temporaries left" "$(ls -a | grep -c '\.tmp-\|corpus-[0-9]')" "0"

# --- --init from a pipe (read three times: its checksum, its kind, its rows) ---
"$GC" -q file.emb -o init.txt --to glove && gzip -k init.txt
timeout 60 "$ET" --corpus corpus.txt --init <(cat file.emb) -o init1.emb "${TRAIN[@]}" --threads 1 2> init1.log
check "--init <(cat v.emb): exit status" "$?" "0"
timeout 60 "$ET" --corpus corpus.txt --init file.emb -o init2.emb "${TRAIN[@]}" -q --threads 1
check "--init from a pipe = --init from the file" "$(vectors init1.emb)" "$(vectors init2.emb)"
timeout 60 "$ET" --corpus corpus.txt --init <(cat init.txt.gz) -o init3.emb "${TRAIN[@]}" --threads 1 2> init3.log
check "--init <(cat v.txt.gz): exit status" "$?" "0"
printf 'a 1 2\nb 1\n' > bad-init.txt
timeout 60 "$ET" --corpus corpus.txt --init <(cat bad-init.txt) -o bad.emb "${TRAIN[@]}" 2> bad-init.log
check "--init from a pipe, a bad row: exit status" "$?" "1"
grep -q 'embed-train: error: /dev/fd/[0-9]*:2: ragged row' bad-init.log && ok ||
  bad "--init from a pipe: the message names the pipe, not a temporary copy: $(cat bad-init.log)"
check "--init from a pipe: no temporary copy left" "$(ls "${TMPDIR:-/tmp}" | grep -c "embed-init-")" "0"

# --- vectors, --vocab and evaluation files from pipes ---
"$GC" -q <(cat init.txt.gz) -o from-pipe.emb && ok || bad "glove-convert <(cat v.txt.gz)"
"$GC" -q init.txt -o from-file.emb
check "glove-convert: a pipe converts as the file does" "$(vectors from-pipe.emb)" "$(vectors from-file.emb)"
check "embed-query <(cat v.emb)" "$("$EQ" <(cat file.emb) zyzzyva -k 3 --format tsv | cut -f3)" \
  "$("$EQ" file.emb zyzzyva -k 3 --format tsv | cut -f3)"
"$GC" -q file.emb --vocab <(printf 'zyzzyva\nthe\n') -o two-words.emb && check "--vocab from a pipe" \
  "$("$GC" --info two-words.emb | grep -o '^rows *[0-9]*' | tr -s ' ')" "rows 2" || bad "--vocab from a pipe"
"$EQ" eval file.emb --analogies <(cat "$DATA/analogies-sample.txt") --format tsv > eval.tsv &&
  grep -q $'^analogies\ttotal\t' eval.tsv && ok || bad "eval --analogies from a pipe"

finish
