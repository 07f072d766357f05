#!/usr/bin/env bash
# End-to-end tests of embed-train --subwords (fastText's model) as a user runs it: skip-gram
# and CBOW on the bundled text8 slice, the .emb's n-gram buckets and settings, embed-query
# answering a word outside the vocabulary from them at once, f16 output, a pipe, Ctrl-C and
# --resume, and the refusals.
# Usage: subwords_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (run from the repo root)
set -u

ET=$(realpath "${1:?usage: subwords_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
EQ=$(realpath "${2:?usage}")
GC=$(realpath "${3:?usage}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

zcat "$DATA/text8-200k.txt.gz" >corpus.txt
RUN=(--corpus corpus.txt --subwords --buckets 20000 --dim 32 --epochs 2 --threads 2 --seed 3)

"$ET" "${RUN[@]}" -o sg.emb 2>sg.log
check "skip-gram with subwords trains" "$?" "0"
grep -q "subwords: n-grams of 3 to 6 characters in 20000 buckets" sg.log && ok || bad "says its n-grams: $(grep subwords sg.log)"
info=$("$GC" --info sg.emb)
grep -qE '^  subwords.buckets +F32 +\[20000, 32\]' <<<"$info" && ok || bad "the .emb holds the bucket rows: $info"
for key in "subwords.minn = 3" "subwords.maxn = 6" "subwords.bucket_count = 20000" "subwords.hash = fasttext-fnv1a-int8" \
  "train_subwords = 1" "pair_negatives = 1"; do
  grep -qF "$key" <<<"$info" && ok || bad "metadata $key"
done

# A word the corpus never has, answered from its n-grams, next to the words that share them.
"$EQ" sg.emb anarchismo -k 5 >oov.txt 2>oov.err
check "embed-query answers a word outside the vocabulary" "$?" "0"
grep -q "\[oov: anarchismo\]" oov.txt && ok || bad "marked as built from n-grams: $(cat oov.txt oov.err)"
grep -qE '^  anarch' oov.txt && ok || bad "its neighbours share its n-grams: $(cat oov.txt)"
# A word without the vocabulary's spelling at all still gets n-grams, so an answer.
"$EQ" sg.emb --similarity qwertyuiop anarchism >/dev/null 2>&1
check "any word has n-grams" "$?" "0"

"$ET" "${RUN[@]}" -o cbow.emb --model cbow -q
check "CBOW with subwords trains" "$?" "0"
"$EQ" cbow.emb anarchismo -k 3 | grep -q "\[oov: anarchismo\]" && ok || bad "CBOW's .emb answers it too"

"$ET" "${RUN[@]}" -o half.emb --dtype f16 -q
"$GC" --info half.emb | grep -qE '^  subwords.buckets +F16' && ok || bad "--dtype f16 stores the buckets as f16"
"$EQ" half.emb anarchismo -k 3 | grep -q "\[oov: anarchismo\]" && ok || bad "f16 buckets answer it"

# Into a named pipe: the .emb is written in two passes, its buckets too.
# With one thread a seed gives the same vectors every time.
ONE=(--corpus corpus.txt --subwords --buckets 20000 --dim 32 --epochs 1 --threads 1 --seed 3 -q)
mkfifo out.fifo
cat out.fifo >piped.emb &
"$ET" "${ONE[@]}" -o out.fifo
wait
rm -f out.fifo
"$ET" "${ONE[@]}" -o file.emb
"$GC" --info piped.emb | grep -q "subwords.bucket_count = 20000" && ok || bad "the piped .emb has its buckets"
check "the piped .emb equals the file" "$(md5sum <piped.emb)" "$(md5sum <file.emb)"

# Ctrl-C in the middle: a checkpoint with the bucket rows, and --resume ends with them.
rm -f run.emb run.emb.ckpt
interrupt_when run.log 'epoch 1/' "$ET" --corpus corpus.txt --subwords --buckets 20000 --dim 32 --epochs 30 --threads 2 \
  -o run.emb
check "interrupted" "$?" "130"
[[ -f run.emb.ckpt && ! -e run.emb ]] && ok || bad "a checkpoint and no output"
"$ET" --resume run.emb.ckpt -q
check "resumes" "$?" "0"
"$EQ" run.emb anarchismo -k 3 | grep -q "\[oov: anarchismo\]" && ok || bad "the resumed run's .emb answers it"
check "no temporaries left" "$(litter)" "0"

# A run without subwords starts from a subword run's checkpoint: its words from their vectors.
"$ET" "${ONE[@]}" -o ck.emb --checkpoint ck.ckpt
"$ET" --corpus corpus.txt --epochs 1 --threads 1 --seed 3 -o from-ck.emb --init ck.ckpt 2>from-ck.log
check "--init from a subword checkpoint" "$?" "0"
grep -q -- "--init ck.ckpt (a skipgram checkpoint, 32 dims)" from-ck.log && ok || bad "says what it read: $(grep -- --init from-ck.log)"

expect_error "--minn longer than --maxn" 2 "--minn 5 is longer than --maxn 3" "$ET" "${RUN[@]}" -o e.emb --minn 5 --maxn 3
expect_error "zero buckets" 2 "--buckets" "$ET" "${RUN[@]}" -o e.emb --buckets 0
expect_error "--minn without --subwords" 2 "--minn applies with --subwords only" "$ET" --corpus corpus.txt -o e.emb --minn 2
expect_error "--subwords with glove" 2 "--subwords applies to --model skipgram and cbow only" "$ET" --corpus corpus.txt \
  -o e.emb --model glove --subwords
expect_error "--subwords with --init" 2 "--init does not apply with --subwords yet" "$ET" "${RUN[@]}" -o e.emb --init sg.emb
finish
