#!/usr/bin/env bash
# End-to-end tests of embed-train --model glove: vectors embed-query reads, counts
# files written (alone or while training) and reused bit for bit, counting spilled to
# disk under a tiny --memory, every GloVe option, bad counts files and budgets refused
# before training, and Ctrl-C → checkpoint → --resume ending where an uninterrupted
# run ends. (glove_disk_cli_test.sh: records beyond --memory, streamed from disk.)
# Usage: glove_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (run from the repo root)
set -u

ET=$(realpath "${1:?usage: glove_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
EQ=$(realpath "${2:?usage: glove_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
GC=$(realpath "${3:?usage: glove_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CORPUS=$DATA/text8-200k.txt.gz
FAST=(--model glove --dim 16 --epochs 2 --threads 1 --seed 3)

# cooccurrences LOG: the merged count the log reports.
cooccurrences() { grep -o 'merged them into [0-9]* co-occurrences' "$1" | grep -o '[0-9]*'; }

# --- a plain run and its outputs ---
"$ET" --corpus "$CORPUS" -o a.emb "${FAST[@]}" 2> a.log
check "trains" "$?" "0"
grep -q 'counted [0-9]* (word, context) pairs' a.log && ok || bad "counting is logged: $(cat a.log)"
grep -q 'epoch 2/2: cost' a.log && ok || bad "one line per epoch, with the cost"
info=$("$GC" --info a.emb)
grep -qE '^rows +4554$' <<<"$info" && ok || bad "rows: $info"
grep -qE '^dim +16$' <<<"$info" && ok || bad "dim"
for key in 'model = glove' 'x_max = 100' 'alpha = 0.75' 'window = 10' 'optimizer = adagrad' \
  'vectors = w+c' 'symmetric = 1' 'lr = 0.05'; do
  grep -qF "$key" <<<"$info" && ok || bad "metadata lacks '$key'"
done
check "embed-query reads the output: 3 neighbours of the" "$("$EQ" a.emb the -k 3 --format tsv | wc -l)" "3"
"$ET" --corpus "$CORPUS" -o b.emb "${FAST[@]}" -q
cmp -s a.emb b.emb && ok || bad "same seed, one thread: identical files"

# --- learning: more epochs, lower cost, and related words closer than unrelated ---
"$ET" --corpus "$CORPUS" -o long.emb --model glove --dim 32 --epochs 15 --threads 2 --x-max 10 2> long.log
first=$(grep -o 'epoch 1/15: cost [0-9.]*' long.log | grep -o '[0-9.]*$')
last=$(grep -o 'epoch 15/15: cost [0-9.]*' long.log | grep -o '[0-9.]*$')
# The last epoch's cost over the first's. Measured (2026-11-26): 0.404 (seeds 1, 2, 3: 0.404
# to 0.406); broken: --dim 1 0.663, --lr 0.005 (a tenth) 0.716, --lr 0.0005 0.847. Bar 0.5.
check "the cost falls ($first → $last)" "$(awk -v a="$first" -v b="$last" 'BEGIN { print (b < 0.5 * a) ? "yes" : "no" }')" "yes"
# Related words closer than unrelated: of the triples (number a, number b, unrelated word u),
# the share with cos(a, b) > cos(a, u), and the mean cosine of number pairs less that of
# number-unrelated pairs. Measured (2026-11): share 1.000, gap 0.626 (other runs and
# --seed 7: 1.000, 0.612 to 0.625); broken: --dim 1 0.100, 0.200; --dim 2 0.993, 0.244.
# (--epochs 1 passes: 1.000, 0.621; the cost check above is what needs the epochs.)
numbers="one two three four five six seven eight nine"
unrelated="church king film government city music language war team water"
relatedness=$({ for a in $numbers; do
  for b in $numbers $unrelated; do [[ $a != "$b" ]] && printf '%s\t%s\n' "$a" "$b"; done
done; } | "$EQ" long.emb --format tsv -q | awk -v numbers="$numbers" '
  BEGIN { split(numbers, n, " "); for (i in n) is_number[n[i]] = 1 }
  { if ($2 in is_number) { rel[$1, ++nr[$1]] = $3; rs += $3; rc++ } else { unr[$1, ++nu[$1]] = $3; us += $3; uc++ } }
  END { for (a in nr) for (i = 1; i <= nr[a]; i++) for (j = 1; j <= nu[a]; j++) { t++; if (rel[a, i] > unr[a, j]) w++ }
        if (rc != 72 || uc != 90) { print "missing similarities"; exit }
        print (w / t >= 0.95 && rs / rc - us / uc > 0.4) ? "yes" : sprintf("no: share %.3f, gap %.3f", w / t, rs / rc - us / uc) }')
check "numbers closer to numbers than to unrelated words" "$relatedness" "yes"

# --- counts files: count once, train many ---
"$ET" --model glove --corpus "$CORPUS" --save-cooc only.cooc 2> only.log
check "--save-cooc without --output only counts" "$?" "0"
[[ -f only.cooc && ! -e only.cooc.ckpt ]] && ok || bad "the counts file is written"
grep -q 'epoch' only.log && bad "--save-cooc alone trained" || ok
"$ET" --corpus "$CORPUS" -o saved.emb "${FAST[@]}" --save-cooc saved.cooc -q
cmp -s only.cooc saved.cooc && ok || bad "counting alone = counting while training"
"$ET" --cooc only.cooc -o reused.emb "${FAST[@]}" -q
cmp -s reused.emb a.emb && ok || bad "--cooc reproduces the counting run bit for bit"
"$ET" --cooc only.cooc -o reused2.emb "${FAST[@]}" --window 3 --min-count 9 2> warn.log
grep -q -- '--window is ignored with --cooc' warn.log && ok || bad "settings the counts fixed are ignored, with a warning"
grep -q 'window = 10' <<<"$("$GC" --info reused2.emb)" && ok || bad "the metadata tells the counts' window"

# --- bounded memory: a tiny budget spills sorted runs and merges them to the same counts ---
"$ET" --model glove --corpus "$CORPUS" --save-cooc tiny.cooc --memory 6M 2> tiny.log
check "--memory 6M counts" "$?" "0"
grep -q 'sorted runs spilled to disk' tiny.log && ok || bad "a tiny budget spills: $(cat tiny.log)"
check "spilled counts = in-memory counts" "$(cooccurrences tiny.log)" "$(cooccurrences only.log)"
"$ET" --cooc tiny.cooc -o tiny.emb "${FAST[@]}" -q && ok || bad "trains on spilled counts"

# --- options ---
for variant in "--optimizer adam --lr 0.01" "--optimizer sgd" "--adagrad row" "--optimizer rowadagrad" \
  "--optimizer adamw --weight-decay 0.1" "--optimizer adamax" "--optimizer rmsprop --rho 0.9" "--optimizer adadelta" \
  "--optimizer rprop" "--optimizer asgd --t0 10" "--asymmetric" "--vectors w" "--x-max 10 --alpha 0.5" "--dtype bf16"; do
  # From only.cooc, the corpus's counts at FAST's settings (a run from them is the counting
  # run bit for bit, above): these change the training, not the counting, which --asymmetric
  # alone does. (Counting took two thirds of each run under the sanitizers.)
  input=(--cooc only.cooc)
  [[ $variant == --asymmetric ]] && input=(--corpus "$CORPUS")
  # shellcheck disable=SC2086
  "$ET" "${input[@]}" -o v.emb "${FAST[@]}" $variant -q
  check "$variant trains" "$?" "0"
  [[ $(vectors v.emb) != "$(vectors a.emb)" ]] && ok || bad "$variant changes the vectors"
done
"$ET" --corpus "$CORPUS" -o ctx.emb "${FAST[@]}" --save-context --vectors w -q
[[ -f ctx.context.emb ]] && ok || bad "--save-context writes W̃"
[[ $(vectors ctx.emb) != "$(vectors ctx.context.emb)" ]] && ok || bad "W̃ differs from W"
grep -q 'symmetric = 0' <<<"$("$ET" --corpus "$CORPUS" -o asym.emb "${FAST[@]}" --asymmetric -q && "$GC" --info asym.emb)" \
  && ok || bad "--asymmetric is in the metadata"
for flag in --x-max --alpha --asymmetric --adagrad --vectors --memory --save-cooc --cooc --optimizer; do
  "$ET" --help | grep -q -- "$flag" || bad "--help lacks $flag"
done
ok

# --- errors before any training ---
expect_error "--memory too small" 1 "give at least --memory" "$ET" --corpus "$CORPUS" -o e.emb --model glove --memory 300K
expect_error "--memory too small to train" 1 "too small to train" "$ET" --cooc only.cooc -o e.emb --model glove --memory 20M --dim 300
expect_error "glove option with skipgram" 2 "--x-max applies to --model glove only" "$ET" --corpus "$CORPUS" -o e.emb --x-max 10
expect_error "skipgram option with glove" 2 "--negative applies to --model skipgram and cbow only" "$ET" --corpus "$CORPUS" -o e.emb --model glove --negative 5
expect_error "--adagrad with adam" 2 "--adagrad applies to --optimizer adagrad only" "$ET" --corpus "$CORPUS" -o e.emb --model glove --optimizer adam --adagrad row
expect_error "--beta1 with adagrad" 2 "--beta1 applies to --optimizer adam, adamw or adamax only" "$ET" --corpus "$CORPUS" -o e.emb --model glove --beta1 0.8
expect_error "--rho with skipgram's sgd" 2 "--rho applies to --optimizer rmsprop or adadelta only" "$ET" --corpus "$CORPUS" -o e.emb --rho 0.9
expect_error "--eps out of range" 2 "--eps" "$ET" --corpus "$CORPUS" -o e.emb --model glove --optimizer adam --eps 2
expect_error "--cooc and --corpus" 2 "excludes" "$ET" --cooc only.cooc --corpus "$CORPUS" -o e.emb --model glove
expect_error "nothing to read" 2 "--corpus or --cooc is required" "$ET" -o e.emb --model glove
expect_error "--cooc without --output" 2 "--output is required" "$ET" --model glove --cooc only.cooc
expect_error "a vectors file as counts" 1 "a.emb: not an embed-train co-occurrence file" "$ET" --model glove --cooc a.emb -o e.emb
head -c 100000 only.cooc > short.cooc
expect_error "truncated counts" 1 "short.cooc" "$ET" --model glove --cooc short.cooc -o e.emb
cp only.cooc flipped.cooc
printf '\x55' | dd of=flipped.cooc bs=1 seek=200000 conv=notrunc status=none
expect_error "damaged counts" 1 "flipped.cooc: the co-occurrence file is damaged" "$ET" --model glove --cooc flipped.cooc -o e.emb
expect_error "one-word lines" 1 "no two vocabulary words occur" "$ET" --model glove --corpus <(printf 'a\nb\na\nb\n') -o e.emb --min-count 1
[[ ! -e e.emb ]] && ok || bad "a failed run leaves no output"
check "no temporaries left" "$(litter)" "0"

# --- interruption, checkpoint, resume ---
EPOCHS=$(long_epochs 40 14)
LONG=(--cooc only.cooc --model glove --dim 16 --epochs "$EPOCHS" --threads 1 --seed 3)
"$ET" "${LONG[@]}" -o whole.emb -q
interrupt_when run.log "epoch 2/$EPOCHS" "$ET" "${LONG[@]}" -o run.emb
check "SIGINT: exit status" "$?" "130"
[[ ! -e run.emb && -f run.emb.ckpt ]] && ok || bad "SIGINT: a checkpoint and no output"
"$ET" --resume run.emb.ckpt 2> resume.log
check "resume" "$?" "0"
grep -q 'resuming glove training at epoch' resume.log && ok || bad "says where it resumes: $(cat resume.log)"
cmp -s run.emb whole.emb && ok || bad "resumed run = uninterrupted run, bit for bit"
expect_error "--save-cooc with --resume" 2 "excludes" "$ET" --resume whole.emb --save-cooc x.cooc

finish
