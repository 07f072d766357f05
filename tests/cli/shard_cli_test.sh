#!/usr/bin/env bash
# embed-train --shard-tables: skip-gram's and CBOW's tables split across mpirun ranks
# (train/shards). In one process it gives the same bytes as a plain run; on 2 and 3 ranks
# with one thread each it is deterministic, keeps one process's vocabulary, and learns
# planted topics as one process does, with every optimizer's state beside the rows;
# Ctrl-C leaves a manifest and one shard a rank, which as many ranks resume to the bytes of
# the uninterrupted run (others refuse); a killed rank ends the job with nothing written;
# what is not sharded is refused. Skips (77) without mpirun or in a build without MPI.
# Usage: shard_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (run from the repo root)
set -u

ET=$(realpath "${1:?usage: shard_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
EQ=$(realpath "${2:?usage: shard_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
GC=$(realpath "${3:?usage: shard_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
DATA=$(realpath data)

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
zcat "$DATA/text8-200k.txt.gz" > corpus.txt
FAST=(--dim 16 --epochs 2 --threads 1 --seed 3)

# --- one process: the same arithmetic as a plain run, so the same bytes ---
"$ET" --corpus corpus.txt -o one.emb "${FAST[@]}" -q
"$ET" --corpus corpus.txt -o sharded.emb "${FAST[@]}" --shard-tables 2> err.txt
check "--shard-tables in one process trains" "$?" "0"
grep -q "tables sharded over 1 rank: each holds the 1024 most frequent rows" err.txt && ok ||
  bad "one process: no sharding line: $(grep -i shard err.txt)"
cmp -s one.emb sharded.emb && ok || bad "--shard-tables in one process: not the bytes of a plain run"

# --- refused: what is not sharded ---
expect_error "--shard-tables --model glove" 1 "--shard-tables: GloVe is trained data-parallel" \
  "$ET" --corpus corpus.txt -o g.emb --model glove --shard-tables
expect_error "--shard-tables --subwords" 1 "--shard-tables: --subwords is not sharded yet" \
  "$ET" --corpus corpus.txt -o g.emb --subwords --shard-tables
expect_error "--shard-tables --pq" 1 "compress them afterwards with glove-convert" \
  "$ET" --corpus corpus.txt -o g.emb --pq 4 --shard-tables
# A GPU trains a rank's rows from its host memory: device tables and mapped transfers are
# refused (before any GPU is looked for).
expect_error "--shard-tables --table device" 1 "--table device does not apply" \
  "$ET" --corpus corpus.txt -o g.emb --device auto --table device --shard-tables
expect_error "--shard-tables --host-transfer mapped" 1 "mapped transfers would pin every row of a round" \
  "$ET" --corpus corpus.txt -o g.emb --device auto --host-transfer mapped --shard-tables
[[ ! -e g.emb ]] && ok || bad "a refused run wrote its output"

if ! command -v mpirun > /dev/null || ! "$ET" --version | grep -q '^MPI: Open MPI'; then
  echo "skipped the ranks: no mpirun, or a build without MPI"
  finish
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo -np)
words() { "$GC" -q "$1" -o - --to glove | cut -d' ' -f1 | md5sum | cut -d' ' -f1; }

# --- 2 and 3 ranks: the vocabulary of one process, the same bytes twice ---
for n in 2 3; do
  mkdir "np$n" && cd "np$n" || exit 1
  "${MPIRUN[@]}" "$n" "$ET" --corpus ../corpus.txt -o v.emb "${FAST[@]}" --shard-tables --save-context -v \
    > out.txt 2> err.txt
  check "mpirun -np $n --shard-tables trains" "$?" "0"
  check "-np $n: the outputs, nothing else" "$(ls | grep -v -e out.txt -e err.txt | tr '\n' ' ')" "v.context.emb v.emb "
  grep -q "tables sharded over $n ranks" err.txt && ok || bad "-np $n: no sharding line: $(grep -i shard err.txt)"
  grep -q "of the rows past the hot ones that a round touched fetched" err.txt && ok || bad "-np $n: no rounds' summary"
  check "-np $n: the vocabulary of one process" "$(words v.emb)" "$(words ../one.emb)"
  check "-np $n: logs from rank 0 only" "$(grep -c 'epoch 2/2' err.txt)" "1"
  check "-np $n: embed-query reads the context vectors" "$("$EQ" v.context.emb the -k 3 --format tsv | wc -l)" "3"
  "${MPIRUN[@]}" "$n" "$ET" --corpus ../corpus.txt -o again.emb "${FAST[@]}" --shard-tables -q
  cmp -s v.emb again.emb && ok || bad "-np $n with one thread a rank: not the same bytes twice"
  cd .. || exit 1
done

# --- planted topics (as mpi_cli_test.sh's): ten groups of 8 words meeting only their own ---
planted_topics > topics.txt
# --sync-rows 8: most rows are sharded, not hot. Of 50 (2026-11-29, 2 cores): one process 50
# with each optimizer below; 2 ranks 50 with sgd, adam, rowadagrad and cbow (Adam 0 while
# the ranks' state changes were summed, not averaged). 3 ranks learn 24, as data-parallel
# ranks do: each trains 10,000-word batches between rounds of this 130-word vocabulary. Bar 45.
TOPICS=(--corpus topics.txt --dim 16 --epochs 3 --threads 1 --min-count 1 --sample 0 -q)
"$ET" "${TOPICS[@]}" -o t1.emb
single=$(topic_hits t1.emb)
[[ $single -ge 45 ]] && ok || bad "one process learns the topics: $single of 50 neighbours"
for opt in sgd adam rowadagrad; do
  "${MPIRUN[@]}" 2 "$ET" "${TOPICS[@]}" -o "t2-$opt.emb" --shard-tables --sync-rows 8 --optimizer "$opt"
  ranks=$(topic_hits "t2-$opt.emb")
  [[ $ranks -ge 45 ]] && ok || bad "2 ranks, --optimizer $opt: $ranks of 50 neighbours (one process: $single)"
done
"${MPIRUN[@]}" 2 "$ET" "${TOPICS[@]}" -o t2-cbow.emb --shard-tables --sync-rows 8 --model cbow
ranks=$(topic_hits t2-cbow.emb)
[[ $ranks -ge 45 ]] && ok || bad "2 ranks, cbow: $ranks of 50 neighbours"

# --- Ctrl-C: a manifest and a shard a rank; as many ranks resume to the uninterrupted bytes ---
mkdir stop && cd stop || exit 1
for i in 1 2 3 4 5 6 7 8; do cat ../corpus.txt; done > big.txt
LONG=(--corpus big.txt --dim 16 --epochs 24 --threads 1 --seed 5 --shard-tables --sync-rows 64)
"${MPIRUN[@]}" 2 "$ET" "${LONG[@]}" -o whole.emb -q
interrupt_mpirun 'epoch 1/24' "${MPIRUN[@]}" 2 "$ET" "${LONG[@]}" -o v.emb
status=$?
[[ $status -ne 0 ]] && ok || bad "Ctrl-C under mpirun: exit 0"
grep -q 'checkpoint written to v.emb.ckpt; resume with: mpirun -np 2 embed-train --resume v.emb.ckpt' err.txt && ok ||
  bad "Ctrl-C: no checkpoint message: $(tail -c 400 err.txt)"
check "Ctrl-C: the manifest and a shard a rank, no vectors" \
  "$(ls | grep '^v\.' | sed 's/\.[0-9a-f]*$/.ID/' | tr '\n' ' ')" \
  "v.emb.ckpt v.emb.ckpt.shard-0-of-2.ID v.emb.ckpt.shard-1-of-2.ID "
expect_error "a sharded 2-rank checkpoint on 3 ranks" 1 "cannot go on in a job of 3 ranks" \
  "${MPIRUN[@]}" 3 "$ET" --resume v.emb.ckpt
expect_error "--init from a sharded checkpoint" 1 "keeps its rows in one shard per rank" \
  "$ET" --corpus big.txt -o i.emb --init v.emb.ckpt
# A shard of another checkpoint (or none) is refused, naming the file.
shard=$(ls v.emb.ckpt.shard-1-of-2.*)
mv "$shard" keep.shard
expect_error "a missing shard" 1 "rank 1 could not read its shard" "${MPIRUN[@]}" 2 "$ET" --resume v.emb.ckpt
check "a missing shard: no output begun" "$(ls | grep -c '^v\.emb\.tmp')" "0"
mv keep.shard "$shard"
"${MPIRUN[@]}" 2 "$ET" --resume v.emb.ckpt > out.txt 2> err.txt
check "mpirun -np 2 --resume a sharded checkpoint" "$?" "0"
grep -q 'resuming skipgram training at epoch' err.txt && ok || bad "resumed: no resuming line: $(head -c 400 err.txt)"
check "resumed: the vectors alone are left" "$(ls | grep '^v\.' | tr '\n' ' ')" "v.emb "
cmp -s v.emb whole.emb && ok || bad "resumed: not the bytes of the uninterrupted run"
cd .. || exit 1

# --- a rank killed mid-run ends the job non-zero, with nothing written; the last
# checkpoint (--checkpoint: one after every epoch) resumes ---
mkdir kill && cd kill || exit 1
"${MPIRUN[@]}" 2 "$ET" --corpus ../stop/big.txt -o v.emb --dim 32 --epochs 20 --threads 1 --shard-tables \
  --checkpoint v.ckpt > out.txt 2> err.txt &
job=$!
wait_for err.txt 'epoch 2/20'
victim=$(pgrep -f "embed-train --corpus ../stop/big.txt" | tail -1)
[[ -n $victim ]] && kill -KILL "$victim"
wait "$job"
status=$?
[[ $status -ne 0 ]] && ok || bad "a killed rank: exit 0"
[[ ! -e v.emb ]] && ok || bad "a killed rank: v.emb was written"
rm -f ./*.tmp-* 2> /dev/null  # rank 0 was killed by mpirun too: its temporaries may stay, as after any SIGKILL
# The kill comes as epoch 2's checkpoint is written: a shard no manifest names may be left
# (one is made here, so that the check below never depends on the kill's timing).
touch v.ckpt.shard-1-of-2.00000000deadbeef
"${MPIRUN[@]}" 2 "$ET" --resume v.ckpt > out.txt 2> err.txt
check "a killed rank: the last checkpoint resumes" "$?" "0"
grep -q 'resuming skipgram training at epoch [2-9]' err.txt && ok || bad "resumed after a kill: $(grep resuming err.txt)"
check "resumed after a kill: the vectors, and the checkpoint kept (--checkpoint) with its shards, no other" \
  "$(ls | grep -v -e out.txt -e err.txt | sed 's/\.[0-9a-f]*$/.ID/' | tr '\n' ' ')" \
  "v.ckpt v.ckpt.shard-0-of-2.ID v.ckpt.shard-1-of-2.ID v.emb "
cd .. || exit 1

finish
