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
interrupt_when run.log 'epoch 1/' "$ET" --corpus corpus.txt --subwords --buckets 20000 --dim 32 --epochs "$(long_epochs 10 6)" --threads 2 \
  -o run.emb --fasttext-bin run.bin
check "interrupted" "$?" "130"
[[ -f run.emb.ckpt && ! -e run.emb && ! -e run.bin ]] && ok || bad "a checkpoint and no output"
"$ET" --resume run.emb.ckpt -q
check "resumes" "$?" "0"
"$EQ" run.emb anarchismo -k 3 | grep -q "\[oov: anarchismo\]" && ok || bad "the resumed run's .emb answers it"
[[ -s run.bin ]] && ok || bad "the resumed run writes its --fasttext-bin model"
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
# --init continues a subword model: from our .emb its buckets' rows, and each word's own row
# fitted so that its vector starts as the file's (at a rate too small to move them, the
# vectors come out as the file's); from a checkpoint its rows as they stood, output rows
# too, so its first epoch's loss is below a fresh run's (both at one rate: a fresh run's
# default, 0.07 on this small corpus, reaches the continued run's loss in one epoch). The
# file's n-gram settings are taken when not given, and refused when given otherwise.
"$ET" --corpus corpus.txt --subwords --epochs 1 --threads 1 --seed 5 --lr 1e-9 -o cont.emb --init file.emb 2>cont.log
check "--init from a subword .emb" "$?" "0"
grep -q "its 20000 n-gram bucket rows continue (3 to 6 characters), and its words' own rows are fitted" cont.log && ok ||
  bad "says what continues: $(grep -- '--subwords' cont.log)"
"$GC" --info cont.emb | grep -q "subwords.bucket_count = 20000" && ok || bad "takes the file's 20000 buckets"
"$GC" -q file.emb -o - --to glove | head -200 >before.txt
"$GC" -q cont.emb -o - --to glove | head -200 >after.txt
python3 - before.txt after.txt <<'PY' && ok || bad "the continued run's vectors start as the file's"
import sys
rows = [{l.split()[0]: [float(x) for x in l.split()[1:]] for l in open(f)} for f in sys.argv[1:]]
apart = max(abs(a - b) for w in rows[0] if w in rows[1] for a, b in zip(rows[0][w], rows[1][w]))
assert apart < 1e-5, apart
PY
"$ET" --corpus corpus.txt --subwords --buckets 20000 --dim 32 --epochs 1 --threads 1 --seed 3 --lr 0.025 -o fresh.emb \
  2>fresh.log
"$ET" --corpus corpus.txt --subwords --epochs 1 --threads 1 --seed 3 --lr 0.025 -o cont-ck.emb --init ck.ckpt 2>cont-ck.log
check "--init from a subword checkpoint with --subwords" "$?" "0"
grep -q "and its words' own rows as it holds them" cont-ck.log && ok || bad "its own rows: $(grep -- '--subwords' cont-ck.log)"
epoch_loss() { grep -o 'epoch 1/1: loss [0-9.]*' "$1" | grep -o '[0-9.]*$'; }
python3 -c "import sys; sys.exit(not float(sys.argv[1]) < 0.95 * float(sys.argv[2]))" "$(epoch_loss cont-ck.log)" \
  "$(epoch_loss fresh.log)" && ok || bad "continues, not restarts: loss $(epoch_loss cont-ck.log) vs fresh $(epoch_loss fresh.log)"
# --fasttext-bin: the model as fastText's .bin, whose vectors are the .emb's (glove-convert
# reads it back; the interop test has fastText and gensim load it), and which --init
# continues with its own rows and output matrix.
"$ET" "${ONE[@]}" -o ft.emb --fasttext-bin ft.bin
check "--fasttext-bin" "$?" "0"
"$GC" -q ft.bin -o ft-back.emb
"$GC" -q ft.emb -o - --to glove | head -200 >ft-emb.txt
"$GC" -q ft-back.emb -o - --to glove | head -200 >ft-bin.txt
python3 - ft-emb.txt ft-bin.txt <<'PY' && ok || bad "the .bin's vectors are the .emb's"
import sys
rows = [{l.split()[0]: [float(x) for x in l.split()[1:]] for l in open(f)} for f in sys.argv[1:]]
assert rows[0].keys() == rows[1].keys() and len(rows[0]) == 200
apart = max(abs(a - b) for w in rows[0] for a, b in zip(rows[0][w], rows[1][w]))
assert apart < 1e-5, apart
PY
"$ET" --corpus corpus.txt --subwords --epochs 1 --threads 1 -o ft-cont.emb --init ft.bin 2>ft-cont.log
grep -q "(a fastText model, 32 dims).*context rows from its context vectors" ft-cont.log && ok ||
  bad "--init from embed-train's .bin: $(grep -- '--init' ft-cont.log)"
expect_error "--fasttext-bin with glove" 2 "--fasttext-bin applies to --model skipgram and cbow only" \
  "$ET" --corpus corpus.txt --model glove -o e.emb --fasttext-bin e.bin
expect_error "--fasttext-bin onto --output" 2 "--fasttext-bin e.emb is --output too" \
  "$ET" --corpus corpus.txt -o e.emb --fasttext-bin e.emb
expect_error "--init with other buckets" 1 "its n-grams are 3 to 6 characters long in 20000 buckets, and --buckets asks for 1000" \
  "$ET" --corpus corpus.txt --subwords --buckets 1000 -o e.emb --init file.emb
expect_error "--init with another dim" 1 "its vectors have 32 dimensions, and --dim asks for 16" \
  "$ET" --corpus corpus.txt --subwords --dim 16 -o e.emb --init file.emb
expect_error "--lock-init with --subwords" 2 "--lock-init does not apply with --subwords" \
  "$ET" --corpus corpus.txt --subwords -o e.emb --init file.emb --lock-init
finish
