#!/usr/bin/env bash
# embed-train under mpirun (OpenMPI) on one machine, over loopback: 2 and 3 ranks with
# one thread each. Outputs only from rank 0, the vocabulary and the schedule's word count
# of a single process, planted topics learnt as one process learns them, a missing corpus
# and a killed rank end the job non-zero with nothing written, and what is not
# data-parallel yet is refused. Skips (77) without mpirun or in a build without MPI.
# Usage: mpi_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (run from the repo root)
set -u

ET=$(realpath "${1:?usage: mpi_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
EQ=$(realpath "${2:?usage: mpi_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
GC=$(realpath "${3:?usage: mpi_cli_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
DATA=$(realpath data)

if ! command -v mpirun > /dev/null; then echo "skipped: no mpirun (Debian: openmpi-bin)"; exit 77; fi
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# CI runs as root; OpenMPI refuses that unless told, through its documented variables.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Loopback only, no oversubscription warnings: as many ranks as the test asks on 2 cores.
MPIRUN=(mpirun --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo -np)

if ! "$ET" --version | grep -q '^MPI: Open MPI'; then
  # A build without MPI must refuse mpirun rather than train the whole corpus on every rank.
  zcat "$DATA/text8-200k.txt.gz" > corpus.txt
  expect_error "built without MPI, under mpirun" 1 "built without MPI" \
    "${MPIRUN[@]}" 2 "$ET" --corpus corpus.txt -o v.emb --threads 1 --epochs 1
  [[ ! -e v.emb ]] && ok || bad "built without MPI: v.emb was written under mpirun"
  finish
  exit
fi

zcat "$DATA/text8-200k.txt.gz" > corpus.txt
words() { "$GC" -q "$1" -o - --to glove | cut -d' ' -f1 | md5sum | cut -d' ' -f1; }
FAST=(--dim 16 --epochs 2 --threads 1 --seed 3)

"$ET" --corpus corpus.txt -o one.emb "${FAST[@]}" 2> one.log
check "one process trains" "$?" "0"
one_words=$(grep -o 'epoch 1/2: .* [0-9]* words in' one.log | grep -o '[0-9]* words in')

for n in 2 3; do
  mkdir "np$n" && cd "np$n" || exit 1
  "${MPIRUN[@]}" "$n" "$ET" --corpus ../corpus.txt -o v.emb "${FAST[@]}" --sync-interval 0.02 > out.txt 2> err.txt
  check "mpirun -np $n trains" "$?" "0"
  check "-np $n: one output, nothing else" "$(ls)" "$(printf 'err.txt\nout.txt\nv.emb')"
  grep -q "counted on $n ranks" err.txt && ok || bad "-np $n: the corpus was not counted on the ranks: $(head -c 300 err.txt)"
  check "-np $n: the vocabulary of one process" "$(words v.emb)" "$(words ../one.emb)"
  check "-np $n: the schedule counts the corpus's words" \
    "$(grep -o 'epoch 1/2: .* [0-9]* words in' err.txt | grep -o '[0-9]* words in')" "$one_words"
  check "-np $n: logs from rank 0 only" "$(grep -c 'epoch 2/2' err.txt)" "1"
  "$EQ" v.emb the -k 3 > /dev/null && ok || bad "-np $n: embed-query reads the output"
  cd .. || exit 1
done

# --- planted topics: two groups of words that only meet their own group ---
awk 'BEGIN {
  srand(7)
  for (s = 0; s < 6000; s++) {
    g = s % 2 ? "a" : "b"; line = ""
    for (i = 0; i < 12; i++) line = line g int(rand() * 20) " filler" int(rand() * 50) " "
    print line
  }
}' > topics.txt
topic_hits() {  # how many of the 5 nearest neighbours of a0..a9 are a-words
  local hits=0
  for i in 0 1 2 3 4 5 6 7 8 9; do
    hits=$((hits + $("$EQ" "$1" "a$i" -k 5 --format tsv | cut -f3 | grep -c '^a')))
  done
  echo "$hits"
}
TOPICS=(--corpus topics.txt --dim 16 --epochs 3 --threads 1 --min-count 1 --sample 0)
"$ET" "${TOPICS[@]}" -o t1.emb -q
"${MPIRUN[@]}" 2 "$ET" "${TOPICS[@]}" -o t2.emb -q --sync-interval 0.02
single=$(topic_hits t1.emb) ranks=$(topic_hits t2.emb)
[[ $single -ge 45 ]] && ok || bad "one process learns the topics: $single of 50 neighbours"
[[ $ranks -ge 45 ]] && ok || bad "2 ranks learn the topics: $ranks of 50 neighbours (one process: $single)"

# --- failures end the whole job, with nothing written ---
mkdir fail && cd fail || exit 1
"${MPIRUN[@]}" 2 "$ET" --corpus missing.txt -o v.emb "${FAST[@]}" > out.txt 2> err.txt
status=$?
[[ $status -ne 0 ]] && ok || bad "a missing corpus: exit 0"
grep -q 'missing.txt: cannot open' err.txt && ok || bad "a missing corpus: no clear error: $(head -c 300 err.txt)"
[[ ! -e v.emb && $(litter) == 0 ]] && ok || bad "a missing corpus left files: $(ls)"
# A rank killed mid-run (SIGKILL: no chance to say anything) ends the job non-zero.
for i in 1 2 3 4 5 6 7 8; do cat ../corpus.txt; done > big.txt
"${MPIRUN[@]}" 2 "$ET" --corpus big.txt -o v.emb --dim 32 --epochs 20 --threads 1 > out.txt 2> err.txt &
job=$!
for _ in $(seq 100); do grep -q 'data parallel' err.txt 2> /dev/null && break; sleep 0.1; done
sleep 0.5
victim=$(pgrep -f "embed-train --corpus big.txt" | tail -1)
[[ -n $victim ]] && kill -KILL "$victim"
wait "$job"
status=$?
[[ $status -ne 0 ]] && ok || bad "a killed rank: exit 0"
[[ ! -e v.emb ]] && ok || bad "a killed rank: v.emb was written"
rm -f ./*.tmp-* 2> /dev/null  # rank 0 was killed by mpirun too: its temporary may stay, as after any SIGKILL
cd .. || exit 1

# --- what is not data-parallel yet is refused before anything is read ---
expect_error "glove under mpirun" 1 "--model glove is not data-parallel yet" \
  "${MPIRUN[@]}" 2 "$ET" --corpus corpus.txt -o g.emb --model glove --threads 1
[[ ! -e g.emb ]] && ok || bad "refused glove wrote its output"

finish
