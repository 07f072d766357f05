#!/usr/bin/env bash
# End-to-end tests of embed-train as a user runs it: outputs that embed-query and
# glove-convert read, bit-for-bit reproducibility with one thread, every way in for the
# corpus, errors before training, and Ctrl-C / SIGTERM → checkpoint → --resume ending
# exactly where an uninterrupted run ends.
# Usage: train_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (run from the repo root)
set -u

ET=$(realpath "${1:?usage: train_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
EQ=$(realpath "${2:?usage: train_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
GC=$(realpath "${3:?usage: train_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CORPUS=$DATA/text8-200k.txt.gz
FAST=(--dim 16 --epochs 1 --threads 1 --seed 3)  # small and quick


# --- a plain run and its outputs ---
"$ET" --corpus "$CORPUS" -o a.emb "${FAST[@]}" 2> a.log
check "trains" "$?" "0"
grep -q 'vocabulary 4554 words (min-count 5)' a.log && ok || bad "vocabulary line: $(head -1 a.log)"
grep -q 'epoch 1/1: loss' a.log && ok || bad "one log line per epoch off a terminal"
info=$("$GC" --info a.emb)
grep -qE '^rows +4554$' <<<"$info" && ok || bad "rows: $info"
grep -qE '^dim +16$' <<<"$info" && ok || bad "dim"
grep -qE '^counts +yes$' <<<"$info" && ok || bad "counts tensor"
grep -q 'model = skipgram' <<<"$info" && ok || bad "metadata names the model"
check "most frequent word first" "$("$GC" -q a.emb -o - --to glove | head -1 | cut -d' ' -f1)" "the"
check "embed-query reads the output: 3 neighbours of the" "$("$EQ" a.emb the -k 3 --format tsv | wc -l)" "3"

# --- reproducible with one thread and a seed ---
"$ET" --corpus "$CORPUS" -o b.emb "${FAST[@]}" -q
cmp -s a.emb b.emb && ok || bad "same seed, one thread: identical files"
"$ET" --corpus "$CORPUS" -o c.emb --dim 16 --epochs 1 --threads 1 --seed 4 -q
[[ $(vectors a.emb) != "$(vectors c.emb)" ]] && ok || bad "another seed: other vectors"

# --- every way in for the corpus gives the same vectors ---
zcat "$CORPUS" > corpus.txt
"$ET" --corpus corpus.txt -o plain.emb "${FAST[@]}" -q
check "plain text = gzip" "$(vectors plain.emb)" "$(vectors a.emb)"
zcat "$CORPUS" | "$ET" --corpus - -o stdin.emb "${FAST[@]}" 2> stdin.log
check "stdin = file" "$(vectors stdin.emb)" "$(vectors a.emb)"
grep -q 'standard input is read once; copying it to stdin.emb.corpus-0.txt' stdin.log && ok ||
  bad "stdin is read once, spooled beside the output, and says so"
[[ ! -e stdin.emb.corpus-0.txt ]] && ok || bad "the spool of standard input is removed when training completes"
head -c 600000 corpus.txt > part1.txt
tail -c +600001 corpus.txt > part2.txt
"$ET" --corpus part1.txt part2.txt -o parts.emb "${FAST[@]}" -q
check "several corpus files: a neighbour of the" "$("$EQ" parts.emb the -k 1 --format tsv | wc -l)" "1"

# --- options ---
"$ET" --corpus "$CORPUS" -o ctx.emb "${FAST[@]}" --save-context -q
check "--save-context: exit status" "$?" "0"
[[ -f ctx.context.emb ]] && ok || bad "--save-context writes OUT.context.emb"
check "context vectors differ from input vectors" "$([[ $(vectors ctx.emb) != "$(vectors ctx.context.emb)" ]] && echo yes)" "yes"
"$ET" --corpus "$CORPUS" -o half.emb "${FAST[@]}" --dtype f16 -q
grep -qE '^dtype +F16$' <<<"$("$GC" --info half.emb)" && ok || bad "--dtype f16"
"$ET" --corpus "$CORPUS" -o cbow.emb "${FAST[@]}" --model cbow 2> cbow.log
grep -q 'model = cbow' <<<"$("$GC" --info cbow.emb)" && ok || bad "--model cbow"
# SGD's default rate follows the words trained per distinct word (run_starting_lr): one
# epoch of 177,600 words over 19,127 distinct is 9 a word, so each model starts at its most
# (CBOW 0.1, skip-gram 0.05), as the log says, and the file keeps it; --lr overrides it.
grep -q 'lr 0.1 for a run of 177.6k words, 9 per distinct word; --lr sets it' cbow.log && ok ||
  bad "cbow's default rate in the log: $(grep 'for a run' cbow.log)"
grep -qE '^ *lr = 0.1$' <<<"$("$GC" --info cbow.emb)" && ok || bad "cbow's default lr in the file: $("$GC" --info cbow.emb | grep ' lr =')"
# Without --epochs a corpus this small trains 20 (enough for 20M words, at most 20): 186
# words per distinct word, so 0.05 x (186 / 100)^-0.7.
"$ET" --corpus "$CORPUS" -o sgd20.emb --dim 4 --threads 2 --seed 3 --metrics sgd20.jsonl 2> sgd20.log
grep -q '20 epochs, not 5, for a corpus of 177.6k words' sgd20.log && ok || bad "20 epochs for a small corpus: $(head -3 sgd20.log)"
grep -q 'lr 0.032 for a run of 3.55M words, 186 per distinct word' sgd20.log && ok ||
  bad "skip-gram's rate for 20 epochs: $(grep 'for a run' sgd20.log)"
grep -qE '^ *epochs = 20$' <<<"$("$GC" --info sgd20.emb)" && ok || bad "the file keeps 20 epochs: $("$GC" --info sgd20.emb | grep epochs)"
check "--metrics says 20 epochs" "$(grep -c '"event":"epoch",.*"epochs":20,' sgd20.jsonl)" "20"
"$ET" --corpus "$CORPUS" -o sgd12.emb --dim 4 --epochs 12 --threads 2 --seed 3 --lr 0.03 2> sgd12.log
grep -q 'for a run\|epochs, not' sgd12.log && bad "--epochs 12 --lr 0.03 are kept: $(grep 'for a run\|epochs, not' sgd12.log)" || ok
grep -qE '^ *lr = 0.03$' <<<"$("$GC" --info sgd12.emb)" && ok || bad "--lr 0.03 in the file: $("$GC" --info sgd12.emb | grep ' lr =')"
grep -qE '^ *epochs = 12$' <<<"$("$GC" --info sgd12.emb)" && ok || bad "--epochs 12 in the file: $("$GC" --info sgd12.emb | grep epochs)"
# --pair-negatives: word2vec's own sampling, K negatives per (context, centre) pair.
"$ET" --corpus "$CORPUS" -o pair.emb "${FAST[@]}" --pair-negatives 2> pair.log
check "--pair-negatives trains" "$?" "0"
grep -q 'pair_negatives = 1' <<<"$("$GC" --info pair.emb)" && ok || bad "--pair-negatives in the metadata"
grep -q 'pair_negatives = 0' <<<"$info" && ok || bad "shared negatives by default, in the metadata"
grep -q 'negative 5 per pair' pair.log && ok || bad "--pair-negatives: the log says so: $(head -3 pair.log)"
[[ $(vectors pair.emb) != "$(vectors a.emb)" ]] && ok || bad "--pair-negatives trains other vectors"
check "embed-query reads the --pair-negatives output" "$("$EQ" pair.emb the -k 3 --format tsv | wc -l)" "3"
# Every optimizer trains skip-gram and CBOW (with its state in the rows: embed-query reads
# the vectors alone), and says so in the metadata and the log.
for variant in "--optimizer adam" "--model cbow --optimizer adamw --weight-decay 0.1" "--optimizer rowadagrad" \
  "--model cbow --optimizer rmsprop --rho 0.9" "--optimizer adagrad --lr 0.05" "--optimizer adamax" \
  "--optimizer adadelta" "--optimizer rprop" "--model cbow --optimizer asgd --t0 100 --lambda 0.001 --power 0.5"; do
  # shellcheck disable=SC2086
  "$ET" --corpus "$CORPUS" -o opt.emb "${FAST[@]}" $variant 2> opt.log
  check "$variant trains" "$?" "0"
  optimizer=$(sed 's/.*--optimizer \([a-z]*\).*/\1/' <<<"$variant")
  grep -q "optimizer = $optimizer" <<<"$("$GC" --info opt.emb)" && ok || bad "$variant: the metadata names the optimizer"
  grep -q "optimizer $optimizer" opt.log && ok || bad "$variant: the log names the optimizer: $(grep training opt.log)"
  [[ $(vectors opt.emb) != "$(vectors a.emb)" ]] && ok || bad "$variant changes the vectors"
  check "$variant: embed-query reads them" "$("$EQ" opt.emb the -k 3 --format tsv | wc -l)" "3"
done
# CBOW's adam starts lower for a run longer than text8-head's 5 epochs (5.5M words), by the
# root of the words (run_starting_lr): the log names the rate and the run's words, the file
# keeps the rate it trained at, and --lr overrides it.
"$ET" --corpus "$CORPUS" -o long.emb --model cbow --optimizer adam --dim 4 --epochs 40 --threads 2 --seed 3 2> long.log
check "a long CBOW adam run trains" "$?" "0"
read -r long_lr long_words <<<"$(sed -n 's/.*: lr \([0-9.e-]*\) for a run of \([0-9.]*\)M words.*/\1 \2/p' long.log)"
expected=$(awk -v w="${long_words:-1}" 'BEGIN { printf "%.2g", 0.01 * sqrt(5.5 / w) }')
if [[ -n ${long_words:-} ]] && [[ $(awk -v w="$long_words" 'BEGIN { print (w > 5.5) }') == 1 ]] &&
  [[ $(awk -v a="$long_lr" -v b="$expected" 'BEGIN { print (a == b) }') == 1 ]]; then
  ok
else
  bad "CBOW adam's rate for a long run: '${long_lr:-}' for '${long_words:-}' words, expected $expected: $(grep -i 'lr' long.log | head -2)"
fi
if grep -q "^ *lr = ${long_lr:-none}\$" <<<"$("$GC" --info long.emb)"; then
  ok
else
  bad "the file keeps the rate: $("$GC" --info long.emb | grep ' lr =')"
fi
# The rate is settled before training starts: the run is stopped there.
interrupt_when long.log 'training cbow' "$ET" --corpus "$CORPUS" -o lr.emb --model cbow --optimizer adam --lr 0.01 --dim 4 \
  --epochs 40 --threads 2 --seed 3
grep -q 'training cbow on cpu ([a-z0-9]*): .*, lr 0.01,' long.log && ok || bad "--lr 0.01 with a long CBOW adam run: $(grep training long.log)"
if grep -q "for a run of" long.log; then bad "--lr 0.01 keeps its rate: $(grep 'for a run of' long.log)"; else ok; fi
rm -f lr.emb.ckpt
"$ET" --corpus "$CORPUS" -o small.emb "${FAST[@]}" --max-vocab 100 --min-count 2 -q
grep -qE '^rows +100$' <<<"$("$GC" --info small.emb)" && ok || bad "--max-vocab"
"$ET" --corpus "$CORPUS" -o auto.emb "${FAST[@]}" --device auto -q && ok || bad "--device auto"
"$ET" --version | grep -q '^embed-train ' && ok || bad "--version"
"$ET" --version | grep -qE '^gpus: (none \(.+\)|[0-9]+ .+)$' && ok || bad "--version lists the GPUs: $("$ET" --version)"
# --metrics: one JSON object per line, one per epoch (and progress ticks), with the numbers the log prints.
"$ET" --corpus "$CORPUS" -o m.emb --dim 16 --epochs 2 --threads 1 --seed 3 --metrics metrics.jsonl -q
python3 - metrics.jsonl <<'PY' && ok || bad "--metrics: $(head -c 400 metrics.jsonl)"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
epochs = [m for m in lines if m["event"] == "epoch"]
assert [m["epoch"] for m in epochs] == [1, 2], epochs
assert all(m["event"] in ("epoch", "progress") and m["unit"] == "words" and m["epochs"] == 2 for m in lines)
assert epochs[-1]["done"] == 2 * 177600 and epochs[0]["done"] == 177600, epochs
assert all(m["per_second"] > 0 and m["loss"] > 0 and 0 < m["lr"] <= 0.05 and m["time"] >= 0 for m in epochs)
assert epochs[1]["time"] >= epochs[0]["time"] and epochs[1]["loss"] < epochs[0]["loss"]
# The process's peak RSS on every epoch; the GPU's traffic only on a GPU.
assert all(2**20 < m["peak_rss"] < 2**32 for m in epochs), epochs
assert not any("resident_share" in m for m in lines), epochs
PY
check "--metrics leaves the vectors as they were" "$(vectors m.emb)" \
  "$("$ET" --corpus "$CORPUS" -o m2.emb --dim 16 --epochs 2 --threads 1 --seed 3 -q && vectors m2.emb)"
expect_error "unwritable --metrics" 1 "--metrics: cannot write no-such-dir/m.jsonl" \
  "$ET" --corpus "$CORPUS" -o e.emb --metrics no-such-dir/m.jsonl
for flag in --corpus --output --model --dim --window --negative --min-count --sample --epochs --lr --threads \
  --seed --max-vocab --dtype --device --gpu --checkpoint --resume --save-context --table --gpu-memory --host-transfer \
  --metrics; do
  "$ET" --help | grep -q -- "$flag" || bad "--help lacks $flag"
done
ok

# --- errors before any training ---
printf ' \n\t\n' > empty.txt
expect_error "empty corpus" 1 "empty.txt: the corpus has no words" "$ET" --corpus empty.txt -o e.emb
expect_error "min-count removes everything" 1 "lower --min-count" "$ET" --corpus "$CORPUS" -o e.emb --min-count 100000000
expect_error "dim 0" 2 "dim" "$ET" --corpus "$CORPUS" -o e.emb --dim 0
expect_error "window 0" 2 "window" "$ET" --corpus "$CORPUS" -o e.emb --window 0
expect_error "unreadable corpus" 1 "missing.txt" "$ET" --corpus missing.txt -o e.emb
# One rule for files: exit 1, "embed-train: error: FILE: reason", as for the corpus.
expect_error "missing --resume" 1 "embed-train: error: missing.ckpt: cannot open: No such file or directory" \
  "$ET" --resume missing.ckpt
expect_error "missing --cooc" 1 "embed-train: error: missing.cooc: cannot open" "$ET" --model glove --cooc missing.cooc -o e.emb
expect_error "--min-count 0" 2 "--min-count: 0 is not an integer of 1 or more" "$ET" --corpus "$CORPUS" -o e.emb --min-count 0
# A minus sign, which CLI11 would read into an unsigned count as 2^64 - 3.
expect_error "--min-count -3" 2 "--min-count: -3 is not an integer of 1 or more" "$ET" --corpus "$CORPUS" -o e.emb --min-count -3
# Read from a captured --help that must have worked: a count of 0 from no output proves nothing.
help=$("$ET" --help) && [[ $help == *--min-count* ]] && ok || bad "embed-train --help: $(head -c 200 <<<"$help")"
check "--help ranges are readable" "$(grep -c '[0-9]\{12\}' <<<"$help")" "0"
# --help's figures are the reference page's (issue 66: --pair-negatives said 0.05-0.25 there, 0.04-0.22 here).
docs_gain=$(grep -o -- '^| `--pair-negatives` .*' "$DATA/../docs/embed-train.md" | grep -o '[0-9.]*–[0-9.]* points' | sed 's/–/-/')
[[ -n $docs_gain && $(tr -s ' \n' ' ' <<<"$help") == *"$docs_gain"* ]] && ok || bad "--pair-negatives: --help does not say '$docs_gain' as docs do"
expect_error "-q with -v" 2 "--verbose excludes --quiet" "$ET" -q -v --corpus "$CORPUS" -o e.emb
expect_error "--sync-interval without mpirun: a warning" 1 "--sync-interval has no effect outside mpirun" \
  "$ET" --corpus empty.txt -o e.emb --sync-interval 1
expect_error "--sync-words without mpirun: a warning" 1 "--sync-words has no effect outside mpirun" \
  "$ET" --corpus empty.txt -o e.emb --sync-words 5000
expect_error "--sync-words not a count" 2 "--sync-words: -3 is not an integer of 0 or more" "$ET" --corpus empty.txt -o e.emb --sync-words -3
mkdir locked && chmod 500 locked
if [[ $(id -u) == 0 ]]; then
  expect_error "unwritable output directory" 1 "no-such-dir/e.emb: cannot create the output" "$ET" --corpus "$CORPUS" -o no-such-dir/e.emb
else
  expect_error "unwritable output directory" 1 "locked/e.emb: cannot create the output" "$ET" --corpus "$CORPUS" -o locked/e.emb
fi
expect_error "unwritable checkpoint" 1 "no-such-dir/c.ckpt" "$ET" --corpus "$CORPUS" -o e.emb --checkpoint no-such-dir/c.ckpt
expect_error "no corpus" 2 "--corpus is required" "$ET" -o e.emb
expect_error "no output" 2 "--output is required" "$ET" --corpus "$CORPUS"
expect_error "output to stdout" 1 "writes files" "$ET" --corpus "$CORPUS" -o -
expect_error "unknown model" 2 "model" "$ET" --corpus "$CORPUS" -o e.emb --model word2vec
expect_error "GPU flags with --device cpu" 2 "--table applies to --device cuda or auto only" \
  "$ET" --corpus "$CORPUS" -o e.emb --table host
expect_error "--gpu-memory without a GPU device" 2 "--gpu-memory applies to --device cuda or auto only" \
  "$ET" --corpus "$CORPUS" -o e.emb --device cpu --gpu-memory 1G
expect_error "--gpu without a GPU device" 2 "--gpu applies to --device cuda or auto only" \
  "$ET" --corpus "$CORPUS" -o e.emb --gpu 1
expect_error "--host-transfer with --table device" 2 "--host-transfer applies to --table host or auto only" \
  "$ET" --corpus "$CORPUS" -o e.emb --device auto --table device --host-transfer mapped
expect_error "--device cuda with --subwords and rmsprop" 1 \
  "--subwords trains with --optimizer sgd on the GPU; --optimizer rmsprop trains on the CPU" \
  "$ET" --corpus "$CORPUS" -o e.emb --subwords --optimizer rmsprop --device cuda
expect_error "--device cuda with --pair-negatives" 1 "--pair-negatives trains on the CPU" "$ET" --corpus "$CORPUS" -o e.emb \
  --pair-negatives --device cuda
expect_error "--pair-negatives with cbow" 2 "--pair-negatives applies to --model skipgram only" "$ET" --corpus "$CORPUS" \
  -o e.emb --model cbow --pair-negatives
# Where no GPU is usable (CI, laptops): --device cuda refuses before reading the corpus,
# --device auto says it falls back to the CPU. The gpu tests cover the machines with one.
if ! "$ET" --version | grep -q 'CUDA backend built, [0-9]'; then
  expect_error "--device cuda without a GPU" 1 "--device cuda: no usable GPU" "$ET" --corpus "$CORPUS" -o e.emb --device cuda
  grep -q 'read\|words' err.txt && bad "--device cuda without a GPU: read the corpus first" || ok
  expect_error "glove: --device cuda without a GPU" 1 "--device cuda: no usable GPU" "$ET" --corpus "$CORPUS" -o e.emb \
    --model glove --device cuda
  "$ET" --corpus "$CORPUS" -o auto.emb "${FAST[@]}" --device auto --table host 2> auto.log && ok || bad "--device auto falls back"
  grep -q -- '--device auto: no usable GPU (.*); training on the CPU' auto.log && ok || bad "--device auto: says it fell back"
fi
[[ ! -e e.emb ]] && ok || bad "a failed run leaves no output"
check "no temporaries left" "$(litter)" "0"

# --- interruption, checkpoint, resume ---
EPOCHS=$(long_epochs 20)
LONG=(--corpus "$CORPUS" --dim 16 --epochs "$EPOCHS" --threads 1 --seed 3)
"$ET" "${LONG[@]}" -o whole.emb -q
# A non-interactive shell starts background jobs with SIGINT ignored (and embed-train,
# like any well-behaved program, keeps it ignored); job control (set -m) does not.
set -m
# SIGTERM's run names --device auto (the CPU here): the resume command repeats it, since
# a checkpoint keeps the training settings and not where they ran.
for sig in INT TERM; do
  # run.log too: the last iteration's "epoch 2/" would otherwise be found before this run starts.
  rm -f run.emb run.emb.ckpt run.log
  device=()
  [[ $sig == TERM ]] && device=(--device auto)
  "$ET" "${LONG[@]}" "${device[@]}" -o run.emb 2> run.log &
  pid=$!
  wait_for run.log "epoch 2/$EPOCHS" $pid || bad "SIG$sig: training never got going"
  kill -s "$sig" $pid
  wait $pid
  check "SIG$sig: exit status" "$?" "130"
  [[ ! -e run.emb ]] && ok || bad "SIG$sig: no output from an interrupted run"
  [[ -f run.emb.ckpt ]] && ok || bad "SIG$sig: checkpoint at OUT.ckpt"
  grep -q "interrupted by SIG$sig.*resume with: embed-train --resume run.emb.ckpt${device[*]:+ ${device[*]}}\$" run.log && ok ||
    bad "SIG$sig: message: $(tail -1 run.log)"
  check "SIG$sig: no temporaries left" "$(litter)" "0"
  "$ET" --resume run.emb.ckpt "${device[@]}" --dim 99 2> resume.log
  check "SIG$sig: resume" "$?" "0"
  grep -q -- '--dim is ignored with --resume' resume.log && ok || bad "SIG$sig: warns about ignored settings"
  grep -q 'resuming skipgram training at epoch' resume.log && ok || bad "SIG$sig: says where it resumes"
  cmp -s run.emb whole.emb && ok || bad "SIG$sig: resumed run = uninterrupted run, bit for bit"
  [[ ! -e run.emb.ckpt ]] && ok || bad "SIG$sig: the automatic checkpoint is removed once the vectors are written"
done

# --checkpoint: kept, written after every epoch, resumable to another output name.
"$ET" "${LONG[@]}" -o named.emb --checkpoint my.ckpt 2> named.log &
pid=$!
wait_for named.log "epoch 3/$EPOCHS" $pid || bad "--checkpoint: training never got going"
[[ -f my.ckpt ]] && ok || bad "--checkpoint written after an epoch"
kill -INT $pid
wait $pid
check "--checkpoint: exit status" "$?" "130"
"$ET" --resume my.ckpt -o renamed.emb -q && ok || bad "--checkpoint: resume"
cmp -s renamed.emb whole.emb && ok || bad "--checkpoint: resumed = uninterrupted"
[[ -f my.ckpt ]] && ok || bad "a checkpoint named by --checkpoint is kept"

# --pair-negatives is a setting the checkpoint keeps.
"$ET" "${LONG[@]}" --pair-negatives -o pair-whole.emb -q
"$ET" "${LONG[@]}" --pair-negatives -o pair-run.emb --checkpoint pair.ckpt 2> pair-run.log &
pid=$!
wait_for pair-run.log "epoch 3/$EPOCHS" $pid || bad "--pair-negatives: training never got going"
kill -INT $pid
wait $pid
check "--pair-negatives: exit status" "$?" "130"
"$ET" --resume pair.ckpt -o pair-resumed.emb -q && ok || bad "--pair-negatives: resume"
cmp -s pair-resumed.emb pair-whole.emb && ok || bad "--pair-negatives: resumed = uninterrupted"

set +m

# A damaged checkpoint is refused.
head -c 5000 my.ckpt > short.ckpt
expect_error "truncated checkpoint" 1 "short.ckpt" "$ET" --resume short.ckpt
expect_error "not a checkpoint" 1 "a.emb: not an embed-train checkpoint" "$ET" --resume a.emb
# Vectors given as the corpus (beside --init and -o, an easy slip) are refused, not trained on
# as words of raw bytes (issue 66's search: a 1-word vocabulary and exit 0 before).
expect_error "an .emb as --corpus" 1 "a.emb: not a text corpus: it looks like an .emb (safetensors) file of vectors" \
  "$ET" --corpus a.emb -o e.emb
expect_error "an .emb as --corpus, one thread" 1 "a.emb: not a text corpus" "$ET" --corpus a.emb -o e.emb --threads 1
expect_error "--resume with --corpus" 2 "excludes" "$ET" --resume my.ckpt --corpus "$CORPUS"

# --- instruction-set levels (EMBED_CPU_ISA) ---
expect_error "an unknown EMBED_CPU_ISA" 1 "EMBED_CPU_ISA=avx3: expected avx512, avx2 or baseline" \
  env EMBED_CPU_ISA=avx3 "$ET" --corpus "$CORPUS" -o isa.emb "${FAST[@]}"
[[ ! -e isa.emb ]] && ok || bad "an unknown EMBED_CPU_ISA wrote isa.emb"
grep -q '^cpu: baseline (EMBED_CPU_ISA; this CPU: ' <<<"$(EMBED_CPU_ISA=baseline "$ET" --version)" && ok ||
  bad "--version names the lowered level: $(EMBED_CPU_ISA=baseline "$ET" --version | grep cpu)"
EMBED_CPU_ISA=baseline "$ET" --corpus "$CORPUS" -o isa.emb "${FAST[@]}" 2> isa.log
check "EMBED_CPU_ISA=baseline trains" "$?" "0"
grep -q 'training skipgram on cpu (baseline): ' isa.log && ok || bad "the log names the level: $(grep training isa.log)"

# --- progress on a terminal ---
screen=$(on_tty "$ET" --corpus "$CORPUS" -o tty.emb --dim 16 --epochs "$EPOCHS" --threads 1)
progress=$([[ $screen == *"training:"* && $screen == *ETA* && $screen == *"words/s"* && $screen == *loss* &&
  $screen == *"per thread"* ]] && echo progress || echo "${screen: -600}")
check "progress line on a terminal" "$progress" "progress"

finish
