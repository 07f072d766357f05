#!/usr/bin/env bash
# End-to-end tests of embed-train --init as a user continues a run: from its vectors (with
# the context vectors --save-context wrote) or its checkpoint, with --init-keep and
# --lock-init, the metadata that names the file, Ctrl-C and --resume in the middle of an
# --init run ending where an uninterrupted one ends, and the errors.
# Usage: init_cli_test.sh EMBED_TRAIN GLOVE_CONVERT (run from the repo root)
set -u

ET=$(realpath "${1:?usage: init_cli_test.sh EMBED_TRAIN GLOVE_CONVERT}")
GC=$(realpath "${2:?usage: init_cli_test.sh EMBED_TRAIN GLOVE_CONVERT}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Two halves of one text: A, then B to continue on.
zcat "$DATA/text8-200k.txt.gz" > all.txt
head -c 600000 all.txt > a.txt
tail -c +600001 all.txt > b.txt
FAST=(--epochs 1 --threads 1 --seed 3)
# rows FILE: "word v1 v2 ..." per row, as GloVe text.
rows() { "$GC" -q "$1" -o - --to glove; }
# same_rows A B: how many of B's words have the bit-identical row in A (GloVe text holds each
# float's shortest round-trip digits, so equal text is equal bits).
same_rows() { awk 'NR == FNR { row[$1] = $0; next } ($1 in row) && row[$1] == $0 { n++ } END { print n + 0 }' \
  <(rows "$1") <(rows "$2"); }

"$ET" --corpus a.txt -o a.emb --dim 24 "${FAST[@]}" --save-context --checkpoint a.ckpt -q
check "A trains" "$?" "0"
a_rows=$("$GC" --info a.emb | awk '/^rows +[0-9]+$/ { print $2 }')

# --- --init from vectors: the file's dimension, its context vectors, metadata ---
"$ET" --corpus b.txt -o b.emb "${FAST[@]}" --init a.emb 2> b.log
check "--init trains" "$?" "0"
grep -q -- '--init a.emb (emb vectors, 24 dims): [0-9]* of the [0-9]* vocabulary words start from its vectors, their context rows from its context vectors (a.context.emb)' b.log &&
  ok || bad "says what came from the file: $(grep -- --init b.log)"
info=$("$GC" --info b.emb)
grep -qE '^dim +24$' <<<"$info" && ok || bad "--dim defaults to the file's"
grep -q "init = a.emb" <<<"$info" && ok || bad "metadata names the init file"
grep -q "init_checksum = crc32:$(/usr/bin/python3 -c 'import zlib,sys; print("%08x" % zlib.crc32(open("a.emb","rb").read()))')" <<<"$info" &&
  ok || bad "metadata has the file's CRC-32"
if grep -q -- "state starts afresh" b.log; then bad "SGD has no state to start afresh: $(grep -- --init b.log)"; else ok; fi
# An optimizer with state starts it afresh, and says so.
"$ET" --corpus b.txt -o b-adam.emb "${FAST[@]}" --init a.emb --optimizer adam 2> adam.log
grep -q -- "--init a.emb .*; adam's state starts afresh" adam.log && ok || bad "--init with adam: $(grep -- --init adam.log)"
# A checkpoint holds the tables the vectors and context vectors were written from.
"$ET" --corpus b.txt -o b-ckpt.emb "${FAST[@]}" --init a.ckpt 2> ckpt.log
grep -q -- '--init a.ckpt (a skipgram checkpoint, 24 dims)' ckpt.log && ok || bad "reads a checkpoint: $(grep -- --init ckpt.log)"
check "--init CHECKPOINT = --init its vectors + context vectors" "$(vectors b-ckpt.emb)" "$(vectors b.emb)"
# Text vectors work as well as .emb (GloVe text, no context file beside it).
rows a.emb > a.txt.vectors
"$ET" --corpus b.txt -o b-text.emb "${FAST[@]}" --init a.txt.vectors 2> text.log
grep -q 'glove vectors, 24 dims.*their context rows at zero' text.log && ok || bad "text vectors: $(grep -- --init text.log)"

# --- --init-keep and --lock-init ---
"$ET" --corpus b.txt -o keep.emb "${FAST[@]}" --init a.emb --init-keep --lock-init --save-context 2> keep.log
check "--init-keep --lock-init" "$?" "0"
kept=$("$GC" --info keep.emb | awk '$1 == "init_kept" { print $3 }')
[[ $kept -gt 0 ]] && ok || bad "metadata counts the kept words"
check "every word of the file is in the output, bit-identical" "$(same_rows keep.emb a.emb)" "$a_rows"
last=$(rows keep.emb | tail -1 | cut -d' ' -f1)
grep -q "^$last " <(rows a.emb) && ok || bad "the kept words come last"
check "kept words' context rows are the file's" "$(same_rows keep.context.emb a.context.emb)" "$kept"
"$ET" --corpus b.txt -o glove.emb "${FAST[@]}" --model glove --vectors w --init a.emb --lock-init -q
check "glove --lock-init: W rows unchanged" "$(same_rows glove.emb a.emb)" \
  "$(grep -o '[0-9]* of the [0-9]* vocabulary words start' keep.log | cut -d' ' -f1)"

# --- Ctrl-C in the middle of an --init run, and --resume ---
EPOCHS=$(long_epochs 20)
LONG=(--corpus b.txt --epochs "$EPOCHS" --threads 1 --seed 3 --init a.emb --init-keep --lock-init)
"$ET" "${LONG[@]}" -o whole.emb -q
interrupt_when run.log "epoch 2/$EPOCHS" "$ET" "${LONG[@]}" -o run.emb
check "interrupted --init run: exit status" "$?" "130"
mv a.emb a-moved.emb  # the run goes on from its checkpoint, not from the file
"$ET" --resume run.emb.ckpt -q
check "resume an --init run" "$?" "0"
mv a-moved.emb a.emb
cmp -s run.emb whole.emb && ok || bad "resumed --init run = uninterrupted run, bit for bit"

# --- errors before any training ---
expect_error "dimension mismatch" 1 "its vectors have 24 dimensions, and --dim asks for 50" \
  "$ET" --corpus b.txt -o e.emb --dim 50 --init a.emb
expect_error "--init-keep without --init" 2 "--init-keep applies to --init only" "$ET" --corpus b.txt -o e.emb --init-keep
expect_error "--lock-init without --init" 2 "--lock-init applies to --init only" "$ET" --corpus b.txt -o e.emb --lock-init
expect_error "--init with --resume" 2 "excludes" "$ET" --resume a.ckpt --init a.emb
expect_error "missing file" 1 "embed-train: error: nothing.emb: cannot open: No such file or directory" "$ET" --corpus b.txt -o e.emb --init nothing.emb
printf 'the 1 2\nof 3 4\nthe 5 6\n' > twice.txt
expect_error "repeated word" 1 'the word "the" is in rows 1 and 3' "$ET" --corpus b.txt -o e.emb --init twice.txt
expect_error "--lock-init on the GPU" 1 "--lock-init trains on the CPU" \
  "$ET" --corpus b.txt -o e.emb --init a.emb --lock-init --device cuda
[[ ! -e e.emb ]] && ok || bad "a failed run leaves no output"
for flag in --init --init-keep --lock-init; do
  "$ET" --help | grep -q -- "$flag" || bad "--help lacks $flag"
done
ok

finish
