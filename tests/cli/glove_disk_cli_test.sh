#!/usr/bin/env bash
# End-to-end tests of GloVe's records beyond --memory (issue 17): shuffled on disk into
# OUT.emb.glove-records, streamed every epoch to the in-memory cost, nothing left behind,
# and Ctrl-C → a checkpoint that names the records file instead of holding the records →
# --resume ending where an uninterrupted run from disk ends; a records file changed since
# the checkpoint refused. (Apart from glove_cli_test.sh so that each fits its time limit
# under the sanitizers.)
# Usage: glove_disk_cli_test.sh EMBED_TRAIN (run from the repo root)
set -u

ET=$(realpath "${1:?usage: glove_disk_cli_test.sh EMBED_TRAIN}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CORPUS=$DATA/text8-200k.txt.gz
FAST=(--model glove --dim 16 --epochs 2 --threads 1 --seed 3)
"$ET" --model glove --corpus "$CORPUS" --save-cooc only.cooc -q
check "counts" "$?" "0"

# --- records beyond --memory: shuffled on disk, streamed every epoch, to the same cost ---
# (text8-200k: 966,938 records, 15.5 MB; the tables at dim 16 take 2.3 MB)
cost10() { grep -o 'epoch 10/10: cost [0-9.]*' "$1" | grep -o '[0-9.]*$'; }
DISK=(--cooc only.cooc --model glove --dim 16 --epochs 10 --threads 2 --seed 3)
"$ET" "${DISK[@]}" -o inmem.emb 2> inmem.log
grep -q 'training reads them from memory' inmem.log && ok || bad "records in memory: $(cat inmem.log)"
"$ET" "${DISK[@]}" -o ondisk.emb --memory 6M 2> ondisk.log
check "--memory below the records trains" "$?" "0"
grep -q 'shuffled on disk into .*ondisk.emb.glove-records' ondisk.log && ok || bad "says the records go to disk: $(cat ondisk.log)"
grep -q 'streamed from .*ondisk.emb.glove-records' ondisk.log && ok || bad "says they stream"
# Measured (2026-11-26, the log's 4 decimals): 0.0087 in memory and on disk alike (seeds 3,
# 4, 5); broken, on disk with --lr 0.045 instead of 0.05: 0.0089 (+2.3%), --x-max 90: 0.0093.
check "the cost from disk is the cost in memory within 2% ($(cost10 inmem.log) vs $(cost10 ondisk.log))" \
  "$(awk -v a="$(cost10 inmem.log)" -v b="$(cost10 ondisk.log)" 'BEGIN { d = (b - a) / a; print (d < 0.02 && d > -0.02) ? "yes" : "no" }')" "yes"
[[ ! -e inmem.emb.glove-records && ! -e ondisk.emb.glove-records ]] && ok || bad "a completed run removes its records file"
[[ -z $(ls -A | grep -- '^\.embed-records') ]] && ok || bad "no shuffle pieces left behind"
"$ET" --corpus "$CORPUS" -o counted.emb "${FAST[@]}" --memory 8M 2> counted.log
grep -q 'shuffled on disk' counted.log && ok || bad "counting from the corpus under --memory 8M shuffles on disk: $(cat counted.log)"


# --- interruption, checkpoint, resume from disk ---
EPOCHS=$(long_epochs 40 14)
LONG=(--cooc only.cooc --model glove --dim 16 --epochs "$EPOCHS" --threads 1 --seed 3)
set -m  # background jobs get SIGINT (see train_cli_test.sh)
# The same from disk: the checkpoint names the records file beside it, not the records.
"$ET" "${LONG[@]}" -o dwhole.emb --memory 6M -q
"$ET" "${LONG[@]}" -o drun.emb --memory 6M 2> drun.log &
pid=$!
wait_for drun.log "epoch 2/$EPOCHS" $pid || bad "training from disk never got going"
kill -INT $pid
wait $pid
check "SIGINT from disk: exit status" "$?" "130"
[[ -f drun.emb.ckpt && -f drun.emb.glove-records ]] && ok || bad "the checkpoint and the records file it names stay"
ckpt_bytes=$(stat -c %s drun.emb.ckpt)
records_bytes=$(stat -c %s drun.emb.glove-records)
(( ckpt_bytes < records_bytes / 4 )) && ok || bad "the checkpoint ($ckpt_bytes bytes) does not hold the records ($records_bytes)"
cp -p drun.emb.glove-records saved.glove-records
touch drun.emb.glove-records
expect_error "records changed since the checkpoint" 1 "drun.emb.glove-records: the shuffled co-occurrence records changed" \
  "$ET" --resume drun.emb.ckpt
cp -p saved.glove-records drun.emb.glove-records
"$ET" --resume drun.emb.ckpt 2> dresume.log
check "resume from disk" "$?" "0"
cmp -s drun.emb dwhole.emb && ok || bad "resumed run from disk = uninterrupted run from disk, bit for bit"
[[ ! -e drun.emb.glove-records && ! -e drun.emb.ckpt ]] && ok || bad "the completed run removes its checkpoint and records"
set +m
check "no temporaries left" "$(litter)" "0"

finish
