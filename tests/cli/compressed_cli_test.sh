#!/usr/bin/env bash
# End-to-end tests of compressed .emb files (glove-convert --dtype int8, --pq M) as a user
# makes and uses them: sizes, --info and --verify, the same bytes for any --threads and
# through a pipe, decoding back to text, embed-query's answers beside the f32 file's, an
# index on compressed rows, embed-train --init from one, and the errors.
# Usage: compressed_cli_test.sh EMBED_QUERY GLOVE_CONVERT EMBED_TRAIN (run from the repo root)
set -u

EQ=$(realpath "${1:?usage: compressed_cli_test.sh EMBED_QUERY GLOVE_CONVERT EMBED_TRAIN}")
GC=$(realpath "${2:?usage: compressed_cli_test.sh EMBED_QUERY GLOVE_CONVERT EMBED_TRAIN}")
ET=$(realpath "${3:?usage: compressed_cli_test.sh EMBED_QUERY GLOVE_CONVERT EMBED_TRAIN}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# k-means iterations: fewer in the sanitizer build (EMBED_TEST_LEAN), where training is slow.
pqi=(--pq-iterations "$(long_epochs 10 3)")
# 2,000 words x 50 dims of GloVe text.
"$GC" -q "$DATA/text8-sample.txt.gz" -o f32.emb || bad "convert the sample"
"$GC" -q f32.emb -o i8.emb --dtype int8 && ok || bad "--dtype int8"
"$GC" -q f32.emb -o pq.emb --pq 10 "${pqi[@]}" && ok || bad "--pq 10"
size() { stat -c %s "$1"; }
(($(size i8.emb) * 100 < $(size f32.emb) * 36)) && ok || bad "int8 is $(size i8.emb) bytes, f32 $(size f32.emb)"
(($(size pq.emb) * 100 < $(size f32.emb) * 30)) && ok || bad "pq is $(size pq.emb) bytes, f32 $(size f32.emb)"
"$GC" --info i8.emb | grep -q '^storage     int8' && ok || bad "--info names int8 storage"
"$GC" --info pq.emb | grep -q '^storage     pq: 10 sub-quantizers of 256 centroids over 5 dims' && ok || bad "--info names pq"
"$GC" --info pq.emb | grep -q 'format_version = 2' && ok || bad "a compressed file is format version 2"
"$GC" --info f32.emb | grep -q 'format_version = 1' && ok || bad "an f32 file stays version 1"
"$GC" -q --verify i8.emb && "$GC" -q --verify pq.emb && ok || bad "--verify compressed files"

# The same bytes for any --threads, from text or .emb, and written into a pipe.
"$GC" -q f32.emb -o pq1.emb --pq 10 "${pqi[@]}" --threads 1 && cmp -s pq.emb pq1.emb && ok || bad "--pq: other bytes with --threads 1"
"$GC" -q f32.emb -o - --pq 10 "${pqi[@]}" | cat > piped.emb && cmp -s pq.emb piped.emb && ok || bad "--pq into a pipe: other bytes"
"$GC" -q f32.emb -o - --dtype int8 | cat > piped8.emb && cmp -s i8.emb piped8.emb && ok || bad "int8 into a pipe: other bytes"
"$GC" -q f32.emb -o seed.emb --pq 10 "${pqi[@]}" --seed 7 && ! cmp -s pq.emb seed.emb && ok || bad "--seed 7 gives the same codes"
"$GC" f32.emb -o small.emb --pq 10 --pq-sample 500 --pq-iterations 3 2> log.txt && ok || bad "--pq-sample, --pq-iterations"
grep -q 'k-means on 500 rows, 3 iterations, seed 1' log.txt && ok || bad "the log names the sample: $(cat log.txt)"
"$GC" -q f32.emb -o opq.emb --pq 10 --opq --pq-iterations 2 && "$GC" -q --verify opq.emb && ok || bad "--pq 10 --opq"
"$GC" --info opq.emb | grep -q '^storage     pq: 10 .*, rotated (OPQ)' && ok || bad "--info names the rotation"
"$GC" --info opq.emb | grep -q 'pq.rotation  *F32  \[50, 50\]' && ok || bad "--opq: a pq.rotation tensor"
"$GC" -q f32.emb -o opq1.emb --pq 10 --opq --pq-iterations 2 --threads 1 && cmp -s opq.emb opq1.emb && ok ||
  bad "--opq: other bytes with --threads 1"

# Decoded back: to text, to f32 (the default for compressed input), or compressed again.
"$GC" -q pq.emb -o back.txt && check "decoded text rows" "$(wc -l < back.txt)" 2000
"$GC" pq.emb -o back.emb 2> log.txt && "$GC" --info back.emb | grep -q 'dtype       F32' && ok || bad "pq -> f32 .emb"
grep -q 'decoding its pq rows into f32' log.txt && ok || bad "decoding is said: $(cat log.txt)"
"$GC" -q i8.emb -o again.emb --dtype int8 || bad "int8 -> int8"
check "int8 re-encoded from its own decoding keeps its values" "$("$GC" --info again.emb | grep checksum.int8.values)" \
  "$("$GC" --info i8.emb | grep checksum.int8.values)"
"$GC" -q i8.emb -o - --to glove | head -1 | awk '{exit !(NF == 51)}' && ok || bad "int8 -> text rows of 50 values"

# embed-query on each: the neighbours of a number are numbers, as in the f32 file.
for f in f32 i8 pq opq; do
  got=$("$EQ" "$f.emb" three -k 5 --format tsv | cut -f3 | sort | tr '\n' ' ')
  for n in four five; do [[ $got == *"$n "* ]] || bad "$f: 'three' without '$n' among its neighbours: $got"; done
done
ok
# (king's best two are 0.00006 apart in f32: int8 may swap them.)
best=$("$EQ" i8.emb king -k 1 --format tsv | cut -f3)
"$EQ" f32.emb king -k 2 --format tsv | cut -f3 | grep -qx "$best" && ok || bad "int8: king's best, $best, not f32's best two"
"$EQ" pq.emb --similarity three four --format tsv > sim.txt && awk -F'\t' '{exit !($NF > 0.9)}' sim.txt && ok ||
  bad "similarity on pq: $(cat sim.txt)"
"$EQ" eval i8.emb --analogies "$DATA/analogies-sample.txt" --word-pairs "$DATA/wordsim-sample.tsv" -q > eval.txt && ok ||
  bad "eval on int8"
grep -q Spearman eval.txt && ok || bad "eval on int8 prints Spearman"

# An approximate index over compressed rows.
"$GC" -q f32.emb -o ann.emb --dtype int8 --index ann && ok || bad "--dtype int8 --index ann"
check "--ann on int8 rows" "$("$EQ" ann.emb --ann three -k 1 --format tsv | cut -f3)" "$("$EQ" i8.emb three -k 1 --format tsv | cut -f3)"

# embed-train --init from a compressed file (decoded into the starting vectors).
"$GC" -q f32.emb -o - --to glove | head -1000 | cut -d' ' -f1 > words.txt
zcat "$DATA/text8-200k.txt.gz" | head -c 200000 > corpus.txt
"$ET" -q --corpus corpus.txt --dim 50 --epochs 1 --init pq.emb -o init.emb --threads 1 && ok || bad "--init from pq"

# embed-train writes them: the vectors and the context vectors, also after Ctrl-C and --resume.
"$ET" -q --corpus corpus.txt --dim 20 --epochs 1 --pq 5 --save-context -o tpq.emb && ok || bad "embed-train --pq 5"
"$GC" --info tpq.emb | grep -q '^storage     pq: 5 sub-quantizers' && ok || bad "embed-train --pq: a pq file"
"$GC" --info tpq.context.emb | grep -q '^storage     pq: 5 sub-quantizers' && ok || bad "--save-context --pq: a pq file"
"$ET" -q --corpus corpus.txt --dim 20 --epochs 1 --dtype int8 -o ti8.emb && "$GC" --info ti8.emb | grep -q '^storage     int8' &&
  ok || bad "embed-train --dtype int8"
expect_error "embed-train --pq not dividing --dim" 2 "--pq 7: the number of sub-quantizers must divide --dim 20" \
  "$ET" --corpus corpus.txt --dim 20 --epochs 1 --pq 7 -o x.emb
zcat "$DATA/text8-200k.txt.gz" > long.txt
interrupt_when log.txt "epoch 1/" "$ET" --corpus long.txt --dim 20 --epochs "$(long_epochs 40)" --pq 5 -o r.emb --threads 1
check "Ctrl-C in a --pq run" "$?" 130
"$ET" -q --resume r.emb.ckpt && "$GC" --info r.emb | grep -q '^storage     pq: 5 sub-quantizers' && ok ||
  bad "--resume of a --pq run writes a pq file"

# Errors.
expect_error "--pq and --dtype" 2 "excludes" "$GC" f32.emb -o x.emb --pq 10 --dtype int8
expect_error "--pq-sample without --pq" 2 "requires --pq" "$GC" f32.emb -o x.emb --pq-sample 1000
expect_error "--opq without --pq" 2 "requires --pq" "$GC" f32.emb -o x.emb --opq
expect_error "--pq not dividing dim" 1 "--pq 7: the number of sub-quantizers must divide the 50 dimensions" \
  "$GC" f32.emb -o x.emb --pq 7 "${pqi[@]}"
expect_error "--pq into text" 1 "--pq 10 applies to .emb output" "$GC" f32.emb -o x.txt --pq 10
expect_error "--dtype int8 into text" 1 "--dtype int8 applies to .emb output" "$GC" f32.emb -o x.txt --dtype int8
check "nothing left behind" "$(litter)" 0

finish
