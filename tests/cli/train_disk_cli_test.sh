#!/usr/bin/env bash
# End-to-end tests of embed-train reading its corpus from disk every epoch (issue 17):
# resume from a plain file and from standard input (spooled beside the output, kept with
# the checkpoint), a corpus edited between stop and resume refused, a corpus cut short
# mid-run (an error, a checkpoint, no vectors), and memory and checkpoints that do not
# grow with the corpus. (train_cli_test.sh resumes from gzip; the two scripts run side by
# side under ctest.)
# Usage: train_disk_cli_test.sh EMBED_TRAIN GLOVE_CONVERT (run from the repo root)
set -u

ET=$(realpath "${1:?usage: train_disk_cli_test.sh EMBED_TRAIN GLOVE_CONVERT}")
GC=$(realpath "${2:?usage: train_disk_cli_test.sh EMBED_TRAIN GLOVE_CONVERT}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CORPUS=$DATA/text8-200k.txt.gz
zcat "$CORPUS" > corpus.txt
# The reference: 20 epochs (lib.sh's long_epochs) from the gzip file, one thread.
EPOCHS=$(long_epochs 20)
"$ET" --corpus "$CORPUS" --dim 16 --epochs "$EPOCHS" --threads 1 --seed 3 -o whole.emb -q
# Background jobs must receive SIGINT (train_cli_test.sh says why).
set -m

# The corpus is read from disk every epoch: a plain file and standard input (spooled
# beside the output, kept with the checkpoint until the run completes) resume alike.
LONG_PLAIN=(--dim 16 --epochs "$EPOCHS" --threads 1 --seed 3)
for way in file stdin; do
  rm -f r.emb r.emb.ckpt r.log  # r.log too: a stale "epoch 2/" in it would be waited for no time
  if [[ $way == file ]]; then
    "$ET" --corpus corpus.txt "${LONG_PLAIN[@]}" -o r.emb 2> r.log &
  else
    zcat "$CORPUS" | "$ET" --corpus - "${LONG_PLAIN[@]}" -o r.emb 2> r.log &
  fi
  pid=$!
  wait_for r.log "epoch 2/$EPOCHS" $pid || bad "$way: training never got going"
  kill -INT $pid
  wait $pid
  check "$way: interrupted" "$?" "130"
  if [[ $way == stdin ]]; then
    [[ -f r.emb.corpus-0.txt ]] && ok || bad "stdin: the spool stays beside the checkpoint"
  fi
  "$ET" --resume r.emb.ckpt -q && ok || bad "$way: resume"
  check "$way: resumed run = uninterrupted gzip run" "$(vectors r.emb)" "$(vectors whole.emb)"
  [[ ! -e r.emb.corpus-0.txt ]] && ok || bad "$way: no spool left once the run completed"
done

# A corpus edited between stop and resume is refused, and nothing is written.
cp corpus.txt edit.txt
rm -f r.emb r.emb.ckpt r.log
"$ET" --corpus edit.txt "${LONG_PLAIN[@]}" -o r.emb 2> r.log &
pid=$!
wait_for r.log "epoch 2/$EPOCHS" $pid || bad "edit: training never got going"
kill -INT $pid
wait $pid
echo "a few more words" >> edit.txt
expect_error "a corpus changed since the checkpoint" 1 "edit.txt: the corpus changed since the checkpoint was written" \
  "$ET" --resume r.emb.ckpt
[[ ! -e r.emb ]] && ok || bad "a refused resume writes no vectors"

# A corpus cut short during training: a clear error naming the file, a checkpoint of the
# work so far, no vectors.
cp corpus.txt cut.txt
rm -f r.emb r.emb.ckpt r.log
"$ET" --corpus cut.txt --dim 16 --epochs 500 --threads 2 -o r.emb 2> r.log &
pid=$!
wait_for r.log 'epoch 2/500' $pid || bad "cut: training never got going"
truncate -s 100000 cut.txt
wait $pid
check "a corpus cut short mid-run: exit status" "$?" "1"
grep -q 'cut.txt: ends at byte .* the corpus changed during training' r.log && ok || bad "cut: message: $(tail -2 r.log)"
grep -q 'checkpoint written to r.emb.ckpt' r.log && [[ -f r.emb.ckpt ]] && ok || bad "cut: a checkpoint of the work so far"
[[ ! -e r.emb ]] && ok || bad "cut: no vectors"
check "cut: no temporaries left" "$(litter)" "0"
set +m

# Memory and checkpoints do not grow with the corpus: text8-200k and the same text 20
# times, with the same vocabulary. Peak RSS (kB) from getrusage, as GNU time reports it.
for _ in $(seq 20); do cat corpus.txt; done > corpus20.txt
peak_rss() { python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"; }
# (A window of 1 and one negative: the training's cost, which this does not check, a fifth.)
SMALL=(--max-vocab 4000 --dim 16 --window 1 --negative 1 --epochs 1 --threads 2)
rss1=$(peak_rss "$ET" --corpus corpus.txt -o m1.emb "${SMALL[@]}" --checkpoint m1.ckpt -q)
rss20=$(peak_rss "$ET" --corpus corpus20.txt -o m20.emb "${SMALL[@]}" --checkpoint m20.ckpt -q)
check "peak RSS of 20x the corpus within 10 MB of 1x (${rss1} kB, ${rss20} kB)" \
  "$(( rss20 - rss1 < 10240 ? 1 : 0 ))" "1"
size1=$(stat -c %s m1.ckpt) size20=$(stat -c %s m20.ckpt)
check "a checkpoint's size does not grow with the corpus ($size1, $size20 bytes)" "$(( size20 - size1 < 256 ? 1 : 0 ))" "1"
rm -f corpus20.txt

finish
